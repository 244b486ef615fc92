"""The pipeline's stages as plain functions over a working folder of Parquet tables.

Each stage reads its inputs from ``work_dir``, runs the library step, writes its output
table(s) and its drops atomically, and returns a ``StageReport`` (counts in, kept, dropped by
reason). Dagster assets call one stage each; ``run_all`` chains them without Dagster, for
notebooks and tests.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from datetime import date, timedelta
from pathlib import Path

import polars as pl


from pastcast.sources import crawl_days


from pastcast import daily
from pastcast.curate.dedup import deduplicate
from pastcast.curate.extract import ExtractConfig
from pastcast.curate.ingest import ingest_paths
from pastcast.search.visibility import news_window
from pastcast.drops import Drop, counts_by_reason, drops_frame
from pastcast.search.index_store import update_or_build
from pastcast.imports import ImportResult, formats_in, run_markets, run_social, walk_files
from pastcast.io import copy_file, file_digests, sha256_file, write_json, write_parquet, write_text
from pastcast.questions.audit import render_audit
from pastcast.questions.filter import FilterConfig, coverage_record, filter_questions
from pastcast.questions.revision.judge import decided_by
from pastcast.questions.revision.memo import RevisionMemo
from pastcast.questions.row_memo import RowMemo
from pastcast.questions.temporal import TemporalMemo
from pastcast.questions.generate import GenerationRun, generate_questions, write_generation
from pastcast.questions.markets import MarketQuestionConfig, market_questions
from pastcast.schemas import (ARTICLES, DROPS, MARKET_PRICES, MARKETS, POSTS, QUESTION_EVIDENCE, QUESTION_QUALITY,
                              QUESTIONS, empty, scan_parts)
from pastcast import snapshot as snapshots
from pastcast.snapshot import write_snapshot
from pastcast.snapshot_drops import one_drop_per_item
from pastcast.sources.markets import MARKET_FORMATS
from pastcast.sources.social import SOCIAL_FORMATS

log = logging.getLogger(__name__)
WARC_SUFFIXES = (".warc.gz", ".warc", ".arc.gz", ".arc", ".warc.lz4")
CORPUS_FOLDERS = ("warc", "markets", "social")


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
    not_read: dict[str, tuple[str, str]] = field(default_factory=dict)  # file -> (reason, detail)
    # the WARC files by crawl day, found once (an undated file's first record is read to date it)
    day_files: crawl_days.DayFiles = field(default_factory=lambda: crawl_days.DayFiles({}), compare=False, repr=False)

    @classmethod
    def discover(cls, corpus_dir: str | Path) -> CorpusFiles:
        """The layout of a corpus folder: warc/, markets/ and social/, links followed. Under
        markets/ and social/, a subfolder or a file name starting with a format name says the
        format (markets/polymarket/..., markets/manifold.json, social/reddit_2026-03.ndjson.zst).
        Every other file is in ``not_read`` with its reason: nothing under a corpus is skipped
        without a trace."""
        root = Path(corpus_dir)
        if not root.is_dir():
            raise FileNotFoundError(f"corpus folder {root.resolve()} does not exist")
        warc, not_read = [], {}
        for path in walk_files(root / "warc") if (root / "warc").is_dir() else []:
            if path.name.lower().endswith(WARC_SUFFIXES) and not path.name.startswith("."):
                warc.append(path)
            else:
                not_read[str(path)] = ("not_a_warc_file", f"{path}: not read (WARC files end in "
                                                          f"{', '.join(WARC_SUFFIXES)} and are not hidden)")
        for path in walk_files(root):
            if path.relative_to(root).parts[0] not in CORPUS_FOLDERS:
                not_read[str(path)] = ("outside_layout", f"{path}: not read (inputs go under "
                                                         f"{', '.join(f + '/' for f in CORPUS_FOLDERS)})")
        day_files = crawl_days.DayFiles.of(warc)
        for path, why in day_files.undated.items():
            not_read[path] = ("undated_file", f"{why}; the file is not in any day's build")
        markets, unknown_markets = formats_in(root / "markets", MARKET_FORMATS)
        social, unknown_social = formats_in(root / "social", SOCIAL_FORMATS)
        return cls(warc, markets, social, unknown_markets, unknown_social, dict(sorted(not_read.items())), day_files)

    def drops(self) -> pl.DataFrame:
        """The files of the corpus no stage reads (``not_read``), as drops of the ``corpus``
        stage; dumps of no known format are drops of their import stage."""
        return drops_frame([Drop(Path(p).name, "file", "corpus", reason, detail)
                            for p, (reason, detail) in self.not_read.items()])

    def report(self) -> StageReport:
        """Files found under the corpus in, files handed to a stage out (a dump of no known format
        is the import stage's drop), the others dropped by reason (``pastcast build`` prints it)."""
        dumps = self.dumps()
        found = len(self.warc) + len(dumps) + sum(r != "undated_file" for r, _ in self.not_read.values())
        return StageReport("corpus", found, found - len(self.not_read), counts_by_reason(self.drops()), {},
                           {"warc_files": len(self.warc), "dumps": len(dumps)})

    def dumps(self) -> list[Path]:
        return [*(p for files in self.markets.values() for p in files),
                *(p for files in self.social.values() for p in files), *self.unknown_markets, *self.unknown_social]

    def built_inputs(self, days: list[date]) -> list[Path]:
        """The inputs a snapshot of ``days`` was made from: those days' WARC files (not files
        still landing for days not built) and every dump."""
        wanted = set(days)
        warc = [f for d, files in self.day_files.by_day.items() if d in wanted for f in files]
        return [*warc, *self.dumps()]


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
    report.extra.update(warc_files=result.files, files_resumed=result.files_skipped, files_failed=result.files_failed,
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


def _day_report(stage: str, counts: list[daily.DayCounts], extra: dict | None = None) -> StageReport:
    drops: dict[str, int] = {}
    for c in counts:
        for reason, n in c.drops.items():
            drops[reason] = drops.get(reason, 0) + n
    per_day = {c.day.isoformat(): {"in": c.rows_in, "out": c.rows_out} for c in counts}
    # days asked for that had no WARC file: not built (``daily.no_input_days``), each with its reason
    no_input = {c.day.isoformat(): c.extra[daily.NO_INPUT] for c in counts if c.extra.get(daily.NO_INPUT)}
    return StageReport(stage, sum(c.rows_in for c in counts), sum(c.rows_out for c in counts),
                       dict(sorted(drops.items())), {}, {"days": len(counts), "per_day": per_day,
                                                         "no_input": no_input, **(extra or {})})


def ingest_news_days(files: list[Path], work_dir: Path, days: list[date], workers: int | None = None,
                     config: ExtractConfig = ExtractConfig(),
                     on_progress: Callable[[dict], None] | None = None, source: str = "the corpus") -> StageReport:
    """The WARC files of ``days`` (by crawl day) to each day's extracted articles; ``source``
    names where the files were looked for, in the reason a day without files gives."""
    day_files = crawl_days.DayFiles.of(files)
    counts = daily.ingest_days(day_files, work_dir, days, workers=workers, config=config,
                               on_progress=on_progress, source=source)
    return _day_report("ingest", counts, {"warc_files": sum(len(c.extra["warc_files"]) for c in counts)})


def dedup_news_days(work_dir: Path, days: list[date]) -> StageReport:
    """Each of ``days`` deduplicated against every day built before it."""
    return _day_report("dedup", daily.dedup_days(work_dir, days))


def gather_news(work_dir: Path) -> StageReport:
    """Every built day's articles into the ``articles`` table (and the days' counts summed into
    the build's ingest and dedup reports, for the snapshot)."""
    gathered = daily.gather_articles(work_dir)
    for stage in ("ingest", "dedup"):
        total = daily.summed(work_dir, gathered.days, stage)
        # a copy kept on its day and displaced by an earlier copy built later is a drop of the
        # later day's dedup (drops.parquet) but an input of its own day: it leaves the build
        # here, so the build's dedup and articles stages each account for their own input
        total["drops"].pop("dedup/superseded", None)
        StageReport(stage, total["rows_in"], total["rows_out"], total["drops"], {},
                    {"days": total["days"]}).save(work_dir)
    drops = {"dedup/superseded": gathered.displaced} if gathered.displaced else {}
    return StageReport("articles", gathered.rows_in, gathered.rows_out, drops, {"articles": str(gathered.articles_path)},
                       {"days": len(gathered.days), "partitions": crawl_days.as_ranges(gathered.days),
                        "superseded": gathered.displaced, "days_rewritten": len(gathered.rewritten),
                        "days_read": len(gathered.read)}).save(work_dir)


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


def _known(window: tuple[date, date] | None) -> tuple[date, date]:
    if window is None:
        raise ValueError("no dated articles: cannot derive the snapshot's time window")
    return window


def window_of(articles: pl.DataFrame) -> tuple[date, date]:
    """The days the articles cover as news (archive pages are background: see pastcast.search.visibility)."""
    return _known(news_window(articles))


ARTICLE_DATES = ["article_id", "published_at", "crawled_at", "date_source"]  # what the tail reads of every article
BACKGROUND_DAYS = 90  # crawl days before a day whose articles may give its questions background
NEWS_QUESTIONS = Path("questions") / "news"  # one folder per crawl day: day=YYYY-MM-DD
MARKET_QUESTIONS = Path("questions") / "market"


def generate_news(work_dir: Path, days: list[date] | None = None, generator: str = "extractive", *,
                  llm_settings=None, llm_config=None, horizon_days: int = 28,
                  progress: Callable[[int, int], None] | None = None) -> StageReport:
    """Candidate questions from the articles that arrived on ``days`` (crawl days; default every
    built day), one output folder per day, so a day can be rebuilt alone. Articles of the
    ``BACKGROUND_DAYS`` before them give the extractive generator background (only those
    published by a question's open date are used), so a day's cost does not grow with the
    dataset; no question opens before the first built day. One LLM budget covers the whole call."""
    built = daily.built_days(work_dir)
    days = sorted(set(days if days is not None else built))
    lookback = BACKGROUND_DAYS if generator == "extractive" else 0  # the LLM reads the article alone
    upto = [d for d in built if days and days[0] - timedelta(days=lookback) <= d <= days[-1]]
    frames = [scan_parts([daily.day_dir(work_dir, d) / "dedup" / "articles.parquet"], ARTICLES)
              .with_columns(pl.lit(d).alias("_day")).collect() for d in upto]
    articles = pl.concat(frames) if frames else empty(ARTICLES).with_columns(pl.lit(None, pl.Date).alias("_day"))
    articles = articles.unique("article_id", keep="first", maintain_order=True)
    chosen = articles.filter(pl.col("_day").is_in(days))
    window_start = built[0] if built else None
    run = generate_questions(articles.drop("_day"), generator, article_ids=set(chosen["article_id"]),
                             window_start=window_start, horizon_days=horizon_days,
                             llm_settings=llm_settings, llm_config=llm_config, progress=progress)
    ids_of: dict[date, set[str]] = {}
    for article_id, day in chosen.select("article_id", "_day").iter_rows():
        ids_of.setdefault(day, set()).add(article_id)
    for day in days:
        ids = ids_of.get(day, set())
        part = GenerationRun(
            run.generator, run.questions.filter(pl.col("source_ids").list.get(0).is_in(ids)),
            run.drops.filter(pl.col("item_id").is_in(ids)), len(ids), None, None,
            run.ledger.filter(pl.col("item_id").is_in(ids)) if run.ledger is not None else None, run.settings)
        write_generation(part, work_dir / NEWS_QUESTIONS / f"day={day.isoformat()}")
    return StageReport("generate_news", run.articles, run.questions.height, counts_by_reason(run.drops),
                       {"folder": str(work_dir / NEWS_QUESTIONS)},
                       {"days": len(days), "generator": run.generator, "llm": run.usage or {},
                        "selected_for_llm": run.selected})


def generate_markets(work_dir: Path, config: MarketQuestionConfig = MarketQuestionConfig()) -> StageReport:
    """Candidate questions from resolved markets."""
    markets = _table(work_dir, "markets", MARKETS)
    questions, drops = market_questions(markets, config, _table(work_dir, "market_prices", MARKET_PRICES))
    folder = work_dir / MARKET_QUESTIONS
    return StageReport("generate_markets", markets.height, questions.height, counts_by_reason(drops), {
        "questions": str(write_parquet(questions, folder / "questions.parquet")),
        "drops": str(write_parquet(drops, folder / "drops.parquet"))})


def gather_candidates(work_dir: Path) -> StageReport:
    """Every day's news candidates and the market candidates into ``question_candidates``."""
    folders = sorted((work_dir / NEWS_QUESTIONS).glob("day=*"))
    sources = [*folders, work_dir / MARKET_QUESTIONS]
    # one scan of every day's file (days generated by an earlier version lack newer columns:
    # read as nulls), in day order, the markets last
    questions = [f / "questions.parquet" for f in sources if (f / "questions.parquet").is_file()]
    drops = [f / "drops.parquet" for f in sources if (f / "drops.parquet").is_file()]
    candidates = scan_parts(questions, QUESTIONS).collect() if questions else empty(QUESTIONS)
    drops_df = scan_parts(drops, DROPS).collect() if drops else drops_frame([])
    news = candidates.filter(pl.col("source_kind") == "news").height
    summaries = [json.loads((f / "generate.json").read_text()) for f in folders if (f / "generate.json").is_file()]
    articles = sum(s["articles"] for s in summaries)
    markets = _table(work_dir, "markets", MARKETS).height if (work_dir / MARKET_QUESTIONS).is_dir() else 0
    return StageReport("generate", articles + markets, candidates.height, counts_by_reason(drops_df), {
        "question_candidates": _write(work_dir, "question_candidates", candidates),
        "drops": _write_drops(work_dir, "generate", drops_df)},
        {"from_news": news, "from_markets": candidates.height - news, "news_days": len(folders),
         "generators": sorted({s["generator"] for s in summaries})}).save(work_dir)


def generate(work_dir: Path, generator: str = "extractive",
             market_config: MarketQuestionConfig = MarketQuestionConfig(), **news_options) -> StageReport:
    """Every day's news questions, the market questions, gathered (a full rebuild)."""
    shutil.rmtree(work_dir / NEWS_QUESTIONS, ignore_errors=True)  # no day of an older build lingers
    generate_news(work_dir, None, generator, **news_options)
    generate_markets(work_dir, market_config)
    return gather_candidates(work_dir)


REVISION_MEMO = Path("filter_state") / "revision.parquet"  # the revision outcomes of the last build
ROW_MEMO = Path("filter_state") / "rows.parquet"  # its row-local rules' outcomes (validation, self leaks)
TEMPORAL_MEMO = Path("filter_state") / "temporal.parquet"  # the temporal-leak step's outcomes, first appearances


def filter_questions_stage(work_dir: Path, config: FilterConfig | None = None, judge=None,
                           llm_settings=None, full: bool = False) -> StageReport:
    """Candidates to benchmark questions: validation, leaks, duplicates, resolution-date
    revision against the corpus (its date-gated index, built once beside the articles),
    optional difficulty probes; writes the evidence table and the audit report."""
    candidates = _table(work_dir, "question_candidates", QUESTIONS)
    # the filter reads texts through the index; of the table it needs the dates and ids alone, and
    # those only of the few articles it looks up (a lazy frame: the corpus is never read whole)
    articles = daily.scan_gathered(work_dir, ARTICLE_DATES)
    config = config or FilterConfig()
    window = daily.snapshot_window(work_dir)  # the snapshot's own: a question may resolve on any built day
    if window is not None and config.validate.window_start is None and config.validate.window_end is None:
        start, end = window
        config = replace(config, validate=replace(config.validate, window_start=start, window_end=end))
    parts = daily.gathered_parts(work_dir)
    index = update_or_build(work_dir, parts)  # an empty index when no day has articles (markets only)
    memo = RevisionMemo(work_dir / REVISION_MEMO, {p.key: (p.sha256, p.path) for p in parts},
                        {"revision": asdict(config.revision), "judge": decided_by(judge)}, forget=full)
    rows = RowMemo(work_dir / ROW_MEMO, forget=full)
    temporal = TemporalMemo(work_dir / TEMPORAL_MEMO, {p.key: (p.sha256, p.path) for p in parts}, forget=full)
    try:
        run = filter_questions(candidates, articles, config, index=index, judge=judge, llm_settings=llm_settings,
                               memo=memo, row_memo=rows, temporal_memo=temporal)
        memo.save()
        rows.save()
        temporal.save()
    finally:
        memo.close()
        if judge is not None and hasattr(judge, "close"):
            judge.close()  # its LLM cache
    (work_dir / "drops" / "validate.parquet").unlink(missing_ok=True)  # the stage's former name
    drops = run.drops_frame()
    audit = render_audit(run)
    return StageReport("filter", candidates.height, run.questions.height, counts_by_reason(drops), {
        "questions": _write(work_dir, "questions", run.questions),
        "question_evidence": _write(work_dir, "question_evidence", run.evidence_frame()),
        "question_quality": _write(work_dir, "question_quality", run.quality_frame()),
        "audit": str(write_text(audit, work_dir / "audit.md")),
        "drops": _write_drops(work_dir, "filter", drops)},
        {"stages": {s["stage"]: {k: v for k, v in s.items() if k != "stage"} for s in run.stages},
         **coverage_record(run.coverage),
         "revised": run.evidence_table.filter(pl.col("action") == "revise").height,
         "reopened": run.evidence_table.filter(pl.col("action") == "reopen").height, "decided_by": run.decided_by,
         "revision_memo": {"reused": memo.reused, "searched_new_articles_only": memo.searched_new,
                           "resolved_before_the_new_articles": memo.resolved_before_new},
         "row_memo": {"reused": rows.reused, "worked_out": rows.computed, "dedup_replayed": bool(rows.replayed)},
         "temporal_memo": {"reused": temporal.reused, "judged": temporal.judged, "rechecked": temporal.rechecked}}
    ).save(work_dir)


def _llm_usage(work_dir: Path) -> dict:
    """LLM use of the build, summed over the days' generation summaries."""
    total = {"requests": 0, "cache_hits": 0, "tokens": 0, "cost_usd": 0.0, "cost_known": True}
    for summary in sorted((work_dir / NEWS_QUESTIONS).glob("day=*/generate.json")):
        llm = json.loads(summary.read_text()).get("llm") or {}
        for key in ("requests", "cache_hits", "tokens"):
            total[key] += llm.get(key) or 0
        if llm:
            if llm.get("cost_usd") is None:
                total["cost_known"] = False
            else:
                total["cost_usd"] += llm["cost_usd"]
    total["cost_usd"] = round(total["cost_usd"], 6) if total["cost_known"] else None
    return total


UNPARTITIONED_STAGES = ("corpus", "markets", "social", "generate", "filter")  # their drops: work/drops/<stage>.parquet
PENDING = "snapshot.json"  # the version the last snapshot stage wrote, for the checks
PART_DIGESTS = "part_digests.json"  # sha256 of the working files a snapshot stores, by path, size and mtime


def _file_parts(work_dir: Path, files: list[tuple[str, Path]], count_reasons: bool = False
                ) -> tuple[list[snapshots.Part], dict[str, int]]:
    """Working files as snapshot parts, (key, path) each, and (``count_reasons``, drop files)
    their drops by reason summed: a file is read once (its digest, rows and counts kept by path,
    size and mtime in ``part_digests.json``), so an unchanged day or dump costs a stat."""
    cache_path = work_dir / PART_DIGESTS
    try:
        cache = json.loads(cache_path.read_text()) if cache_path.is_file() else {}
    except ValueError:
        cache = {}  # cut by a crash: read the files again
    parts, reasons, seen = [], {}, {}
    for key, path in files:
        if not path.is_file():
            continue
        stat = path.stat()
        stamp = f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
        known = cache.get(stamp)
        if known is None or (count_reasons and "reasons" not in known):
            known = {"sha256": sha256_file(path), "rows": pl.scan_parquet(path).select(pl.len()).collect().item()}
            if count_reasons:
                known["reasons"] = counts_by_reason(pl.read_parquet(path, columns=["stage", "reason"]))
        seen[stamp] = known
        parts.append(snapshots.Part(key, path, known["sha256"], known["rows"]))
        for reason, n in (known.get("reasons") or {}).items():
            reasons[reason] = reasons.get(reason, 0) + n
    if seen != {k: cache.get(k) for k in seen}:  # other files' entries stay; a file's older stamps go
        paths = {k.rpartition("|")[0].rpartition("|")[0] for k in seen}
        write_json({**{k: v for k, v in cache.items() if k.rpartition("|")[0].rpartition("|")[0] not in paths},
                    **seen}, cache_path)
    return parts, dict(sorted(reasons.items()))


def _as_stored(work_dir: Path, table: str, schema) -> pl.DataFrame | list[snapshots.Part]:
    """A working table as the snapshot stores it: its file as a part when it has the table's
    columns exactly (a dump's tables: not read again when unchanged), else the frame conformed."""
    path = work_dir / f"{table}.parquet"
    if path.is_file() and dict(pl.read_parquet_schema(path)) == dict(schema):
        return _file_parts(work_dir, [("all", path)])[0]
    return _table(work_dir, table, schema)


def snapshot(work_dir: Path, snapshots_dir: Path, name: str, inputs: list[Path],
             config: dict | None = None, publish: bool = True, corpus: CorpusFiles | None = None,
             allow_input_loss: bool = False, rehash: bool = False, always_new_version: bool = False) -> Path:
    """Gather the working tables and every stage's drops into a new snapshot version that
    records the days it covers. The articles and the days' drops are stored a part a crawl day,
    so the days unchanged since the parent are named, not written again. ``publish=False``
    leaves LATEST where it is (the caller moves it once the blocking checks pass); the new folder
    is noted in ``work_dir/snapshot.json``. ``corpus``: the files the inputs came from, whose
    unread files join the drops. ``allow_input_loss`` is recorded in the manifest: the checks on
    lost inputs and shrunken tables then report without blocking (an operator's explicit
    allowance). ``rehash``: every stored part the version names is hashed again (``--full``),
    else those whose stat changed since they last were."""
    removed = snapshots.remove_unchecked(pending_or_none(work_dir))
    if removed:
        log.warning("removed %s: written by an earlier build whose blocking checks never ran", removed)
    if corpus is not None:
        write_parquet(corpus.drops(), work_dir / "drops" / "corpus.parquet")
        corpus.report().save(work_dir)
    days = daily.built_days(work_dir)
    # by name: a folder from before daily partitions also holds whole-build ingest/dedup drops
    stage_drops = [(f"stage={stage}", work_dir / "drops" / f"{stage}.parquet") for stage in UNPARTITIONED_STAGES]
    day_drops = [(f"day={path.parent.parent.name.partition('=')[2]}/{path.parent.name}", path)
                 for path in daily.drop_files(work_dir, days)]
    # one drop an item, whatever order the days were built in (a rerun, a shared folder)
    drops, by_reason = _file_parts(work_dir, one_drop_per_item(work_dir, [*day_drops, *stage_drops]),
                                   count_reasons=True)
    tables = {
        "articles": daily.gathered_parts(work_dir),
        "questions": _table(work_dir, "questions", QUESTIONS),
        **{table: _as_stored(work_dir, table, schema)
           for table, schema in (("markets", MARKETS), ("market_prices", MARKET_PRICES), ("posts", POSTS))},
        "drops": drops,
        "question_evidence": _table(work_dir, "question_evidence", QUESTION_EVIDENCE),
        "question_quality": _table(work_dir, "question_quality", QUESTION_QUALITY),
    }
    reports = {p.stem: json.loads(p.read_text()) for p in sorted((work_dir / "reports").glob("*.json"))}
    audit = work_dir / "audit.md"
    files = {"audit.md": audit.read_text(encoding="utf-8")} if audit.is_file() else {}
    partitions = {"daily": crawl_days.as_ranges(days), "days": len(days)}
    digests = file_digests(inputs, work_dir / "input_digests.json")
    parent = snapshots.latest_version(snapshots_dir, name)
    folder = write_snapshot(tables, snapshots_dir, name, _known(daily.snapshot_window(work_dir)),
                            inputs=digests, stage_counts=reports, config=config, files=files, publish=publish,
                            rehash=rehash, unchanged_is_parent=not always_new_version,
                            extra={"llm": _llm_usage(work_dir), "partitions": partitions,
                                   "allowances": {"input_loss": bool(allow_input_loss)},
                                   "drops_by_reason": by_reason})
    if snapshots.is_unchanged_build(folder, parent):
        log.info("unchanged: the tables are %s's, so no new version (LATEST stays %s)", parent, parent)
    write_json({"name": name, "version": folder.name, "folder": str(folder.resolve())}, work_dir / PENDING)
    return folder


def first_crawl_day(corpus_dir: str | Path) -> date | None:
    """The earliest crawl day of the corpus's WARC files (None: no dated file, or no folder)."""
    if not Path(corpus_dir).is_dir():
        return None
    days = CorpusFiles.discover(corpus_dir).day_files.days()
    return min(days) if days else None


def pending_or_none(work_dir: Path) -> Path | None:
    try:
        return pending_snapshot(work_dir)
    except (FileNotFoundError, ValueError, KeyError):
        return None


def pending_snapshot(work_dir: Path) -> Path:
    """The folder of the version the last snapshot stage wrote."""
    path = Path(work_dir) / PENDING
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no snapshot has been written from this working folder yet")
    return Path(json.loads(path.read_text())["folder"])


def build_news(files: list[Path], work: Path, days: list[date] | None = None,
               on_stage: Callable[[StageReport], None] | None = None,
               on_progress: Callable[[dict], None] | None = None) -> list[date]:
    """Ingest, dedup and gather the news of ``days`` (default every day the files cover)."""
    days = days if days is not None else crawl_days.DayFiles.of(files).days()
    for step in (lambda: ingest_news_days(files, work, days, on_progress=on_progress),
                 lambda: dedup_news_days(work, days), lambda: gather_news(work)):
        report = step()
        if on_stage:
            on_stage(report)
    return days


def tail(work_dir: str | Path, snapshots_dir: str | Path, name: str, inputs: list[Path] = (),
         full: bool = False, corpus: CorpusFiles | None = None, allow_input_loss: bool = False,
         on_stage: Callable[[StageReport], None] | None = None, always_new_version: bool = False) -> Path:
    """The stages after the days, as a nightly build runs them: gather the days' news and
    questions, filter, write a new version (only its changed days stored), run the blocking
    checks (on what the version adds, unless ``full`` or the version is the first) and publish
    it when they pass. Returns its folder; LATEST says whether it was published. No change, no
    version: when the tables are LATEST's, LATEST's folder is returned, nothing checked again."""
    from pastcast.snapshot_checks import publish_if_sound

    work = Path(work_dir)
    for step in (lambda: gather_news(work), lambda: gather_candidates(work),
                 lambda: filter_questions_stage(work, full=full)):
        report = step()
        if on_stage:
            on_stage(report)
    parent = snapshots.latest_version(snapshots_dir, name)
    folder = snapshot(work, Path(snapshots_dir), name, list(inputs), publish=False, corpus=corpus,
                      allow_input_loss=allow_input_loss, rehash=full, always_new_version=always_new_version)
    if not snapshots.is_unchanged_build(folder, parent):
        publish_if_sound(folder, full or None)
    return folder


def run_all(corpus_dir: str | Path, work_dir: str | Path, snapshots_dir: str | Path,
            name: str, on_stage: Callable[[StageReport], None] | None = None,
            on_progress: Callable[[dict], None] | None = None, publish: bool = True,
            days: list[date] | None = None, allow_input_loss: bool = False, full: bool = False) -> Path:
    """Every stage in order, without Dagster; returns the new snapshot folder (LATEST moved to it
    when ``publish``; see ``snapshot_checks.publish_if_sound`` to move it only when the blocking
    checks pass). ``days`` (crawl days) builds only those days' news and questions, keeping the
    days built before (a new window); by default every day of the corpus is built again.
    ``full``: every question searched in the whole corpus again (else those of the build before
    are searched in the articles added since)."""
    files = CorpusFiles.discover(corpus_dir)
    work = Path(work_dir)
    if on_stage:
        on_stage(files.report())
    build_news(files.warc, work, days=days, on_stage=on_stage, on_progress=on_progress)
    questions = ((lambda: generate(work)) if days is None else
                 (lambda: (generate_news(work, days), generate_markets(work), gather_candidates(work))[-1]))
    steps = [lambda: import_markets(files.markets, work, files.unknown_markets),
             lambda: import_posts(files.social, work, files.unknown_social),
             questions, lambda: filter_questions_stage(work, full=full)]
    for step in steps:
        report = step()
        if on_stage:
            on_stage(report)
    return snapshot(work, Path(snapshots_dir), name, files.built_inputs(daily.built_days(work)), publish=publish,
                    corpus=files, allow_input_loss=allow_input_loss, rehash=full)
