"""Candidate questions: news questions per publication day, market questions, gathered, then
validation."""

import warnings
from datetime import date

import dagster as dg

from assets._report import materialized
from assets.markets import markets
from assets.news import articles
from pastcast import pipeline
from pipelines.partitions import DAILY
from pipelines.resources import PastcastStorage, QuestionFilter, QuestionGenerator


# A deliberate choice (a range of days in one run, under one LLM budget); Dagster marks it beta.
warnings.filterwarnings("ignore", message="Parameter `backfill_policy`", category=dg.BetaWarning)


@dg.asset(group_name="questions", kinds={"parquet"}, deps=[articles], partitions_def=DAILY,
          backfill_policy=dg.BackfillPolicy.single_run(), pool="llm",
          description="Questions from the articles published on each day (extractive, or an LLM "
                      "through litellm); a range of days runs as one run under one LLM budget.")
def news_questions(context: dg.AssetExecutionContext, storage: PastcastStorage,
                   generator: QuestionGenerator) -> dg.MaterializeResult:
    days = [date.fromisoformat(key) for key in context.partition_keys]

    def log(done: int, total: int) -> None:
        if done == total or done % 100 == 0:
            context.log.info(f"{done}/{total} articles sent to the LLM done")

    report = pipeline.generate_news(storage.work(), days, generator.generator, progress=log,
                                    **generator.options())
    llm = report.extra.get("llm") or {}
    result = materialized(report)
    extra = {f"llm/{k}": v for k, v in llm.items() if k in ("requests", "cache_hits", "tokens")}
    if llm:  # run-level cost: None when the model has no known price
        extra["llm/cost_usd"] = llm["cost_usd"] if llm["cost_usd"] is not None else "unknown"
    return dg.MaterializeResult(metadata={**(result.metadata or {}), **extra})


@dg.asset(group_name="questions", kinds={"parquet"}, deps=[markets],
          description="Questions from resolved markets, with their outcome labels as candidates.")
def market_questions(storage: PastcastStorage) -> dg.MaterializeResult:
    return materialized(pipeline.generate_markets(storage.work(), storage.market_questions()))


@dg.asset(group_name="questions", kinds={"parquet"}, deps=[news_questions, market_questions],
          description="Every day's news questions and the market questions, in one table.")
def question_candidates(storage: PastcastStorage) -> dg.MaterializeResult:
    return materialized(pipeline.gather_candidates(storage.work()))


@dg.asset(group_name="questions", kinds={"parquet"}, deps=[question_candidates, articles],
          description="Questions that pass the filter: validation, no answer in their own or another "
                      "question's text, duplicates merged, resolution dates moved to the first article "
                      "that reports the answer; evidence and an audit report kept.")
def questions(storage: PastcastStorage, question_filter: QuestionFilter) -> dg.MaterializeResult:
    return materialized(pipeline.filter_questions_stage(storage.work(), **question_filter.options()))
