"""The UI's view of the code location: the real dagster-webserver on loopback, asked over GraphQL
(the API its pages use) for the asset graph, partitions, checks, schedules and sensors."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QUERY = """{
  assetNodes { assetKey { path } isPartitioned partitionDefinition { description }
               dependencyKeys { path }
               assetChecksOrError { ... on AssetChecks { checks { name blocking } } } }
  repositoriesOrError { ... on RepositoryConnection { nodes {
      schedules { name cronSchedule } sensors { name } jobs { name } } } }
}"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def ui(tmp_path_factory):
    home = tmp_path_factory.mktemp("dagster_home")
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    port = _free_port()
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "dagster-webserver"), "-w", "workspace.yaml", "-h", "127.0.0.1",
         "-p", str(port)], cwd=ROOT, env={**os.environ, "DAGSTER_HOME": str(home)},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/server_info", timeout=2)
                break
            except OSError:
                if server.poll() is not None:
                    pytest.fail(f"dagster-webserver exited: {server.stderr.read()[-2000:]}")
                time.sleep(0.5)
        request = urllib.request.Request(f"{url}/graphql", data=json.dumps({"query": QUERY}).encode(),
                                         headers={"Content-Type": "application/json"})
        yield json.loads(urllib.request.urlopen(request, timeout=60).read())["data"]
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_ui_shows_the_daily_partitions_and_the_graph(ui):
    nodes = {"/".join(n["assetKey"]["path"]): n for n in ui["assetNodes"]}
    assert {k for k, n in nodes.items() if n["isPartitioned"]} == {"articles_raw", "articles", "news_questions"}
    # the partitions start on the corpus's first crawl day, not on a fixed 2016 date
    from pastcast.pipeline import first_crawl_day

    first = os.environ.get("PASTCAST_START_DATE") or first_crawl_day(
        os.environ.get("PASTCAST_CORPUS_DIR", ROOT / "corpora" / "sample")).isoformat()
    assert nodes["articles"]["partitionDefinition"]["description"] == f"Daily, starting {first} UTC."
    depends = {k: {"/".join(d["path"]) for d in n["dependencyKeys"]} for k, n in nodes.items()}
    assert depends["articles"] == {"articles_raw"} and depends["latest_snapshot"] == {"snapshot"}
    assert depends["snapshot"] == {"article_corpus", "questions", "markets", "posts"}


def test_the_ui_shows_blocking_and_warning_checks_schedules_and_sensors(ui):
    checks = {("/".join(n["assetKey"]["path"]), c["name"]): c["blocking"]
              for n in ui["assetNodes"] for c in n["assetChecksOrError"]["checks"]}
    assert checks[("snapshot", "no_answer_in_other_questions")] is True
    assert checks[("snapshot", "articles_within_crawl_bounds")] is True
    assert checks[("articles", "date_coverage")] is False and checks[("articles_raw", "drop_rates_in_usual_range")] is False
    (repo,) = ui["repositoriesOrError"]["nodes"]
    assert repo["schedules"] == [{"name": "nightly_rebuild", "cronSchedule": "0 3 * * *"}]
    assert {s["name"] for s in repo["sensors"]} == {"new_warc_files", "changed_dumps", "evaluate_new_snapshots"}
    assert {"build_news", "import_dumps", "build_snapshot", "evaluate_snapshot"} <= {j["name"] for j in repo["jobs"]}
