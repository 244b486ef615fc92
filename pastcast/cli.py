"""The ``pastcast`` command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from pastcast.curate.drop_policy import MIN_WORD_UNITS, UNDATED, UNDATED_CHOICES

console = Console(stderr=True)
out = Console()
if not out.is_terminal:  # piped or captured: do not squeeze tables to 80 columns
    out = Console(width=200)


def _progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=console, transient=False)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="pastcast")
def main() -> None:
    """pastcast builds date-gated forecasting benchmarks from news and replays them to agents.

    \b
    Quick start:
      pastcast demo                      build the sample snapshot with Dagster and score baselines
      pastcast snapshot list             the snapshot versions under ./snapshots
      pastcast eval run --snapshot snapshots/sample/v1 --agent retrieval --out runs/r1
    """


@main.command()
@click.option("--snapshots", "snapshots_dir", default="snapshots", show_default=True,
              type=click.Path(file_okay=False), help="Where snapshot versions are written.")
def demo(snapshots_dir: str) -> None:
    """Run the whole product once on the bundled sample corpus, offline.

    Materializes every Dagster asset in-process on a local instance (./.dagster), writes a new
    snapshot version, replays it to the baseline agents and prints the leaderboard.
    """
    env = dict(os.environ, PASTCAST_SNAPSHOTS_DIR=snapshots_dir)
    # The Dagster layer lives outside the library; run it as its own module.
    raise SystemExit(subprocess.call([sys.executable, "-m", "pipelines.demo"], env=env))


@main.command()
@click.option("--corpus", "corpus_dir", default="corpora/sample", show_default=True,
              type=click.Path(exists=True, file_okay=False),
              help="Corpus folder with warc/, markets/ and social/ subfolders.")
@click.option("--work", "work_dir", default=".pastcast/work/sample", show_default=True,
              type=click.Path(file_okay=False), help="Working tables (reused to resume).")
@click.option("--snapshots", "snapshots_dir", default="snapshots", show_default=True,
              type=click.Path(file_okay=False))
@click.option("--name", default="sample", show_default=True, help="Snapshot name.")
@click.option("--days", default=None, metavar="FIRST..LAST",
              help="Crawl days to build (e.g. 2026-04-01..2026-06-30, or one day); days built before are "
                   "kept. Default: every day of the corpus.")
def build(corpus_dir: str, work_dir: str, snapshots_dir: str, name: str, days: str | None) -> None:
    """Build a snapshot from a corpus folder without Dagster (same stages as the assets)."""
    from pastcast import pipeline
    from pastcast.daily import parse_days

    try:
        chosen = parse_days(days) if days else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--days") from exc

    def report(r: pipeline.StageReport) -> None:
        drops = ", ".join(f"{k}={v}" for k, v in r.drops.items()) or "none"
        console.print(f"[bold]{r.stage}[/]: {r.rows_in} in, {r.rows_out} kept; drops: {drops}")

    from pastcast.snapshot_checks import publish_if_sound

    with _progress() as bar:
        folder = pipeline.run_all(corpus_dir, work_dir, snapshots_dir, name, on_stage=report,
                                  on_progress=_ingest_progress(bar), publish=False, days=chosen)
    if not _print_checks(publish_if_sound(folder)):
        console.print(f"[red]{folder}: blocking checks failed; LATEST not moved[/]")
        raise SystemExit(1)
    out.print(f"snapshot written: {folder} (LATEST)")


def _print_checks(outcomes) -> bool:
    """Print each blocking check's outcome; True when all passed."""
    for o in outcomes:
        mark = "[green]passed[/]" if o.passed else f"[red]FAILED[/] ({o.problems}: {'; '.join(o.examples[:3])})"
        console.print(f"  check {o.name:<38} {mark}")
    return all(o.passed for o in outcomes)


def _reason_table(title: str, counts: dict[str, int]) -> Table:
    """Drop counts by reason, largest first."""
    table = Table("drop reason", "count", title=title)
    for reason, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        table.add_row(reason, f"{n:,}")
    return table


def _ingest_progress(bar: Progress):
    task = bar.add_task("ingesting", total=None)

    def update(p: dict) -> None:
        rate = p["articles"] / max(p["seconds"], 1e-9)
        bar.update(task, completed=p["files_done"], total=p["files"],
                   description=f"{p['records']:,} records, {p['articles']:,} articles ({rate:,.0f}/s)")

    return update


@main.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Output folder: articles.parquet, drops.parquet (and parts/ for resuming).")
@click.option("--workers", type=int, default=0, show_default=True,
              help="Extraction processes; 0 means one per core.")
@click.option("--base-url", default=None,
              help="Prefix for the paths of a warc.paths.gz listing (default: the listing's host, "
                   "https://data.commoncrawl.org for a local listing).")
@click.option("--spool", "spool_dir", default=None, type=click.Path(file_okay=False),
              help="Where remote files are downloaded to (default OUT/spool); each is deleted "
                   "once ingested.")
@click.option("--language", "languages", multiple=True,
              help="Keep only articles in this language (ISO 639-1, repeatable).")
