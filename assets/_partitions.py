"""Partitions of the asset graph, and the retry policy of steps that touch the outside world."""

import warnings

import dagster as dg

from assets._executors import writer_pool
from pastcast.pipeline import first_crawl_day

# A deliberate choice (a range of days in one run: one pool of ingest workers, one LLM budget);
# Dagster marks the parameter beta.
warnings.filterwarnings("ignore", message="Parameter `backfill_policy`", category=dg.BetaWarning)

# Crawl days (UTC): a WARC file belongs to the day in its CC-NEWS file name (or its first
# record's date). The partitions start where the corpus starts: PASTCAST_START_DATE when set,
# else the first crawl day of the corpus in PASTCAST_CORPUS_DIR when the code location loads
# (so the catalog counts the corpus's days, not every day since CC-NEWS began), else CC-NEWS's
# first month for a corpus with no file yet. A file of an earlier day is reported by the landing
# sensor (set PASTCAST_START_DATE to build it). The last partition is yesterday: a day is
# complete once it is over.
CC_NEWS_START = "2016-08-01"


def start_date() -> str:
    given = dg.EnvVar("PASTCAST_START_DATE").get_value()
    if given:
        return given
    first = first_crawl_day(dg.EnvVar("PASTCAST_CORPUS_DIR").get_value("corpora/sample"))
    return first.isoformat() if first else CC_NEWS_START


START_DATE = start_date()
DAILY = dg.DailyPartitionsDefinition(start_date=START_DATE, timezone="UTC")

# Tags naming a range of days run as one run (the daily assets' single-run backfill policy).
RANGE_START, RANGE_END = "dagster/asset_partition_range_start", "dagster/asset_partition_range_end"
# The days of such a run that are to be built, when not all of the range is ("2026-01-03,
# 2026-01-07..2026-01-09"): one landing with gaps between its days is still one run; the days in
# the gaps are already built and left as they are.
DAYS_TAG = "pastcast/days"

# Transient failures (a shared file system hiccup, a provider outage longer than the LLM
# client's own retries) get a few more tries, spaced out: 30 s, 60 s, 120 s, each +-50%.
TRANSIENT = dg.RetryPolicy(
    max_retries=int(dg.EnvVar("PASTCAST_MAX_RETRIES").get_value("3")), delay=30,
    backoff=dg.Backoff.EXPONENTIAL, jitter=dg.Jitter.PLUS_MINUS,
)

# Every asset that writes the working folder or the snapshot store: the writers' pool (one
# writing run at a time), the transient retries, and a single-run backfill policy, so a range of
# days is one build from any launcher (`dagster asset materialize --partition-range` needs it on
# every asset it selects, partitioned or not).
WRITES = dict(pool=writer_pool(), retry_policy=TRANSIENT, backfill_policy=dg.BackfillPolicy.single_run())
