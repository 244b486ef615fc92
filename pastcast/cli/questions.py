"""``pastcast questions generate`` (candidate questions from articles) and ``pastcast questions
filter`` (candidates to benchmark questions), over ``pastcast.questions``."""

from __future__ import annotations

import os
from pathlib import Path

import click
from rich.table import Table

from pastcast.cli._shared import console, out, progress, reason_table, user_errors


@click.group()
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
@click.option("--select", "select_mode", type=click.Choice(["cues", "llm", "all"]), default="cues", show_default=True,
              help="LLM generator: which articles get generation calls. cues: a free regex score on headline "
                   "and lead (cue lists for 12 languages); llm: one cheap yes/no request per article on its "
                   "headline and lead, any language (about a tenth of a generation's tokens); all: every "
                   "article that may source a question. See bench/README.md, 'Selection benchmark'.")
@click.option("--horizon-days", type=int, default=28, show_default=True,
              help="A question opens this many days before it resolves.")
@click.option("--cache", "cache_dir", default=None, type=click.Path(file_okay=False),
              help="LLM reply cache (default $PASTCAST_CACHE/llm or ~/.cache/pastcast/llm).")
def questions_generate(articles_dir: str, out_dir: str, generator: str, model: str | None, api_base: str | None,
                       max_cost: float | None, max_tokens: int | None, concurrency: int, per_day: int,
                       select_mode: str, horizon_days: int, cache_dir: str | None) -> None:
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
    with user_errors():
        articles = read_articles(articles_dir)
        settings, llm_config = None, None
        if generator == "llm":
            from pastcast.llm import LLMSettings
            from pastcast.questions.llm_generate import LLMGenerateConfig, SelectConfig

            settings = LLMSettings.from_env(model=model, api_base=api_base, max_cost_usd=max_cost,
                                            max_tokens=max_tokens, concurrency=concurrency,
                                            cache_dir=Path(cache_dir) if cache_dir else None)
            llm_config = LLMGenerateConfig(horizon_days=horizon_days,
                                           select=SelectConfig(per_day=per_day, mode=select_mode))
        console.print(f"generator: {generator}" + (f" ({settings.model})" if settings else ""))
        if settings is None:
            run = generate_questions(articles, generator, horizon_days=horizon_days)
        else:
            with progress() as bar:
                task = bar.add_task("generating", total=None)

                def tick(done: int, total: int) -> None:
                    bar.update(task, completed=done, total=total, description=f"{done:,} of {total:,} articles")

                run = generate_questions(articles, generator, horizon_days=horizon_days, llm_settings=settings,
                                         llm_config=llm_config, progress=tick)
        paths = write_generation(run, out_dir)
    out.print(reason_table("articles without a question, by stage/reason", counts_by_reason(run.drops)))
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
              help="Output folder: questions.parquet, drops.parquet, evidence.parquet, quality.parquet, audit.md.")
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
@click.option("--quality-llm", is_flag=True,
              help="Also ask an LLM whether each kept question is verifiable and unambiguous (quality flags "
                   "llm_unverifiable, llm_ambiguous; nothing is dropped).")
@click.option("--model", default=None,
              help="LLM for --judge/--too-easy/--label-noise/--quality-llm (default $PASTCAST_LLM_MODEL).")
@click.option("--api-base", default=None, help="API base URL (default $PASTCAST_LLM_API_BASE).")
@click.option("--max-cost", type=float, default=None, help="Hard LLM budget in USD.")
@click.option("--max-tokens", type=int, default=None, help="Hard LLM budget in tokens.")
@click.option("--concurrency", type=int, default=8, show_default=True)
@click.option("--max-template-share", type=click.FloatRange(min=0, max=1, min_open=True), default=0.1,
              show_default=True,
              help="At most this share of the kept questions from one template family (one template "
                   "over many series or entities; never fewer than 10 each): template_family_cap.")
@click.option("--no-template-cap", is_flag=True, help="Keep every question of a template family.")
@click.option("--max-base-rate", type=click.FloatRange(min=0.5, max=1), default=0.95, show_default=True,
              help="Drop a market or dataset question whose template family gave one answer at least "
                   "this often: its members resolved by the day it opens (at least "
                   "--min-family-resolved of them), or for a family's first round its other rounds "
                   "(other days, other series; at least 10): fixed_answer_family.")
@click.option("--min-family-resolved", type=click.IntRange(min=1), default=10, show_default=True,
              help="Resolved members a family needs by a question's open date before its answer "
                   "share counts.")
