"""One writer of a working folder at a time: the lease (pastcast.lease), taken by every step of a
Dagster run that writes and by `pastcast build`; refused with a message naming the writer."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from datetime import date
from pathlib import Path

import dagster as dg
import pytest
from click.testing import CliRunner

from assets._resources import PastcastStorage
from pastcast import lease
from pastcast.cli import main as cli
from pastcast.snapshot import latest_version, read_manifest
from pipelines.definitions import defs
from warcs import make_corpus

ROOT = Path(__file__).resolve().parents[1]


def dead_pid() -> int:
    """The pid of a process that has exited."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def plant(work: Path, owner: dict, members: dict[str, float]) -> None:
    work.mkdir(parents=True, exist_ok=True)
    (work / lease.LEASE).write_text(json.dumps({"owner": owner, "members": members}))


def here(pid: int) -> str:
    return f"{socket.gethostname()}:{pid}"


# -- the lease ------------------------------------------------------------------------------------

def test_a_second_owner_is_refused_while_the_first_writes_and_gets_it_after(tmp_path):
    first, second = lease.run_owner("run-a", "build_news"), lease.process_owner("pastcast build")
    lease.claim(tmp_path, first)
    lease.claim(tmp_path, first)  # a second step of the same run joins
    with pytest.raises(lease.StoreBusy) as refused:
        lease.claim(tmp_path, second)
    assert "Dagster run run-a of build_news is writing" in str(refused.value)
    assert lease.current_owner(tmp_path)["id"] == "run-a"
    lease.release(tmp_path, "run-a")
    assert lease.current_owner(tmp_path) is None and not (tmp_path / lease.LEASE).exists()
    lease.claim(tmp_path, second)
    assert lease.current_owner(tmp_path)["id"] == second["id"]


def test_an_owner_whose_members_are_gone_is_over(tmp_path):
    other = lease.run_owner("crashed", "build_news")
    plant(tmp_path, other, {here(dead_pid()): time.time()})  # its step process exited
    assert lease.current_owner(tmp_path) is None
    plant(tmp_path, other, {"elsewhere.example:12": time.time() - lease.GRACE_SECONDS - 5})
    assert lease.current_owner(tmp_path) is None  # another host's member that stopped renewing
    plant(tmp_path, other, {"elsewhere.example:12": time.time()})
    assert lease.current_owner(tmp_path)["id"] == "crashed"  # renewed just now: still writing
    # a caller that knows the owner ended (a finished Dagster run) overrides a live member
    plant(tmp_path, other, {here(os.getpid()): time.time()})
    assert lease.current_owner(tmp_path)["id"] == "crashed"
    assert lease.current_owner(tmp_path, alive=lambda owner: False) is None
    lease.claim(tmp_path, lease.process_owner("x"), alive=lambda owner: False)


def test_a_damaged_lease_file_is_no_lease(tmp_path):
    (tmp_path / lease.LEASE).write_bytes(b"\x00not json")
    assert lease.read_lease(tmp_path) is None
    lease.claim(tmp_path, lease.process_owner("x"))
    assert lease.read_lease(tmp_path)["owner"]["label"] == "x"


def test_a_waiting_claim_gets_the_lease_once_it_is_released(tmp_path):
    first = lease.run_owner("run-a", "build_news")
    lease.claim(tmp_path, first)
    seen: list[float] = []

    def release_when_waited(owner: dict, waited: float) -> None:
        seen.append(waited)
        threading.Thread(target=lease.release, args=(tmp_path, "run-a")).start()

    lease.claim(tmp_path, lease.process_owner("b"), wait_seconds=600, poll_seconds=0.05,
                on_wait=release_when_waited)
    assert seen and lease.current_owner(tmp_path)["label"] == "b"


# -- Dagster runs and the CLI -------------------------------------------------------------------

