"""Stage reports and check outcomes to Dagster metadata (shared by every asset)."""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from datetime import date
from pathlib import Path

import dagster as dg

from assets._partitions import DAYS_TAG
from pastcast.daily import NO_INPUT, read_day_report
from pastcast.sources.crawl_days import parse_day_list
from pastcast.pipeline import NEWS_QUESTIONS, StageReport
from pastcast.stage_checks import StageCheck


def materialized(report: StageReport, check_results: list[dg.AssetCheckResult] = ()) -> dg.MaterializeResult:
    metadata: dict = {k: v for k, v in report.as_metadata().items() if not isinstance(v, dict | list)}
    metadata.update({k: dg.MetadataValue.json(v) for k, v in report.extra.items() if isinstance(v, dict | list)})
    metadata.update({f"path/{k}": dg.MetadataValue.path(v) for k, v in report.outputs.items()})
    metadata["dagster/row_count"] = report.extra.get("table_rows", report.rows_out)
    return dg.MaterializeResult(metadata=metadata, check_results=list(check_results))


def warning(name: str, check: StageCheck) -> dg.AssetCheckResult:
    """A stage check's outcome as a warning (it never blocks the graph)."""
    return dg.AssetCheckResult(check_name=name, passed=check.passed, severity=dg.AssetCheckSeverity.WARN,
                               metadata={"problems": len(check.problems), "examples": "; ".join(check.problems[:5]),
                                         "per_day": dg.MetadataValue.json(check.per_day), **check.metadata})


# -- daily assets: each partition's own counts ------------------------------------------------------
# A range of days runs as one step, and Dagster copies the step's metadata into every
# partition's event. So a daily asset's step metadata holds only the run's totals, under
# ``run/``; each day's own counts (read from the day reports the library wrote) are set on its
# partition alone, under the plain keys.

def _day_counts(work: Path, day: date, stage: str) -> dict | None:
    """A day's counts at ``stage``: ingest and dedup from the day's report, the news questions
    from the day's generation summary; None when the day has none."""
    if stage != "generate_news":
        report = read_day_report(work, day, stage)
        if report is None:
            return None
        counts = {"rows_in": report["rows_in"], "rows_out": report["rows_out"],
                  "dropped": sum(report["drops"].values()), **{f"drop/{k}": v for k, v in report["drops"].items()}}
        if stage == "ingest":
            counts.update(warc_files=len(report.get("warc_files", [])),
                          files_failed=len(report.get("files_failed", [])))
        no_input = report.get(NO_INPUT) or (read_day_report(work, day, "ingest") or {}).get(NO_INPUT)
    else:
        path = work / NEWS_QUESTIONS / f"day={day.isoformat()}" / "generate.json"
        if not path.is_file():
            return None
        summary = json.loads(path.read_text())
        drops = summary.get("drops_by_reason") or {}
        counts = {"rows_in": summary["articles"], "rows_out": summary["questions"], "articles": summary["articles"],
                  "questions": summary["questions"], "dropped": sum(drops.values()),
                  **{f"drop/{k}": v for k, v in drops.items()}}
        no_input = (read_day_report(work, day, "ingest") or {}).get(NO_INPUT)
    counts["dagster/row_count"] = counts["rows_out"]
    if no_input:
        counts[NO_INPUT] = no_input
    return counts


def _run_totals(report: StageReport) -> dict:
    """The run's totals, each key under ``run/``: never mistaken for one day's."""
    totals = {"run/days": report.extra.get("days", len(report.extra.get("per_day") or {})),
              "run/rows_in": report.rows_in, "run/rows_out": report.rows_out, "run/dropped": sum(report.drops.values())}
    if report.drops:
        totals["run/drops"] = dg.MetadataValue.json(report.drops)
    for key, value in report.extra.items():
        if key in ("days", "per_day", "llm") or value in ({}, None):
            continue
        totals[f"run/{key}"] = dg.MetadataValue.json(value) if isinstance(value, dict | list) else value
    llm = report.extra.get("llm") or {}
    totals.update({f"run/llm/{k}": v for k, v in llm.items() if k in ("requests", "cache_hits", "tokens")})
    if llm:  # None when the model has no known price
        totals["run/llm/cost_usd"] = llm["cost_usd"] if llm.get("cost_usd") is not None else "unknown"
    totals.update({f"path/{k}": dg.MetadataValue.path(v) for k, v in report.outputs.items()})
    return totals


def daily_materialized(context: dg.AssetExecutionContext, work: Path, days: list[date], stage: str,
                       report: StageReport, check_results: list[dg.AssetCheckResult] = (),
                       no_file: Callable[[date], str | None] | None = None) -> dg.MaterializeResult:
    """The materialization of a daily asset's run: each partition with its own day's counts,
    the run's totals under ``run/``. A partition of the range left out by the run's days tag
    shows its day as it stands (``built_by_this_run`` False), or that it has no data: no input
    (``no_file(day)``, the reason when the day has no file) or not built."""
    asked = set(days)
    for key in context.partition_keys:
        day = date.fromisoformat(key)
        counts = _day_counts(work, day, stage)
        if counts is None:
            reason = no_file(day) if no_file else None
            counts = {"rows_out": 0, "dagster/row_count": 0,
                      **({NO_INPUT: reason} if reason else {"not_built": f"{day}: not built"})}
        context.add_asset_metadata({**counts, "built_by_this_run": day in asked}, partition_key=key)
    return dg.MaterializeResult(metadata=_run_totals(report), check_results=list(check_results))


def partition_days(context: dg.AssetExecutionContext) -> list[date]:
    """The days of the run: one partition, or a range run as one (single-run backfill), less
    the days its ``pastcast/days`` tag leaves out (the gaps of a landing built as one run)."""
    days = [date.fromisoformat(key) for key in context.partition_keys]
    listed = context.run.tags.get(DAYS_TAG)
    if not listed:
        return days
    wanted = set(parse_day_list(listed))
    if not wanted <= set(days):
        raise dg.Failure(description=f"tag {DAYS_TAG}={listed!r} names days outside the run's partitions "
                                     f"{days[0]}..{days[-1]}", allow_retries=False)
    return [d for d in days if d in wanted]


def bad_input_is_final(fn):
    """A ValueError (bad input or configuration) fails the step at once: retrying cannot fix it.
    Anything else (I/O, a provider outage) is left to the asset's retry policy."""

    def final(exc: ValueError) -> dg.Failure:
        return dg.Failure(description=f"{type(exc).__name__}: {exc}", allow_retries=False)

    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def steps(*args, **kwargs):
            try:
                yield from fn(*args, **kwargs)
            except ValueError as exc:
                raise final(exc) from exc

        return steps

    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ValueError as exc:
            raise final(exc) from exc

    return run