@click.option("--min-words", default=MIN_WORD_UNITS, show_default=True,
              help="Pages whose main text is shorter are dropped (too_short). Counted in word "
                   "units: words; Chinese and Japanese two characters a word.")
@click.option("--max-age-days", type=click.IntRange(min=0), default=None,
              help="Drop pages dated more than this many days before their crawl (too_old). "
                   "Default: keep them with their true date, never served to agents.")
@click.option("--undated", type=click.Choice(UNDATED_CHOICES), default=UNDATED, show_default=True,
              help="A page with no plausible date of its own: 'crawl' keeps it dated by its crawl "
                   "(date_source 'crawl'; searchable from then on, never a question's source), "
                   "'drop' drops it (no_date, implausible_date).")
def ingest(inputs: tuple[str, ...], out_dir: str, workers: int, base_url: str | None,
           spool_dir: str | None, languages: tuple[str, ...], min_words: int,
           max_age_days: int | None, undated: str) -> None:
    """Read WARC files into dated articles.

    \b
    INPUT is a WARC file, a glob ('crawl/*.warc.gz'), an http(s) URL of a WARC file, or a
    Common Crawl listing (a URL or file ending in .paths.gz), e.g.
      pastcast ingest https://data.commoncrawl.org/crawl-data/CC-NEWS/2026/03/warc.paths.gz --out out/
    Writes OUT/articles.parquet and OUT/drops.parquet. A rerun skips finished files.
    """
    if workers != 1:
        from pastcast.curate.workers import start_early

        start_early()  # warms up while this process imports the rest
    from pastcast.curate.extract import ExtractConfig
    from pastcast.curate.ingest import ingest_inputs

    config = ExtractConfig(min_words=min_words, languages=languages, max_age_days=max_age_days,
                           undated=undated)
    try:
        with _progress() as bar:
            result = ingest_inputs(list(inputs), out_dir, workers=workers or None, config=config,
                                   base_url=base_url, spool_dir=spool_dir,
                                   on_progress=_ingest_progress(bar))
    except (FileNotFoundError, ValueError, OSError) as exc:
        raise click.ClickException(str(exc)) from exc
    out.print(_reason_table("dropped, by stage/reason", result.drops_by_reason))
    rate = result.articles / max(result.seconds, 1e-9)
    out.print(f"{result.files} files ({result.files_skipped} already done), {result.records:,} records, "
              f"{result.articles:,} articles in {result.seconds:.1f} s ({rate:,.1f} articles/s)\n"
              f"articles: {result.articles_path}\ndrops:    {result.drops_path}")


@main.command()
@click.argument("inputs", nargs=-1, required=True)
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Output folder: articles.parquet (kept) and drops.parquet (removed copies).")
@click.option("--state", "state_dir", default=None, type=click.Path(file_okay=False),
              help="Folder of the persistent index: later runs deduplicate against everything "
                   "it holds (incremental). Without it, the inputs are only compared with each other.")
@click.option("--jaccard", default=0.8, show_default=True,
              help="Near copies: estimated Jaccard similarity of 5-word shingles at least this ...")
@click.option("--containment", default=0.8, show_default=True,
              help="... or this share of the shorter text's shingles in the longer one.")
