"""Jobs and schedules."""

import dagster as dg

# The main job: every asset from WARC files to a new snapshot version. News questions are
# partitioned by day, so a run names a day or a range of days (a single-run backfill).
build_snapshot_job = dg.define_asset_job(
    "build_snapshot", selection=dg.AssetSelection.all(),
    description="Ingest the corpus, generate questions for the chosen days, validate them, write a "
                "new snapshot version.",
)

nightly_rebuild = dg.build_schedule_from_partitioned_job(
    build_snapshot_job, hour_of_day=3, default_status=dg.DefaultScheduleStatus.STOPPED,
    description="Every night at 03:00 UTC: yesterday's questions and a new snapshot.",
)
