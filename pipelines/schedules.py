"""Schedules (stopped unless PASTCAST_AUTOMATIONS=on, or turned on in the UI or with
`dagster schedule start`: pipelines/automation.py)."""

import dagster as dg

from pipelines.automation import schedule_status
from pipelines.jobs import build_news_job

# Yesterday's day of news and a new snapshot, every night; 03:00 UTC leaves CC-NEWS time to
# close the day's last files.
nightly_rebuild = dg.build_schedule_from_partitioned_job(
    build_news_job, name="nightly_rebuild", hour_of_day=3, default_status=schedule_status(),
    description="Every night at 03:00 UTC: yesterday's news, its questions and a new snapshot version.",
)