@click.option("--num-perm", default=128, show_default=True, help="MinHash permutations.")
@click.option("--bands", default=32, show_default=True, help="LSH bands (num-perm / bands rows each).")
@click.option("--shingle-words", default=5, show_default=True, help="Words per shingle.")
def dedup(inputs: tuple[str, ...], out_dir: str, state_dir: str | None, jaccard: float,
          containment: float, num_perm: int, bands: int, shingle_words: int) -> None:
    """Remove duplicate articles: same URL, same text, near copies; the earliest copy stays.

    \b
    INPUT is a folder written by `pastcast ingest` (its articles.parquet) or a Parquet file.
    Writes OUT/articles.parquet (kept, with dup_cluster, dup_count, dup_domains) and
    OUT/drops.parquet (every removed copy: kept=<article_id> cluster=<id> in its detail), e.g.
      pastcast dedup ingest/2026-03-01 --out dedup/2026-03-01 --state dedup/index
    """
    from pastcast.curate.dedup import DedupConfig
    from pastcast.curate.dedup_files import dedup_files
    from pastcast.curate.minhash import MinHashConfig

    try:
        config = DedupConfig(minhash=MinHashConfig(num_perm=num_perm, bands=bands, shingle_words=shingle_words),
                             jaccard=jaccard, containment=containment)
        with _progress() as bar:
            task = bar.add_task("deduplicating", total=None)

            def update(p: dict) -> None:
                bar.update(task, completed=p["articles"], total=p["total"],
                           description=f"{p['articles']:,} articles, {p['kept']:,} kept")

            run = dedup_files(list(inputs), out_dir, state_dir, config, on_progress=update)
    except (FileNotFoundError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    out.print(_reason_table("removed copies, by reason", run.counts.by_reason))
    index = f"; index: {run.indexed_before:,} -> {run.indexed_after:,} articles" if state_dir else ""
    out.print(f"{run.counts.articles:,} articles in, {run.counts.kept:,} kept in {run.seconds:.1f} s{index}\n"
              f"articles: {run.articles_path}\ndrops:    {run.drops_path}")


def _import_summary(result) -> None:
    table = Table("records", "read", "kept", "dropped", title=f"{result.kind} import ({', '.join(result.formats)})")
    for kind, c in result.counts.items():
        table.add_row(kind, f"{c['read']:,}", f"{c['kept']:,}", f"{c['dropped']:,}")
    out.print(table)
    out.print(_reason_table("dropped, by stage/reason", result.drops_by_reason))
    rows = ", ".join(f"{name} {n:,}" for name, n in result.rows.items())
    out.print(f"{len(result.inputs)} files -> {rows}")
    for name, path in result.paths.items():
        out.print(f"{name + ':':<15}{path}")


MARKET_FORMAT_NAMES = ("manifold", "polymarket", "metaculus", "kalshi", "forecastbench")
SOCIAL_FORMAT_NAMES = ("reddit", "hn", "bluesky")


@main.group()
def markets() -> None:
    """Import prediction-market dumps."""


@markets.command("import")
@click.option("--format", "fmt", required=True, type=click.Choice(MARKET_FORMAT_NAMES),
              help="The dump's platform format.")
@click.argument("inputs", nargs=-1, required=True)
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Output folder: markets.parquet, market_prices.parquet, drops.parquet, import.json.")
def markets_import(fmt: str, inputs: tuple[str, ...], out_dir: str) -> None:
    """Read market dumps of one format into the normalised markets tables.

    \b
    INPUT is a file (JSON, JSON lines; .zst/.gz/.bz2/.xz compressed) or a folder of them. Give
    every file of one import together: price histories, bets and resolution sets are matched
    to the markets of the other files, e.g.
      pastcast markets import --format forecastbench 2025-12-07-llm.json 2025-12-07_resolution_set.json --out fb/
    Every input record ends up in a table or in drops.parquet with a reason.
    """
    from pastcast.imports import import_markets

    try:
        result = import_markets(fmt, inputs, out_dir)
    except (FileNotFoundError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    _import_summary(result)


@main.group()
def social() -> None:
    """Import social-media dumps."""


@social.command("import")
@click.option("--format", "fmt", required=True, type=click.Choice(SOCIAL_FORMAT_NAMES),
              help="The dump's platform format.")
@click.argument("inputs", nargs=-1, required=True)
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Output folder: posts.parquet, drops.parquet, import.json.")
def social_import(fmt: str, inputs: tuple[str, ...], out_dir: str) -> None:
    """Read social-media dumps of one format into the normalised posts table.

    \b
    INPUT is a file (JSON, JSON lines; .zst/.gz/.bz2/.xz compressed) or a folder of them, e.g.
      pastcast social import --format reddit RC_2026-03.zst --out social/
    Deleted and removed posts, and records that are not posts, go to drops.parquet with a reason.
    """
    from pastcast.imports import import_social

    try:
        result = import_social(fmt, inputs, out_dir)
    except (FileNotFoundError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    _import_summary(result)


@main.group()
def questions() -> None:
    """Generate candidate questions from articles, and filter them."""


@questions.command("generate")
@click.option("--articles", "articles_dir", required=True, type=click.Path(exists=True),
              help="A folder written by `pastcast ingest` or `pastcast dedup`, a snapshot folder, "
                   "or an articles Parquet file.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Output folder: questions.parquet, drops.parquet, llm_ledger.parquet, generate.json.")
@click.option("--generator", type=click.Choice(["auto", "llm", "extractive"]), default="auto", show_default=True,
              help="llm, extractive (offline, no API key), or auto: llm when a model is configured.")
@click.option("--model", default=None, help="litellm model string (default $PASTCAST_LLM_MODEL), e.g. "
              "gpt-4o-mini, anthropic/claude-3-5-haiku-latest, openai/<name> with --api-base.")
@click.option("--api-base", default=None, help="API base URL (default $PASTCAST_LLM_API_BASE), e.g. a vLLM "
              "or Ollama server: http://localhost:8000/v1.")
@click.option("--max-cost", type=float, default=None, help="Hard budget in USD: no request starts once spent.")
@click.option("--max-tokens", type=int, default=None,
              help="Hard budget in tokens (prompt + completion); the budget for models with no known price.")
@click.option("--concurrency", type=int, default=8, show_default=True, help="LLM requests in flight.")
@click.option("--per-day", type=int, default=100, show_default=True,
              help="Articles sent to the LLM per publication day (the best-scored outcome reports).")
@click.option("--horizon-days", type=int, default=28, show_default=True,
              help="A question opens this many days before it resolves.")
@click.option("--cache", "cache_dir", default=None, type=click.Path(file_okay=False),
              help="LLM reply cache (default $PASTCAST_CACHE/llm or ~/.cache/pastcast/llm).")
def questions_generate(articles_dir: str, out_dir: str, generator: str, model: str | None, api_base: str | None,
                       max_cost: float | None, max_tokens: int | None, concurrency: int, per_day: int,
                       horizon_days: int, cache_dir: str | None) -> None:
    """Write candidate questions from articles that report a settled outcome.

    \b
    Writes OUT/questions.parquet (the question columns), OUT/drops.parquet (every article that
    gave no question, with the reason), OUT/llm_ledger.parquet (one row per LLM call) and
    OUT/generate.json, e.g.
      pastcast questions generate --articles dedup/2026-03-01 --out q/2026-03-01 --model gpt-4o-mini --max-cost 5
    A rerun with nothing changed is answered from the LLM cache: no request, no cost.
    """
    from pastcast.drops import counts_by_reason
    from pastcast.questions.generate import generate_questions, read_articles, write_generation

    configured = model or os.environ.get("PASTCAST_LLM_MODEL")
    generator = generator if generator != "auto" else ("llm" if configured else "extractive")
    try:
        articles = read_articles(articles_dir)
        settings, llm_config = None, None
        if generator == "llm":
            from pastcast.llm import LLMSettings
            from pastcast.questions.llm_generate import LLMGenerateConfig, SelectConfig

            settings = LLMSettings.from_env(model=model, api_base=api_base, max_cost_usd=max_cost,
                                            max_tokens=max_tokens, concurrency=concurrency,
                                            cache_dir=Path(cache_dir) if cache_dir else None)
            llm_config = LLMGenerateConfig(horizon_days=horizon_days, select=SelectConfig(per_day=per_day))
        console.print(f"generator: {generator}" + (f" ({settings.model})" if settings else ""))
        if settings is None:
            run = generate_questions(articles, generator, horizon_days=horizon_days)
        else:
            with _progress() as bar:
                task = bar.add_task("generating", total=None)

                def tick(done: int, total: int) -> None:
                    bar.update(task, completed=done, total=total, description=f"{done:,} of {total:,} articles")

                run = generate_questions(articles, generator, horizon_days=horizon_days, llm_settings=settings,
                                         llm_config=llm_config, progress=tick)
        paths = write_generation(run, out_dir)
    except (FileNotFoundError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    out.print(_reason_table("articles without a question, by stage/reason", counts_by_reason(run.drops)))
    per_article = run.questions.height / run.articles if run.articles else 0.0
    out.print(f"{run.articles:,} articles -> {run.questions.height:,} questions ({per_article:.3f} per article)")
    if run.usage:
        u = run.usage
        cost = f"${u['cost_usd']:.4f}" if u["cost_usd"] is not None else "unknown (no price for this model)"
        out.print(f"LLM: {u['requests']:,} requests, {u['cache_hits']:,} cache hits, {u['tokens']:,} tokens "
                  f"({u['prompt_tokens']:,} in, {u['completion_tokens']:,} out), cost {cost}; "
                  f"{run.selected:,} articles sent")
    for name, path in paths.items():
        out.print(f"{name + ':':<13}{path}")


@questions.command("filter")
@click.option("--questions", "questions_file", required=True, type=click.Path(exists=True),
              help="Candidate questions: a Parquet file (or a folder with questions.parquet).")
@click.option("--articles", "articles_dir", required=True, type=click.Path(exists=True),
              help="The article corpus searched for early reports: a folder of `ingest`/`dedup`, a snapshot, "
                   "or an articles Parquet file.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Output folder: questions.parquet, drops.parquet, evidence.parquet, audit.md.")
@click.option("--window-start", type=click.DateTime(["%Y-%m-%d"]), default=None,
              help="Resolution dates before this day are dropped (default: the first article day).")
@click.option("--window-end", type=click.DateTime(["%Y-%m-%d"]), default=None,
              help="Resolution dates after this day are dropped (default: the last article day).")
@click.option("--min-window-days", type=int, default=7, show_default=True,
              help="Shortest forecasting window (open date to resolution date), also after a revision.")
@click.option("--max-answer-words", type=int, default=6, show_default=True)
@click.option("--answer-types", default=None,
              help="Comma-separated allow-list of answer types, any spelling (organization = "
                   "organisation; default: every type; see pastcast.text.answer_types).")
@click.option("--judge", is_flag=True, help="Confirm early-report evidence with an LLM judge (else the lexical rule decides).")
@click.option("--too-easy", is_flag=True, help="Drop questions a model answers from the news before they open.")
@click.option("--label-noise", is_flag=True, help="Drop questions a model cannot answer even with all the news up to resolution.")
@click.option("--model", default=None, help="LLM for --judge/--too-easy/--label-noise (default $PASTCAST_LLM_MODEL).")
@click.option("--api-base", default=None, help="API base URL (default $PASTCAST_LLM_API_BASE).")
@click.option("--max-cost", type=float, default=None, help="Hard LLM budget in USD.")
@click.option("--max-tokens", type=int, default=None, help="Hard LLM budget in tokens.")
@click.option("--concurrency", type=int, default=8, show_default=True)
def questions_filter(questions_file: str, articles_dir: str, out_dir: str, window_start, window_end,
                     min_window_days: int, max_answer_words: int, answer_types: str | None, judge: bool,
                     too_easy: bool, label_noise: bool, model: str | None, api_base: str | None,
                     max_cost: float | None, max_tokens: int | None, concurrency: int) -> None:
    """Filter candidate questions: validation, leaks, duplicates, resolution-date revision.

    \b
    Writes OUT/questions.parquet (kept, with revised resolution dates, original dates and
    evidence article ids), OUT/drops.parquet (question_id, stage, reason, detail),
    OUT/evidence.parquet and OUT/audit.md (counts per stage and reason, and the evidence of
    every dropped, revised or merged question), e.g.
      pastcast questions filter --questions q/questions.parquet --articles dedup/2026-03 --out filtered/
    """
    from dataclasses import replace as with_

    from pastcast.drops import counts_by_reason
    from pastcast.questions.difficulty import DifficultyConfig
    from pastcast.questions.filter import FilterConfig, filter_questions, write_filter_run
    from pastcast.curate.window import news_window
    from pastcast.questions.generate import read_articles
    from pastcast.questions.validate import ANSWER_TYPES, ValidateConfig
    from pastcast.text.answer_types import canonical_types

    try:
        qpath = Path(questions_file)
        candidates = _read_questions(qpath / "questions.parquet" if qpath.is_dir() else qpath)
        articles = read_articles(articles_dir)
        window = news_window(articles) or (None, None)
        types = ANSWER_TYPES
        if answer_types is not None:
            listed = [t for t in answer_types.split(",") if t.strip()]
            if not listed:
                raise ValueError(f"--answer-types {answer_types!r} names no type")
            types = canonical_types(listed)
        config = FilterConfig(
            validate=ValidateConfig(max_answer_words=max_answer_words, min_window_days=min_window_days,
                                    answer_types=types,
                                    window_start=window_start.date() if window_start else window[0],
                                    window_end=window_end.date() if window_end else window[1]),
            difficulty=DifficultyConfig(too_easy=too_easy, label_noise=label_noise))
        config = with_(config, revision=with_(config.revision, min_window_days=min_window_days))
        settings, llm_judge = None, None
        if judge or too_easy or label_noise:
            from pastcast.llm import LLMSettings

            settings = LLMSettings.from_env(model=model, api_base=api_base, max_cost_usd=max_cost,
                                            max_tokens=max_tokens, concurrency=concurrency)
        if judge:
            from pastcast.questions.revision import LLMJudge

            llm_judge = LLMJudge(settings)
        try:
            run = filter_questions(candidates, articles, config, judge=llm_judge, llm_settings=settings)
        finally:
            if llm_judge is not None:
                llm_judge.close()
        paths = write_filter_run(run, out_dir)
    except (FileNotFoundError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    table = Table("stage", "in", "out", "dropped", "revised", title="question filter")
    for st in run.stages:
        table.add_row(st["stage"], f"{st['in']:,}", f"{st['out']:,}", f"{st['dropped']:,}", f"{st['revised']:,}")
    out.print(table)
    out.print(_reason_table("dropped, by stage/reason", counts_by_reason(run.drops_frame())))
    out.print(f"{candidates.height:,} candidates -> {run.questions.height:,} questions; "
              f"early-report evidence decided by: {run.decided_by}")
    for name, path in paths.items():
        out.print(f"{name + ':':<11}{path}")


def _read_questions(path: Path):
    import polars as pl

    if not path.is_file():
        raise FileNotFoundError(f"no questions at {path}")
    return pl.read_parquet(path)


@main.group()
def snapshot() -> None:
    """List, show and verify snapshot versions."""


@snapshot.command("list")
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
def snapshot_list(root: str) -> None:
    """Every snapshot version under ROOT, oldest first; * marks LATEST, "unpublished" a version
    whose blocking checks failed (LATEST never pointed at it)."""
    from pastcast.snapshot import list_snapshots

    df = list_snapshots(root)
    if df.is_empty():
        console.print(f"no snapshots under {Path(root).resolve()}; run `pastcast demo` first")
        return
    table = Table("name", "version", "parent", "created (UTC)", "window", "days built", "articles", "questions",
                  "drops", "path")
    for r in df.iter_rows(named=True):
        status = " *" if r["latest"] else ("" if r["published"] else " unpublished")
        table.add_row(r["name"], r["version"] + status, r["parent"], r["created_at"], r["window"],
                      r["partitions"] or "-", str(r["articles"]), str(r["questions"]), str(r["drops"]), r["path"])
    out.print(table)


@snapshot.command("show")
@click.argument("ref")
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
def snapshot_show(ref: str, root: str) -> None:
    """Print the manifest of REF (a folder, NAME for its latest, or NAME/vN)."""
    from pastcast.snapshot import read_manifest, resolve

    out.print_json(json.dumps(read_manifest(resolve(ref, root))))


@snapshot.command("verify")
@click.argument("ref")
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
def snapshot_verify(ref: str, root: str) -> None:
    """Check that REF's files match the row counts and sha256 in its manifest."""
    from pastcast.snapshot import resolve, verify

    folder = resolve(ref, root)
    problems = verify(folder)
    for p in problems:
        console.print(f"[red]{p}[/]")
    if problems:
        raise SystemExit(1)
    out.print(f"{folder}: every table matches the manifest")


@snapshot.command("check")
@click.argument("ref")
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
@click.option("--publish", is_flag=True, help="Move LATEST to REF when every check passes.")
def snapshot_check(ref: str, root: str, publish: bool) -> None:
    """Run the blocking checks on REF (leaks, evidence, crawl bounds, unique ids, manifest);
    exit 1 when one fails."""
    from pastcast.snapshot import resolve
    from pastcast.snapshot_checks import publish_if_sound, run_blocking_checks

    folder = resolve(ref, root)
    if not _print_checks(publish_if_sound(folder) if publish else run_blocking_checks(folder)):
        raise SystemExit(1)
    out.print(f"{folder}: every blocking check passed" + (" (LATEST)" if publish else ""))


@snapshot.command("diff")
@click.argument("ref_a")
@click.argument("ref_b")
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the diff as JSON (for scripts).")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(min=0),
              help="Example ids shown per category.")
def snapshot_diff(ref_a: str, ref_b: str, root: str, as_json: bool, limit: int) -> None:
    """Compare REF_A (older) with REF_B (newer): questions and articles added, removed and
    changed, by reason, and the manifests (window, inputs, row counts, code version).

    Each REF is a folder, NAME for its latest, or NAME/vN.
    """
    from rich.markup import escape

    from pastcast.snapshot import resolve
    from pastcast.snapshot_diff import diff_snapshots

    folders = []
    for ref in (ref_a, ref_b):
        try:
            folders.append(resolve(ref, root))
        except FileNotFoundError as exc:
            raise click.ClickException(str(exc)) from exc
    diff = diff_snapshots(*folders, title_limit=limit)
    result = diff.as_dict(limit)
    if as_json:
        click.echo(json.dumps(result, indent=2, default=str))
        return
    m = result["manifest"]
    out.print(f"[bold]A[/] {folders[0]}  ->  [bold]B[/] {folders[1]}")
    meta = Table("manifest", "A", "B", title="manifests")
    for key in ("version", "parent_version", "created_at", "code_version", "window", "partitions"):
        if key in m:
            a, b = (m[key][side] for side in ("a", "b"))
            if key == "window":
                a, b = (f"{w['start']}..{w['end']}" if isinstance(w, dict) else w for w in (a, b))
            style = "" if m[key]["same"] or key in ("version", "created_at") else "[yellow]"
            meta.add_row(key, f"{style}{a}", f"{style}{b}")
    inputs = m["inputs"]
    meta.add_row("inputs", str(inputs["a"]), f"{inputs['b']} (+{len(inputs['added'])} "
                 f"-{len(inputs['removed'])} ~{len(inputs['changed'])})")
    for table, rows in m["rows"].items():
        delta = f" ({rows['delta']:+,})" if rows["delta"] else ""
        meta.add_row(f"rows: {table}", f"{rows['a']:,}", f"{rows['b']:,}{delta}")
    out.print(meta)
    if m["drops_by_reason"]:
        out.print("drops by reason: " + "; ".join(
            f"{r} {d['a']:,} -> {d['b']:,}" for r, d in m["drops_by_reason"].items()))
    for label in ("added", "removed", "changed"):
        files = inputs[label]
        if files:
            more = f" (+{len(files) - limit} more)" if len(files) > limit else ""
            out.print(f"inputs {label}: {', '.join(files[:limit])}{more}")
    for kind, t in result["tables"].items():
        table = Table("change", "reason / column", "count", title=f"{kind} ({t['rows']['a']:,} -> {t['rows']['b']:,})")
        for label in ("added", "removed"):
            table.add_row(f"[bold]{label}[/]", "", f"[bold]{t[label]['count']:,}[/]")
            for reason, n in t[label]["by_reason"].items():
                table.add_row("", reason, f"{n:,}")
        table.add_row("[bold]changed[/]", "", f"[bold]{t['changed']['count']:,}[/]")
        for column, n in t["changed"]["by_column"].items():
            table.add_row("", column, f"{n:,}")
        out.print(table)
        if t["schema"]["columns_added"] or t["schema"]["columns_removed"]:
            out.print(f"{kind} schema: columns added {t['schema']['columns_added']}, "
                      f"removed {t['schema']['columns_removed']}")
        if kind != "questions" or not limit:
            continue
        for label in ("added", "removed", "changed"):
            for ex in t[label]["examples"]:
                why = ex.get("reason") or ", ".join(ex.get("columns", []))
                out.print(f"  {label:<8}{escape(ex['id'])}  [dim]{escape(why)}[/]  "
                          f"{escape(ex.get('title', ''))}", highlight=False)
    if diff.identical:
        out.print("no questions or articles added, removed or changed")


@main.group("eval")
def eval_group() -> None:
    """Replay a snapshot to agents and score them."""


@eval_group.command("run")
@click.option("--snapshot", "snapshot_ref", required=True,
              help="Snapshot folder, NAME (its latest) or NAME/vN.")
@click.option("--agent", required=True,
              help="Bundled agent (abstain, retrieval, market, llm) or your own as package.module:ClassName.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Run folder: ledger.jsonl, scores.parquet, run.json.")
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
@click.option("--resume", is_flag=True,
              help="Continue an interrupted run in OUT after its last finished day (its forecasts are "
                   "replayed from the partial ledger); the scores equal an uninterrupted run's.")
@click.option("--policy", default="daily", show_default=True,
              help="When the agent wakes: daily, sleep (the agent calls env.sleep), cron:N (every N days), "
                   "cron:mon,thu, watcher:word,word (new articles matching a word).")
@click.option("--deadline-guard", "deadline_days", type=int, default=0, show_default=True,
              help="Also wake when an open question without a forecast closes within N days (0: off).")
@click.option("--judge-model", default=None,
              help="An LLM also rules on outcomes the matching rules rejected but that may name the answer "
                   "(verdicts cached, logged in match_verdicts.jsonl).")
def eval_run(snapshot_ref: str, agent: str, out_dir: str, root: str, resume: bool, policy: str,
             deadline_days: int, judge_model: str | None) -> None:
    """Replay SNAPSHOT day by day to AGENT and score its forecasts."""
    from pastcast.evaluate.agents import get_agent
    from pastcast.evaluate.leaderboard import leaderboard, render_leaderboard
    from pastcast.evaluate.policies import parse_policy
    from pastcast.evaluate.runner import run_eval
    from pastcast.snapshot import resolve

    try:
        wake = parse_policy(policy, deadline_days)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--policy") from exc
    folder = resolve(snapshot_ref, root)
    with _progress() as bar:
        task = bar.add_task(f"replaying {folder} to {agent}", total=None)

        def tick(i: int, n: int, day) -> None:
            bar.update(task, completed=i, total=n, description=f"{agent}: {day}")

        try:
            judge = None
            if judge_model:
                from pastcast.llm import LLMSettings

                judge = LLMSettings.from_env(model=judge_model)
            run_eval(folder, get_agent(agent), out_dir, progress=tick, resume=resume, policy=wake, judge=judge)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from exc
    click.echo(render_leaderboard(leaderboard([out_dir])))


@eval_group.command("serve")
@click.option("--snapshot", "snapshot_ref", required=True, help="Snapshot folder, NAME (its latest) or NAME/vN.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Run folder: ledger.jsonl, scores.parquet, run.json once the replay ends.")
@click.option("--port", type=int, default=8765, show_default=True, help="Port on 127.0.0.1 (0: any free one).")
@click.option("--agent-name", default="external", show_default=True, help="The name the run is scored under.")
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
def eval_serve(snapshot_ref: str, out_dir: str, port: int, agent_name: str, root: str) -> None:
    """Serve the replay of SNAPSHOT over HTTP on loopback, for an agent in another process.

    \b
    This process holds the answers; a client gets only the current day's tools:
      GET /v1/state, /v1/questions, /v1/search?query=..&k=.., /v1/search_posts, /v1/market?question_id=..,
      /v1/resolved; POST /v1/forecast {"question_id", "forecast": {outcome: p}}, /v1/advance {"days": 1}.
    Advancing past the window's end scores the run like `eval run`; then the server stops.
    """
    from pastcast.evaluate.serve import make_server
    from pastcast.snapshot import resolve

    server, run = make_server(resolve(snapshot_ref, root), out_dir, port, agent_name)
    host, bound = server.server_address[:2]
    console.print(f"serving {run.snapshot_dir} at http://{host}:{bound}/v1 (Ctrl-C to stop)")

    def stop_when_done() -> None:
        import time

        while run.result is None:
            time.sleep(0.2)
        server.shutdown()

    import threading

    threading.Thread(target=stop_when_done, daemon=True).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    if run.result is not None:
        click.echo(render_summary(run.result.summary))


def render_summary(summary: dict) -> str:
    return (f"{summary['questions']} questions, {summary['forecast']} forecast; mean BSS {summary['mean_bss']:+.3f}, "
            f"accuracy {summary['accuracy']:.3f}, time-weighted BSS {summary['time_weighted_bss']:+.3f}")


@eval_group.command("report")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
@click.option("--out", "out_file", required=True, type=click.Path(dir_okay=False),
              help="The HTML file to write (self-contained: open it from disk).")
@click.option("--title", default="pastcast evaluation report", show_default=True)
def eval_report(run_dirs: tuple[str, ...], out_file: str, title: str) -> None:
    """A static HTML report across RUN_DIRS: leaderboard, score over simulated time, calibration,
    score by category, wakes against score."""
    from pastcast.evaluate.report import render_report
    from pastcast.io import write_text

    path = write_text(render_report(list(run_dirs), title), out_file)
    out.print(f"report: {path}")


@eval_group.command("compare")
@click.argument("run_a", type=click.Path(exists=True, file_okay=False))
@click.argument("run_b", type=click.Path(exists=True, file_okay=False))
def eval_compare(run_a: str, run_b: str) -> None:
    """Paired comparison of RUN_A against RUN_B on the questions both scored: mean difference
    with its bootstrap 95% interval, and wins/ties/losses of A, per metric."""
    import polars as pl

    from pastcast.evaluate.metrics import paired

    a, b = pl.read_parquet(Path(run_a) / "scores.parquet"), pl.read_parquet(Path(run_b) / "scores.parquet")
    table = Table("metric", "questions", "A", "B", "A - B", "95% CI", "A wins / ties / losses",
                  title=f"{run_a} vs {run_b}")
    for metric in ("bss", "accuracy", "time_weighted_bss"):
        r = paired(a, b, metric)
        ci = f"[{r['ci'][0]:+.3f}, {r['ci'][1]:+.3f}]" if r["n"] else "-"
        table.add_row(metric, str(r["n"]), f"{r['mean_a']:+.3f}", f"{r['mean_b']:+.3f}", f"{r['mean_diff']:+.3f}",
                      ci, f"{r['wins']} / {r['ties']} / {r['losses']}")
    out.print(table)


@eval_group.command("aggregate")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
@click.option("--out", "out_file", default=None, type=click.Path(dir_okay=False),
              help="Also write the aggregate's final forecasts as JSON lines (for `eval score`).")
def eval_aggregate(run_dirs: tuple[str, ...], out_file: str | None) -> None:
    """Peer-relative scores of RUN_DIRS (runs of one snapshot) and the coordinate-wise
    aggregate of their final forecasts, scored like an agent."""
    import polars as pl

    from pastcast.evaluate.environment import LedgerEntry
    from pastcast.evaluate.metrics import aggregate_forecasts, final_forecasts, peer_relative
    from pastcast.evaluate.runner import score_questions
    from pastcast.io import write_text

    runs = {d: json.loads((Path(d) / "run.json").read_text()) for d in run_dirs}
    snapshots = {r["snapshot"]["path"] for r in runs.values()}
    if len(snapshots) != 1:
        raise click.ClickException(f"the runs replay different snapshots: {sorted(snapshots)}")
    questions = pl.read_parquet(Path(snapshots.pop()) / "questions.parquet")
    finals, scores = {}, {}
    for d, run in runs.items():
        ledger = [LedgerEntry(r["question_id"], date.fromisoformat(r["date"]), r["forecast"])
                  for r in map(json.loads, (Path(d) / "ledger.jsonl").read_text().splitlines())]
        finals[d], scores[d] = final_forecasts(questions, ledger), pl.read_parquet(Path(d) / "scores.parquet")
    aggregate = aggregate_forecasts(finals)
    last_day = max(date.fromisoformat(r["window"]["end"]) for r in runs.values())
    resolution = dict(zip(questions["question_id"], questions["resolution_date"]))
    entries = [LedgerEntry(q, min(last_day, resolution[q] - timedelta(days=1)), f) for q, f in aggregate.items()]
    start = min(date.fromisoformat(r["window"]["start"]) for r in runs.values())
    agg_scores = score_questions(questions, entries, start, last_day)
    relative = peer_relative(scores) if len(runs) > 1 else {}
    table = Table("run", "agent", "mean BSS", "peer-relative BSS", title="peers and their aggregate")
    for d, run in runs.items():
        table.add_row(d, run["agent"], f"{scores[d]['bss'].mean():+.3f}",
                      f"{relative[d]:+.3f}" if d in relative else "-")
    table.add_row("(aggregate)", "mean of the final forecasts", f"{agg_scores['bss'].mean():+.3f}", "-")
    out.print(table)
    if out_file:
        write_text("".join(json.dumps({"question_id": e.question_id, "date": e.date.isoformat(),
                                       "forecast": dict(e.forecast), "agent": "aggregate"}) + "\n" for e in entries),
                   out_file)


@eval_group.command("leaderboard")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
def eval_leaderboard(run_dirs: tuple[str, ...]) -> None:
    """A leaderboard table across RUN_DIRS."""
    from pastcast.evaluate.leaderboard import leaderboard, render_leaderboard

    click.echo(render_leaderboard(leaderboard(list(run_dirs))))


@eval_group.command("score")
@click.option("--snapshot", "snapshot_ref", required=True,
              help="Snapshot folder, NAME (its latest) or NAME/vN.")
@click.option("--forecasts", "forecasts_file", required=True, type=click.Path(exists=True, dir_okay=False),
              help='JSON lines: {"question_id": ..., "date": "YYYY-MM-DD", "forecast": {"outcome": p}}.')
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Run folder: ledger.jsonl, rejected.jsonl, scores.parquet, run.json.")
@click.option("--agent", default=None, help='Agent name (default: the one the lines name, else "external").')
@click.option("--root", default="snapshots", show_default=True, type=click.Path(file_okay=False))
def eval_score(snapshot_ref: str, forecasts_file: str, out_dir: str, agent: str | None, root: str) -> None:
    """Score an external agent's FORECASTS (JSON lines) on SNAPSHOT as `eval run` would."""
    from pastcast.evaluate.external import score_external
    from pastcast.evaluate.leaderboard import leaderboard, render_leaderboard
    from pastcast.snapshot import resolve

    result = score_external(resolve(snapshot_ref, root), forecasts_file, out_dir, agent=agent)
    run = result.run
    console.print(f"{run['accepted']} forecasts accepted, {run['rejected']} rejected"
                  + (f" (see {Path(out_dir) / 'rejected.jsonl'})" if run["rejected"] else ""))
    if run["rejected_by_reason"]:
        console.print(_reason_table("rejected", run["rejected_by_reason"]))
    click.echo(render_leaderboard(leaderboard([out_dir])))


if __name__ == "__main__":
    main()
