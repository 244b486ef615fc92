"""Prediction-market dumps to the markets and market_prices tables."""

import dagster as dg

from assets._report import materialized
from pastcast import pipeline
from pipelines.resources import PastcastStorage


@dg.asset(group_name="markets", kinds={"parquet"},
          description="Markets and their price histories from the corpus market dumps.")
def markets(storage: PastcastStorage) -> dg.MaterializeResult:
    corpus = storage.corpus()
    return materialized(pipeline.import_markets(corpus.markets, storage.work(), corpus.unknown_markets))