def storage_defs(root: Path, corpus: Path, wait: int = 0) -> dg.Definitions:
    storage = PastcastStorage(corpus_dir=str(corpus), work_dir=str(root / "work"),
                              snapshots_dir=str(root / "snapshots"), snapshot_name="t", writer_wait_seconds=wait)
    return dg.Definitions(assets=defs.assets, asset_checks=defs.asset_checks, jobs=defs.jobs,
                          resources={**defs.resources, "storage": storage})


def test_a_run_refuses_to_write_while_another_build_holds_the_folder_then_writes_and_leaves(tmp_path):
    corpus = make_corpus(tmp_path, [])
    local = storage_defs(tmp_path, corpus)
    work = tmp_path / "work"
    cli_owner = lease.process_owner("pastcast build")
    lease.claim(work, cli_owner)  # a CLI build of this process is writing
    job = local.resolve_job_def("import_dumps")
    with dg.DagsterInstance.ephemeral() as instance:
        refused = job.execute_in_process(instance=instance, raise_on_error=False)
        assert not refused.success
        failures = [e for e in refused.all_events if e.event_type == dg.DagsterEventType.STEP_FAILURE]
        message = failures[0].step_failure_data.error.message
        assert "pastcast build (pid" in message and "build_news" in message
        assert not (work / "markets.parquet").exists() and not list(work.glob("markets*"))  # nothing written
        lease.release(work, cli_owner["id"])
        done = job.execute_in_process(instance=instance)
        assert done.success
        assert lease.read_lease(work) is None  # every step left the lease when it ended


def test_a_finished_runs_lease_is_taken_over(tmp_path):
    corpus = make_corpus(tmp_path, [])
    local = storage_defs(tmp_path, corpus)
    with dg.DagsterInstance.ephemeral() as instance:
        job = local.resolve_job_def("import_dumps")
        assert job.execute_in_process(instance=instance).success
        (earlier,) = instance.get_runs()
        # the finished run's lease left behind with a live member (a process that is still
        # around, as the caller of an in-process run is): the instance says the run is over
        plant(tmp_path / "work", lease.run_owner(earlier.run_id, "import_dumps"), {here(os.getpid()): time.time()})
        assert job.execute_in_process(instance=instance).success


def test_pastcast_build_refuses_while_a_run_writes_and_names_it(tmp_path):
    work = tmp_path / "work"
    plant(work, lease.run_owner("0123456789abcdef", "build_news"), {here(os.getpid()): time.time()})
    result = CliRunner().invoke(cli, ["build", "--corpus", str(ROOT / "corpora" / "sample"), "--work", str(work),
                                      "--snapshots", str(tmp_path / "snapshots")])
    assert result.exit_code == 1
    assert "Dagster run 01234567 of build_news is writing this working folder" in result.output
    assert "--wait" in result.output
    assert not (tmp_path / "snapshots").exists()  # it wrote nothing


def test_two_runs_launched_at_once_never_write_at_the_same_time(tmp_path, monkeypatch):
    corpus = make_corpus(tmp_path, [])
    local = storage_defs(tmp_path, corpus, wait=600)
    events: list[tuple[str, str]] = []  # (owner, claimed|left) in the order they happened
    guard = threading.Lock()
    claim, release = lease.claim, lease.release

    def logged_claim(work_dir, owner, *args, **kwargs):
        claim(work_dir, owner, *args, **kwargs)
        with guard:
            events.append((owner["id"], "claimed"))  # after it holds the lease

    def logged_release(work_dir, owner_id):
        with guard:
            events.append((owner_id, "left"))  # before it lets go: a conservative order
        release(work_dir, owner_id)

    monkeypatch.setattr(lease, "claim", logged_claim)
    monkeypatch.setattr(lease, "release", logged_release)
    job = local.resolve_job_def("import_dumps")
    (tmp_path / "dagster").mkdir()
    with dg.DagsterInstance.local_temp(str(tmp_path / "dagster")) as instance:  # sqlite files: two threads
        results: list = []
        runs = [threading.Thread(target=lambda: results.append(job.execute_in_process(instance=instance)))
                for _ in range(2)]
        for run in runs:
            run.start()
        for run in runs:
            run.join()
        assert len(results) == 2 and all(r.success for r in results)
    owners = {owner for owner, _ in events}
    assert owners == {r.run_id for r in results}  # both wrote, each through the lease
    holding: dict[str, int] = {}
    for owner, what in events:
        holding[owner] = holding.get(owner, 0) + (1 if what == "claimed" else -1)
        assert sum(1 for n in holding.values() if n > 0) <= 1, events  # never two writers at once


