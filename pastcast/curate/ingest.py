"""Ingest: WARC files in, article rows and drops out (read -> extract -> date -> filter).

The calling process streams each file record by record (reading is cheap) and sends batches
of HTML pages to worker processes for extraction and dating (the expensive part), so both
cores work even on a single 1 GB file. Results come back in order and are written in batches
as Parquet parts under ``OUT/parts/<file>/``; memory stays flat whatever the file size, since
only a few batches are in flight. A marker, written last, ends each file's parts: ``_SUCCESS``
for a file that was read, which the next run skips (an interrupted run resumes), or ``_FAILED``
for one that could not be read (unreadable, or an I/O error mid-read): its drop and what was
read are this run's, and the next run reads it again. The parts are then merged, streaming,
into ``OUT/articles.parquet`` and ``OUT/drops.parquet``.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import shutil
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

import pastcast
from pastcast.curate.extract import ExtractConfig, page_to_article
from pastcast.curate.workers import context, die_with_parent
from pastcast.drops import Drop, counts_by_reason, drops_frame
from pastcast.io import merge_parquet, write_parquet
from pastcast.schemas import ARTICLES, DROPS, empty, frame
from pastcast.sources.remote import Input, expand_inputs, iter_local, release
from pastcast.sources.warc import UNREADABLE_FILE, HtmlPage, iter_html_pages

PART_ROWS = 2_000  # articles per Parquet part
PAGES_PER_TASK = 16  # pages sent to a worker at once: amortises pickling, keeps order cheap
# Batches queued per worker. Results are collected in order, so one slow batch at the head must
# not leave the other workers idle: a few MB of queued pages keeps them busy.
IN_FLIGHT_PER_WORKER = 8
DONE = "_SUCCESS"  # the file was read: skipped on the next run
FAILED = "_FAILED"  # the file could not be read: its parts count in this run, the next reads it again


@dataclass
class IngestResult:
    articles_path: Path
    drops_path: Path
    files: int = 0
    files_skipped: int = 0  # finished in an earlier run
    files_failed: int = 0  # could not be read in this run (an unreadable_file drop); tried again next run
    records: int = 0
    articles: int = 0
    seconds: float = 0.0
    drops_by_reason: dict[str, int] = field(default_factory=dict)


def part_dir(out: Path, item: Input) -> Path:
    """A file's parts are reused only for the same file and code version: a local file by
    name, size and mtime; a remote one by name (Common Crawl's file names never repeat)."""
    if item.is_remote:
        key = f"{item.name}.remote"
    else:
        stat = Path(item.source).stat()
        key = f"{item.name}.{stat.st_size}-{stat.st_mtime_ns}"
    return out / "parts" / f"{key}-{pastcast.__version__}"


def _marker(target: Path) -> Path | None:
    """The marker that ends a file's parts (read or failed), if they are complete."""
    for name in (DONE, FAILED):
        if (target / name).is_file():
            return target / name
    return None


def extract_pages(pages: list[HtmlPage], config: ExtractConfig) -> list[dict | Drop]:
    """The worker's task: extract and date a batch of pages."""
    return [page_to_article(page, config) for page in pages]


class _Inline(Executor):
    """Runs tasks in this process: one worker needs no pool (and no pickling)."""

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future: Future = Future()
        future.set_result(fn(*args, **kwargs))
        return future


def _release_freed_memory() -> None:
    """Hand freed heap back to the OS (glibc only). Thousands of article texts of every size
    pass through this process; without it fragmentation makes its memory grow with the file."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


class _FileWriter:
    """Collects one file's articles and drops, writing articles in parts as they come."""

    def __init__(self, target: Path):
        shutil.rmtree(target, ignore_errors=True)  # a half-done file starts over
        target.mkdir(parents=True)
        self.target, self.articles, self.drops, self.parts = target, [], [], 0
        self.records = self.kept = 0

    def add(self, item: dict | Drop) -> None:
        if isinstance(item, Drop):
            self.drops.append(item)
            return
        self.articles.append(item)
        self.kept += 1
        if len(self.articles) >= PART_ROWS:
            self.flush()

    def flush(self) -> None:
        if self.articles:
            write_parquet(frame(self.articles, ARTICLES), self.target / f"articles-{self.parts:05d}.parquet")
            self.parts += 1
            self.articles.clear()
            _release_freed_memory()

    def close(self, failure: str | None = None) -> None:
        """Written last, the marker makes the parts complete; only a file that was read is done."""
        self.flush()
        write_parquet(drops_frame(self.drops), self.target / "drops.parquet")
        counts = f"{self.records} {self.kept}\n"
        if failure is None:
            (self.target / DONE).write_text(counts)
        else:
            (self.target / FAILED).write_text(counts + failure + "\n")


def _ingest_file(pool: Executor, in_flight_limit: int, path: Path, target: Path,
                 config: ExtractConfig, tick: Callable[[int, int], None]) -> str | None:
    """Ingest one file; returns why it could not be read (None: it was read)."""
    writer = _FileWriter(target)
    failure = None
    in_flight: deque[Future] = deque()
    batch: list[HtmlPage] = []

    def collect(limit: int) -> None:
        while len(in_flight) > limit:
            results = in_flight.popleft().result()
            for item in results:
                writer.add(item)
            tick(0, sum(not isinstance(i, Drop) for i in results))

    def submit() -> None:
        in_flight.append(pool.submit(extract_pages, list(batch), config))
        batch.clear()
        collect(in_flight_limit)

    for item in iter_html_pages(path):
        writer.records += 1
        tick(1, 0)
        if isinstance(item, Drop):
            writer.add(item)  # read-stage drops need no worker
            if item.reason == UNREADABLE_FILE:
                failure = item.detail  # the disk, not the data: not done, read it again next run
            continue
        batch.append(item)
        if len(batch) >= PAGES_PER_TASK:
            submit()
    if batch:
        submit()
    collect(0)
    writer.close(failure)
    return failure


def ingest_paths(paths: Iterable[str | Path], out: str | Path, **kwargs) -> IngestResult:
    """Ingest local WARC files (see ``ingest_inputs``)."""
    return ingest_inputs([str(p) for p in paths], out, **kwargs)


def ingest_inputs(inputs: Sequence[str], out: str | Path, workers: int | None = None,
                  config: ExtractConfig = ExtractConfig(), base_url: str | None = None,
                  spool_dir: str | Path | None = None,
                  on_progress: Callable[[dict], None] | None = None, merge: bool = True) -> IngestResult:
    """Ingest WARC paths, globs, URLs or ``*.paths.gz`` listings into ``out``.

    Finished files are skipped (before any download); remote files are downloaded one ahead
    of the file being processed and deleted once ingested. ``merge=False`` leaves each file's
    parts under ``out/parts`` for ``merge_parts`` (a caller grouping files, e.g. by day).
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    items = expand_inputs(inputs, base_url)
    workers = max(1, workers or os.cpu_count() or 1)
    if multiprocessing.current_process().daemon:  # e.g. a Dask worker: it may not start processes
        workers = 1
    started = time.monotonic()
    result = IngestResult(out / "articles.parquet", out / "drops.parquet", files=len(items))
    state = {"files_done": 0, "files": len(items), "records": 0, "articles": 0, "last": 0.0}

    def tick(records: int, articles: int) -> None:
        state["records"] += records
        state["articles"] += articles
        now = time.monotonic()
        if on_progress and now - state["last"] > 0.5:
            state["last"] = now
            on_progress({**state, "seconds": now - started})

    todo = []
    for item in items:
        done = part_dir(out, item) / DONE  # only a file that was read: a _FAILED one is read again
        if done.is_file():
            tick(*map(int, done.read_text().split()))
            result.files_skipped += 1
            state["files_done"] += 1
        else:
            todo.append(item)
    # Workers die with this process, even when it is SIGKILLed (no orphans holding memory).
    pool: Executor = _Inline() if workers == 1 else ProcessPoolExecutor(
        workers, mp_context=context(), initializer=die_with_parent, initargs=(os.getpid(),))
    with pool:
        for item, path in iter_local(todo, spool_dir or out / "spool"):
            try:
                failure = _ingest_file(pool, IN_FLIGHT_PER_WORKER * workers, path, part_dir(out, item),
                                       config, tick)
            except Exception as exc:
                raise RuntimeError(f"ingesting {item.source} failed: {type(exc).__name__}: {exc}") from exc
            result.files_failed += failure is not None
            release(path, item)
            state["files_done"] += 1
    result.records = state["records"]
    if merge:
        result.articles, result.drops_by_reason = merge_parts(out, items, result.articles_path,
                                                              result.drops_path)
    result.seconds = time.monotonic() - started
    if on_progress:
        on_progress({**state, "seconds": result.seconds})
    return result


def merge_parts(out: Path, items: Sequence[Input], articles_path: Path,
                drops_path: Path) -> tuple[int, dict[str, int]]:
    """Stream the complete parts of ``items`` (files read, or failed in their last run, whose
    drops say so) into two tables (atomically, through temp files); returns (articles, drops
    by reason)."""
    targets = [part_dir(out, item) for item in items]
    unfinished = [str(t) for t in targets if _marker(t) is None]
    if unfinished:
        raise RuntimeError(f"cannot merge unfinished ingest parts: {', '.join(unfinished)}")
    article_parts = [str(p) for t in targets for p in sorted(t.glob("articles-*.parquet"))]
    merge_parquet(article_parts, articles_path, empty(ARTICLES))
    merge_parquet([str(t / "drops.parquet") for t in targets], drops_path, empty(DROPS))
    articles = pl.scan_parquet(articles_path).select(pl.len()).collect().item()
    return articles, counts_by_reason(pl.read_parquet(drops_path, columns=["stage", "reason"]))


def records_in(out: Path, items: Sequence[Input]) -> int:
    """Records read from the files among ``items`` whose parts are complete (read or failed)."""
    total = 0
    for item in items:
        marker = _marker(part_dir(out, item))
        if marker is not None:
            total += int(marker.read_text().split()[0])
    return total


def failed_in(out: Path, items: Sequence[Input]) -> list[str]:
    """Sources among ``items`` that their last ingest into ``out`` could not read: their drops
    are in that run's tables, and the next ingest reads them again."""
    return [item.source for item in items if (part_dir(out, item) / FAILED).is_file()]
