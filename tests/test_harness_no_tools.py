"""The harness says when a day had no tools (issue 39, item 3): a command that never reaches the
MCP server (`true`) is `no_tools` each day, in harness.json and in the summary, a command that
calls the tools is `ok`, one that fails is `failed`, and `--resume` keeps a `no_tools` day as
finished; `eval mcp` over stdio on a folder that holds a run tells the client why (the official
MCP client sees it); PROMPT.md lists every tool the server offers."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import sys
import textwrap
from datetime import date, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from pastcast.cli import main as cli_main
from pastcast.evaluate import harness
from pastcast.evaluate.harness import run_harness
from pastcast.evaluate.mcp_server import SERVER_NAME, build_server
from pastcast.evaluate.session import ReplaySession
from evalkit import cut_to_days

WINDOW_DAYS = 3
LIGHT_AGENT = Path(__file__).parent / "agents" / "light_cli_agent.py"


@pytest.fixture()
def short_window(demo_snapshot, tmp_path, monkeypatch):
    """The demo snapshot cut to a few days (a copy whose manifest says so), its index built."""
    monkeypatch.setenv("PASTCAST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(harness, "KILL_GRACE_S", 1.0)
    return cut_to_days(demo_snapshot, tmp_path, WINDOW_DAYS)


def _dates(start: date) -> list[str]:
    return [(start + timedelta(days=i)).isoformat() for i in range(WINDOW_DAYS)]


def test_a_command_that_never_reaches_the_server_is_no_tools_every_day(short_window, tmp_path):
    snapshot, start = short_window
    run = tmp_path / "run"
    done = CliRunner().invoke(cli_main, ["eval", "harness", "--snapshot", str(snapshot), "--out", str(run),
                                         "--command", "true", "--timeout-s", "30"])
    assert done.exit_code == 0, done.output
    record = json.loads((run / "harness.json").read_text())
    assert [d["date"] for d in record["days"]] == _dates(start)
    assert all(d["status"] == "no_tools" and d["exit_code"] == 0 and d["tool_calls"] == {} for d in record["days"])
    assert record["no_tools_days"] == _dates(start)
    # the fields there were before stay as they were
    assert record["failed_days"] == [] and record["timed_out_days"] == [] and record["agent_days"] == WINDOW_DAYS
    assert f"{WINDOW_DAYS} of {WINDOW_DAYS} days made no pastcast tool call (no_tools)" in record["no_tools_warning"]
    # and the summary says so, naming what to check
    assert f"{WINDOW_DAYS} of {WINDOW_DAYS} days made no pastcast tool call (no_tools)" in done.output
    assert "MCP config" in done.output and "docs/harness.md" in done.output
    assert (Path(__file__).parents[1] / "docs" / "harness.md").is_file()


def test_a_session_that_exits_without_a_tool_call_is_no_tools_and_a_failing_command_is_failed(short_window,
                                                                                               tmp_path):
    snapshot, start = short_window
    session = run_harness(snapshot, tmp_path / "session", "true", mode="session", timeout_s=30.0)
    assert session.no_tools == _dates(start) and session.failed == []
    failing = run_harness(snapshot, tmp_path / "failing", "exit 3", timeout_s=30.0)
    assert failing.failed == _dates(start) and failing.no_tools == []
    assert "no_tools_warning" not in json.loads((tmp_path / "failing" / "harness.json").read_text())


def test_a_command_that_calls_the_tools_is_ok(short_window, tmp_path):
    snapshot, start = short_window
    run = tmp_path / "run"
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(LIGHT_AGENT))}"
    done = CliRunner().invoke(cli_main, ["eval", "harness", "--snapshot", str(snapshot), "--out", str(run),
                                         "--command", command, "--timeout-s", "60"])
    assert done.exit_code == 0, done.output
    record = json.loads((run / "harness.json").read_text())
    assert [d["status"] for d in record["days"]] == ["ok"] * WINDOW_DAYS
    assert all(d["tool_calls"].get("state") == 1 for d in record["days"])
    assert record["no_tools_days"] == [] and "no_tools_warning" not in record
    assert "no pastcast tool call" not in done.output


def test_resume_keeps_a_no_tools_day_as_finished(short_window, tmp_path):
    """Day 1 forecasts (so the stopped run is kept), day 2 reaches no server, the run is stopped
    on day 3: resumed, day 2 stays `no_tools` and is not run again."""
    snapshot, start = short_window
    day1, day2, day3 = _dates(start)
    script = tmp_path / "agent.py"
    script.write_text(textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(LIGHT_AGENT.parent)!r})
        if os.environ["PASTCAST_DATE"] == {day2!r}:
            raise SystemExit(0)  # as a CLI that did not reach the server
        open({str(tmp_path / 'ran.txt')!r}, "a").write(os.environ["PASTCAST_DATE"] + "\\n")
        from light_cli_agent import call, rpc
        rpc("initialize", {{"protocolVersion": "2025-06-18", "capabilities": {{}},
                            "clientInfo": {{"name": "t", "version": "1"}}}}, ident=1)
        rpc("notifications/initialized")
        questions = call("list_questions")["questions"]
        call("submit_forecast", question_id=questions[0]["question_id"], outcomes={{"Mara Quell": 0.5}})
    """))
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    run = tmp_path / "run"

    def stop_on_day3(day):
        if day.date == day3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_harness(snapshot, run, command, timeout_s=60.0, on_day=stop_on_day3)
    assert (run / ".ledger.jsonl.partial").read_text().strip()  # kept: resumable
    result = run_harness(snapshot, run, command, timeout_s=60.0, resume=True)
    assert [(d.date, d.status) for d in result.days] == [(day1, "ok"), (day2, "no_tools"), (day3, "ok")]
    assert (tmp_path / "ran.txt").read_text().split() == [day1, day3, day3]  # day 3 again, day 2 not
    assert json.loads((run / "harness.json").read_text())["no_tools_days"] == [day2]