BUILD_ASSETS = ("articles_raw,articles,news_questions,article_corpus,markets,posts,market_questions,"
                "question_candidates,questions,snapshot,latest_snapshot")


@pytest.mark.slow
def test_a_range_materialized_from_the_dagster_cli_is_one_build_and_a_repeat_publishes_nothing(tmp_path):
    corpus = make_corpus(tmp_path, [date(2026, 1, 7), date(2026, 1, 8)])
    (tmp_path / "home").mkdir()
    env = {**os.environ, "DAGSTER_HOME": str(tmp_path / "home"), "PASTCAST_CORPUS_DIR": str(corpus),
           "PASTCAST_WORK_DIR": str(tmp_path / "work"), "PASTCAST_SNAPSHOTS_DIR": str(tmp_path / "snapshots"),
           "PASTCAST_SNAPSHOT_NAME": "t", "PASTCAST_CACHE": str(tmp_path / "cache"),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    command = [str(Path(sys.executable).with_name("dagster")), "asset", "materialize", "-m", "pipelines.definitions",
               "--select", BUILD_ASSETS, "--partition-range", "2026-01-07...2026-01-08"]
    first = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr[-3000:]  # no CheckError: every asset has a single-run policy
    assert latest_version(tmp_path / "snapshots", "t") == "v1"
    assert read_manifest(tmp_path / "snapshots" / "t" / "v1")["partitions"]["daily"] == ["2026-01-07..2026-01-08"]
    again = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "unchanged: the tables are v1's" in again.stderr + again.stdout
    assert [v.name for v in (tmp_path / "snapshots" / "t").glob("v*")] == ["v1"]  # no new version
    assert lease.read_lease(tmp_path / "work") is None  # both runs left the lease


def test_the_landing_sensor_waits_for_any_writer_tagged_or_not(tmp_path):
    corpus = make_corpus(tmp_path, [date(2026, 1, 7)])
    storage = PastcastStorage(corpus_dir=str(corpus), work_dir=str(tmp_path / "work"),
                              snapshots_dir=str(tmp_path / "snapshots"), snapshot_name="t")
    sensor = next(s for s in defs.sensors if s.name == "new_warc_files")

    def tick(instance) -> list:
        with dg.build_sensor_context(instance=instance, resources={"storage": storage}) as context:
            return [sensor(context)]

    with dg.DagsterInstance.ephemeral() as instance:
        (first,) = tick(instance)
        assert isinstance(first, dg.RunRequest)  # a new day, nobody writing
        # a CLI build holds the working folder
        owner = lease.process_owner("pastcast build")
        lease.claim(tmp_path / "work", owner)
        (skip,) = tick(instance)
        assert isinstance(skip, dg.SkipReason) and "pastcast build (pid" in skip.skip_message
        lease.release(tmp_path / "work", owner["id"])
        # a backfill from the asset catalog: no job tags, writing assets selected
        catalog = instance.create_run_for_job(
            defs.resolve_implicit_global_asset_job_def(), asset_selection={dg.AssetKey("articles_raw")},
            status=dg.DagsterRunStatus.STARTED)
        (skip,) = tick(instance)
        assert isinstance(skip, dg.SkipReason) and catalog.run_id[:8] in skip.skip_message
        instance.report_run_canceled(catalog)
        # an evaluation reads a published version: no reason to wait
        instance.create_run_for_job(defs.resolve_job_def("evaluate_snapshot"), status=dg.DagsterRunStatus.STARTED)
        (again,) = tick(instance)
        assert isinstance(again, dg.RunRequest)
