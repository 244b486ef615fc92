"""The pipeline's stages as plain functions over a working folder of Parquet tables.

Each stage reads its inputs from ``work_dir``, runs the library step, writes its output
table(s) and its drops atomically, and returns a ``StageReport`` (counts in, kept, dropped by
reason). Dagster assets call one stage each; ``run_all`` chains them without Dagster, for
notebooks and tests.
"""

from __future__ import annotations

import json

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path

import polars as pl


from pastcast.curate.dedup import deduplicate
from pastcast.curate.extract import ExtractConfig
from pastcast.curate.ingest import ingest_paths
from pastcast.drops import counts_by_reason, drops_frame
from pastcast.io import copy_file, write_json, write_parquet
from pastcast.questions.extractive import GenerateConfig, generate_extractive
from pastcast.questions.markets import market_questions
from pastcast.questions.validate import validate_questions
from pastcast.schemas import ARTICLES, MARKET_PRICES, MARKETS, POSTS, QUESTIONS, empty
from pastcast.snapshot import write_snapshot
from pastcast.sources.markets import read_manifold
from pastcast.sources.social import read_pushshift

WARC_GLOBS = ("*.warc.gz", "*.warc", "*.arc.gz")


@dataclass
class StageReport:
    stage: str
    rows_in: int
    rows_out: int
    drops: dict[str, int] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    def save(self, work_dir: Path) -> StageReport:
        """Kept beside the tables so the snapshot can report every stage's counts."""
        write_json(asdict(self), work_dir / "reports" / f"{self.stage}.json")
        return self

    def as_metadata(self) -> dict:
        return {"rows_in": self.rows_in, "rows_out": self.rows_out,
                "dropped": sum(self.drops.values()), **{f"drop/{k}": v for k, v in self.drops.items()},
                **self.extra}


@dataclass(frozen=True)
class CorpusFiles:
    warc: list[Path]
    markets: list[Path]
    social: list[Path]

    @classmethod
    def discover(cls, corpus_dir: str | Path) -> CorpusFiles:
        """The layout of a corpus folder: warc/, markets/ (Manifold JSON), social/ (Pushshift)."""
        root = Path(corpus_dir)
        if not root.is_dir():
            raise FileNotFoundError(f"corpus folder {root.resolve()} does not exist")
        warc = sorted({p for g in WARC_GLOBS for p in (root / "warc").glob(g)})
        markets = sorted((root / "markets").glob("*.json"))
        social = sorted(p for g in ("*.zst", "*.ndjson", "*.jsonl") for p in (root / "social").glob(g))
        return cls(warc, markets, social)

    def all(self) -> list[Path]:
        return [*self.warc, *self.markets, *self.social]


def _table(work_dir: Path, name: str, schema) -> pl.DataFrame:
    path = work_dir / f"{name}.parquet"
    return pl.read_parquet(path) if path.is_file() else empty(schema)


def _write(work_dir: Path, name: str, df: pl.DataFrame) -> str:
    return str(write_parquet(df, work_dir / f"{name}.parquet"))


def _write_drops(work_dir: Path, stage: str, drops: pl.DataFrame) -> str:
    return str(write_parquet(drops, work_dir / "drops" / f"{stage}.parquet"))


def ingest(files: list[Path], work_dir: Path, config: ExtractConfig = ExtractConfig(),
           workers: int | None = None,
           on_progress: Callable[[dict], None] | None = None) -> StageReport:
    """WARC files to ``articles_raw``, in parallel; finished files are skipped on a rerun."""
    result = ingest_paths(files, work_dir / "ingest", workers=workers, config=config,
                          on_progress=on_progress)
    report = StageReport("ingest", result.records, result.articles, result.drops_by_reason, {
        "articles_raw": str(result.articles_path),
        "drops": str(copy_file(result.drops_path, work_dir / "drops" / "ingest.parquet"))})
    articles = pl.scan_parquet(result.articles_path)
    report.extra["date_sources"] = dict(
        articles.group_by("date_source").len().sort("date_source").collect().iter_rows())
    report.extra.update(warc_files=result.files, files_resumed=result.files_skipped,
                        seconds=round(result.seconds, 1))
    return report.save(work_dir)


def dedup(work_dir: Path) -> StageReport:
    """URL, exact and near-duplicate removal over the whole build (a full rebuild needs no
    persistent index; ``pastcast dedup --state`` is the incremental form)."""
    raw = _table(work_dir / "ingest", "articles", ARTICLES)
    kept, drops = deduplicate(raw)
    copies = kept.filter(pl.col("dup_count") > 1)
    return StageReport("dedup", raw.height, kept.height, counts_by_reason(drops), {
        "articles": _write(work_dir, "articles", kept), "drops": _write_drops(work_dir, "dedup", drops)},
        {"stories_with_copies": copies.height,
         "largest_cluster": int(kept["dup_count"].max() or 0) if kept.height else 0}).save(work_dir)


