"""Jobs: what a run materializes."""

import dagster as dg

EVALUATION = dg.AssetSelection.groups("evaluation")
# Runs that may call an LLM (question generation, the optional leak judge): the run queue can
# bound them with `tag_concurrency_limits` on this tag, whatever the executor.
LLM_TAGS = {"pastcast/llm": "true"}
# Runs that write the working folder or the snapshot store: the shipped instance config lets
# one such run go at a time (a second waits in the queue), and the sensors wait while one runs.
WRITES_TAGS = {"pastcast/writes": "store"}
DAILY_ASSETS = dg.AssetSelection.assets("articles_raw", "articles", "news_questions")

# Days of news and everything downstream of them: a run names a day (or a range of days, run as
# one) and rebuilds the unpartitioned tables, a new snapshot version and LATEST. Markets and
# posts are not rebuilt: they change only when their dumps do (`import_dumps`).
build_news_job = dg.define_asset_job(
    "build_news", selection=DAILY_ASSETS.downstream() - EVALUATION, tags={**LLM_TAGS, **WRITES_TAGS},
    description="Ingest, deduplicate and generate questions for the chosen days, then filter, write a new "
                "snapshot version and move LATEST if its blocking checks pass.",
)

# Market and social dumps (snapshotted, not partitioned: a dump is a state of the world, and a
# market's resolution can change any earlier day's questions) and everything downstream.
import_dumps_job = dg.define_asset_job(
    "import_dumps", selection=dg.AssetSelection.assets("markets", "posts").downstream() - EVALUATION,
    tags={**LLM_TAGS, **WRITES_TAGS},
    description="Import the market and social dumps, then rebuild the questions and a new snapshot version.",
)

# Everything but the evaluation (the first build of a corpus, or a full rebuild).
build_snapshot_job = dg.define_asset_job(
    "build_snapshot", selection=dg.AssetSelection.all() - EVALUATION, tags={**LLM_TAGS, **WRITES_TAGS},
    description="Every asset for the chosen days, the dumps included, to a new snapshot version.",
)

evaluate_job = dg.define_asset_job(
    "evaluate_snapshot", selection=EVALUATION,
    description="Replay a published snapshot version to the configured agents and score them.",
)
