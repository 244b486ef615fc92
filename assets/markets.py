"""Prediction-market dumps to the markets and market_prices tables."""

import dagster as dg

from assets._partitions import WRITES
from assets._report import bad_input_is_final, materialized
from assets._resources import PastcastStorage
from pastcast import pipeline


@dg.asset(group_name="markets", kinds={"parquet"}, **WRITES,
          description="Markets and their price histories from the corpus market dumps.")
@bad_input_is_final
def markets(storage: PastcastStorage) -> dg.MaterializeResult:
    corpus = storage.corpus()
    return materialized(pipeline.import_markets(corpus.markets, storage.work(), corpus.unknown_markets))
