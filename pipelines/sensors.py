"""Sensors: new WARC files in the landing folder, changed dumps, and each newly published
snapshot. The decisions are library functions; these only turn them into run requests."""

from __future__ import annotations

from datetime import datetime, timezone

import dagster as dg

from assets._partitions import DAILY, DAYS_TAG, RANGE_END, RANGE_START
from assets._resources import PastcastStorage
from pastcast.daily import as_ranges, days_to_build, files_digest, read_day_report
from pipelines.jobs import WRITES_TAGS, build_news_job, evaluate_job, import_dumps_job


INGEST_ATTEMPTS = 3  # runs that try a day again after one of its files could not be read


def _today() -> datetime:
    return datetime.now(timezone.utc)


# A run that writes the working folder or the snapshot store and is not over yet
UNFINISHED = [dg.DagsterRunStatus.QUEUED, dg.DagsterRunStatus.NOT_STARTED, dg.DagsterRunStatus.STARTING,
              dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.CANCELING]


def writing_runs(instance: dg.DagsterInstance) -> list:
    """Runs that write the working folder or the snapshot store and have not ended."""
    return list(instance.get_runs(dg.RunsFilter(tags=WRITES_TAGS, statuses=UNFINISHED), limit=5))


def waiting_for(runs: list) -> str:
    run = runs[0]
    return (f"waiting for {run.job_name} run {run.run_id[:8]} ({run.status.value.lower()}) to end: "
            "a second build at once would race it for the working folder and the snapshot store")


@dg.sensor(job=build_news_job, minimum_interval_seconds=300, default_status=dg.DefaultSensorStatus.STOPPED,
           description="Watches the corpus's warc/ folder (where new CC-NEWS files land) and requests one run "
                       "for every complete day whose files are new or changed; waits while a build runs.")
def new_warc_files(context: dg.SensorEvaluationContext, storage: PastcastStorage):
    busy = writing_runs(context.instance)
    if busy:  # its days would look new until it ends: wait for it, then build what is left
        return dg.SkipReason(waiting_for(busy))
    day_files = storage.corpus().day_files  # the landing folder's files by day, dated once
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
    files = [f for d in todo for f in day_files.by_day[d]]
    first, last = todo[0], todo[-1]
    # one run for every day found, whatever the gaps between them: its range covers them all and
    # its days tag names the ones to build (the gaps are built already and left alone)
    tags = {RANGE_START: first.isoformat(), RANGE_END: last.isoformat(), DAYS_TAG: ",".join(as_ranges(todo))}
    # a retry needs a key of its own: Dagster runs a run key once
    attempts = max(reports[d].get("failed_attempts", 0) for d in todo)
    retry = f":attempt-{attempts + 1}" if attempts else ""
    span = first.isoformat() if first == last else f"{first.isoformat()}..{last.isoformat()}"
    context.log.info(f"{len(todo)} new or changed days ({tags[DAYS_TAG]}) in one run")
    return dg.RunRequest(run_key=f"{span}:{files_digest(files)}{retry}", tags=tags)


@dg.sensor(job=import_dumps_job, minimum_interval_seconds=600, default_status=dg.DefaultSensorStatus.STOPPED,
           description="Watches the corpus's markets/ and social/ folders and re-imports them when a dump "
                       "is added, replaced or removed; waits while a build runs.")
def changed_dumps(context: dg.SensorEvaluationContext, storage: PastcastStorage):
    files = storage.corpus().dumps()
    digest = files_digest(files)
    if context.cursor == digest:
        return dg.SkipReason(f"{len(files)} dump files, unchanged")
    busy = writing_runs(context.instance)
    if busy:  # the cursor stays: the change is requested once the run ends
        return dg.SkipReason(waiting_for(busy))
    return dg.SensorResult(run_requests=[dg.RunRequest(run_key=digest)], cursor=digest)


@dg.asset_sensor(asset_key=dg.AssetKey("latest_snapshot"), job=evaluate_job,
                 default_status=dg.DefaultSensorStatus.STOPPED,
                 description="Runs the bundled evaluation on each snapshot version LATEST moves to.")
def evaluate_new_snapshots(context: dg.SensorEvaluationContext, asset_event: dg.EventLogEntry):
    metadata = asset_event.asset_materialization.metadata
    name, version = metadata["name"].value, metadata["version"].value
    return dg.RunRequest(run_key=f"{name}/{version}", run_config=dg.RunConfig(
        ops={"evaluation": {"config": {"version": version}}}), tags={"pastcast/snapshot": f"{name}/{version}"})

