"""Sensors: new WARC files in the landing folder, changed dumps, and each newly published
snapshot. The decisions are library functions; these only turn them into run requests."""

from __future__ import annotations

from datetime import datetime, timezone

import dagster as dg

from assets._partitions import DAILY, RANGE_END, RANGE_START
from assets._resources import PastcastStorage
from pastcast.daily import DayFiles, contiguous, days_to_build, files_digest, read_day_report
from pipelines.jobs import build_news_job, evaluate_job, import_dumps_job


INGEST_ATTEMPTS = 3  # runs that try a day again after one of its files could not be read


def _today() -> datetime:
    return datetime.now(timezone.utc)


@dg.sensor(job=build_news_job, minimum_interval_seconds=300, default_status=dg.DefaultSensorStatus.STOPPED,
           description="Watches the corpus's warc/ folder (where new CC-NEWS files land) and requests a run "
                       "for each run of consecutive complete days whose files are new or changed.")
def new_warc_files(context: dg.SensorEvaluationContext, storage: PastcastStorage):
    landing = storage.corpus().warc
    day_files = DayFiles.of(landing)
    for path, why in day_files.undated.items():
        context.log.warning(f"{path}: left out, {why}")
    work = storage.work()
    reports = {d: read_day_report(work, d, "ingest") or {} for d in day_files.by_day}
    built = {d: report.get("files_digest") for d, report in reports.items()}
    todo = days_to_build(day_files, built, before=_today().date())
    # a day whose files could not all be read is tried again, a few times, then left to a person
    given_up = [d for d in todo if reports[d].get("failed_attempts", 0) >= INGEST_ATTEMPTS]
    for d in given_up:
        context.log.warning(f"day {d}: {', '.join(reports[d].get('files_failed', []))} still unreadable after "
                            f"{INGEST_ATTEMPTS} attempts; replace or remove the file, or run the day by hand")
    todo = [d for d in todo if d not in given_up]
    early = [d for d in todo if d < DAILY.start.date()]
    if early:
        context.log.warning(f"{len(early)} days of files before the first partition ({DAILY.start.date()}), "
                            f"left out: {', '.join(map(str, early[:5]))}; set PASTCAST_START_DATE to include them")
        todo = [d for d in todo if d >= DAILY.start.date()]
    if not todo:
        waiting = f", {len(given_up)} left unbuilt after {INGEST_ATTEMPTS} failed reads" if given_up else ""
        return dg.SkipReason(f"{len(day_files.by_day)} days of WARC files in {storage.corpus_dir}/warc, "
                             f"none new{waiting}")
    requests = []
    for first, last in contiguous(todo):
        files = [f for d, fs in day_files.by_day.items() if first <= d <= last for f in fs]
        key = first.isoformat() if first == last else f"{first.isoformat()}..{last.isoformat()}"
        tags = {RANGE_START: first.isoformat(), RANGE_END: last.isoformat()}
        # a retry needs a key of its own: Dagster runs a run key once
        attempts = max(reports[d].get("failed_attempts", 0) for d in todo if first <= d <= last)
        retry = f":attempt-{attempts + 1}" if attempts else ""
        requests.append(dg.RunRequest(run_key=f"{key}:{files_digest(files)}{retry}", tags=tags))
    return requests


@dg.sensor(job=import_dumps_job, minimum_interval_seconds=600, default_status=dg.DefaultSensorStatus.STOPPED,
           description="Watches the corpus's markets/ and social/ folders and re-imports them when a dump "
                       "is added, replaced or removed.")
def changed_dumps(context: dg.SensorEvaluationContext, storage: PastcastStorage):
    files = storage.corpus().dumps()
    digest = files_digest(files)
    if context.cursor == digest:
        return dg.SkipReason(f"{len(files)} dump files, unchanged")
    return dg.SensorResult(run_requests=[dg.RunRequest(run_key=digest)], cursor=digest)


@dg.asset_sensor(asset_key=dg.AssetKey("latest_snapshot"), job=evaluate_job,
                 default_status=dg.DefaultSensorStatus.STOPPED,
                 description="Runs the bundled evaluation on each snapshot version LATEST moves to.")
def evaluate_new_snapshots(context: dg.SensorEvaluationContext, asset_event: dg.EventLogEntry):
    metadata = asset_event.asset_materialization.metadata
    name, version = metadata["name"].value, metadata["version"].value
    return dg.RunRequest(run_key=f"{name}/{version}", run_config=dg.RunConfig(
        ops={"evaluation": {"config": {"version": version}}}), tags={"pastcast/snapshot": f"{name}/{version}"})

