"""One drop an item in a snapshot's drops table, whatever order the build's days were built in.

The drops table is every stage's drop files of the working folder, stored a part a file. A day
built again after a later day (a rerun after a kill, two builds sharing a working folder) can
record a second drop for an item another file already explains: an article displaced by a copy
from a later day is that day's ``dedup/superseded`` drop in a fresh build, but also its own
day's ``near_duplicate`` once its day is deduplicated again; and the question generator,
reading a day's kept articles before the later day displaced one, records a drop for an article
that had already left the build. So the table would depend on the build's history.

An item leaves the build once: of the files that drop it, the earliest stage in pipeline order
keeps it, and within one stage split by day the latest day (its decision came last and names the
copy that won). Only the files that lose a row are rewritten (to ``work/drops/one_per_item/``,
from this build's files alone, the folder cleared of any other); an item's ids are the only
columns read of the others, so an unchanged day still costs no rewrite and its part is shared.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from pastcast.io import write_parquet

STAGE_ORDER = ("corpus", "ingest", "dedup", "articles", "markets", "social", "generate", "filter")
REWRITTEN = Path("drops") / "one_per_item"
_KEY = re.compile(r"^(?:day=(?P<day>[^/]+)/(?P<day_stage>[a-z_]+)|stage=(?P<stage>[a-z_]+))$")


def _priority(key: str) -> tuple:
    """Lower wins: the earlier stage, then (within a stage split by day) the later day."""
    m = _KEY.match(key)
    stage = (m.group("day_stage") or m.group("stage")) if m else key
    rank = STAGE_ORDER.index(stage) if stage in STAGE_ORDER else len(STAGE_ORDER)
    day = (m.group("day") or "") if m else ""
    return rank, tuple(-ord(c) for c in day)  # a later day first


def one_drop_per_item(work_dir: str | Path, files: list[tuple[str, Path]]) -> list[tuple[str, Path]]:
    """The drop files ``(key, path)`` of a build with every item dropped in one file only (see
    the module doc); a file that loses rows is replaced by its rewrite under ``REWRITTEN``."""
    work = Path(work_dir)
    present = [(key, path) for key, path in files if path.is_file()]
    folder = work / REWRITTEN
    keep: set[Path] = set()
    out = list(present)
    if present:
        order = sorted(range(len(present)), key=lambda i: _priority(present[i][0]))
        rank = {i: n for n, i in enumerate(order)}
        ids = pl.concat([pl.scan_parquet(path).select(pl.col("item_kind").cast(pl.String),
                                                      pl.col("item_id").cast(pl.String))
                         .with_columns(pl.lit(rank[i], pl.Int64).alias("_rank")) for i, (_k, path) in
                         enumerate(present)]).filter(pl.col("item_id").is_not_null() & (pl.col("item_kind") != "file")).unique()
        conflicts = (ids.group_by("item_kind", "item_id").agg(pl.col("_rank").min().alias("_winner"),
                                                               pl.len().alias("_files"))
                     .filter(pl.col("_files") > 1).collect())
        if conflicts.height:
            losers = (ids.collect().join(conflicts, on=["item_kind", "item_id"])
                      .filter(pl.col("_rank") != pl.col("_winner")))
            for i, (key, path) in enumerate(present):
                lost = losers.filter(pl.col("_rank") == rank[i]).select("item_kind", "item_id")
                if lost.is_empty():
                    continue
                kept = pl.read_parquet(path).join(lost, on=["item_kind", "item_id"], how="anti")
                target = folder / (re.sub(r"[^A-Za-z0-9_.-]+", "_", key) + ".parquet")
                write_parquet(kept, target)
                keep.add(target)
                out[i] = (key, target)
    for stale in folder.glob("*.parquet") if folder.is_dir() else []:
        if stale not in keep:
            stale.unlink(missing_ok=True)  # another build's rewrite: never read as this one's
    return out
