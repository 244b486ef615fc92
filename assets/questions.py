"""Candidate questions from news and markets, then validation."""

import dagster as dg

from assets._report import materialized
from assets.markets import markets
from assets.news import articles
from pastcast import pipeline
from pipelines.resources import PastcastStorage


@dg.asset(group_name="questions", kinds={"parquet"}, deps=[articles, markets],
          description="Candidate questions: outcome reports in articles and resolved markets.")
def question_candidates(storage: PastcastStorage) -> dg.MaterializeResult:
    return materialized(pipeline.generate(storage.work(), market_config=storage.market_questions()))


@dg.asset(group_name="questions", kinds={"parquet"}, deps=[question_candidates],
          description="Questions that pass validation; one per event, earliest report kept.")
def questions(storage: PastcastStorage) -> dg.MaterializeResult:
    return materialized(pipeline.validate(storage.work()))
