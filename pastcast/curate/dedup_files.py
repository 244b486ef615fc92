"""``pastcast dedup``: article Parquet in (as ``pastcast ingest`` writes it), kept articles and
drops out, optionally against a persistent index for incremental runs.

Articles stream through in chunks, each written as a part as soon as it is deduplicated, so
memory stays flat. The index is committed only after both outputs are in place: an
interrupted run leaves the index as it was and the next run starts over.

A run may name its ``batch`` (the pipeline's crawl day): the index remembers which batch added
each article, so the batch built again first retires what it added before and no longer has
(or has changed), and reports again the kept articles of other batches it displaced.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from pastcast.curate.dedup import DedupConfig, DedupCounts, dedup_chunk, retire_batch, superseded_again
from pastcast.curate.dedup_index import DedupIndex
from pastcast.io import locked, merge_parquet, write_parquet
from pastcast.schemas import ARTICLES, DROPS, empty


@dataclass
class DedupRun:
    articles_path: Path
    drops_path: Path
    counts: DedupCounts = field(default_factory=DedupCounts)
    indexed_before: int = 0
    indexed_after: int = 0
    retired: int = 0  # articles the batch added before and no longer has (or has changed)
    seconds: float = 0.0


@contextlib.contextmanager
def state_lock(state: str | Path) -> Iterator[None]:
    """The lock runs on one index take turns through; a reader of the index and of the outputs
    written with it (gathering the days) holds it too, to see them consistent."""
    with locked(Path(f"{Path(state)}.lock")):
        yield


def article_files(inputs: Sequence[str | Path]) -> list[Path]:
    """Each input is a folder written by ``pastcast ingest`` (its articles.parquet) or a
    Parquet file of articles."""
    found = []
    for item in inputs:
        path = Path(item)
        if path.is_dir():
            path = path / "articles.parquet"
        if not path.is_file():
            raise FileNotFoundError(f"{item}: no articles Parquet file here (expected a folder "
                                    "written by `pastcast ingest`, or a .parquet file)")
        found.append(path)
    return found


def dedup_files(inputs: Sequence[str | Path], out: str | Path, state: str | Path | None = None,
                config: DedupConfig = DedupConfig(),
                on_progress: Callable[[dict], None] | None = None, batch: str | None = None) -> DedupRun:
    """Deduplicate the article files ``inputs`` into ``out`` (against the index in ``state``
    when given; concurrent runs on one state take turns). ``batch`` names what the inputs are
    (e.g. a crawl day) when the same batch may be deduplicated again: see the module doc."""
    if state is None:
        return _dedup_files(inputs, out, None, config, on_progress, None)
    with state_lock(state):
        return _dedup_files(inputs, out, state, config, on_progress, batch)


def _dedup_files(inputs: Sequence[str | Path], out: str | Path, state: str | Path | None,
                 config: DedupConfig, on_progress: Callable[[dict], None] | None,
                 batch: str | None) -> DedupRun:
    started = time.monotonic()
    out = Path(out)
    files = article_files(inputs)
    parts = out / ".dedup-parts"
    shutil.rmtree(parts, ignore_errors=True)  # what an interrupted run left
    parts.mkdir(parents=True)
    run = DedupRun(out / "articles.parquet", out / "drops.parquet")
    articles = pl.scan_parquet([str(f) for f in files], missing_columns="insert",
                               extra_columns="ignore")
    total = articles.select(pl.len()).collect().item()
    index = DedupIndex(state, config.minhash)
    try:
        run.indexed_before = index.count()
        if batch is not None and index.has_batch(batch):  # built before: what it no longer has leaves first
            present = articles.collect_schema().names()
            keys = articles.select([c for c in ("article_id", "published_at", "crawled_at", "domain", "canonical_url",
                                                "content_hash", "date_source") if c in present]).collect()
            run.retired = retire_batch(index, batch, keys, config)
        seen: set[str] = set()  # superseded drops this run wrote
        n = -1
        for n, chunk in enumerate(articles.collect_batches(chunk_size=config.chunk_size)):
            kept, drops = dedup_chunk(chunk, index, config, batch)
            write_parquet(kept, parts / f"articles-{n:05d}.parquet")
            write_parquet(drops, parts / f"drops-{n:05d}.parquet")
            run.counts.add(drops, kept.height, chunk.height)
            seen.update(drops.filter(pl.col("reason") == "superseded")["item_id"].to_list())
            if on_progress:
                on_progress({"articles": run.counts.articles, "total": total, "kept": run.counts.kept,
                             "seconds": time.monotonic() - started})
        if batch is not None:  # what this batch displaced when it was built before, reported again
            again = superseded_again(index, batch, seen)
            if again.height:  # (an article of the input itself has its own drop or row already)
                wanted = again["item_id"].implode()
                inputs_too = articles.select("article_id").filter(pl.col("article_id").is_in(wanted)).collect()
                again = again.filter(~pl.col("item_id").is_in(inputs_too["article_id"].implode()))
            if again.height:
                write_parquet(again, parts / f"drops-{n + 1:05d}.parquet")
                run.counts.add(again, 0, 0)
        for name, schema, dest in (("articles", ARTICLES, run.articles_path), ("drops", DROPS, run.drops_path)):
            merge_parquet(sorted(parts.glob(f"{name}-*.parquet")), dest, empty(schema))
        index.commit()  # last: the outputs exist, so the index may now include this run
        run.indexed_after = index.count()
    finally:
        index.close()
        shutil.rmtree(parts, ignore_errors=True)
    run.seconds = time.monotonic() - started
    return run

