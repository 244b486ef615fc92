"""The environment served over HTTP on loopback: a client in another process sees only the
current day's tools, gets clear errors, and its run is scored like `eval run`."""

import json
import threading
import urllib.error
import urllib.request

import pytest

from evalkit import article, question, ts, write_snapshot
from pastcast.evaluate.runner import run_eval
from pastcast.evaluate.serve import make_server

SECRET = "Ana Ruiz"


@pytest.fixture()
def served(tmp_path):
    snap = write_snapshot(tmp_path / "s", [
        article("a1", "Harbour board", "The harbour board will choose a chair.", ts("2024-01-02")),
        article("a2", "Chair chosen", f"{SECRET} was chosen as chair of the harbour board.", ts("2024-01-05"))],
        [question("q1", "Who will chair the harbour board?", SECRET, "2024-01-02", "2024-01-05")],
        "2024-01-01", "2024-01-07")
    server, run = make_server(snap, tmp_path / "run")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    yield f"http://{host}:{port}/v1", snap, tmp_path
    server.shutdown()
    server.server_close()


def call(base, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method="POST" if body is not None else "GET",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_remote_agent_replays_and_is_scored_like_eval_run(served):
    base, snap, tmp = served
    seen = []
    status, state = call(base, "/state")
    assert status == 200 and state["today"] == "2024-01-01"
    while True:
        _, questions = call(base, "/questions")
        _, hits = call(base, "/search?query=harbour+board+chair&k=5")
        _, resolved = call(base, "/resolved")
        # the agent's own forecasts come back to it (standing, final): they are not the answer
        own = ("your_forecast", "final_forecast")
        seen.append(json.dumps([[{k: v for k, v in q.items() if k not in own} for q in questions], hits,
                                [{k: v for k, v in q.items() if k not in own} for q in resolved]]))
        for q in questions:
            assert call(base, "/forecast", {"question_id": q["question_id"],
                                            "forecast": {SECRET: 0.6, "Bo Lind": 0.3}})[0] == 200
        status, state = call(base, "/advance", {"days": 1})
        if state["done"]:
            break
    # the answer reached the client only once the question had resolved (2024-01-05)
    days_with_secret = [i for i, s in enumerate(seen) if SECRET in s]
    assert days_with_secret and min(days_with_secret) == 4
    assert (tmp / "run" / "ledger.jsonl").is_file() and (tmp / "run" / "scores.parquet").is_file()
    assert call(base, "/advance", {})[0] == 409  # the replay is over

    class Same:  # the same forecasts through the in-process environment
        name = "external"

        def act(self, env):
            for q in env.open_questions():
                env.submit(q.question_id, {SECRET: 0.6, "Bo Lind": 0.3})

    direct = run_eval(snap, Same(), tmp / "direct")
    served_run = json.loads((tmp / "run" / "run.json").read_text())
    assert served_run["summary"]["mean_bss"] == direct.summary["mean_bss"]
    assert (tmp / "run" / "ledger.jsonl").read_text() == (tmp / "direct" / "ledger.jsonl").read_text()


def test_bad_requests_get_clear_errors(served):
    base, _, _ = served
    assert call(base, "/forecast", {"question_id": "q1", "forecast": {"Ana": 0.5}})[0] == 400  # not open yet
    call(base, "/advance", {"days": 1})
    status, body = call(base, "/forecast", {"question_id": "q1", "forecast": {"Unknown": 0.5}})
    assert status == 400 and "placeholder" in body["error"]
    status, body = call(base, "/forecast", {"question_id": "q1", "forecast": {"A": 0.7, "B": 0.6}})
    assert status == 400 and "sum" in body["error"]
    assert call(base, "/nowhere")[0] == 404
    request = urllib.request.Request(base + "/forecast", data=b"{not json", method="POST")
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(request, timeout=10)
    assert err.value.code == 400


def test_cli_serve_runs_until_the_replay_ends(tmp_path):
    import socket
    import subprocess
    import sys
    import time as clock

    snap = write_snapshot(tmp_path / "s", [article("a1", "Board", "The board meets.", ts("2024-01-02"))],
                          [question("q1", "Who will chair the board?", SECRET, "2024-01-02", "2024-01-04")],
                          "2024-01-01", "2024-01-04")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "pastcast.cli", "eval", "serve", "--snapshot", str(snap),
                             "--out", str(tmp_path / "run"), "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(100):  # wait for the server
            try:
                call(base, "/state")
                break
            except (urllib.error.URLError, ConnectionError):
                clock.sleep(0.1)
        assert call(base, "/advance", {"days": 1})[1]["today"] == "2024-01-02"
        assert call(base, "/forecast", {"question_id": "q1", "forecast": {SECRET: 1.0}})[0] == 200
        assert call(base, "/advance", {"days": 10})[1]["done"] is True
        out, _ = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0 and "mean BSS +1.000" in out
    assert json.loads((tmp_path / "run" / "run.json").read_text())["summary"]["mean_bss"] == 1.0
