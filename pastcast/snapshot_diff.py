"""What changed between two snapshot versions: ``diff_snapshots(a, b)`` (A older, B newer).

For questions and articles it finds the ids added, removed and changed (present in both with a
differing column, compared per column by hash so no row is ever held twice in memory), and why:
a removed item's reason is its ``stage/reason`` in B's drops table (else ``not_in_inputs``: its
source is gone or outside the window); an added item's reason is ``was_dropped:<stage/reason>``
when A's drops had it (else ``new_input``). It also compares the two manifests: window,
partitions, inputs, row counts, code and parent version.

Everything is read with lazy scans of only the columns needed, so it scales to millions of
articles. This module must not import dagster.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from pastcast.snapshot import read_manifest
from pastcast.store import scan_table, table_files

KEYS = {"questions": "question_id", "articles": "article_id"}
NOT_IN_INPUTS = "not_in_inputs"
NEW_INPUT = "new_input"
WAS_DROPPED = "was_dropped:"
_HASH_SEED = 0x5EED


@dataclass
class TableDiff:
    """One table's differences. ``added``/``removed`` have columns (id, reason); ``changed`` has
    (id, columns: list of changed column names); ids are sorted."""

    kind: str
    key: str
    rows_a: int
    rows_b: int
    added: pl.DataFrame
    removed: pl.DataFrame
    changed: pl.DataFrame
    column_counts: dict[str, int]  # changed column -> rows where it differs
    columns_added: list[str] = field(default_factory=list)  # in B's schema, not A's
    columns_removed: list[str] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)  # example id -> title (A or B)

    @property
    def counts(self) -> dict[str, int]:
        return {"added": self.added.height, "removed": self.removed.height,
                "changed": self.changed.height}

    def reasons(self, which: str) -> dict[str, int]:
        """Counts by reason of ``added`` or ``removed``, largest first."""
        df = getattr(self, which)
        if df.is_empty():
            return {}
        counts = df.group_by("reason").len().sort(["len", "reason"], descending=[True, False])
        return dict(zip(counts["reason"].to_list(), counts["len"].to_list()))

    def examples(self, which: str, limit: int = 10) -> list[dict]:
        df = getattr(self, which).head(limit)
        rows = []
        for r in df.iter_rows(named=True):
            row = {"id": r[self.key]}
            if "reason" in r:
                row["reason"] = r["reason"]
            if "columns" in r:
                row["columns"] = r["columns"]
            if r[self.key] in self.titles:
                row["title"] = self.titles[r[self.key]]
            rows.append(row)
        return rows

    def as_dict(self, limit: int = 10) -> dict:
        return {
            "key": self.key,
            "rows": {"a": self.rows_a, "b": self.rows_b, "delta": self.rows_b - self.rows_a},
            "counts": self.counts,
            "added": {"count": self.added.height, "by_reason": self.reasons("added"),
                      "examples": self.examples("added", limit)},
            "removed": {"count": self.removed.height, "by_reason": self.reasons("removed"),
                        "examples": self.examples("removed", limit)},
            "changed": {"count": self.changed.height, "by_column": self.column_counts,
                        "examples": self.examples("changed", limit)},
            "schema": {"columns_added": self.columns_added, "columns_removed": self.columns_removed},
        }


@dataclass
class SnapshotDiff:
    a: Path
    b: Path
    manifest: dict
    tables: dict[str, TableDiff]

    @property
    def identical(self) -> bool:
        return not any(sum(t.counts.values()) for t in self.tables.values())

    def as_dict(self, limit: int = 10) -> dict:
        return {"a": str(self.a), "b": str(self.b), "manifest": self.manifest,
                "tables": {kind: t.as_dict(limit) for kind, t in self.tables.items()}}


def diff_snapshots(a_folder: str | Path, b_folder: str | Path,
                   kinds: tuple[str, ...] = ("questions", "articles"),
                   title_limit: int = 10) -> SnapshotDiff:
    """Compare snapshot folder ``a_folder`` (older) with ``b_folder`` (newer).
    ``title_limit`` ids per category get their title looked up (for examples)."""
    a, b = Path(a_folder), Path(b_folder)
    ma, mb = read_manifest(a), read_manifest(b)
    tables = {kind: _diff_table(a, b, ma, mb, kind, KEYS[kind], title_limit) for kind in kinds}
    return SnapshotDiff(a=a, b=b, manifest=diff_manifests(ma, mb), tables=tables)


# --- manifests -------------------------------------------------------------------------------


def diff_manifests(ma: dict, mb: dict) -> dict:
    """The manifest fields that matter for a diff, side by side, with inputs and row deltas."""
    def pair(key: str) -> dict:
        return {"a": ma.get(key), "b": mb.get(key), "same": ma.get(key) == mb.get(key)}

    result = {
        "name": pair("name"), "version": pair("version"), "created_at": pair("created_at"),
        "window": pair("window"), "code_version": pair("code_version"),
        "parent_version": pair("parent_version"),
    }
    if "partitions" in ma or "partitions" in mb:
        result["partitions"] = pair("partitions")
    result["inputs"] = _diff_inputs(ma.get("inputs") or [], mb.get("inputs") or [])
    ta, tb = ma.get("tables") or {}, mb.get("tables") or {}
    result["rows"] = {t: {"a": (ta.get(t) or {}).get("rows", 0), "b": (tb.get(t) or {}).get("rows", 0),
                          "delta": (tb.get(t) or {}).get("rows", 0) - (ta.get(t) or {}).get("rows", 0)}
                      for t in [*ta, *[t for t in tb if t not in ta]]}
    da, db = ma.get("drops_by_reason") or {}, mb.get("drops_by_reason") or {}
    result["drops_by_reason"] = {r: {"a": da.get(r, 0), "b": db.get(r, 0), "delta": db.get(r, 0) - da.get(r, 0)}
                                 for r in sorted(set(da) | set(db)) if da.get(r, 0) != db.get(r, 0)}
    return result


def _diff_inputs(ia: list[dict], ib: list[dict]) -> dict:
    by_a = {i["file"]: i for i in ia}
    by_b = {i["file"]: i for i in ib}
    return {
        "a": len(ia), "b": len(ib),
        "added": sorted(f for f in by_b if f not in by_a),
        "removed": sorted(f for f in by_a if f not in by_b),
        "changed": sorted(f for f in by_a if f in by_b and by_a[f].get("sha256") != by_b[f].get("sha256")),
    }


# --- tables ----------------------------------------------------------------------------------


def _scan(folder: Path, manifest: dict, table: str, key: str) -> pl.LazyFrame:
    if table_files(folder, table, manifest):
        return scan_table(folder, table, manifest)
    return pl.LazyFrame(schema={key: pl.String})  # an older snapshot without the table


def _collect(lf: pl.LazyFrame) -> pl.DataFrame:
    return lf.collect(engine="streaming")


def _diff_table(a: Path, b: Path, ma: dict, mb: dict, kind: str, key: str,
                title_limit: int) -> TableDiff:
    la, lb = _scan(a, ma, kind, key), _scan(b, mb, kind, key)
    sa, sb = la.collect_schema(), lb.collect_schema()
    ids_a = la.select(key).unique()
    ids_b = lb.select(key).unique()
    rows_a = _collect(la.select(pl.len())).item()
    rows_b = _collect(lb.select(pl.len())).item()

    removed = _collect(ids_a.join(ids_b, on=key, how="anti"))
    added = _collect(ids_b.join(ids_a, on=key, how="anti"))
    removed = _with_reason(removed, _scan(b, mb, "drops", "item_id"), key, "", NOT_IN_INPUTS)
    added = _with_reason(added, _scan(a, ma, "drops", "item_id"), key, WAS_DROPPED, NEW_INPUT)

    common = [c for c in sa if c in sb and c != key]
    changed, column_counts = _changed(la, lb, sa, sb, key, common)

    titles = {}
    if "title" in sa or "title" in sb:
        titles = _titles(la if "title" in sa else None, lb if "title" in sb else None, key,
                         [*added[key].head(title_limit), *changed[key].head(title_limit)],
                         [*removed[key].head(title_limit)])
    return TableDiff(kind=kind, key=key, rows_a=rows_a, rows_b=rows_b, added=added, removed=removed,
                     changed=changed, column_counts=column_counts,
                     columns_added=[c for c in sb if c not in sa],
                     columns_removed=[c for c in sa if c not in sb], titles=titles)


def _with_reason(ids: pl.DataFrame, drops: pl.LazyFrame, key: str, prefix: str,
                 default: str) -> pl.DataFrame:
    """``ids`` sorted, with a ``reason`` column from the other snapshot's drops table."""
    ids = ids.sort(key)
    if ids.is_empty():
        return ids.with_columns(reason=pl.lit(None, dtype=pl.String))
    schema = drops.collect_schema()
    if not {"item_id", "stage", "reason"} <= set(schema):
        return ids.with_columns(reason=pl.lit(default))
    hits = _collect(
        drops.select("item_id", "stage", "reason")
        .join(ids.lazy().select(pl.col(key).alias("item_id")), on="item_id", how="semi")
        .with_columns(drop_reason=pl.concat_str([pl.col("stage"), pl.col("reason")], separator="/",
                                                ignore_nulls=True))
        .group_by("item_id").agg(pl.col("drop_reason").first())  # one drop per item in practice
    )
    return (ids.join(hits, left_on=key, right_on="item_id", how="left")
            .with_columns(reason=pl.when(pl.col("drop_reason").is_null()).then(pl.lit(default))
                          .otherwise(pl.lit(prefix) + pl.col("drop_reason")))
            .select(key, "reason").sort(key))