@click.option("--families-judged-at-open", is_flag=True,
              help="Judge a family only by its members resolved by a question's open date (a "
                   "family's first round is then kept).")
@click.option("--no-base-rate-check", is_flag=True, help="Keep questions whose template family fixes the answer.")
@click.option("--max-horizons", type=click.IntRange(min=1), default=2, show_default=True,
              help="At most this many questions per data series (one series asked at several "
                   "horizons or rounds), horizons spread: series_horizon_cap.")
@click.option("--no-horizon-cap", is_flag=True, help="Keep every horizon of a data series.")
def questions_filter(questions_file: str, articles_dir: str, out_dir: str, window_start, window_end,
                     min_window_days: int, max_answer_words: int, answer_types: str | None, judge: bool,
                     too_easy: bool, label_noise: bool, quality_llm: bool, model: str | None, api_base: str | None,
                     max_cost: float | None, max_tokens: int | None, concurrency: int,
                     max_template_share: float, no_template_cap: bool, max_base_rate: float,
                     min_family_resolved: int, families_judged_at_open: bool, no_base_rate_check: bool,
                     max_horizons: int, no_horizon_cap: bool) -> None:
    """Filter candidate questions: validation, leaks, duplicates, resolution-date revision,
    templates that fix their answer dropped, data series and template families capped.

    \b
    Writes OUT/questions.parquet (kept, with revised resolution dates, original dates and
    evidence article ids), OUT/drops.parquet (question_id, stage, reason, detail),
    OUT/evidence.parquet, OUT/quality.parquet (the quality audit's flags on kept questions:
    question_id, flag, detail) and OUT/audit.md (counts per stage and reason, the evidence of
    every dropped, revised or merged question, and the quality flags), e.g.
      pastcast questions filter --questions q/questions.parquet --articles dedup/2026-03 --out filtered/
    """
    from dataclasses import replace as with_

    from pastcast.drops import counts_by_reason
    from pastcast.questions.difficulty import DifficultyConfig
    from pastcast.questions.filter import FilterConfig, filter_questions, write_filter_run
    from pastcast.search.visibility import news_window
    from pastcast.questions.generate import read_articles
    from pastcast.questions.templates import TemplateCapConfig
    from pastcast.questions.validate import ANSWER_TYPES, ValidateConfig
    from pastcast.text.answer_types import canonical_types

    with user_errors():
        qpath = Path(questions_file)
        candidates = _read_questions(qpath)
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
            difficulty=DifficultyConfig(too_easy=too_easy, label_noise=label_noise),
            templates=TemplateCapConfig(max_share=None if no_template_cap else max_template_share,
                                        max_base_rate=None if no_base_rate_check else max_base_rate,
                                        base_rate_min_resolved=min_family_resolved,
                                        judged_at_open_only=families_judged_at_open,
                                        max_horizons=None if no_horizon_cap else max_horizons),
            quality_llm=quality_llm)
        config = with_(config, revision=with_(config.revision, min_window_days=min_window_days))
        settings, llm_judge = None, None
        if judge or too_easy or label_noise or quality_llm:
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
    table = Table("stage", "in", "out", "dropped", "revised", title="question filter")
    for st in run.stages:
        table.add_row(st["stage"], f"{st['in']:,}", f"{st['out']:,}", f"{st['dropped']:,}", f"{st['revised']:,}")
    out.print(table)
    out.print(coverage_table(run.coverage))
    out.print(reason_table("dropped, by stage/reason", counts_by_reason(run.drops_frame())))
    out.print(f"{candidates.height:,} candidates -> {run.questions.height:,} questions; "
              f"early-report evidence decided by: {run.decided_by}")
    for name, path in paths.items():
        out.print(f"{name + ':':<11}{path}")


def coverage_table(coverage: dict) -> Table:
    """Examined / skipped per step and question kind (only kinds the step was handed)."""
    table = Table("step", "kind", "examined", "skipped", "why skipped", title="what each step examined")
    for step, cov in coverage.items():
        for kind, c in cov["by_kind"].items():
            if c["examined"] or c["skipped"]:
                why = ", ".join(f"{r} {n:,}" for r, n in sorted(c["skipped_reasons"].items())) or "-"
                table.add_row(step, kind, f"{c['examined']:,}", f"{c['skipped']:,}", why)
    return table


