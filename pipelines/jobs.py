"""Jobs and schedules."""

import dagster as dg

# The main job: every asset from WARC files to a new snapshot version.
build_snapshot_job = dg.define_asset_job(
    "build_snapshot", selection=dg.AssetSelection.all(),
    description="Ingest the corpus, generate and validate questions, write a new snapshot version.",
)

nightly_rebuild = dg.ScheduleDefinition(
    job=build_snapshot_job, cron_schedule="0 3 * * *", execution_timezone="UTC",
    default_status=dg.DefaultScheduleStatus.STOPPED,
    description="Rebuild the dataset and write a new snapshot every night at 03:00 UTC.",
)
