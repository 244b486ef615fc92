"""The news stages by crawl day, so a new day is built without touching the others.

Each WARC file belongs to one crawl day (``pastcast.sources.crawl_days``). A day's files are ingested, then deduplicated
against every day built before it (a persistent index; concurrent days take turns), then turned
into candidate questions. Per day, under the working folder::

    news/day=YYYY-MM-DD/ingest/{articles,drops}.parquet   extracted and dated articles
    news/day=YYYY-MM-DD/dedup/{articles,drops}.parquet    the day's first copies
    news/day=YYYY-MM-DD/reports/{ingest,dedup}.json       counts, for the stage checks
    dedup_state/                                          the index of every day's articles

``gather_articles`` then joins the built days into the one ``articles`` table the question
filter and the snapshot read. A day's dedup tables record its decisions as they stood when it
was built (a copy found on a later day does not rewrite an earlier day); the gathered table is
read from the index as it stands: the articles it keeps (the earliest copy of each cluster,
whatever order the days were built in: when an earlier copy of a story arrives on a later day,
a backfill, the copy kept before is left out), with their cluster's id, size and domains
counted from it. So the same days give the same table whether they were built in order, in
reverse, again, or by two builds at once.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import polars as pl

from pastcast.curate.dedup import DedupConfig
from pastcast.curate.dedup_files import dedup_files, state_lock
from pastcast.curate.dedup_index import batches_touched_since, index_mark, read_clusters
from pastcast.curate.extract import ExtractConfig
from pastcast.curate.ingest import failed_in, ingest_inputs, merge_parts, records_in
from pastcast.io import locked, sha256_file, sink_parquet, write_json
from pastcast.schemas import ARTICLES, DROPS, empty, scan_parts
from pastcast.search.visibility import combined_window, news_window, window_bounds
from pastcast.sources.crawl_days import DayFiles, files_digest
from pastcast.sources.remote import expand_inputs

NEWS = Path("news")
DEDUP_STATE = "dedup_state"
DAY_FOLDER = re.compile(r"^day=(\d{4}-\d{2}-\d{2})$")
INGEST_LOCKS = Path("ingest") / "locks"  # one file a day: builds of the same day take turns ingesting it
DAYS_LOCKED_AT_ONCE = 64  # days ingested under their locks at once (each lock is an open file)


def day_dir(work_dir: Path, day: date) -> Path:
    return Path(work_dir) / NEWS / f"day={day.isoformat()}"


def _days_with(work_dir: Path, table: str) -> list[date]:
    folder = Path(work_dir) / NEWS
    found = []
    for child in folder.iterdir() if folder.is_dir() else []:
        match = DAY_FOLDER.match(child.name)
        if match and (child / table).is_file():
            found.append(date.fromisoformat(match.group(1)))
    return sorted(found)


def built_days(work_dir: Path) -> list[date]:
    """Days whose dedup finished from files of their own: the partitions a gathered table
    covers. A day asked for that had no WARC file (``no_input_days``) is not built."""
    empty = no_input_days(work_dir)
    return [d for d in _days_with(work_dir, "dedup/articles.parquet") if d not in empty]


def no_input_days(work_dir: Path) -> dict[date, str]:
    """Days a build was asked for and found no WARC file for, with the reason recorded then
    (until files land for the day and it is built from them)."""
    found = {}
    for d in _days_with(work_dir, "reports/ingest.json"):
        reason = (read_day_report(work_dir, d, "ingest") or {}).get(NO_INPUT)
        if reason:
            found[d] = reason
    return found


def read_day_report(work_dir: Path, day: date, stage: str) -> dict | None:
    path = day_dir(work_dir, day) / "reports" / f"{stage}.json"
    return json.loads(path.read_text()) if path.is_file() else None


NO_INPUT = "no_input"  # a day report's flag: the day had no WARC file when asked for (the reason)
KEPT = "is kept"  # in the reason of a day built before whose files are gone: its build stands


def no_input_reason(day: date, source: str) -> str:
    return f"no WARC file for {day} in {source}"


@dataclass
class DayCounts:
    """One stage over one day: what came in, what was kept, drops by reason."""

    stage: str
    day: date
    rows_in: int
    rows_out: int
    drops: dict[str, int]
    extra: dict = field(default_factory=dict)

    def save(self, work_dir: Path) -> DayCounts:
        write_json({"stage": self.stage, "day": self.day.isoformat(), "rows_in": self.rows_in,
                    "rows_out": self.rows_out, "drops": self.drops, **self.extra},
                   day_dir(work_dir, self.day) / "reports" / f"{self.stage}.json")
        return self


def ingest_days(day_files: DayFiles, work_dir: Path, days: Iterable[date], workers: int | None = None,
                config: ExtractConfig = ExtractConfig(),
                on_progress: Callable[[dict], None] | None = None, source: str = "the corpus") -> list[DayCounts]:
    """Ingest the files of ``days`` in one pool of workers (finished files are skipped on a
    rerun), then write each day's tables. A day without files gets empty tables and a report
    flagged ``no_input`` (no file in ``source``, where the files were looked for): it is not a
    built day. A day built before from files that are gone now is left as it was (its counts
    say ``no_input`` but nothing is written: files removed by mistake do not empty a day). Two
    builds that share days take turns on them (a lock a day, taken in date order, so neither
    waits for the other forever); builds of other days go on at the same time."""
    days = sorted(set(days))
    out = []
    for start in range(0, len(days), DAYS_LOCKED_AT_ONCE):
        group = days[start:start + DAYS_LOCKED_AT_ONCE]
        with contextlib.ExitStack() as held:
            for d in group:
                held.enter_context(locked(Path(work_dir) / INGEST_LOCKS / f"day={d.isoformat()}.lock"))
            out += _ingest_days(day_files, Path(work_dir), group, workers, config, on_progress, source)
    return out


def _ingest_days(day_files: DayFiles, work_dir: Path, days: list[date], workers: int | None,
                 config: ExtractConfig, on_progress: Callable[[dict], None] | None, source: str) -> list[DayCounts]:
    shared = work_dir / "ingest"
    files = [str(f) for d in days for f in day_files.by_day.get(d, [])]
    ingest_inputs(files, shared, workers=workers, config=config, on_progress=on_progress, merge=False)
    out = []
    for d in days:
        files_of_day = day_files.by_day.get(d, [])
        if not files_of_day:
            earlier = read_day_report(work_dir, d, "ingest") or {}
            if earlier.get("warc_files") and not earlier.get(NO_INPUT):
                out.append(DayCounts("ingest", d, earlier["rows_in"], earlier["rows_out"], earlier["drops"], {
                    **{k: v for k, v in earlier.items() if k not in ("stage", "day", "rows_in", "rows_out", "drops")},
                    "warc_files": [], "built_from": earlier["warc_files"],
                    NO_INPUT: f"{no_input_reason(d, source)} any more; its build from "
                              f"{len(earlier['warc_files'])} files {KEPT} (restore them, or remove "
                              f"{day_dir(work_dir, d)} to drop the day)"}))
                continue
        items = expand_inputs([str(f) for f in files_of_day])
        folder = day_dir(work_dir, d) / "ingest"
        articles, drops = merge_parts(shared, items, folder / "articles.parquet", folder / "drops.parquet")
        sources = (pl.scan_parquet(folder / "articles.parquet").group_by("date_source").len()
                   .sort("date_source").collect())
        failed = failed_in(shared, items)
        # a day with a file that could not be read is not built: no digest, so the next run
        # (which reads that file again) builds it once more; attempts count how often in a row
        before = (read_day_report(work_dir, d, "ingest") or {}) if failed else {}
        out.append(DayCounts("ingest", d, records_in(shared, items), articles, drops, {
            "warc_files": [f.name for f in files_of_day],
            "files_digest": None if failed else files_digest(files_of_day),
            "files_failed": failed, "failed_attempts": before.get("failed_attempts", 0) + 1 if failed else 0,
            "date_sources": dict(sources.iter_rows()),
            **({NO_INPUT: no_input_reason(d, source)} if not files_of_day else {})}).save(work_dir))
    return out


def dedup_days(work_dir: Path, days: Iterable[date], config: DedupConfig = DedupConfig()) -> list[DayCounts]:
    """Each day against the index of every day deduplicated before it, in date order; a day
    built again replays its earlier decisions, less the articles it no longer has (or that
    changed), which leave the index first (the day is the index's batch)."""
    work_dir = Path(work_dir)
    out = []
    for d in sorted(set(days)):
        folder = day_dir(work_dir, d)
        raw = folder / "ingest" / "articles.parquet"
        if not raw.is_file():
            raise FileNotFoundError(f"{raw}: day {d} has not been ingested")
        run = dedup_files([raw], folder / "dedup", state=work_dir / DEDUP_STATE, config=config,
                          batch=d.isoformat())
        drops = {f"dedup/{reason}": n for reason, n in sorted(run.counts.by_reason.items())}
        no_input = (read_day_report(work_dir, d, "ingest") or {}).get(NO_INPUT)
        out.append(DayCounts("dedup", d, run.counts.articles, run.counts.kept, drops,
                             {"indexed_before": run.indexed_before, "indexed_after": run.indexed_after,
                              "retired": run.retired, **({NO_INPUT: no_input} if no_input else {})}).save(work_dir))
    return out


@dataclass
class Gathered:
    days: list[date]
    articles_path: Path  # the folder of the days' parts (``articles/day=YYYY-MM-DD.parquet``)
    rows_in: int  # first copies over the days (kept on their day, or kept again since)
    rows_out: int
    displaced: int  # kept on their day, not now (an earlier copy arrived later)
    restored: int = 0  # dropped on their day, kept now (the copy they lost to left its day)
    rewritten: list[date] = field(default_factory=list)  # days whose part changed (the rest were kept)
    read: list[date] = field(default_factory=list)  # days whose tables were read (the rest: not opened)


DUP_COLUMNS = ("dup_cluster", "dup_count", "dup_domains")
GATHERED = "articles"  # work/articles/day=YYYY-MM-DD.parquet: the gathered table, a part a day
GATHERED_RECORD = "articles.parts.json"  # each day's part: its signature, sha256 and rows
# What a day's signature covers: every column but the text, which content_hash stands for
SIGNED = tuple(c for c in ARTICLES if c != "text")
_SIGNATURE_SEED = 20260105


def _signature_scheme() -> str:
    return f"polars-{pl.__version__}/{_SIGNATURE_SEED}"  # row hashes are stable within a polars version


def gather_articles(work_dir: Path) -> Gathered:
    """Every built day's articles the index keeps now into ``articles/``, one part a crawl day,
    one row per article id, with ``dup_cluster``, ``dup_count`` and ``dup_domains`` counted from
    the index now (not as they stood when the article's day was built). Only the days whose
    rows changed are written again (a new day, a day whose stories gained a copy): a day's
    signature, over every column but the text (its ``content_hash`` stands for it), is read
    from the small columns alone. Holds the index's lock, so a build running at the same time is
    seen before or after one of its days, never between."""
    work_dir = Path(work_dir)
    with state_lock(work_dir / DEDUP_STATE):
        return _gather(work_dir)


def _read_record(work_dir: Path) -> dict:
    path = work_dir / GATHERED_RECORD
    try:
        record = json.loads(path.read_text()) if path.is_file() else {}
    except ValueError:
        record = {}  # a record cut by a crash: every day is written again
    if record.get("scheme") != _signature_scheme():
        return {"scheme": _signature_scheme(), "days": {}}
    return record


def gathered_parts(work_dir: Path) -> list:
    """The gathered table's parts (``pastcast.store.Part``), in day order."""
    from pastcast.store import Part

    days = (_read_record(Path(work_dir)).get("days") or {})
    folder = Path(work_dir) / GATHERED
    return [Part(f"day={d}", folder / f"day={d}.parquet", info["sha256"], info["rows"])
            for d, info in sorted(days.items())]


def _part_window(path: Path) -> list[str | None]:
    """A gathered part's ``window_bounds`` as ISO dates, for the record."""
    return [d.isoformat() if d is not None else None for d in window_bounds(scan_parts([path], ARTICLES))]


def gathered_window(work_dir: Path) -> tuple[date, date] | None:
    """The news window of the gathered articles (``pastcast.search.visibility``), from the
    bounds the record keeps per part (no article read), or read from the parts when the record
    lacks them; None when no article is dated."""
    days = (_read_record(Path(work_dir)).get("days") or {}).values()
    if not all("window" in info for info in days):
        return news_window(scan_gathered(work_dir, ["published_at", "crawled_at"]))
    return combined_window([tuple(date.fromisoformat(d) if d else None for d in info["window"]) for info in days])


def snapshot_window(work_dir: Path) -> tuple[date, date] | None:
    """The window of a snapshot of the working folder: the gathered articles' news window
    widened to the built crawl days, so a version covers every day it was built from (the
    articles crawled on the last day were mostly published the days before it); None when no
    article is dated."""
    window, built = gathered_window(work_dir), built_days(work_dir)
    if window is None or not built:
        return window
    return min(window[0], built[0]), max(window[1], built[-1])


def scan_gathered(work_dir: Path, columns: list[str] | None = None) -> pl.LazyFrame:
    """The gathered articles of a working folder as one lazy frame (empty before a gather)."""
    parts = gathered_parts(work_dir)
    frame = scan_parts([p.path for p in parts], ARTICLES) if parts else empty(ARTICLES).lazy()
    return frame.select(columns) if columns else frame


def _gather(work_dir: Path) -> Gathered:
    days = built_days(work_dir)
    folder = work_dir / GATHERED
    (work_dir / "articles.parquet").unlink(missing_ok=True)  # the whole-table layout before day parts
    record = _read_record(work_dir)
    dedup_file = {d: day_dir(work_dir, d) / "dedup" / "articles.parquet" for d in days}
    stats = {d: _file_stat(dedup_file[d]) for d in days}
    mark = index_mark(work_dir / DEDUP_STATE)
    only = _days_to_gather_again(work_dir, record, days, stats)
    everything = days
    days = days if only is None else [d for d in days if d in only]  # the rest: their parts stand
    ingest_file = {d: p for d in days if (p := day_dir(work_dir, d) / "ingest" / "articles.parquet").is_file()}
    id_days = (pl.concat([scan_parts([dedup_file[d]], ARTICLES).select("article_id", pl.lit(d).alias("_day"))
                          for d in days]).unique("article_id", keep="first", maintain_order=True).collect()
               if days else pl.DataFrame(schema={"article_id": pl.String, "_day": pl.Date}))
    day_ids = id_days.select("article_id")
    index = read_clusters(work_dir / DEDUP_STATE, None if only is None else [d.isoformat() for d in days])
    from_ingest = False
    if index is not None:
        indexed, kept = index
        # a kept article its day dropped (the copy it lost to has left the index since) is read
        # from its day's ingest table: then every row is, in the same order as the dedup tables
        from_ingest = bool(kept.join(day_ids, on="article_id", how="anti").height) and bool(ingest_file)
    # articles the index does not hold (no index, or one lost since their day was built): as
    # their day kept them, less those a later day reported displaced
    drops = [str(p) for d in everything if (p := day_dir(work_dir, d) / "dedup" / "drops.parquet").is_file()]
    displaced = (pl.scan_parquet(drops, schema=dict(DROPS)).filter(pl.col("reason") == "superseded")
                 .select(pl.col("item_id").alias("article_id")).unique().collect() if drops else None)

    def rows(d: date) -> pl.LazyFrame:
        """Day ``d``'s gathered rows: only its own files are read."""
        parts = []
        if index is not None:
            source = ingest_file.get(d) if from_ingest else dedup_file[d]
            if source is not None:
                parts.append(scan_parts([source], ARTICLES).drop(*DUP_COLUMNS)
                             .join(kept.lazy(), on="article_id", how="inner", maintain_order="left")
                             .select(list(ARTICLES)))
            unknown = scan_parts([dedup_file[d]], ARTICLES).join(indexed.lazy(), on="article_id", how="anti")
        else:
            unknown = scan_parts([dedup_file[d]], ARTICLES)
        if displaced is not None:
            unknown = unknown.join(displaced.lazy(), on="article_id", how="anti")
        parts.append(unknown)
        return pl.concat(parts, how="vertical").unique("article_id", keep="first", maintain_order=True)

    # every day's signature from the small columns; an id on two days (never expected) stays on the first
    meta = (pl.concat([rows(d).select(list(SIGNED)).with_columns(pl.lit(d).alias("_day")) for d in days])
            .collect(engine="streaming") if days else empty(ARTICLES).select(list(SIGNED)).with_columns(
                pl.lit(None, pl.Date).alias("_day")))
    first_day = meta.unique("article_id", keep="first", maintain_order=True).select("article_id", "_day")
    later = meta.select("article_id", "_day").join(first_day, on=["article_id", "_day"], how="anti")
    signatures = dict(
        meta.join(later, on=["article_id", "_day"], how="anti")
        .with_columns(pl.struct(list(SIGNED)).hash(_SIGNATURE_SEED).alias("_h"))
        .group_by("_day").agg(pl.len().alias("n"), pl.col("_h").sort().alias("h"))
        .select("_day", pl.format("{}:{}", "n", pl.col("h").hash(_SIGNATURE_SEED))).iter_rows())
    before = record.get("days") or {}
    after, rewritten = {}, []
    restored_on = dict(first_day.join(day_ids, on="article_id", how="anti").group_by("_day").len().iter_rows())
    ids_on = dict(id_days.group_by("_day").len().iter_rows())
    for d in everything:
        key, signature = d.isoformat(), signatures.get(d, "0:empty")
        path = folder / f"day={key}.parquet"
        old = before.get(key) or {}
        if only is not None and d not in only:
            after[key] = old  # nothing of it changed since it was gathered
            continue
        counts = {"dedup_stat": stats[d], "ids": ids_on.get(d, 0), "restored": restored_on.get(d, 0)}
        if old.get("signature") == signature and path.is_file() and path.stat().st_size == old.get("bytes"):
            after[key] = {**old, **counts}
            continue
        frame = rows(d)
        excluded = later.filter(pl.col("_day") == d).select("article_id")
        if excluded.height:
            frame = frame.join(excluded.lazy(), on="article_id", how="anti")
        sink_parquet(frame, path)
        after[key] = {"signature": signature, "sha256": sha256_file(path),
                      "rows": pl.scan_parquet(path).select(pl.len()).collect().item(), "bytes": path.stat().st_size,
                      "window": _part_window(path), **counts}
        rewritten.append(d)
    for key, info in after.items():  # parts gathered before their window was recorded: once
        if info and "window" not in info and (folder / f"day={key}.parquet").is_file():
            info["window"] = _part_window(folder / f"day={key}.parquet")
    for stale in folder.glob("day=*.parquet") if folder.is_dir() else []:  # days no longer built
        if stale.stem.partition("=")[2] not in after:
            stale.unlink()
    write_json({"scheme": _signature_scheme(), "days": after, "index_mark": mark}, work_dir / GATHERED_RECORD)
    rows_out = sum(info["rows"] for info in after.values())
    restored = sum(info.get("restored", 0) for info in after.values())
    rows_in = sum(info.get("ids", 0) for info in after.values()) + restored
    return Gathered(everything, folder, rows_in, rows_out, rows_in - rows_out, restored, rewritten, days)


def _file_stat(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _days_to_gather_again(work_dir: Path, record: dict, days: list[date], stats: dict) -> set[date] | None:
    """The days whose gathered rows may have changed since the last gather, found from the
    dedup index's new rows (the nightly case: new days added, older days' clusters grown or
    displaced by them), so the other days are not read at all; None when that cannot be told
    for sure (no earlier gather, a day's table rewritten or gone, docs removed from the index:
    a day built again), and then every day is read and compared by its signature."""
    old_mark, before = record.get("index_mark"), record.get("days") or {}
    if not old_mark or not before:
        return None
    keys = {d.isoformat(): d for d in days}
    for key, info in before.items():
        part = Path(work_dir) / GATHERED / f"day={key}.parquet"
        if (key not in keys or info.get("dedup_stat") != stats[keys[key]] or "ids" not in info
                or not part.is_file() or part.stat().st_size != info.get("bytes")):
            return None
    new_days = {d for k, d in keys.items() if k not in before}
    touched = batches_touched_since(Path(work_dir) / DEDUP_STATE, old_mark)
    if touched is None:
        return None
    added, affected = touched
    if not added <= {d.isoformat() for d in new_days} or not affected <= set(keys):
        return None  # an old day's articles added again, or a doc of no known day
    return new_days | {keys[b] for b in affected}


def summed(work_dir: Path, days: Iterable[date], stage: str) -> dict:
    """A stage's counts summed over ``days`` (for the snapshot's stage counts)."""
    total = {"stage": stage, "rows_in": 0, "rows_out": 0, "drops": {}, "days": 0}
    for d in days:
        report = read_day_report(work_dir, d, stage)
        if report is None:
            continue
        total["days"] += 1
        total["rows_in"] += report["rows_in"]
        total["rows_out"] += report["rows_out"]
        for reason, n in report["drops"].items():
            total["drops"][reason] = total["drops"].get(reason, 0) + n
    total["drops"] = dict(sorted(total["drops"].items()))
    return total


def drop_files(work_dir: Path, days: Iterable[date]) -> list[Path]:
    """Every day's ingest and dedup drops, for the snapshot's drops table."""
    return [p for d in days for p in (day_dir(work_dir, d) / "ingest" / "drops.parquet",
                                      day_dir(work_dir, d) / "dedup" / "drops.parquet") if p.is_file()]
