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
from pastcast.imports import ImportResult, formats_in, run_markets, run_social
from pastcast.io import copy_file, write_json, write_parquet
from pastcast.questions.extractive import GenerateConfig, generate_extractive
from pastcast.questions.markets import MarketQuestionConfig, market_questions
from pastcast.questions.validate import validate_questions
from pastcast.schemas import ARTICLES, MARKET_PRICES, MARKETS, POSTS, QUESTIONS, empty
from pastcast.snapshot import write_snapshot
from pastcast.sources.markets import MARKET_FORMATS
from pastcast.sources.social import SOCIAL_FORMATS

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
    markets: dict[str, list[Path]]  # format -> files
    social: dict[str, list[Path]]
    unknown_markets: list[Path] = field(default_factory=list)  # files of no known format
    unknown_social: list[Path] = field(default_factory=list)

    @classmethod
    def discover(cls, corpus_dir: str | Path) -> CorpusFiles:
        """The layout of a corpus folder: warc/, markets/ and social/. Under markets/ and
        social/, a subfolder or a file name starting with a format name says the format
        (markets/polymarket/..., markets/manifold.json, social/reddit_2026-03.ndjson.zst)."""
        root = Path(corpus_dir)
        if not root.is_dir():
            raise FileNotFoundError(f"corpus folder {root.resolve()} does not exist")
        warc = sorted({p for g in WARC_GLOBS for p in (root / "warc").glob(g)})
        markets, unknown_markets = formats_in(root / "markets", MARKET_FORMATS)
        social, unknown_social = formats_in(root / "social", SOCIAL_FORMATS)
        return cls(warc, markets, social, unknown_markets, unknown_social)

    def all(self) -> list[Path]:
        return [*self.warc, *(p for files in self.markets.values() for p in files),
                *(p for files in self.social.values() for p in files),
                *self.unknown_markets, *self.unknown_social]


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


def _records_in_out(result: ImportResult) -> tuple[int, int]:
    """Counted in input records (markets, prices, posts, resolutions, files): each is kept
    (alone or merged into a row) or dropped."""
    return (sum(c["read"] for c in result.counts.values()),
            sum(c["kept"] for c in result.counts.values()))


def import_markets(files: dict[str, list[Path]], work_dir: Path, unknown: list[Path] = ()) -> StageReport:
    """Every market dump of the corpus, by format, to ``markets`` and ``market_prices``."""
    result = run_markets(files, {"markets": work_dir / "markets.parquet",
                                 "market_prices": work_dir / "market_prices.parquet",
                                 "drops": work_dir / "drops" / "markets.parquet"}, unknown)
    statuses = pl.scan_parquet(result.paths["markets"]).group_by("status").len().sort("status").collect()
    return StageReport("markets", *_records_in_out(result), result.drops_by_reason,
                       {name: str(path) for name, path in result.paths.items()},
                       {"table_rows": result.rows["markets"], "price_points": result.rows["market_prices"],
                        "formats": {f: len(p) for f, p in files.items()}, "records": result.counts,
                        "by_status": dict(statuses.iter_rows())}).save(work_dir)


def import_posts(files: dict[str, list[Path]], work_dir: Path, unknown: list[Path] = ()) -> StageReport:
    """Every social dump of the corpus, by format, to ``posts`` (streamed)."""
    result = run_social(files, {"posts": work_dir / "posts.parquet",
                                "drops": work_dir / "drops" / "social.parquet"}, unknown)
    platforms = pl.scan_parquet(result.paths["posts"]).group_by("platform").len().sort("platform").collect()
    return StageReport("social", *_records_in_out(result), result.drops_by_reason,
                       {name: str(path) for name, path in result.paths.items()},
                       {"table_rows": result.rows["posts"], "formats": {f: len(p) for f, p in files.items()},
                        "records": result.counts, "by_platform": dict(platforms.iter_rows())}).save(work_dir)


def window_of(articles: pl.DataFrame) -> tuple[date, date]:
    if articles.is_empty():
        raise ValueError("no dated articles: cannot derive the snapshot's time window")
    days = articles.select(pl.col("published_at").dt.date().min().alias("a"),
                           pl.col("published_at").dt.date().max().alias("b")).row(0)
    return days[0], days[1]


def generate(work_dir: Path, config: GenerateConfig | None = None,
             market_config: MarketQuestionConfig = MarketQuestionConfig()) -> StageReport:
    articles = _table(work_dir, "articles", ARTICLES)
    markets = _table(work_dir, "markets", MARKETS)
    config = config or GenerateConfig(window_start=window_of(articles)[0] if articles.height else None)
    news_q, news_drops = generate_extractive(articles, config)
    market_q, market_drops = market_questions(markets, market_config)
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
             lambda: import_markets(files.markets, work, files.unknown_markets),
             lambda: import_posts(files.social, work, files.unknown_social),
             lambda: generate(work), lambda: validate(work)]
    for step in steps:
        report = step()
        if on_stage:
            on_stage(report)
    return snapshot(work, Path(snapshots_dir), name, files.all())
