"""Social-media dumps to the posts table."""

import dagster as dg

from assets._partitions import WRITES
from assets._report import bad_input_is_final, materialized
from assets._resources import PastcastStorage
from pastcast import pipeline


@dg.asset(group_name="social", kinds={"parquet"}, **WRITES,
          description="Posts from the corpus social dumps; deleted bodies are drops.")
@bad_input_is_final
def posts(storage: PastcastStorage) -> dg.MaterializeResult:
    corpus = storage.corpus()
    return materialized(pipeline.import_posts(corpus.social, storage.work(), corpus.unknown_social))
