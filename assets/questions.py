"""Candidate questions: news questions per crawl day, market questions, gathered, then the
filter."""

import dagster as dg

from assets._partitions import DAILY, WRITES
from assets._report import bad_input_is_final, daily_materialized, materialized, partition_days, warning
from assets._resources import PastcastStorage, QuestionFilter, QuestionGenerator
from assets.markets import markets
from assets.news import article_corpus, articles
from pastcast import pipeline, stage_checks

NEWS_IN_WINDOW = "news_questions_in_window"


@dg.asset(group_name="questions", kinds={"parquet"}, deps=[articles], partitions_def=DAILY,
          **WRITES,
          description="Questions from the articles that arrived on each day (extractive, or an LLM "
                      "through litellm); a range of days runs as one run under one LLM budget.")
@bad_input_is_final
def news_questions(context: dg.AssetExecutionContext, storage: PastcastStorage,
                   generator: QuestionGenerator) -> dg.MaterializeResult:
    days = partition_days(context)

    def log(done: int, total: int) -> None:
        if done == total or done % 100 == 0:
            context.log.info(f"{done}/{total} articles sent to the LLM done")

    work = storage.work()
    report = pipeline.generate_news(work, days, generator.generator, progress=log, **generator.options())
    # each day's articles and questions on its partition; the LLM's use and cost are the run's (run/llm/...)
    return daily_materialized(context, work, days, "generate_news", report)


@dg.asset(group_name="questions", kinds={"parquet"}, deps=[markets], **WRITES,
          description="Questions from resolved markets, with their outcome labels as candidates.")
@bad_input_is_final
def market_questions(storage: PastcastStorage) -> dg.MaterializeResult:
    return materialized(pipeline.generate_markets(storage.work(), storage.market_questions()))


@dg.asset(group_name="questions", kinds={"parquet"}, deps=[news_questions, market_questions],
          **WRITES,
          description="Every day's news questions and the market questions, in one table.")
@bad_input_is_final
def question_candidates(storage: PastcastStorage) -> dg.MaterializeResult:
    return materialized(pipeline.gather_candidates(storage.work()))


@dg.asset(group_name="questions", kinds={"parquet", "tantivy"}, deps=[question_candidates, article_corpus],
          **WRITES,
          check_specs=[dg.AssetCheckSpec(NEWS_IN_WINDOW, asset="questions",
                                         description="Warns when the news gave candidate questions and none was "
                                                     "kept, most dropped as short_window or outside_window "
                                                     "(usually wrong crawl days; see docs/crawl-days.md).")],
          description="Questions that pass the filter: validation, no answer in their own or another "
                      "question's text, duplicates merged, resolution dates moved to the first article "
                      "that reports the answer; evidence and an audit report kept.")
@bad_input_is_final
def questions(storage: PastcastStorage, question_filter: QuestionFilter) -> dg.MaterializeResult:
    report = pipeline.filter_questions_stage(storage.work(), **question_filter.options())
    return materialized(report, [warning(NEWS_IN_WINDOW, stage_checks.news_questions_in_window(storage.work()))])