def import_markets(files: list[Path], work_dir: Path) -> StageReport:
    markets, prices, drops = [empty(MARKETS)], [empty(MARKET_PRICES)], [drops_frame([])]
    for path in files:
        m, p, d = read_manifold(path)
        markets.append(m), prices.append(p), drops.append(d)
    markets_df, prices_df, drops_df = pl.concat(markets), pl.concat(prices), pl.concat(drops)
    return StageReport("markets", markets_df.height + drops_df.height, markets_df.height,
                       counts_by_reason(drops_df), {
                           "markets": _write(work_dir, "markets", markets_df),
                           "market_prices": _write(work_dir, "market_prices", prices_df),
                           "drops": _write_drops(work_dir, "markets", drops_df)},
                       {"price_points": prices_df.height}).save(work_dir)


def import_posts(files: list[Path], work_dir: Path) -> StageReport:
    posts, drops = [empty(POSTS)], [drops_frame([])]
    for path in files:
        p, d = read_pushshift(path)
        posts.append(p), drops.append(d)
    posts_df, drops_df = pl.concat(posts), pl.concat(drops)
    return StageReport("social", posts_df.height + drops_df.height, posts_df.height,
                       counts_by_reason(drops_df), {
                           "posts": _write(work_dir, "posts", posts_df),
                           "drops": _write_drops(work_dir, "social", drops_df)}).save(work_dir)


def window_of(articles: pl.DataFrame) -> tuple[date, date]:
    if articles.is_empty():
        raise ValueError("no dated articles: cannot derive the snapshot's time window")
    days = articles.select(pl.col("published_at").dt.date().min().alias("a"),
                           pl.col("published_at").dt.date().max().alias("b")).row(0)
    return days[0], days[1]


def generate(work_dir: Path, config: GenerateConfig | None = None) -> StageReport:
    articles = _table(work_dir, "articles", ARTICLES)
    markets = _table(work_dir, "markets", MARKETS)
    config = config or GenerateConfig(window_start=window_of(articles)[0] if articles.height else None)
    news_q, news_drops = generate_extractive(articles, config)
    market_q, market_drops = market_questions(markets)
    candidates, drops = pl.concat([news_q, market_q]), pl.concat([news_drops, market_drops])
    return StageReport("generate", articles.height + markets.height, candidates.height,
                       counts_by_reason(drops), {
                           "question_candidates": _write(work_dir, "question_candidates", candidates),
                           "drops": _write_drops(work_dir, "generate", drops)},
                       {"from_news": news_q.height, "from_markets": market_q.height}).save(work_dir)


def validate(work_dir: Path) -> StageReport:
    candidates = _table(work_dir, "question_candidates", QUESTIONS)
    kept, drops = validate_questions(candidates)
    return StageReport("validate", candidates.height, kept.height, counts_by_reason(drops), {
        "questions": _write(work_dir, "questions", kept), "drops": _write_drops(work_dir, "validate", drops)}).save(work_dir)


def snapshot(work_dir: Path, snapshots_dir: Path, name: str, inputs: list[Path],
             config: dict | None = None) -> Path:
    """Gather the working tables and every stage's drops into a new snapshot version."""
    articles = _table(work_dir, "articles", ARTICLES)
    drop_files = sorted((work_dir / "drops").glob("*.parquet"))
    drops = pl.concat([pl.read_parquet(p) for p in drop_files]) if drop_files else drops_frame([])
    tables = {
        "articles": articles,
        "questions": _table(work_dir, "questions", QUESTIONS),
        "markets": _table(work_dir, "markets", MARKETS),
        "market_prices": _table(work_dir, "market_prices", MARKET_PRICES),
        "posts": _table(work_dir, "posts", POSTS),
        "drops": drops,
    }
    reports = {p.stem: json.loads(p.read_text()) for p in sorted((work_dir / "reports").glob("*.json"))}
    return write_snapshot(tables, snapshots_dir, name, window_of(articles), inputs=inputs,
                          stage_counts=reports, config=config)


def run_all(corpus_dir: str | Path, work_dir: str | Path, snapshots_dir: str | Path,
            name: str, on_stage: Callable[[StageReport], None] | None = None,
            on_progress: Callable[[dict], None] | None = None) -> Path:
    """Every stage in order, without Dagster; returns the new snapshot folder."""
    files = CorpusFiles.discover(corpus_dir)
    work = Path(work_dir)
    steps = [lambda: ingest(files.warc, work, on_progress=on_progress), lambda: dedup(work),
             lambda: import_markets(files.markets, work), lambda: import_posts(files.social, work),
             lambda: generate(work), lambda: validate(work)]
    for step in steps:
        report = step()
        if on_stage:
            on_stage(report)
    return snapshot(work, Path(snapshots_dir), name, files.all())
