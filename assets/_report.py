"""Stage reports and check outcomes to Dagster metadata (shared by every asset)."""

from __future__ import annotations

import functools
import inspect
from datetime import date

import dagster as dg

from assets._partitions import DAYS_TAG
from pastcast.daily import parse_day_list
from pastcast.pipeline import StageReport
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
                                         "per_day": dg.MetadataValue.json(check.per_day)})


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
