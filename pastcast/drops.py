"""Drops are data: every filter says keep or drop, and each drop has a reason code."""

from __future__ import annotations

from dataclasses import dataclass, fields

import polars as pl

from pastcast.schemas import DROPS


@dataclass(frozen=True)
class Drop:
    item_id: str
    item_kind: str
    stage: str
    reason: str
    detail: str = ""


def fields_of(record) -> dict:
    """A flat dataclass record (a drop, an evidence record) as a dict, one level deep: what
    ``dataclasses.asdict`` gives for records without nested dataclasses, without its deep copy
    (the filter converts tens of thousands of them each build)."""
    return {f.name: getattr(record, f.name) for f in fields(record)}


def drops_frame(drops: list[Drop]) -> pl.DataFrame:
    # built column by column: a filter run drops thousands of questions, and rows of dicts cost 3x more
    return pl.DataFrame({c: [getattr(d, c) for d in drops] for c in DROPS}, schema=dict(DROPS))


def counts_by_reason(drops: pl.DataFrame) -> dict[str, int]:
    """{"stage/reason": count}, sorted by key, for manifests and metadata."""
    if drops.is_empty():
        return {}
    counted = drops.group_by("stage", "reason").len().sort("stage", "reason")
    return {f"{s}/{r}": n for s, r, n in counted.iter_rows()}
