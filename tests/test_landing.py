"""One landing, one build (issue 20, goal 4): with the sensors on, the sample's WARC files landing
at once become one build_news run, one new snapshot version and one evaluation; a second landing
while a build runs waits; the shipped instance config bounds the run queue; retention runs as a
Dagster job. Everything counted through the Dagster instance."""

from __future__ import annotations

import shutil
from datetime import date, datetime, timezone

import dagster as dg
import pytest

from assets._partitions import DAYS_TAG, RANGE_END, RANGE_START
from pastcast import snapshot as snapshots
from pipelines.jobs import WRITES_TAGS
from test_orchestration import _sensor_requests, local_defs
from warcs import ROOT, SAMPLE, make_corpus

AFTER_THE_SAMPLE = datetime(2026, 4, 1, 6, tzinfo=timezone.utc)  # every sample day is complete


def _runs(instance: dg.DagsterInstance, job: str) -> list:
    return list(instance.get_runs(dg.RunsFilter(job_name=job)))


def _run(local: dg.Definitions, instance, job: str, request: dg.RunRequest):
    """A requested run, executed in this process on the instance (what the daemon would launch)."""
    config = request.run_config or None
    result = local.resolve_job_def(job).execute_in_process(instance=instance, tags=request.tags,
                                                           run_config=config)
    assert result.success, job
    return result


@pytest.fixture
def at_sample_end(monkeypatch):
    import pipelines.sensors as sensors

    monkeypatch.setattr(sensors, "_today", lambda: AFTER_THE_SAMPLE)


def test_days_with_gaps_between_them_are_one_request_naming_its_days(tmp_path, at_sample_end):
    days = [date(2026, 1, 5), date(2026, 1, 7), date(2026, 1, 8), date(2026, 1, 12)]
    local = local_defs(tmp_path, make_corpus(tmp_path, days))
    (request,) = _sensor_requests(local, "new_warc_files").run_requests
    assert (request.tags[RANGE_START], request.tags[RANGE_END]) == ("2026-01-05", "2026-01-12")
    assert request.tags[DAYS_TAG] == "2026-01-05,2026-01-07..2026-01-08,2026-01-12"
    again = _sensor_requests(local, "new_warc_files").run_requests[0]
    assert again.run_key == request.run_key  # the same landing, the same key: Dagster runs it once


def test_while_a_build_runs_both_sensors_wait_and_lose_nothing(tmp_path, at_sample_end):
    local = local_defs(tmp_path, make_corpus(tmp_path, [date(2026, 1, 7)]))
    with dg.DagsterInstance.ephemeral() as instance:
        running = instance.add_run(dg.DagsterRun(job_name="build_news", tags=WRITES_TAGS,
                                                 status=dg.DagsterRunStatus.STARTED))
        warc = _sensor_requests(local, "new_warc_files", instance=instance)
        dumps = _sensor_requests(local, "changed_dumps", instance=instance)
        for tick in (warc, dumps):
            assert not tick.run_requests and "waiting for build_news" in tick.skip_message
        assert dumps.cursor is None  # the change is still to be requested
        instance.delete_run(running.run_id)  # (as if it ended)
        assert len(_sensor_requests(local, "new_warc_files", instance=instance).run_requests) == 1
        assert len(_sensor_requests(local, "changed_dumps", instance=instance).run_requests) == 1


@pytest.mark.slow  # over 10 s: `make test-slow` and CI
def test_one_landing_of_the_sample_is_one_build_one_version_one_evaluation(tmp_path, at_sample_end):
    corpus = make_corpus(tmp_path, [])  # the dumps, imported before the landing
    local = local_defs(tmp_path, corpus)
    name_dir = tmp_path / "snapshots" / "t"
    with dg.DagsterInstance.ephemeral() as instance:
        (dumps,) = _sensor_requests(local, "changed_dumps", instance=instance).run_requests
        _run(local, instance, "import_dumps", dumps)
        first = _sensor_requests(local, "evaluate_new_snapshots", instance=instance)
        before = snapshots.versions(tmp_path / "snapshots", "t")

        for f in sorted((SAMPLE / "warc").glob("*.warc.gz")):  # the landing: every WARC file at once
            shutil.copy2(f, corpus / "warc" / f.name)
        (build,) = _sensor_requests(local, "new_warc_files", instance=instance).run_requests
        _run(local, instance, "build_news", build)
        assert _sensor_requests(local, "new_warc_files", instance=instance).skip_message.endswith("none new")
        assert not _sensor_requests(local, "changed_dumps", cursor=dumps.run_key, instance=instance).run_requests

        new = [v for v in snapshots.versions(tmp_path / "snapshots", "t") if v not in before]
        assert len(new) == 1 and snapshots.latest_version(tmp_path / "snapshots", "t") == new[0]
        assert not snapshots.verify(name_dir / new[0])
        tick = _sensor_requests(local, "evaluate_new_snapshots", cursor=first.cursor, instance=instance)
        (evaluation,) = tick.run_requests
        assert evaluation.run_key == f"t/{new[0]}"
        assert not _sensor_requests(local, "evaluate_new_snapshots", cursor=tick.cursor,
                                    instance=instance).run_requests
        assert len(_runs(instance, "build_news")) == 1


def test_the_shipped_instance_config_bounds_the_run_queue(tmp_path):
    shutil.copy(ROOT / "deploy" / "dagster.yaml", tmp_path / "dagster.yaml")
    with dg.DagsterInstance.from_config(str(tmp_path)) as instance:
        queue = instance.get_concurrency_config().run_queue_config
    assert queue.max_concurrent_runs == 2  # two cores
    assert {"key": "pastcast/writes", "limit": 1} in queue.tag_concurrency_limits
    from pipelines.definitions import defs

    for job in ("build_news", "import_dumps", "build_snapshot", "snapshot_gc"):
        assert defs.resolve_job_def(job).tags.items() >= WRITES_TAGS.items(), job


def test_the_retention_job_keeps_the_last_versions_and_they_verify(tmp_path, demo_snapshot):
    from pastcast.store import read_table

    root = tmp_path / "snapshots"
    name_dir = root / "t"
    manifest = snapshots.read_manifest(demo_snapshot)
    tables = {t: read_table(demo_snapshot, t) for t in manifest["tables"]}
    window = tuple(date.fromisoformat(manifest["window"][k]) for k in ("start", "end"))
    for n in range(3):  # three published versions, each with a question fewer
        snapshots.write_snapshot({**tables, "questions": tables["questions"].slice(n)}, root, "t", window)
    assert len(snapshots.versions(root, "t")) == 3
    local = local_defs(tmp_path, make_corpus(tmp_path, []))
    job = local.resolve_job_def("snapshot_gc")
    dry = job.execute_in_process(run_config={"ops": {"collect_snapshot_garbage": {"config": {"keep": 1,
                                                                                        "dry_run": True}}}})
    assert dry.success and len(snapshots.versions(root, "t")) == 3
    result = job.execute_in_process(run_config={"ops": {"collect_snapshot_garbage": {"config": {"keep": 1}}}})
    assert result.success
    kept = snapshots.versions(root, "t")
    assert kept == [snapshots.latest_version(root, "t")] and not snapshots.verify(name_dir / kept[0])
    bad = job.execute_in_process(run_config={"ops": {"collect_snapshot_garbage": {"config": {"keep": 0}}}},
                                 raise_on_error=False)
    assert not bad.success
