"""What every filter step examined and what it skipped, by question kind and by source.

A share of "clean" questions means something only over the questions the checks looked at. Each
step reports the questions it could not judge (``StepResult.skipped``: id -> reason); every
other question it was handed counts as examined. ``step_coverage`` counts them by the question's
kind (``leak_probes.kind_expr``: binary for yes/no, numeric, multiple_choice, free_form) and by
its source (news, market, imported), every kind and source present with zeros, so a reader sees
at once that nothing was passed over: ``{"by_kind": {kind: {"examined", "skipped",
"skipped_reasons": {reason: n}}}, "by_source": {...}}``.

``filter.json`` (key ``coverage``: step -> kind -> counts, ``coverage_by_source`` alike), the
filter stage's report in the snapshot manifest and ``audit.md`` carry these counts.
"""

from __future__ import annotations

import polars as pl

from pastcast.questions.leak_probes import KINDS, SOURCE_KINDS, kind_expr, source_kind_expr


def _counts(frame: pl.DataFrame, by: str, keys: tuple[str, ...]) -> dict[str, dict]:
    out = {k: {"examined": 0, "skipped": 0, "skipped_reasons": {}} for k in keys}
    grouped = frame.group_by(by, "reason").len().sort(by, "reason", nulls_last=True)
    for key, reason, n in grouped.iter_rows():
        entry = out.setdefault(key, {"examined": 0, "skipped": 0, "skipped_reasons": {}})
        if reason is None:
            entry["examined"] += n
        else:
            entry["skipped"] += n
            entry["skipped_reasons"][reason] = entry["skipped_reasons"].get(reason, 0) + n
    return out


def step_coverage(questions: pl.DataFrame, skipped: dict[str, str]) -> dict[str, dict]:
    """The examined and skipped counts of one step over the ``questions`` it was handed."""
    frame = questions.select("question_id", kind_expr().alias("kind"), source_kind_expr().alias("source"))
    skips = pl.DataFrame({"question_id": list(skipped), "reason": list(skipped.values())},
                         schema={"question_id": pl.String, "reason": pl.String})
    frame = frame.join(skips, on="question_id", how="left", maintain_order="left")
    return {"by_kind": _counts(frame, "kind", KINDS), "by_source": _counts(frame, "source", SOURCE_KINDS)}


def totals(coverage: dict[str, dict]) -> dict[str, int]:
    """A step's coverage summed over kinds."""
    kinds = coverage["by_kind"].values()
    return {"examined": sum(k["examined"] for k in kinds), "skipped": sum(k["skipped"] for k in kinds)}


def render_coverage(coverage: dict[str, dict[str, dict]]) -> list[str]:
    """The audit's section: per step, per kind, examined / skipped (with why); Markdown lines."""
    lines = ["## What each step examined", "",
             "Every question a step was handed counts as examined or as skipped with a reason; a share "
             "of clean questions holds only over what was examined. Kinds: binary (yes/no), numeric, "
             "multiple_choice, free_form.", "",
             "| step | kind | examined | skipped | why skipped |", "|---|---|---:|---:|---|"]
    for step, cov in coverage.items():
        for kind, c in cov["by_kind"].items():
            if not c["examined"] and not c["skipped"]:
                continue
            why = ", ".join(f"{r} {n:,}" for r, n in sorted(c["skipped_reasons"].items())) or "-"
            lines.append(f"| {step} | {kind} | {c['examined']:,} | {c['skipped']:,} | {why} |")
    lines += ["", "| step | source | examined | skipped |", "|---|---|---:|---:|"]
    for step, cov in coverage.items():
        for source, c in cov["by_source"].items():
            if c["examined"] or c["skipped"]:
                lines.append(f"| {step} | {source} | {c['examined']:,} | {c['skipped']:,} |")
    return lines
