"""News: WARC files to dated articles, then exact deduplication."""

import dagster as dg

from assets._report import materialized
from pastcast import pipeline
from pipelines.resources import PastcastStorage


@dg.asset(group_name="news", kinds={"parquet"},
          description="Every HTTP 200 HTML response of the corpus WARC files, extracted and dated.")
def articles_raw(context: dg.AssetExecutionContext, storage: PastcastStorage) -> dg.MaterializeResult:
    files = storage.corpus().warc

    def log(p: dict) -> None:
        context.log.info(f"{p['files_done']}/{p['files']} files, {p['records']} records, "
                         f"{p['articles']} articles, {p['articles'] / max(p['seconds'], 1e-9):.0f}/s")

    return materialized(pipeline.ingest(files, storage.work(), workers=storage.ingest_workers,
                                        on_progress=log))


@dg.asset(group_name="news", kinds={"parquet"}, deps=[articles_raw],
          description="Articles with URL and exact-text duplicates removed; the earliest copy wins.")
def articles(storage: PastcastStorage) -> dg.MaterializeResult:
    return materialized(pipeline.dedup(storage.work()))
