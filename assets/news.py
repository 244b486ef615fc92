"""News by crawl day: a day's WARC files to dated articles, then deduplicated against every day
before it; then every built day gathered into one table."""

import dagster as dg

from assets._partitions import DAILY, WRITES
from assets._report import bad_input_is_final, daily_materialized, materialized, partition_days, warning
from assets._resources import PastcastStorage
from pastcast import pipeline, stage_checks
from pastcast.daily import NO_INPUT, no_input_reason

DROP_RATES = "drop_rates_in_usual_range"
COVERAGE = "date_coverage"
INPUT_FILES = "input_files"


@dg.asset(group_name="news", kinds={"parquet"}, partitions_def=DAILY, **WRITES, output_required=False,
          check_specs=[dg.AssetCheckSpec(DROP_RATES, asset="articles_raw",
                                         description="Each day's ingest drop rate (records not kept, "
                                                     "request/metadata records aside) within the range of "
                                                     "the days before it."),
                       dg.AssetCheckSpec(INPUT_FILES, asset="articles_raw",
                                         description="Every day the run was asked to build has WARC files "
                                                     "(a warning a day without any, which is not built).")],
          description="Every HTTP 200 HTML response of the day's WARC files (by their CC-NEWS file-name "
                      "time stamp), extracted and dated; a range of days is one run over one pool of workers. "
                      "A run whose days have no WARC file materializes nothing (an observation on each "
                      "day's partition says why), so nothing downstream runs.")
@bad_input_is_final
def articles_raw(context: dg.AssetExecutionContext, storage: PastcastStorage):
    days = partition_days(context)

    def log(p: dict) -> None:
        context.log.info(f"{p['files_done']}/{p['files']} files, {p['records']} records, "
                         f"{p['articles']} articles, {p['articles'] / max(p['seconds'], 1e-9):.0f}/s")

    work, corpus, source = storage.work(), storage.corpus(), f"{storage.corpus_dir}/warc"
    report = pipeline.ingest_news_days(corpus.warc, work, days, workers=storage.ingest_workers,
                                       on_progress=log, source=source)
    no_input = report.extra["no_input"]
    checks = [warning(DROP_RATES, stage_checks.drop_rates_in_usual_range(work, days, "ingest")),
              warning(INPUT_FILES, stage_checks.input_files(no_input))]
    if len(no_input) == len(days):
        # no input, no build: an empty partition with its reason; the step's output is not
        # yielded, so Dagster skips everything downstream (no snapshot, no version, no evaluation).
        # The checks are still yielded (Dagster requires every check spec's result; the drop
        # rates have no day to judge and pass)
        for day, reason in no_input.items():
            context.log.warning(reason)
            context.log_event(dg.AssetObservation(asset_key=context.asset_key, partition=day, metadata={
                NO_INPUT: reason, "dagster/row_count": 0}))
        yield from checks
        return

    def no_file(day) -> str | None:  # a day of the range the run's days tag left out
        return None if day in corpus.day_files.by_day else no_input_reason(day, source)

    yield daily_materialized(context, work, days, "ingest", report, checks, no_file)


@dg.asset(group_name="news", kinds={"parquet"}, partitions_def=DAILY, deps=[articles_raw], **WRITES,
          check_specs=[dg.AssetCheckSpec(DROP_RATES, asset="articles",
                                         description="Each day's share of duplicates within the range of "
                                                     "the days before it."),
                       dg.AssetCheckSpec(COVERAGE, asset="articles",
                                         description="Every day with files has articles, not far fewer than "
                                                     "usual (beyond chance), most dated from the page itself.")],
          description="The day's articles less URL, exact and near duplicates of themselves and of every "
                      "day deduplicated before (a persistent index; the earliest copy wins).")
@bad_input_is_final
def articles(context: dg.AssetExecutionContext, storage: PastcastStorage) -> dg.MaterializeResult:
    days, work = partition_days(context), storage.work()
    report = pipeline.dedup_news_days(work, days)
    return daily_materialized(context, work, days, "dedup", report, [
        warning(DROP_RATES, stage_checks.drop_rates_in_usual_range(work, days, "dedup")),
        warning(COVERAGE, stage_checks.date_coverage(work, days))])


@dg.asset(group_name="news", kinds={"parquet"}, deps=[articles], **WRITES,
          description="Every built day's articles in one table (copies displaced by an earlier copy "
                      "that arrived later left out), the input of the question filter and the snapshot.")
@bad_input_is_final
def article_corpus(storage: PastcastStorage) -> dg.MaterializeResult:
    return materialized(pipeline.gather_news(storage.work()))