def _parse_maps(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple:
    """``--map FIELD=PATH`` values checked before anything is read (a bad one is a usage error)."""
    from pastcast.questions.peers import MapError, parse_maps

    try:
        return parse_maps(values)
    except MapError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from exc


@questions.command("import")
@click.option("--format", "fmt", required=True,
              type=click.Choice(["openforesight", "futuresim", "forecastbench", "jsonl"]),
              help="The peer's file format (see README, \"Peer question sets\").")
@click.argument("inputs", nargs=-1, required=True, type=click.Path(), metavar="FILE...")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Output folder: questions.parquet, drops.parquet, import.json "
                   "(forecastbench: also markets.parquet, market_prices.parquet).")
@click.option("--horizon-days", type=click.IntRange(min=1), default=None,
              help="A question without an open date of its own opens this many days before it resolves "
                   "(default 28; forecastbench: when its market was created).")
@click.option("--open-date", type=click.DateTime(["%Y-%m-%d"]), default=None,
              help="A question without an open date of its own opens on this day (FutureSim opens every "
                   "question on its start day); before --horizon-days.")
@click.option("--force", is_flag=True, help="Replace an earlier import in OUT (a non-empty OUT is refused without it).")
@click.option("--map", "maps", multiple=True, metavar="FIELD=PATH", callback=_parse_maps,
              help="Read FIELD from PATH, a column or a dotted path into nested JSON "
                   "(answer=resolution, article_url=metadata.article_information.article_url); repeatable; "
                   "replaces the format's own names for FIELD; not for forecastbench (docs/peer-imports.md).")
def questions_import(fmt: str, inputs: tuple[str, ...], out_dir: str, horizon_days: int | None, open_date,
                     force: bool, maps: tuple) -> None:
    """Import a peer's question files (FILE... or folders of them) as candidate questions.

    \b
    Every row is a candidate in OUT/questions.parquet or a drop in OUT/drops.parquet, whose
    detail names its file and row (unreadable_row, missing_field, bad_date, bad_value,
    duplicate_question_id); OUT/import.json counts them, maps each answer-type label to its
    type and lists the input columns nothing read. Source articles (--map article_url=...,
    article_date, article_title/article_text; OpenForesight's own) go to OUT/articles.parquet.
    Then filter them like generated questions, e.g.
      pastcast questions import --format openforesight test-00000-of-00001.parquet --out peer/
      pastcast questions filter --questions peer/questions.parquet --articles dedup/ --out peer-filtered/
    """
    from pastcast.questions.peers import ImportConfig, MapError, drop_examples, import_questions

    with user_errors():
        if open_date is not None and fmt == "forecastbench":
            raise ValueError("--open-date does not apply to forecastbench (its questions open with their market)")
        config = ImportConfig(horizon_days=horizon_days, open_date=open_date.date() if open_date else None,
                              maps=maps)
        try:
            result = import_questions(fmt, inputs, out_dir, config, force=force)
        except MapError as exc:
            raise click.BadParameter(str(exc), param_hint="'--map'") from exc
    table = Table("records", "read", "kept", "dropped", title=f"{fmt} import")
    for kind, n in result.records.items():
        table.add_row(kind, f"{n['read']:,}", f"{n['kept']:,}", f"{n['dropped']:,}")
    out.print(table)
    if "article" in result.records:  # rows naming an article already written are not drops
        out.print(f"articles: {result.records['article']['repeated']:,} rows name one already written")
    from pastcast.drops import counts_by_reason

    out.print(reason_table("dropped, by stage/reason", counts_by_reason(result.drops)))
    for reason, detail in drop_examples(result.drops):
        out.print(f"  {reason}: {detail}", highlight=False, markup=False)
    types = Table("answer type as written", "type", "questions", title="answer types")
    for label, t in result.answer_types().items():
        types.add_row(label, t["type"], f"{t['questions']:,}")
    out.print(types)
    out.print(f"{result.questions.height:,} candidate questions, {result.drops.height:,} drops")
    for name, path in result.paths.items():
        out.print(f"{name + ':':<15}{path}")


def _read_questions(path: Path):
    """A questions file, a folder holding questions.parquet, or a snapshot version's questions."""
    import polars as pl

    from pastcast.io import MANIFEST
    from pastcast.store import read_table

    if (path / MANIFEST).is_file():
        return read_table(path, "questions")
    path = path / "questions.parquet" if path.is_dir() else path
    if not path.is_file():
        raise FileNotFoundError(f"no questions at {path}")
    return pl.read_parquet(path)

