"""News by crawl day: a day's WARC files to dated articles, then deduplicated against every day
before it; then every built day gathered into one table."""

import dagster as dg

from assets._partitions import DAILY, TRANSIENT
from assets._report import bad_input_is_final, materialized, partition_days, warning
from assets._resources import PastcastStorage
from pastcast import pipeline, stage_checks

DROP_RATES = "drop_rates_in_usual_range"
COVERAGE = "date_coverage"


@dg.asset(group_name="news", kinds={"parquet"}, partitions_def=DAILY, retry_policy=TRANSIENT,
          backfill_policy=dg.BackfillPolicy.single_run(),
          check_specs=[dg.AssetCheckSpec(DROP_RATES, asset="articles_raw",
                                         description="Each day's ingest drop rate (records not kept, "
                                                     "request/metadata records aside) within the range of "
                                                     "the days before it.")],
          description="Every HTTP 200 HTML response of the day's WARC files (by their CC-NEWS file-name "
                      "time stamp), extracted and dated; a range of days is one run over one pool of workers.")
@bad_input_is_final
def articles_raw(context: dg.AssetExecutionContext, storage: PastcastStorage) -> dg.MaterializeResult:
    days = partition_days(context)

    def log(p: dict) -> None:
        context.log.info(f"{p['files_done']}/{p['files']} files, {p['records']} records, "
                         f"{p['articles']} articles, {p['articles'] / max(p['seconds'], 1e-9):.0f}/s")

    work = storage.work()
    report = pipeline.ingest_news_days(storage.corpus().warc, work, days, workers=storage.ingest_workers,
                                       on_progress=log)
    return materialized(report, [warning(DROP_RATES, stage_checks.drop_rates_in_usual_range(work, days, "ingest"))])


@dg.asset(group_name="news", kinds={"parquet"}, partitions_def=DAILY, deps=[articles_raw], retry_policy=TRANSIENT,
          backfill_policy=dg.BackfillPolicy.single_run(),
          check_specs=[dg.AssetCheckSpec(DROP_RATES, asset="articles",
                                         description="Each day's share of duplicates within the range of "
                                                     "the days before it."),
                       dg.AssetCheckSpec(COVERAGE, asset="articles",
                                         description="Every day has articles, not far fewer than usual, "
                                                     "most dated from the page itself.")],
          description="The day's articles less URL, exact and near duplicates of themselves and of every "
                      "day deduplicated before (a persistent index; the earliest copy wins).")
@bad_input_is_final
def articles(context: dg.AssetExecutionContext, storage: PastcastStorage) -> dg.MaterializeResult:
    days, work = partition_days(context), storage.work()
    report = pipeline.dedup_news_days(work, days)
    return materialized(report, [warning(DROP_RATES, stage_checks.drop_rates_in_usual_range(work, days, "dedup")),
                                 warning(COVERAGE, stage_checks.date_coverage(work, days))])


@dg.asset(group_name="news", kinds={"parquet"}, deps=[articles], retry_policy=TRANSIENT,
          description="Every built day's articles in one table (copies displaced by an earlier copy "
                      "that arrived later left out), the input of the question filter and the snapshot.")
@bad_input_is_final
def article_corpus(storage: PastcastStorage) -> dg.MaterializeResult:
    return materialized(pipeline.gather_news(storage.work()))
