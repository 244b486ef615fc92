"""The same job on Dask: a real scheduler and workers on loopback, the job launched by
`dagster job execute` with only configuration changed (PASTCAST_EXECUTOR and run config)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import dagster as dg
import pytest
import yaml
from distributed import Client, LocalCluster

from warcs import make_corpus

ROOT = Path(__file__).resolve().parents[1]
DAY = date(2026, 1, 7)


@pytest.mark.slow  # over 10 s: `make test-slow` and CI
def test_a_day_runs_on_a_local_dask_cluster(tmp_path, monkeypatch):
    corpus = make_corpus(tmp_path, [DAY])
    home = tmp_path / "dagster_home"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    # the deployment's configuration, seen by the launching process and every worker alike
    for name, value in {"PASTCAST_EXECUTOR": "dask", "PASTCAST_CORPUS_DIR": str(corpus),
                        "PASTCAST_WORK_DIR": str(tmp_path / "work"), "PASTCAST_SNAPSHOTS_DIR": str(tmp_path / "snaps"),
                        "PASTCAST_SNAPSHOT_NAME": "t", "PASTCAST_MAX_RETRIES": "0", "DAGSTER_HOME": str(home),
                        "LITELLM_LOCAL_MODEL_COST_MAP": "True"}.items():
        monkeypatch.setenv(name, value)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        workers = set(client.run(os.getpid).values())
        config = tmp_path / "run.yaml"
        config.write_text(yaml.safe_dump({"execution": {"config": {"cluster": {
            "existing": {"address": cluster.scheduler_address}}}}}))
        launched = subprocess.run(
            [str(Path(sys.executable).parent / "dagster"), "job", "execute", "-m", "pipelines.definitions",
             "-j", "build_news", "-c", str(config), "--tags", json.dumps({"dagster/partition": DAY.isoformat()})],
            cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert launched.returncode == 0, launched.stdout[-3000:] + launched.stderr[-3000:]

    with dg.DagsterInstance.from_config(str(home)) as instance:
        (run,) = instance.get_runs()
        assert run.status == dg.DagsterRunStatus.SUCCESS and run.tags["dagster/partition"] == DAY.isoformat()
        starts = [e for e in instance.all_logs(run.run_id) if e.dagster_event_type == dg.DagsterEventType.STEP_START]
        steps = {e.step_key for e in starts}
        assert {"articles_raw", "articles", "news_questions", "article_corpus", "questions", "snapshot",
                "latest_snapshot"} <= steps
        # every step ran in a Dask worker process, none in the launching process
        assert {e.dagster_event.pid for e in starts} <= workers and len(starts) == len(steps)
    day = tmp_path / "work" / "news" / f"day={DAY.isoformat()}"
    assert (day / "dedup" / "articles.parquet").is_file()
    assert (tmp_path / "snaps" / "t" / "LATEST").read_text().strip() == "v1"
