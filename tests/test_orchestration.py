"""Orchestration without a daemon: daily partitions built incrementally, the schedule and the
sensors evaluated in-process with their contexts, blocking checks that keep LATEST in place."""

from __future__ import annotations

import os
import shutil
from datetime import date, datetime, timezone
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from assets._partitions import DAYS_TAG, RANGE_END, RANGE_START
from assets._resources import EvaluationSettings, PastcastStorage
from pastcast.evaluate.batch import BASELINES
from pastcast.daily import day_dir, scan_gathered
from pastcast.schemas import QUESTIONS, frame
from pastcast.snapshot import latest_version, list_snapshots, read_manifest, versions
from pastcast.store import read_table
from pipelines.definitions import defs
from warcs import SAMPLE, add_day, make_corpus

DAYS = [date(2026, 1, 7), date(2026, 1, 8), date(2026, 1, 9)]


def local_defs(root: Path, corpus: Path) -> dg.Definitions:
    """The project's definitions with storage in ``root`` (as a deployment's env would set)."""
    storage = PastcastStorage(corpus_dir=str(corpus), work_dir=str(root / "work"),
                              snapshots_dir=str(root / "snapshots"), snapshot_name="t")
    return dg.Definitions(assets=defs.assets, asset_checks=defs.asset_checks, jobs=defs.jobs,
                          schedules=defs.schedules, sensors=defs.sensors,
                          resources={**defs.resources, "storage": storage,
                                     "evaluation_settings": EvaluationSettings(runs_dir=str(root / "runs"))})


def materializations(instance: dg.DagsterInstance) -> dict[tuple[str, str | None], int]:
    """(asset, partition) -> how many times it was materialized."""
    counts: dict[tuple[str, str | None], int] = {}
    for key in instance.get_asset_keys():
        result = instance.fetch_materializations(key, limit=10_000)
        for record in result.records:
            at = (key.to_user_string(), record.partition_key)
            counts[at] = counts.get(at, 0) + 1
    return counts


