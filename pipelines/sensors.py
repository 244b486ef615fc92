"""Sensors: new WARC files in the landing folder, changed dumps, and each newly published
snapshot. The decisions are library functions; these only turn them into run requests."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import dagster as dg

from assets._executors import WRITER_POOL
from assets._partitions import DAILY, DAYS_TAG, RANGE_END, RANGE_START
from assets._resources import EvaluationSettings, PastcastStorage
from pastcast import lease
from pastcast.daily import read_day_report
from pastcast.sources.crawl_days import as_ranges, days_to_build, files_digest
from pastcast.snapshot import HISTORY, latest_version, read_log
from pipelines.automation import sensor_status
from pipelines.jobs import WRITES_TAGS, build_news_job, evaluate_job, import_dumps_job


RUN_KEY_TAG = "dagster/run_key"  # the tag Dagster gives a run a sensor requested with a run key
INGEST_ATTEMPTS = 3  # runs that try a day again after one of its files could not be read


def _today() -> datetime:
    return datetime.now(timezone.utc)


# A run that writes the working folder or the snapshot store and is not over yet
UNFINISHED = [dg.DagsterRunStatus.QUEUED, dg.DagsterRunStatus.NOT_STARTED, dg.DagsterRunStatus.STARTING,
              dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.CANCELING]
READS_ONLY = {dg.AssetKey("evaluation")}  # the one asset that writes neither the working folder nor the store


def _writes(run: dg.DagsterRun) -> bool:
    """Whether a run writes: a job's tag, or (a backfill from the catalog or the graph, without
    the tag) a step in the writers' pool or a writing asset in its selection."""
    if all(run.tags.get(k) == v for k, v in WRITES_TAGS.items()):
        return True
    pools = (run.run_op_concurrency.all_pools or []) if run.run_op_concurrency else []
    return WRITER_POOL in pools or bool(set(run.asset_selection or ()) - READS_ONLY)


def writing_runs(instance: dg.DagsterInstance) -> list:
    """Runs that write the working folder or the snapshot store and have not ended."""
    return [run for run in instance.get_runs(dg.RunsFilter(statuses=UNFINISHED), limit=100) if _writes(run)]


def busy_writer(instance: dg.DagsterInstance, storage: PastcastStorage) -> str | None:
    """Why a build must wait now (a writing run not over, or another build holding the working
    folder's lease: `pastcast build`, `dagster asset materialize`), or None."""
    runs = writing_runs(instance)
    if runs:
        run = runs[0]
        return (f"waiting for {run.job_name} run {run.run_id[:8]} ({run.status.value.lower()}) to end: "
                "a second build at once would race it for the working folder and the snapshot store")
    owner = lease.current_owner(storage.work_dir)
    if owner is not None:
        return f"waiting for {lease.describe(owner)} to finish writing {storage.work_dir}"
    return None


# Polling is cheap (the landing folder's names and sizes, a small report per day: docs/operations.md
# has the figures), so a short interval keeps files landing to a run under a minute and a half.
LANDING_INTERVAL_SECONDS = 30
DUMPS_INTERVAL_SECONDS = 60
LEFT_OUT_TAG = "pastcast/left_out"  # what a requested run leaves out, and why (the tick's log says more)