def test_prompt_lists_every_tool_the_server_offers(short_window, tmp_path):
    snapshot, _ = short_window
    session = ReplaySession(snapshot, tmp_path / "run", "t")
    try:
        async def names():
            async with Client(build_server(session)) as client:
                return {t.name for t in (await client.list_tools()).tools}

        offered = asyncio.run(names())
    finally:
        session.close()
    for mode in harness.MODES:
        prompt = harness.PROMPT.format(date="2024-01-01", server=SERVER_NAME, ending=harness.ENDING[mode])
        listed = re.search(rf'MCP server "{SERVER_NAME}":\s*(.*?)\.\n', prompt, re.S).group(1)
        assert {name.strip() for name in listed.split(",")} == offered
    assert "state" in offered


def test_eval_mcp_over_stdio_on_a_folder_with_forecasts_tells_the_client_what_to_do(short_window, tmp_path):
    snapshot, _ = short_window
    run = tmp_path / "run"
    env = {**os.environ, "PASTCAST_CACHE": str(tmp_path / "cache")}

    def params(*extra: str) -> StdioServerParameters:
        return StdioServerParameters(command=sys.executable, args=["-m", "pastcast.cli", "eval", "mcp", "--snapshot",
                                                                   str(snapshot), "--out", str(run), *extra],
                                     env=env, cwd=str(tmp_path))

    async def forecast_and_leave():
        async with Client(params()) as client:
            questions = (await client.call_tool("list_questions", {})).structured_content["questions"]
            result = await client.call_tool("submit_forecast", {"question_id": questions[0]["question_id"],
                                                                "outcomes": {"Mara Quell": 0.5}})
            assert not result.is_error

    async def restarted():
        async with Client(params()) as client:
            tools = [t.name for t in (await client.list_tools()).tools]
            description = (await client.list_tools()).tools[0].description
            called = await client.call_tool("state", {})
            return client.instructions, tools, description, called

    asyncio.run(forecast_and_leave())
    assert (run / ".ledger.jsonl.partial").read_text().strip()
    instructions, tools, description, called = asyncio.run(restarted())
    assert tools == ["state"]  # not the replay's tools: the reason instead
    for text in (instructions, description, " ".join(getattr(c, "text", "") for c in called.content)):
        assert "not serving a replay" in text and "--resume" in text and "--force" in text and "--out" in text
    assert called.is_error
    assert (run / ".ledger.jsonl.partial").read_text().count("\n") == 1  # the kept run untouched
