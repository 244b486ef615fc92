"""The sensors' ticks against a Dagster instance: every published version evaluated exactly once
(from the store's history, whatever the timing of publications), skip reasons that say why,
and the switch that starts the automations."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from datetime import date, datetime, timezone
from pathlib import Path

import dagster as dg
import pytest

from assets._resources import EvaluationSettings, PastcastStorage
from pastcast.snapshot import HISTORY, publish_version
from pipelines import automation, sensors
from pipelines.definitions import defs

ROOT = Path(__file__).resolve().parents[1]


def resources(root: Path) -> dict:
    return {"storage": PastcastStorage(corpus_dir=str(root / "corpus"), work_dir=str(root / "work"),
                                       snapshots_dir=str(root / "snapshots"), snapshot_name="t"),
            "evaluation_settings": EvaluationSettings(runs_dir=str(root / "runs"))}


def publish(root: Path, version: str) -> None:
    """A version folder (a manifest is all the sensor reads) moved to by LATEST, as a build does."""
    folder = root / "snapshots" / "t" / version
    if not folder.is_dir():
        folder.mkdir(parents=True)
        (folder / "manifest.json").write_text(json.dumps({"name": "t", "version": version}))
    publish_version(folder)


def tick(root: Path, instance: dg.DagsterInstance, cursor: str | None, sensor=sensors.evaluate_new_snapshots):
    with dg.build_sensor_context(instance=instance, cursor=cursor, resources=resources(root)) as context:
        return sensor.evaluate_tick(context)


def keys(result) -> list[str]:
    return [r.run_key for r in result.run_requests]


def test_two_publications_between_ticks_are_each_evaluated_once(tmp_path):
    with dg.DagsterInstance.ephemeral() as instance:
        first = tick(tmp_path, instance, None)  # the sensor turned on before anything was published
        assert not first.run_requests and "no version published yet" in first.skip_message
        publish(tmp_path, "v1")
        one = tick(tmp_path, instance, first.cursor)
        assert keys(one) == ["t/v1"]
        publish(tmp_path, "v2")  # two publications between two ticks (the asset sensor lost v2)
        publish(tmp_path, "v3")
        two = tick(tmp_path, instance, one.cursor)
        assert keys(two) == ["t/v2", "t/v3"]
        assert [r.run_config["ops"]["evaluation"]["config"]["version"] for r in two.run_requests] == ["v2", "v3"]
        assert all(r.tags["pastcast/snapshot"] == r.run_key for r in two.run_requests)
        idle = tick(tmp_path, instance, two.cursor)
        assert not idle.run_requests and idle.cursor == two.cursor
        assert idle.skip_message.endswith("has 3 publications, none new")


def test_turned_on_over_a_store_it_evaluates_latest_only_and_only_if_never_evaluated(tmp_path):
    for version in ("v1", "v2", "v3"):
        publish(tmp_path, version)
    with dg.DagsterInstance.ephemeral() as instance:
        first = tick(tmp_path, instance, None)
        assert keys(first) == ["t/v3"]  # v1 and v2 were published before: not replayed
        assert tick(tmp_path, instance, first.cursor).skip_message.endswith("none new")

    # LATEST evaluated already, by a run of the sensor's run key (a cursor reset, a wiped sensor state)
    with dg.DagsterInstance.ephemeral() as instance:
        job = defs.resolve_job_def("evaluate_snapshot")
        instance.create_run_for_job(job, run_config=first.run_requests[0].run_config,
                                    tags={sensors.RUN_KEY_TAG: "t/v3"})
        again = tick(tmp_path, instance, None)
        assert not again.run_requests and "LATEST (v3) has an evaluation already" in again.skip_message
        assert again.cursor == first.cursor  # and it reads on from the end of the history

    # or by hand: its runs folder is there
    (tmp_path / "runs" / "t-v3").mkdir(parents=True)
    with dg.DagsterInstance.ephemeral() as instance:
        assert not tick(tmp_path, instance, None).run_requests


def test_a_rollback_is_not_evaluated_again_and_a_removed_version_is_said(tmp_path):
    with dg.DagsterInstance.ephemeral() as instance:
        cursor = tick(tmp_path, instance, None).cursor
        publish(tmp_path, "v1")
        publish(tmp_path, "v2")
        result = tick(tmp_path, instance, cursor)
        assert keys(result) == ["t/v1", "t/v2"]
        job = defs.resolve_job_def("evaluate_snapshot")
        for request in result.run_requests:  # the runs the daemon would have launched
            instance.create_run_for_job(job, run_config=request.run_config, tags={sensors.RUN_KEY_TAG: request.run_key})
        publish(tmp_path, "v1")  # LATEST back to v1
        rollback = tick(tmp_path, instance, result.cursor)
        assert not rollback.run_requests
        assert "3 publications, 1 new: v1 published again (a rollback), evaluated already" in rollback.skip_message

        publish(tmp_path, "v4")
        (tmp_path / "snapshots" / "t" / "v4" / "manifest.json").unlink()
        (tmp_path / "snapshots" / "t" / "v4").rmdir()  # collected before the tick
        publish(tmp_path, "v5")
        last = tick(tmp_path, instance, rollback.cursor)
        assert keys(last) == ["t/v5"]


def test_a_store_begun_afresh_is_read_from_its_start(tmp_path):
    with dg.DagsterInstance.ephemeral() as instance:
        publish(tmp_path, "v1")
        publish(tmp_path, "v2")
        cursor = tick(tmp_path, instance, "history:0").cursor
        assert cursor == "history:2"
        (tmp_path / "snapshots" / "t" / HISTORY).write_text("")  # `make clean`, then a first build
        publish(tmp_path, "v1")  # LATEST was v2: v1 moves it
        assert keys(tick(tmp_path, instance, cursor)) == ["t/v1"]


def test_the_cursor_of_the_asset_sensor_it_replaces_replays_nothing(tmp_path):
    """Upgrading: the asset sensor of the same name left an event id as its cursor ("587"); read
    as a count of history lines it would replay every version ever published."""
    for version in ("v1", "v2", "v3"):
        publish(tmp_path, version)
    with dg.DagsterInstance.ephemeral() as instance:
        upgraded = tick(tmp_path, instance, "587")
        assert keys(upgraded) == ["t/v3"] and upgraded.cursor == "history:3"


# -- the landing sensor's skip reasons ------------------------------------------------------------

def test_what_the_landing_sensor_leaves_out_is_in_its_tick_summary(tmp_path, monkeypatch):
    from warcs import make_corpus

    corpus = make_corpus(tmp_path, [date(2026, 1, 7), date(2026, 1, 8)])
    (corpus / "warc" / "notes.warc.gz").write_bytes(b"")  # no time stamp in its name and no records
    monkeypatch.setattr(sensors, "_today", lambda: datetime(2026, 1, 12, 6, tzinfo=timezone.utc))
    # the partitions begin after the first day: that day is left out, and the run request says so
    monkeypatch.setattr(sensors, "DAILY", dg.DailyPartitionsDefinition(start_date="2026-01-08", timezone="UTC"))
    with dg.DagsterInstance.ephemeral() as instance:
        (request,) = tick(tmp_path, instance, None, sensors.new_warc_files).run_requests
        left_out = request.tags[sensors.LEFT_OUT_TAG]
        assert "1 day of files before the first partition (2026-01-08) left out (2026-01-07)" in left_out
        assert "1 file left out, no crawl day (notes.warc.gz" in left_out
        assert request.tags["dagster/asset_partition_range_start"] == "2026-01-08"

        # and when nothing is new, the skip reason carries the same lines
        monkeypatch.setattr(sensors, "DAILY", dg.DailyPartitionsDefinition(start_date="2026-02-01", timezone="UTC"))
        skipped = tick(tmp_path, instance, None, sensors.new_warc_files)
        assert not skipped.run_requests
        assert skipped.skip_message.startswith(f"2 days of WARC files in {corpus}/warc, none new; ")
        assert "before the first partition" in skipped.skip_message and "notes.warc.gz" in skipped.skip_message


def test_the_sensors_poll_often_enough_to_start_a_run_within_a_minute_and_a_half():
    # the daemon ticks a sensor once its interval has passed: the interval bounds the wait
    assert sensors.new_warc_files.minimum_interval_seconds <= 30
    assert sensors.changed_dumps.minimum_interval_seconds <= 60
    assert sensors.evaluate_new_snapshots.minimum_interval_seconds <= 30


# -- the automations switch -----------------------------------------------------------------------

def test_the_switch_reads_on_and_off_and_refuses_anything_else(monkeypatch):
    monkeypatch.delenv(automation.SWITCH, raising=False)
    assert not automation.automations_on()
    assert automation.sensor_status() == dg.DefaultSensorStatus.STOPPED
    monkeypatch.setenv(automation.SWITCH, "On")
    assert automation.schedule_status() == dg.DefaultScheduleStatus.RUNNING
    monkeypatch.setenv(automation.SWITCH, "yes please")
    with pytest.raises(ValueError, match="PASTCAST_AUTOMATIONS='yes please': use on or off"):
        automation.automations_on()


STATUSES = ("from pipelines.definitions import defs; "
            "print(sorted((s.name, s.default_status.value) for s in [*defs.sensors, *defs.schedules]))")


# a fresh interpreter each (~4 s): "on" in `make test`, the two ways of leaving it off in the slow set
@pytest.mark.parametrize("value, status", [("on", "RUNNING"), pytest.param("off", "STOPPED", marks=pytest.mark.slow),
                                           pytest.param(None, "STOPPED", marks=pytest.mark.slow)])
def test_the_code_location_starts_every_automation_when_switched_on(value, status):
    """Read at load: a fresh interpreter, as the code server is."""
    env = {k: v for k, v in os.environ.items() if k != automation.SWITCH}
    if value is not None:
        env[automation.SWITCH] = value
    out = subprocess.run([sys.executable, "-c", STATUSES], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    found = ast.literal_eval(out.stdout.strip())
    assert [name for name, _ in found] == ["changed_dumps", "evaluate_new_snapshots", "new_warc_files",
                                           "nightly_rebuild"]
    assert {s for _, s in found} == {status}


# -- the jobs' executor ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["build_news", "import_dumps", "build_snapshot", "evaluate_snapshot", "__ASSET_JOB"])
def test_the_jobs_run_their_steps_in_process_unless_a_launch_asks_otherwise(name):
    """A process per small step cost most of a one-day run (docs/operations.md, "Per-run overhead")."""
    # the asset catalog's and the graph's backfills run as __ASSET_JOB: in process too
    job = defs.resolve_implicit_global_asset_job_def() if name == "__ASSET_JOB" else defs.resolve_job_def(name)
    assert list(dg.validate_run_config(job, {})["execution"]["multi_or_in_process_executor"]) == ["in_process"]
    chosen = dg.validate_run_config(job, {"execution": {"config": {"multiprocess": {"max_concurrent": 2}}}})
    assert chosen["execution"]["multi_or_in_process_executor"]["multiprocess"]["max_concurrent"] == 2