def _hashed(lf: pl.LazyFrame, schema: pl.Schema, key: str, columns: list[str],
            want: dict[str, pl.DataType]) -> pl.LazyFrame:
    """Key plus one u64 hash per column (cast to ``want``'s type where the two sides differ)."""
    exprs = []
    for c in columns:
        col = pl.col(c) if schema[c] == want[c] else pl.col(c).cast(want[c], strict=False)
        exprs.append(col.hash(_HASH_SEED).alias(c))
    # a duplicated id (should not happen) counts once: its first row is compared
    return lf.select(pl.col(key), *exprs).unique(subset=[key], keep="any")


def _changed(la: pl.LazyFrame, lb: pl.LazyFrame, sa: pl.Schema, sb: pl.Schema, key: str,
             common: list[str]) -> tuple[pl.DataFrame, dict[str, int]]:
    empty = pl.DataFrame(schema={key: pl.String, "columns": pl.List(pl.String)})
    if not common:
        return empty, {}
    # where a column's type changed, compare both as text (scalars) so equal values still match
    want = {c: sa[c] if sa[c] == sb[c] else pl.String for c in common}
    ha = _hashed(la, sa, key, common, want)
    hb = _hashed(lb, sb, key, common, want)
    diffs = (ha.join(hb, on=key, how="inner", suffix="__b")
             .select(pl.col(key), *[(pl.col(c) != pl.col(f"{c}__b")).alias(c) for c in common])
             .filter(pl.any_horizontal(common)))
    flags = _collect(diffs)
    if flags.is_empty():
        return empty, {}
    sums = flags.select(pl.col(common).sum()).row(0, named=True)
    column_counts = dict(sorted(((c, n) for c, n in sums.items() if n), key=lambda kv: (-kv[1], kv[0])))
    changed = (flags.select(
        pl.col(key),
        pl.concat_list([pl.when(pl.col(c)).then(pl.lit(c)).otherwise(pl.lit(None, dtype=pl.String))
                        for c in common]).list.drop_nulls().alias("columns"))
        .sort(key))
    return changed, column_counts


def _titles(la: pl.LazyFrame | None, lb: pl.LazyFrame | None, key: str,
            from_b: list[str], from_a: list[str]) -> dict[str, str]:
    titles = {}
    for lf, ids in ((la, from_a), (lb, from_b)):
        if lf is None or not ids:
            continue
        rows = _collect(lf.select(key, "title").filter(pl.col(key).is_in(ids)))
        titles.update({k: t for k, t in rows.iter_rows() if t is not None})
    return titles