def _n(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _more(items: list, shown: int = 5) -> str:
    return ", ".join(map(str, items[:shown])) + (f" and {len(items) - shown} more" if len(items) > shown else "")


@dg.sensor(job=build_news_job, minimum_interval_seconds=LANDING_INTERVAL_SECONDS, default_status=sensor_status(),
           description="Watches the corpus's warc/ folder (where new CC-NEWS files land) and requests one run "
                       "for every complete day whose files are new or changed; waits while a build runs.")
def new_warc_files(context: dg.SensorEvaluationContext, storage: PastcastStorage):
    """Every skipped tick says why in its skip reason (the tick's summary in the UI); what a run
    leaves out (undated files, days given up, days before the partitions) is in the skip reason
    or, when runs are requested, in the run's ``pastcast/left_out`` tag and the tick's log."""
    busy = busy_writer(context.instance, storage)
    if busy:  # its days would look new until it ends: wait for it, then build what is left
        return dg.SkipReason(busy)
    day_files = storage.corpus().day_files  # the landing folder's files by day, dated once
    left_out = []  # one line each, for the tick's summary
    for path, why in day_files.undated.items():
        context.log.warning(f"{path}: left out, {why}")
    if day_files.undated:
        left_out.append(f"{_n(len(day_files.undated), 'file')} left out, no crawl day "
                        f"({_more([Path(p).name for p in day_files.undated], 2)}; the tick's log says why)")
    work = storage.work()
    reports = {d: read_day_report(work, d, "ingest") or {} for d in day_files.by_day}
    built = {d: report.get("files_digest") for d, report in reports.items()}
    todo = days_to_build(day_files, built, before=_today().date())
    # a day whose files could not all be read is tried again, a few times, then left to a person
    given_up = [d for d in todo if reports[d].get("failed_attempts", 0) >= INGEST_ATTEMPTS]
    for d in given_up:
        context.log.warning(f"day {d}: {', '.join(reports[d].get('files_failed', []))} still unreadable after "
                            f"{INGEST_ATTEMPTS} attempts; replace or remove the file, or run the day by hand")
    if given_up:
        unreadable = [Path(f).name for d in given_up for f in reports[d].get("files_failed", [])]
        left_out.append(f"{_n(len(given_up), 'day')} left unbuilt after "
                        f"{INGEST_ATTEMPTS} failed reads ({_more(given_up)}: {_more(unreadable, 3)}): "
                        "replace or remove the file, or run the day by hand")
    todo = [d for d in todo if d not in given_up]
    early = [d for d in todo if d < DAILY.start.date()]
    if early:
        line = (f"{_n(len(early), 'day')} of files before the first partition ({DAILY.start.date()}) left out "
                f"({_more(early)}): set PASTCAST_START_DATE to include them")
        context.log.warning(line)
        left_out.append(line)
        todo = [d for d in todo if d >= DAILY.start.date()]
    if not todo:
        return dg.SkipReason("; ".join([f"{len(day_files.by_day)} days of WARC files in {storage.corpus_dir}/warc, "
                                        "none new", *left_out]))
    files = [f for d in todo for f in day_files.by_day[d]]
    first, last = todo[0], todo[-1]
    # one run for every day found, whatever the gaps between them: its range covers them all and
    # its days tag names the ones to build (the gaps are built already and left alone)
    tags = {RANGE_START: first.isoformat(), RANGE_END: last.isoformat(), DAYS_TAG: ",".join(as_ranges(todo))}
    if left_out:
        tags[LEFT_OUT_TAG] = "; ".join(left_out)
    # a retry needs a key of its own: Dagster runs a run key once
    attempts = max(reports[d].get("failed_attempts", 0) for d in todo)
    retry = f":attempt-{attempts + 1}" if attempts else ""
    span = first.isoformat() if first == last else f"{first.isoformat()}..{last.isoformat()}"
    context.log.info(f"{len(todo)} new or changed days ({tags[DAYS_TAG]}) in one run")
    return dg.RunRequest(run_key=f"{span}:{files_digest(files)}{retry}", tags=tags)


@dg.sensor(job=import_dumps_job, minimum_interval_seconds=DUMPS_INTERVAL_SECONDS, default_status=sensor_status(),
           description="Watches the corpus's markets/ and social/ folders and re-imports them when a dump "
                       "is added, replaced or removed; waits while a build runs.")
def changed_dumps(context: dg.SensorEvaluationContext, storage: PastcastStorage):
    files = storage.corpus().dumps()
    digest = files_digest(files)
    if context.cursor == digest:
        return dg.SkipReason(f"{len(files)} dump files, unchanged")
    busy = busy_writer(context.instance, storage)
    if busy:  # the cursor stays: the change is requested once the run ends
        return dg.SkipReason(f"{len(files)} dump files, changed; {busy}")
    return dg.SensorResult(run_requests=[dg.RunRequest(run_key=digest)], cursor=digest)


EVALUATE_AFTER_SECONDS = 30  # a publication to its evaluation's run request
# The cursor: "history:N", N entries of history.jsonl read. Any other cursor (the event id the
# asset sensor of the same name kept before) counts as none, so an upgrade replays nothing.
CURSOR = "history:"


def _read_so_far(cursor: str | None) -> int | None:
    if cursor and cursor.startswith(CURSOR) and cursor[len(CURSOR):].isdigit():
        return int(cursor[len(CURSOR):])
    return None


def _evaluation_runs(instance: dg.DagsterInstance, run_key: str) -> list:
    return list(instance.get_runs(dg.RunsFilter(job_name=evaluate_job.name, tags={RUN_KEY_TAG: run_key}), limit=1))


def _evaluated(context, settings: EvaluationSettings, name: str, version: str) -> bool:
    """A run with this version's run key exists (queued, running, ended: never a second one), or
    its runs folder does (evaluated by hand or on an instance since wiped)."""
    return bool(_evaluation_runs(context.instance, f"{name}/{version}")) or \
        settings.out_root(name, version).exists()


def _evaluate(name: str, version: str) -> dg.RunRequest:
    return dg.RunRequest(run_key=f"{name}/{version}", run_config=dg.RunConfig(
        ops={"evaluation": {"config": {"version": version}}}), tags={"pastcast/snapshot": f"{name}/{version}"})


@dg.sensor(job=evaluate_job, minimum_interval_seconds=EVALUATE_AFTER_SECONDS, default_status=sensor_status(),
           description="Runs the bundled evaluation once on every snapshot version published (each move of "
                       "LATEST in the store's history.jsonl, however many happen between two ticks).")
def evaluate_new_snapshots(context: dg.SensorEvaluationContext, storage: PastcastStorage,
                           evaluation_settings: EvaluationSettings):
    """The cursor says how many history entries were read. It reads the store's own log, not
    Dagster's materializations of latest_snapshot: an asset sensor sees only the newest one after
    its cursor, so two publications between ticks lost the first, and a version published by the
    CLI had none. A version published again (a rollback) is evaluated only if it never was. With
    no cursor (the sensor just turned on, or its cursor reset) the versions published before are
    not replayed, except LATEST when it has no evaluation yet."""
    name, root = storage.snapshot_name, storage.snapshots_dir
    entries = [e for e in read_log(Path(root) / name / HISTORY) if isinstance(e.get("version"), str)]
    folder = f"{root}/{name}"
    end = f"{CURSOR}{len(entries)}"
    read = _read_so_far(context.cursor)
    if read is None:
        latest = latest_version(root, name)
        if latest is None:
            return dg.SensorResult(cursor=end, skip_reason=dg.SkipReason(
                f"{folder}: no version published yet; watching its history from here"))
        start = f"{_n(len(entries), 'earlier publication')} in {folder} not replayed"
        if _evaluated(context, evaluation_settings, name, latest):
            return dg.SensorResult(cursor=end, skip_reason=dg.SkipReason(
                f"{start}; LATEST ({latest}) has an evaluation already"))
        context.log.info(f"{start}; evaluating LATEST ({latest})")
        return dg.SensorResult(cursor=end, run_requests=[_evaluate(name, latest)])

    if read > len(entries):  # the history is shorter than what was read: the store began afresh
        context.log.warning(f"{folder}/{HISTORY} has {len(entries)} entries, {read} were read: a new store; "
                            "reading it from the start (versions with an evaluation run are not run again)")
        read = 0
    before = {e["version"] for e in entries[:read]}
    requests, notes = [], []
    for entry in entries[read:]:
        version = entry["version"]
        if any(r.run_key == f"{name}/{version}" for r in requests):
            continue
        if not (Path(root) / name / version).is_dir():
            notes.append(f"{version} removed before it could be evaluated")
        elif version in before and _evaluated(context, evaluation_settings, name, version):
            notes.append(f"{version} published again (a rollback), evaluated already")
        else:
            requests.append(_evaluate(name, version))
        before.add(version)
    new = len(entries) - read
    if not requests:
        detail = f": {'; '.join(notes)}" if notes else ""
        return dg.SensorResult(cursor=end, skip_reason=dg.SkipReason(
            f"history of {folder} has {_n(len(entries), 'publication')}, "
            f"{'none' if not new else new} new{detail}"))
    for note in notes:
        context.log.info(note)
    context.log.info(f"{_n(new, 'new publication')} in {folder}: evaluating "
                     f"{', '.join(r.run_key.split('/')[-1] for r in requests)}")
    return dg.SensorResult(cursor=end, run_requests=requests)
