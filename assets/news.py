"""News: WARC files to dated articles, then exact deduplication."""

import dagster as dg

from assets._report import materialized
from pastcast import pipeline
from pipelines.resources import PastcastStorage


@dg.asset(group_name="news", kinds={"parquet"},
          description="Every HTTP 200 HTML response of the corpus WARC files, extracted and dated.")
def articles_raw(context: dg.AssetExecutionContext, storage: PastcastStorage) -> dg.MaterializeResult:
    files = storage.corpus().warc
    report = pipeline.ingest(files, storage.work(), on_file=lambda path, i, n: context.log.info(
        f"ingested {path.name} ({i}/{n})"))
    return materialized(report)


@dg.asset(group_name="news", kinds={"parquet"}, deps=[articles_raw],
          description="Articles with URL and exact-text duplicates removed; the earliest copy wins.")
def articles(storage: PastcastStorage) -> dg.MaterializeResult:
    return materialized(pipeline.dedup(storage.work()))
