"""Resume paths (issue 36, item 7, and item 8's MCP coercion): a torn last line of a partial
ledger is dropped with a warning naming file and line and the run resumes, scoring as an
uninterrupted run; a damaged line before it is a one-line error naming file and line;
`eval mcp --resume`, `eval serve --resume` and `eval harness --resume` continue a stopped run
with the scores of an uninterrupted one; SIGTERM or SIGHUP before any forecast leaves no
`.lock` nor partial ledger; a restarted `eval mcp` on a run with forecasts says why it does not
serve; MCP refuses a string where an integer or a boolean belongs, as HTTP does."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import date
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from evalkit import article, question, ts, write_snapshot
from pastcast.cli import main as cli
from pastcast.evaluate.run_folder import PARTIAL, PROGRESS
from pastcast.evaluate.runner import run_eval
from pastcast.evaluate.serve import make_server

LIGHT_AGENT = Path(__file__).parent / "agents" / "light_cli_agent.py"
WAIT_S = 120  # a hang fails the test instead of blocking it (never a measure of speed)


def _snapshot(root: Path) -> Path:
    """Six days, three questions with candidates (one resolving inside the window, one on its
    last day, one after it)."""
    return write_snapshot(root, [
        article("a1", "Harbour board", "The harbour board will choose a chair; Ana Ruiz and Bo Lind run.", ts("2024-01-02")),
        article("a2", "Port", "Bo Lind is expected to lead the port.", ts("2024-01-03")),
        article("a3", "Chair chosen", "Ana Ruiz was chosen as chair of the harbour board.", ts("2024-01-04"))],
        [question("q1", "Who will chair the harbour board?", "Ana Ruiz", "2024-01-01", "2024-01-04",
                  candidate_outcomes=["Ana Ruiz", "Bo Lind"]),
         question("q2", "Who will lead the port?", "Bo Lind", "2024-01-02", "2024-01-06",
                  candidate_outcomes=["Bo Lind", "Cy Moe"]),
         question("q3", "Who will win the regatta?", "Dee Holt", "2024-01-03", "2024-01-09",
                  candidate_outcomes=["Dee Holt", "Eli Park", "Fay Tan"])],
        "2024-01-01", "2024-01-06", name="harbour", version="v1")


@pytest.fixture()
def snap(tmp_path, monkeypatch):
    monkeypatch.setenv("PASTCAST_CACHE", str(tmp_path / "cache"))
    return _snapshot(tmp_path / "snap")


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "PASTCAST_CACHE": str(tmp_path / "cache")}


def desired(question_id: str, candidates: list[str], day: date) -> dict[str, float]:
    """A deterministic forecast that changes with the day (so the time-weighted score and the
    number of forecasts depend on every day being replayed once)."""
    lean = round(0.4 + 0.05 * (day.toordinal() % 5), 6)
    rest = round((0.9 - lean) / max(1, len(candidates) - 1), 6)
    return {c: (lean if i == 0 else rest) for i, c in enumerate(candidates)}


class DayAgent:
    """The in-process twin of the MCP client below (for `eval run`)."""

    name = "day-agent"

    def act(self, env) -> None:
        for q in env.open_questions():
            env.submit(q.question_id, desired(q.question_id, list(q.candidate_outcomes), env.today))


class StopOn(DayAgent):
    """Killed on a simulated day (a crash, a pre-emption)."""

    def __init__(self, day: date):
        self.day = day

    def act(self, env) -> None:
        if env.today == self.day:
            raise KeyboardInterrupt("killed")
        super().act(env)


def _ledger(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "ledger.jsonl").read_text().splitlines()]


def _same_scores(run: Path, reference: Path) -> None:
    mine = pl.read_parquet(run / "scores.parquet").sort("question_id")
    theirs = pl.read_parquet(reference / "scores.parquet").sort("question_id")
    assert mine["n_forecasts"].sum() > 0
    assert mine.equals(theirs)
    assert pl.read_parquet(run / "daily.parquet").equals(pl.read_parquet(reference / "daily.parquet"))
    assert _ledger(run) == _ledger(reference)  # the same forecasts on the same days, once each


def _torn(line: dict) -> str:
    """What a crash leaves of a ledger line being written: its first half, no newline."""
    text = json.dumps(line)
    return text[: len(text) // 2]


# -- eval run: a torn last line ---------------------------------------------------------------

def test_a_torn_last_line_is_dropped_with_a_warning_and_eval_run_resumes_as_uninterrupted(snap, tmp_path):
    whole = run_eval(snap, DayAgent(), tmp_path / "whole")
    run = tmp_path / "run"
    stop = date(2024, 1, 4)
    with pytest.raises(KeyboardInterrupt):
        run_eval(snap, StopOn(stop), run)
    # the crash came while day 4's forecasts were written: one whole line, then a torn one
    partial = run / PARTIAL
    kept = partial.read_text().count("\n")
    with partial.open("a") as fh:
        fh.write(json.dumps({"date": "2024-01-04", "question_id": "q2", "forecast": {"Bo Lind": 0.5},
                             "agent": "day-agent"}) + "\n")
        fh.write(_torn({"date": "2024-01-04", "question_id": "q3", "forecast": {"Dee Holt": 0.5}}))

    result = CliRunner().invoke(cli, ["eval", "run", "--snapshot", str(snap), "--agent",
                                      "test_faults_resume:DayAgent", "--out", str(run), "--resume"])
    assert result.exit_code == 0, result.output
    torn_line = kept + 2
    assert f"{partial} line {torn_line}: torn last line dropped" in " ".join(result.output.split())
    assert "Traceback" not in result.output
    _same_scores(run, whole.out_dir)
    record = json.loads((run / "run.json").read_text())
    assert record["resumed"] is True and record["resume"]["from_day"] == stop.isoformat()
    assert f"line {torn_line}" in record["resume"]["warnings"][0]
    assert not partial.exists() and not (run / PROGRESS).exists()


def test_a_damaged_line_before_the_last_is_an_error_naming_file_and_line(snap, tmp_path):
    run = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        run_eval(snap, StopOn(date(2024, 1, 4)), run)
    partial = run / PARTIAL
    lines = partial.read_text().splitlines()
    lines[1] = lines[1][:20]  # torn in the middle: not a crash's trace
    partial.write_text("\n".join(lines) + "\n")
    before = partial.read_bytes()
    result = CliRunner().invoke(cli, ["eval", "run", "--snapshot", str(snap), "--agent",
                                      "test_faults_resume:DayAgent", "--out", str(run), "--resume"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    message = " ".join(result.output.split())
    assert f"{partial} line 2: damaged ledger line" in message and "--force" in message
    assert partial.read_bytes() == before  # nothing changed: resume again once repaired, or --force


def test_eval_run_resume_drops_the_unfinished_days_whole_lines_too(snap, tmp_path, capsys):
    """Lines of the day the crash came on, written before its progress was: dropped, the day
    asked again, and never twice in the ledger."""
    whole = run_eval(snap, DayAgent(), tmp_path / "whole")
    run = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        run_eval(snap, StopOn(date(2024, 1, 3)), run)
    with (run / PARTIAL).open("a") as fh:
        fh.write(json.dumps({"date": "2024-01-03", "question_id": "q1", "forecast": {"Ana Ruiz": 0.9},
                             "agent": "day-agent"}) + "\n")
    run_eval(snap, DayAgent(), run, resume=True)
    assert "warning" not in capsys.readouterr().err  # whole lines: nothing torn
    _same_scores(run, whole.out_dir)


# -- eval mcp --resume over stdio -------------------------------------------------------------

def _mcp(snap: Path, run: Path, tmp_path: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "pastcast.cli", "eval", "mcp", "--snapshot",
                                                               str(snap), "--out", str(run), *extra],
                                 env=_env(tmp_path), cwd=str(tmp_path))


async def _drive(client: Client, stop_after: tuple[str, int] | None = None) -> str:
    """Forecast every open question (when the standing forecast is not today's wish), then
    next_day, to the end; with ``stop_after`` (day, n), leave after n forecasts on that day.
    Returns the day it was on when it left."""
    while True:
        state = (await client.call_tool("state", {})).structured_content
        today = date.fromisoformat(state["date"])
        made = 0
        questions = (await client.call_tool("list_questions", {})).structured_content["questions"]
        for q in questions:
            wish = desired(q["question_id"], q["candidate_outcomes"], today)
            if q["your_forecast"] == wish:
                continue
            if stop_after and stop_after[0] == state["date"] and made == stop_after[1]:
                return state["date"]
            result = await client.call_tool("submit_forecast", {"question_id": q["question_id"], "outcomes": wish})
            assert not result.is_error, result.content
            made += 1
        moved = await client.call_tool("next_day", {})
        assert not moved.is_error, moved.content
        if moved.structured_content["done"]:
            return moved.structured_content["date"]


def test_eval_mcp_resume_continues_a_stopped_run_with_the_scores_of_an_uninterrupted_one(snap, tmp_path):
    whole, run = tmp_path / "whole", tmp_path / "run"

    async def go(params, stop_after=None):
        async with Client(params) as client:
            return await _drive(client, stop_after)

    from pastcast.evaluate.mcp_server import build_server
    from pastcast.evaluate.session import ReplaySession

    reference = ReplaySession(snap, whole, "mcp-agent", extra={"transport": "mcp-stdio"})
    asyncio.run(go(build_server(reference)))  # uninterrupted (in-process: the same server, no transport)
    reference.close()
    # stopped on day 3 after one of its forecasts; a crash then tore the next line
    assert asyncio.run(go(_mcp(snap, run, tmp_path), ("2024-01-03", 1))) == "2024-01-03"
    with (run / PARTIAL).open("a") as fh:
        fh.write(_torn({"date": "2024-01-03", "question_id": "q2", "forecast": {"Bo Lind": 0.5}}))
    assert not (run / "run.json").exists()

    # started again without --resume: refused before serving the replay, saying why, on stderr and
    # to the client (which may not show stderr) as the instructions of a server without the replay
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    params = _mcp(snap, run, tmp_path)
    refused = subprocess.run([params.command, *params.args], input=json.dumps(init) + "\n", env=params.env,
                             cwd=tmp_path, capture_output=True, text=True, timeout=WAIT_S)
    assert refused.returncode == 1
    told = json.loads(refused.stdout.splitlines()[0])["result"]["instructions"]
    assert "not serving a replay" in told and "--resume" in told and "--force" in told
    assert "--resume" in refused.stderr and "--force" in refused.stderr and "Traceback" not in refused.stderr
    assert refused.stderr.strip().count("\n") == 0

    async def resume():
        async with Client(_mcp(snap, run, tmp_path, "--resume")) as client:
            state = (await client.call_tool("state", {})).structured_content
            assert state["date"] == "2024-01-03" and state["forecasts"] > 0  # the day and the ledger back
            return await _drive(client)

    asyncio.run(resume())
    _same_scores(run, whole)
    record = json.loads((run / "run.json").read_text())
    assert record["resume"]["from_day"] == "2024-01-03" and "torn last line" in record["resume"]["warnings"][0]
    assert not (run / PARTIAL).exists() and not (run / PROGRESS).exists()


# -- SIGTERM / SIGHUP -------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _request(port: int, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S)
    try:
        conn.request(method, path, body=json.dumps(body).encode() if body is not None else None,
                     headers={"Content-Type": "application/json"} if body is not None else {})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def _serve(snap: Path, run: Path, tmp_path: Path, *extra: str) -> tuple[subprocess.Popen, int]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "pastcast.cli", "eval", "serve", "--snapshot", str(snap),
                             "--out", str(run), "--port", str(port), *extra], env=_env(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            _request(port, "GET", "/v1/state")
            return proc, port
        except OSError:
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.1)


def _mcp_serving(snap: Path, run: Path, tmp_path: Path) -> subprocess.Popen:
    """`eval mcp` over stdio, started as a client starts it and answering its first request."""
    params = _mcp(snap, run, tmp_path)
    proc = subprocess.Popen([params.command, *params.args], env=params.env, cwd=tmp_path, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    proc.stdin.write((json.dumps(init) + "\n").encode())
    proc.stdin.flush()
    assert b'"result"' in proc.stdout.readline()  # serving (the stdin stays open: the client is still there)
    return proc


@pytest.mark.parametrize("command, sig", [("serve", signal.SIGTERM), ("serve", signal.SIGHUP),
                                          ("mcp", signal.SIGTERM)])
def test_a_signal_before_any_forecast_leaves_no_lock_nor_partial_ledger(snap, tmp_path, command, sig):
    run = tmp_path / "run"
    run.mkdir()  # a folder of the user's: kept, and left as it was
    if command == "serve":
        proc, _ = _serve(snap, run, tmp_path)
    else:
        proc = _mcp_serving(snap, run, tmp_path)
    assert (run / PARTIAL).exists() and (run / ".lock").exists()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=WAIT_S)
    assert "Traceback" not in str(err)
    assert sorted(p.name for p in run.iterdir()) == []  # no .lock, no partial ledger, no progress
    srv, session = make_server(snap, run)  # the next start needs no --force
    srv.server_close()
    session.close()


def test_serve_stopped_by_sigterm_with_forecasts_resumes_with_the_scores_of_an_uninterrupted_run(snap, tmp_path):
    whole = tmp_path / "whole"
    srv, session = make_server(snap, whole)
    forecasts = {"2024-01-01": [("q1", {"Ana Ruiz": 0.6})], "2024-01-02": [("q2", {"Bo Lind": 0.7})],
                 "2024-01-03": [("q1", {"Ana Ruiz": 0.8}), ("q3", {"Dee Holt": 0.3})], "2024-01-05": [("q3", {"Fay Tan": 0.4})]}

    def day_of(s, day):
        for qid, f in forecasts.get(day, []):
            s.submit_forecast(qid, f)

    while not session.env.done:
        day_of(session, session.state()["date"])
        session.advance(1)
    srv.server_close()
    session.close()

    run = tmp_path / "run"
    proc, port = _serve(snap, run, tmp_path)
    for day in ("2024-01-01", "2024-01-02"):
        for qid, f in forecasts.get(day, []):
            assert _request(port, "POST", "/v1/forecast", {"question_id": qid, "forecast": f})[0] == 200
        assert _request(port, "POST", "/v1/advance", {})[0] == 200
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=WAIT_S)
    assert "--resume" in err and (run / PARTIAL).read_text().count("\n") == 2
    # the lock is free: resumed on the day it stopped on (in-process: the same session as the CLI's)
    srv, session = make_server(snap, run, resume=True)
    assert session.state()["date"] == "2024-01-03" and session.state()["forecasts"] == 2
    while not session.env.done:
        day_of(session, session.state()["date"])
        session.advance(1)
    srv.server_close()
    session.close()
    _same_scores(run, whole)


# -- eval harness --resume --------------------------------------------------------------------

def test_eval_harness_resume_continues_a_run_stopped_by_sigterm_with_the_same_scores(snap, tmp_path, monkeypatch):
    from pastcast.evaluate.harness import run_harness

    agent = f"{shlex.quote(sys.executable)} {shlex.quote(str(LIGHT_AGENT))}"
    whole = tmp_path / "whole"
    run_harness(snap, whole, agent, timeout_s=60.0)  # uninterrupted (in-process: the same harness)
    marker = tmp_path / "stopped-once"
    # on day 3, once: the agent does its day, then the harness is stopped (SIGTERM, as a scheduler does)
    stopping = (f"{agent} && if [ \"$PASTCAST_DATE\" = 2024-01-03 ] && [ ! -e {shlex.quote(str(marker))} ]; "
                f"then touch {shlex.quote(str(marker))}; kill -TERM $PPID; sleep 60; fi")

    def harness(*extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pastcast.cli", "eval", "harness", "--snapshot", str(snap),
                               "--out", str(run), "--command", stopping, "--timeout-s", "60", *extra],
                              env=_env(tmp_path), capture_output=True, text=True, timeout=WAIT_S)

    run = tmp_path / "run"
    stopped = harness()
    assert stopped.returncode == 130 and marker.exists(), stopped.stderr
    assert "--resume" in stopped.stderr and "2024-01-03" in (run / PARTIAL).read_text()
    # without --resume: refused, naming the options that exist (in-process: this process's signals kept)
    monkeypatch.setattr("pastcast.cli.native.stop_on_signals", lambda: None)
    again = CliRunner().invoke(cli, ["eval", "harness", "--snapshot", str(snap), "--out", str(run), "--command",
                                     stopping])
    assert again.exit_code == 1 and "--resume" in again.output and "--force" in again.output
    resumed = harness("--resume")
    assert resumed.returncode == 0, resumed.stderr
    _same_scores(run, whole)
    days = json.loads((run / "harness.json").read_text())["days"]
    assert [d["date"] for d in days] == [d["date"] for d in json.loads((whole / "harness.json").read_text())["days"]]
    assert all(d["status"] == "ok" for d in days)
    assert json.loads((run / "run.json").read_text())["resume"]["from_day"] == "2024-01-03"
    # the notes are the agent's: kept (the day it was stopped on, run again, wrote twice)
    note = (run / "workspace" / "memory" / "days").read_text().split()
    assert note == ["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-03", "2024-01-04", "2024-01-05", "2024-01-06"]


# -- MCP validates as HTTP does -----------------------------------------------------------------

def test_mcp_refuses_a_string_for_an_integer_or_a_boolean_with_the_message_http_gives(snap, tmp_path):
    from pastcast.evaluate.mcp_server import build_server

    srv, session = make_server(snap, tmp_path / "run")
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    port = srv.server_address[1]
    try:
        status, http_days = _request(port, "POST", "/v1/advance", {"days": "1"})
        assert status == 400
        status, http_k = _request(port, "GET", "/v1/search?query=harbour&k=ten")
        assert status == 400

        async def go():
            async with Client(build_server(session)) as client:
                async def error(tool, **args):
                    result = await client.call_tool(tool, args)
                    assert result.is_error, (tool, args, result.structured_content)
                    return " ".join(getattr(c, "text", "") for c in result.content)

                assert http_days["error"] in await error("next_day", days="1")
                assert "k must be an integer (clamped to 1..100), got '10'" in await error(
                    "search_news", query="harbour", k="10")
                assert http_k["error"].replace("'ten'", "'10'") in await error("search_posts", query="x", k="10")
                assert "got 10.0" in await error("search_news", query="harbour", k=10.0)
                assert "full_text must be true or false" in await error("search_news", query="x", full_text="yes")
                assert "append must be true or false" in await error("memory_write", name="n", text="t",
                                                                     append="false")
                ok = await client.call_tool("search_news", {"query": "harbour", "k": 2})
                assert not ok.is_error
                return (await client.call_tool("state", {})).structured_content["date"]

        assert asyncio.run(go()) == "2024-01-01"  # nothing coerced moved the clock
    finally:
        srv.shutdown()
        srv.server_close()
        session.close()