def mtimes(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


# -- adding a day ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def two_then_three(tmp_path_factory):
    """Dumps imported; days 1-2 built as one range run; then day 3 alone (as the sensor and the
    nightly schedule would request it)."""
    root = tmp_path_factory.mktemp("incremental")
    corpus = make_corpus(root, DAYS[:2])
    local = local_defs(root, corpus)
    with dg.DagsterInstance.ephemeral() as instance:
        assert local.resolve_job_def("import_dumps").execute_in_process(instance=instance).success
        news = local.resolve_job_def("build_news")
        first = news.execute_in_process(instance=instance, tags={RANGE_START: DAYS[0].isoformat(),
                                                                  RANGE_END: DAYS[1].isoformat()})
        assert first.success
        before = {d: mtimes(day_dir(root / "work", d)) for d in DAYS[:2]}
        after_two = materializations(instance)
        add_day(corpus, DAYS[2])
        third = news.execute_in_process(instance=instance, partition_key=DAYS[2].isoformat())
        assert third.success
        after = {d: mtimes(day_dir(root / "work", d)) for d in DAYS[:2]}
        yield root, after_two, materializations(instance), before, after, third


def test_adding_a_day_computes_only_that_days_partitions_and_the_snapshot(two_then_three):
    root, after_two, counts, before, after, third = two_then_three
    daily = ("articles_raw", "articles", "news_questions")
    for asset in daily:
        assert after_two == {**after_two} and after_two[(asset, "2026-01-07")] == 1
        assert counts[(asset, "2026-01-07")] == 1 and counts[(asset, "2026-01-08")] == 1, asset
        assert counts[(asset, "2026-01-09")] == 1, asset
    # the third day's run materialized exactly: its own partitions and the unpartitioned downstream
    done = {(e.asset_key.to_user_string(), e.partition) for e in third.get_asset_materialization_events()}
    assert done == {*((a, "2026-01-09") for a in daily), *((a, None) for a in (
        "article_corpus", "question_candidates", "questions", "snapshot", "latest_snapshot"))}
    for asset in ("markets", "posts", "market_questions"):  # the dumps did not change
        assert counts[(asset, None)] == 1, asset
    assert counts[("questions", None)] == 3  # import_dumps, days 1-2, day 3
    # the dumps' run had no day of news yet: no snapshot; then one per news run
    for asset in ("article_corpus", "snapshot", "latest_snapshot"):
        assert counts[(asset, None)] == 2, asset
    assert before == after  # not a file of the first two days was rewritten


def test_each_snapshot_version_records_its_parent_and_the_days_it_covers(two_then_three):
    root = two_then_three[0]
    snapshots = root / "snapshots"
    assert latest_version(snapshots, "t") == "v2"
    v1, v2 = read_manifest(snapshots / "t" / "v1"), read_manifest(snapshots / "t" / "v2")
    assert v1["partitions"] == {"daily": ["2026-01-07..2026-01-08"], "days": 2} and v1["parent_version"] is None
    assert v2["partitions"] == {"daily": ["2026-01-07..2026-01-09"], "days": 3} and v2["parent_version"] == "v1"
    assert v2["tables"]["articles"]["rows"] > v1["tables"]["articles"]["rows"]
    # the inputs are the built days' WARC files and the dumps, each with its sha256
    warc = lambda m: sorted(i["file"] for i in m["inputs"] if ".warc" in i["file"])  # noqa: E731
    assert warc(v1) == ["CC-NEWS-20260107042000-00001.warc.gz", "CC-NEWS-20260108121000-00002.warc.gz"]
    assert len(warc(v2)) == 3 and len(v2["inputs"]) == 5 and all(len(i["sha256"]) == 64 for i in v2["inputs"])
    listed = list_snapshots(snapshots)
    assert listed["published"].all() and listed.filter(pl.col("latest"))["version"].to_list() == ["v2"]


@pytest.mark.slow  # ~13 s: three days built one by one
def test_the_days_articles_are_deduplicated_against_the_days_before(tmp_path):
    """The sample's syndicated copies cross days: a day built alone against its predecessors
    drops the same copies as one build of every day."""
    from pastcast import pipeline

    corpus = make_corpus(tmp_path, [])
    days = sorted({date(int(p.name[8:12]), int(p.name[12:14]), int(p.name[14:16]))
                   for p in SAMPLE.joinpath("warc").glob("CC-NEWS-202602*")})
    for d in days:
        add_day(corpus, d)
    files = sorted((corpus / "warc").iterdir())
    together, one_by_one = tmp_path / "together", tmp_path / "apart"
    pipeline.build_news(files, together, days)
    for d in days:  # as nightly runs would
        pipeline.build_news(files, one_by_one, [d])
    a = scan_gathered(together).collect()["article_id"].sort()
    b = scan_gathered(one_by_one).collect()["article_id"].sort()
    assert a.to_list() == b.to_list() and a.len() < pl.scan_parquet(
        [str(day_dir(together, d) / "ingest" / "articles.parquet") for d in days]).select(pl.len()).collect().item()
    # backwards (a backfill of older days after newer ones): the earliest copy still wins
    backwards = tmp_path / "backwards"
    for d in reversed(days):
        pipeline.build_news(files, backwards, [d])
    c = scan_gathered(backwards).collect()["article_id"].sort()
    assert c.to_list() == a.to_list()


# -- blocking checks -------------------------------------------------------------------------------

def test_a_planted_leak_fails_the_blocking_check_and_latest_stays(two_then_three, tmp_path):
    root = two_then_three[0]
    work = tmp_path / "work"
    shutil.copytree(root / "work", work)
    shutil.copytree(root / "snapshots", tmp_path / "snapshots")
    questions = pl.read_parquet(work / "questions.parquet")
    leak = frame([{"question_id": "q-planted", "title": "Who will win the Veloria Cup, Port Alder Rovers?",
                   "background": "", "resolution_criteria": "The winner of the final.", "answer": "Port Alder Rovers",
                   "answer_aliases": [], "answer_type": "organisation", "candidate_outcomes": [],
                   "open_date": date(2026, 1, 1), "resolution_date": date(2026, 1, 9),
                   "original_resolution_date": date(2026, 1, 9), "revision_evidence": [], "source_kind": "news",
                   "source_ids": ["a1"], "generator": "planted", "category": "sport"}], QUESTIONS)
    pl.concat([questions, leak]).write_parquet(work / "questions.parquet")
    storage = PastcastStorage(corpus_dir=str(root / "corpus"), work_dir=str(work),
                              snapshots_dir=str(tmp_path / "snapshots"), snapshot_name="t")
    local = dg.Definitions(assets=defs.assets, asset_checks=defs.asset_checks,
                           resources={**defs.resources, "storage": storage})
    with dg.DagsterInstance.ephemeral() as instance:
        result = dg.materialize([*local.assets, *local.asset_checks], selection=["snapshot", "latest_snapshot"],
                                resources=local.resources, instance=instance, raise_on_error=False)
    checks = {c.check_name: c for c in result.get_asset_check_evaluations()}
    assert not checks["no_answer_in_own_text"].passed
    assert "q-planted" in checks["no_answer_in_own_text"].metadata["examples"].value
    assert checks["ids_are_unique"].passed and checks["manifest_matches_files"].passed
    materialized = {e.asset_key.to_user_string() for e in result.get_asset_materialization_events()}
    assert materialized == {"snapshot"}  # latest_snapshot did not run
    assert latest_version(tmp_path / "snapshots", "t") == "v2"  # v3 written, not published
    listed = list_snapshots(tmp_path / "snapshots").filter(pl.col("version") == "v3")
    assert listed["published"].to_list() == [False] and listed["parent"].to_list() == ["v2"]
    # forcing the pointer asset alone does not publish either: it checks again
    with dg.DagsterInstance.ephemeral() as instance:
        forced = dg.materialize([*local.assets], selection=["latest_snapshot"], resources=local.resources,
                                instance=instance, raise_on_error=False)
    assert not forced.success and latest_version(tmp_path / "snapshots", "t") == "v2"


def test_a_build_with_nothing_new_publishes_no_version_and_says_unchanged(two_then_three, tmp_path):
    """No change, no version: the snapshot asset materializes nothing (so no check, no LATEST
    move, no evaluation), and an observation says unchanged against the parent."""
    root = two_then_three[0]
    shutil.copytree(root / "work", tmp_path / "work")
    shutil.copytree(root / "snapshots", tmp_path / "snapshots")
    storage = PastcastStorage(corpus_dir=str(root / "corpus"), work_dir=str(tmp_path / "work"),
                              snapshots_dir=str(tmp_path / "snapshots"), snapshot_name="t")
    local = dg.Definitions(assets=defs.assets, asset_checks=defs.asset_checks,
                           resources={**defs.resources, "storage": storage})
    before = versions(tmp_path / "snapshots", "t")
    latest = latest_version(tmp_path / "snapshots", "t")
    with dg.DagsterInstance.ephemeral() as instance:
        result = dg.materialize([*local.assets, *local.asset_checks], selection=["snapshot", "latest_snapshot"],
                                resources=local.resources, instance=instance)
        observed = [e.asset_observation_data.asset_observation for e in result.all_events
                    if e.event_type_value == "ASSET_OBSERVATION"]
    assert result.success
    assert not result.get_asset_materialization_events() and not result.get_asset_check_evaluations()
    assert versions(tmp_path / "snapshots", "t") == before and latest_version(tmp_path / "snapshots", "t") == latest
    (seen,) = observed
    assert seen.metadata["unchanged"].value is True and "unchanged" in seen.metadata["summary"].value
    assert seen.metadata["version"].value == latest


# -- the schedule and the sensors, evaluated in-process ------------------------------------------------

def test_the_nightly_schedule_requests_yesterday():
    schedule = defs.resolve_schedule_def("nightly_rebuild")
    assert schedule.job_name == "build_news" and schedule.cron_schedule == "0 3 * * *"
    context = dg.build_schedule_context(scheduled_execution_time=datetime(2026, 3, 2, 3, 0, tzinfo=timezone.utc))
    (request,) = schedule.evaluate_tick(context).run_requests
    assert request.partition_key == "2026-03-01"


def _sensor_requests(local: dg.Definitions, name: str, cursor: str | None = None, instance=None):
    sensor = local.resolve_sensor_def(name)
    if instance is None:  # the sensors look at the instance's runs: an empty one
        with dg.DagsterInstance.ephemeral() as instance:
            return _sensor_requests(local, name, cursor, instance)
    with dg.build_sensor_context(cursor=cursor, instance=instance, resources=local.resources,
                                 definitions=local) as context:
        return sensor.evaluate_tick(context)


def test_the_landing_sensor_requests_runs_for_new_and_changed_days_only(tmp_path, monkeypatch):
    from pastcast import pipeline
    import pipelines.sensors as sensors

    corpus = make_corpus(tmp_path, [DAYS[0], DAYS[1], date(2026, 1, 11)])
    local = local_defs(tmp_path, corpus)
    monkeypatch.setattr(sensors, "_today", lambda: datetime(2026, 1, 12, 6, tzinfo=timezone.utc))

    early = corpus / "warc" / "CC-NEWS-20150101000000-00000.warc.gz"  # before the first partition
    shutil.copy2(next((corpus / "warc").glob("CC-NEWS-20260107*")), early)
    (first,) = _sensor_requests(local, "new_warc_files").run_requests  # one run, the gap between included
    assert (first.tags[RANGE_START], first.tags[RANGE_END]) == ("2026-01-07", "2026-01-11")
    assert first.tags[DAYS_TAG] == "2026-01-07..2026-01-08,2026-01-11"
    early.unlink()
    assert first.job_name in (None, "build_news")

    files = sorted((corpus / "warc").iterdir())
    pipeline.build_news(files, tmp_path / "work", [DAYS[0], DAYS[1], date(2026, 1, 11)])
    assert _sensor_requests(local, "new_warc_files").skip_message.endswith("none new")

    add_day(corpus, DAYS[2])  # a new day lands
    (today,) = SAMPLE.joinpath("warc").glob("CC-NEWS-20260112*")  # and today's first file: not complete
    shutil.copy2(today, corpus / "warc")
    (request,) = _sensor_requests(local, "new_warc_files").run_requests
    assert (request.tags[RANGE_START], request.tags[RANGE_END]) == ("2026-01-09", "2026-01-09")

    pipeline.build_news(sorted((corpus / "warc").iterdir()), tmp_path / "work", [DAYS[2]])
    replaced = next((corpus / "warc").glob("CC-NEWS-20260108*"))
    os.utime(replaced, ns=(replaced.stat().st_atime_ns, replaced.stat().st_mtime_ns + 10**9))  # a file re-sent
    (request,) = _sensor_requests(local, "new_warc_files").run_requests
    assert request.tags[RANGE_START] == request.tags[RANGE_END] == "2026-01-08"
    assert request.run_key.startswith("2026-01-08:")


def test_the_dump_sensor_requests_an_import_only_when_a_dump_changes(tmp_path):
    corpus = make_corpus(tmp_path, [])
    local = local_defs(tmp_path, corpus)
    first = _sensor_requests(local, "changed_dumps")
    assert len(first.run_requests) == 1 and first.cursor
    assert _sensor_requests(local, "changed_dumps", cursor=first.cursor).skip_message.endswith("unchanged")
    shutil.copy2(corpus / "markets" / "manifold.json", corpus / "markets" / "manifold-2.json")
    again = _sensor_requests(local, "changed_dumps", cursor=first.cursor)
    assert len(again.run_requests) == 1 and again.cursor != first.cursor


def test_each_published_version_is_evaluated_once(two_then_three, tmp_path):
    """Turned on over a store with versions already published, the sensor evaluates LATEST (and
    not the versions before it), then nothing until LATEST moves; the requested run replays it."""
    root = two_then_three[0]
    local = local_defs(root, root / "corpus")
    latest = latest_version(root / "snapshots", "t")
    with dg.DagsterInstance.ephemeral() as instance:
        tick = _sensor_requests(local, "evaluate_new_snapshots", instance=instance)
        (request,) = tick.run_requests
        assert request.run_key == f"t/{latest}" and tick.cursor
        assert request.run_config["ops"]["evaluation"]["config"]["version"] == latest
        again = _sensor_requests(local, "evaluate_new_snapshots", cursor=tick.cursor, instance=instance)
        assert not again.run_requests and again.skip_message.endswith("none new")
        # the requested run: the evaluation asset replays LATEST to the baselines
        result = local.resolve_job_def("evaluate_snapshot").execute_in_process(
            instance=instance, run_config=request.run_config)
    assert result.success
    meta = result.get_asset_materialization_events()[0].materialization.metadata
    assert meta["version"].value == latest and meta["mean_bss/abstain"].value == 0
    assert {p.name for p in (root / "runs" / f"t-{latest}").iterdir()} == set(BASELINES)


def test_a_working_folder_from_before_daily_partitions_does_not_double_its_drops(two_then_three, tmp_path):
    """Whole-build ingest/dedup drops left in work/drops by an older version are not counted
    again beside the days' own."""
    from pastcast import pipeline

    root = two_then_three[0]
    work = tmp_path / "work"
    shutil.copytree(root / "work", work)
    stale = pl.read_parquet(day_dir(work, DAYS[0]) / "ingest" / "drops.parquet")
    stale.write_parquet(work / "drops" / "ingest.parquet")
    folder = pipeline.snapshot(work, tmp_path / "snapshots", "t", [], publish=False)
    assert read_manifest(folder)["drops_by_reason"] == read_manifest(root / "snapshots" / "t" / "v2")["drops_by_reason"]


@pytest.mark.slow  # over 10 s: `make test-slow` and CI
def test_a_new_window_built_from_the_cli_matches_one_build_of_both(tmp_path):
    from click.testing import CliRunner

    from pastcast.cli import main as cli

    def build(work: str, *days: str) -> None:
        args = ["build", "--corpus", str(SAMPLE), "--work", str(tmp_path / work), "--snapshots", str(tmp_path / work / "s")]
        for window in days:
            result = CliRunner().invoke(cli, [*args, "--days", window])
            assert result.exit_code == 0, result.output
        if not days:
            assert CliRunner().invoke(cli, args).exit_code == 0

    build("windows", "2026-01-05..2026-02-15", "2026-02-16..2026-04-02")
    build("once")
    folders = {w: tmp_path / w / "s" / "sample" for w in ("windows", "once")}
    v2, once = read_manifest(folders["windows"] / "v2"), read_manifest(folders["once"] / "v1")
    # the days with files: a day of the windows without any is not built (docs/partitions.md)
    assert v2["parent_version"] == "v1" and v2["partitions"] == once["partitions"]
    assert v2["window"] == once["window"] and v2["window"]["end"] == "2026-04-02"
    v1_days = read_manifest(folders["windows"] / "v1")["partitions"]["daily"]
    assert v1_days[0].startswith("2026-01-05") and v1_days[-1].endswith("2026-02-14")  # 02-15 has no file
    for table, key in (("articles", "article_id"), ("questions", "question_id")):
        ids = {w: sorted(read_table(f / ("v2" if w == "windows" else "v1"), table)[key])
               for w, f in folders.items()}
        assert ids["windows"] == ids["once"] and ids["once"], table
    bad = CliRunner().invoke(cli, ["build", "--corpus", str(SAMPLE), "--work", str(tmp_path / "x"), "--days", "2026-03-05..2026-03-01"])
    assert bad.exit_code == 2 and "before the first" in bad.output
    # the same corpus built again: no change, no version
    again = CliRunner().invoke(cli, ["build", "--corpus", str(SAMPLE), "--work", str(tmp_path / "once"),
                                     "--snapshots", str(tmp_path / "once" / "s")])
    assert again.exit_code == 0 and "unchanged" in again.output, again.output
    assert versions(tmp_path / "once" / "s", "sample") == ["v1"]


def test_a_day_with_an_unreadable_file_is_requested_again_then_left_to_a_person(tmp_path, monkeypatch):
    """A file that could not be read (a lost share, a dying disk) leaves its day unbuilt: the
    sensor asks for the day again under a fresh run key, and after a few failed attempts it
    stops asking and says which file to look at."""
    from pastcast import daily, pipeline
    from pastcast.sources import warc, warc_framing
    import pipelines.sensors as sensors

    corpus = make_corpus(tmp_path, [DAYS[0]])
    local = local_defs(tmp_path, corpus)
    monkeypatch.setattr(sensors, "_today", lambda: datetime(2026, 1, 12, 6, tzinfo=timezone.utc))
    files = sorted((corpus / "warc").iterdir())
    lost = files[0]

    def failing_open(file, mode="r", *args, **kwargs):
        if Path(file) == lost:
            raise OSError(5, "Input/output error", str(file))
        return open(file, mode, *args, **kwargs)

    keys = []
    for attempt in range(1, sensors.INGEST_ATTEMPTS + 1):
        for module in (warc, warc_framing):
            monkeypatch.setattr(module, "open", failing_open, raising=False)
        pipeline.ingest_news_days(files, tmp_path / "work", [DAYS[0]], workers=1)
        for module in (warc, warc_framing):
            monkeypatch.delattr(module, "open")
        report = daily.read_day_report(tmp_path / "work", DAYS[0], "ingest")
        assert report["files_failed"] == [str(lost)] and report["files_digest"] is None
        assert report["failed_attempts"] == attempt
        if attempt < sensors.INGEST_ATTEMPTS:
            (request,) = _sensor_requests(local, "new_warc_files").run_requests
            assert request.tags[RANGE_START] == request.tags[RANGE_END] == DAYS[0].isoformat()
            keys.append(request.run_key)
    assert len(set(keys)) == len(keys) and keys[0].endswith(":attempt-2")  # Dagster runs a key once
    skipped = _sensor_requests(local, "new_warc_files")
    assert not skipped.run_requests and "1 day left unbuilt after 3 failed reads" in skipped.skip_message
    assert lost.name in skipped.skip_message  # the tick's summary names the file to look at

    pipeline.ingest_news_days(files, tmp_path / "work", [DAYS[0]], workers=1)  # readable again, by hand
    report = daily.read_day_report(tmp_path / "work", DAYS[0], "ingest")
    assert report["files_failed"] == [] and report["files_digest"] and report["failed_attempts"] == 0
    assert _sensor_requests(local, "new_warc_files").skip_message.endswith("none new")
