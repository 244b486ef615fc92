"""`pastcast eval mcp` driven by a client of the official MCP SDK, over stdio and over streamable
HTTP (issue 19): the tools, the date gate on search, forecasts refused with their reason, the
clock, answers only after resolution, and a run scored exactly as `eval score` scores the same
forecasts."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from datetime import date, datetime

import polars as pl
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from leakscan import leaks
from pastcast.cli import main as cli_main
from pastcast.store import read_table

TOOLS = {"state", "list_questions", "search_news", "search_posts", "market_consensus", "submit_forecast",
         "resolved_questions", "next_day", "memory_write", "memory_read"}


def _env(tmp_path) -> dict[str, str]:
    return {**os.environ, "PASTCAST_CACHE": str(tmp_path / "cache")}


def _mcp_args(snapshot, out, *extra) -> list[str]:
    return ["-m", "pastcast.cli", "eval", "mcp", "--snapshot", str(snapshot), "--out", str(out), *extra]


class Agent:
    """Records everything the server sends it, by simulated day."""

    def __init__(self, client: Client):
        self.client, self.day, self.seen = client, None, []

    async def call(self, tool: str, **args):
        result = await self.client.call_tool(tool, args)
        text = " ".join(getattr(c, "text", "") for c in result.content)
        content = result.structured_content
        # a result is of the day it states (next_day's is of the day it moved to)
        day = date.fromisoformat(content["date"]) if isinstance(content, dict) and "date" in content else self.day
        self.seen.append((day or date.min, json.dumps(content, ensure_ascii=False) + text))
        return result

    async def ok(self, tool: str, **args) -> dict:
        result = await self.call(tool, **args)
        assert not result.is_error, (tool, result.content)
        assert isinstance(result.structured_content, dict)
        return result.structured_content

    async def error(self, tool: str, **args) -> str:
        result = await self.call(tool, **args)
        assert result.is_error, (tool, result.structured_content)
        return " ".join(getattr(c, "text", "") for c in result.content)


async def replay(client: Client, step: int = 1) -> Agent:
    """A whole replay as an agent would do it, checking each answer on the way (waking every
    ``step`` days)."""
    agent = Agent(client)
    names = {t.name for t in (await client.list_tools()).tools}
    assert TOOLS <= names
    state = await agent.ok("state")
    agent.day = date.fromisoformat(state["date"])
    assert state["done"] is False and state["start"] == state["date"]

    # a to_date a year in the future is capped at today, said so, and only visible articles come back
    future = date(agent.day.year + 1, agent.day.month, 1).isoformat()
    found = await agent.ok("search_news", query="election president union vote", k=50, to_date=future)
    assert "after today" in found["note"]
    assert all(datetime.fromisoformat(h["published_at"]).date() <= agent.day for h in found["hits"])
    # bad arguments are error results, and the server goes on
    assert "YYYY-MM-DD" in await agent.error("search_news", query="x", from_date="last week")
    assert "name" in await agent.error("memory_write", name="../escape", text="x")
    assert (await agent.ok("memory_write", name="plan", text="day one"))["bytes"] == 7

    refused_placeholder = refused_sum = False
    previous_day, resolved_seen = None, 0
    while True:
        questions = (await agent.ok("list_questions"))["questions"]
        assert all("answer" not in q for q in questions)
        for q in questions:
            if not refused_placeholder:
                assert "placeholder" in await agent.error("submit_forecast", question_id=q["question_id"],
                                                          outcomes={"Other": 0.5})
                assert "sum to" in await agent.error("submit_forecast", question_id=q["question_id"],
                                                     outcomes={"Alpha Beta": 0.7, "Gamma Delta": 0.6})
                refused_placeholder = refused_sum = True
            outcomes = q["candidate_outcomes"] or [h["title"] for h in (await agent.ok(
                "search_news", query=q["title"], k=2))["hits"]]
            if outcomes:
                accepted = await agent.ok("submit_forecast", question_id=q["question_id"],
                                          outcomes={o: round(0.8 / len(outcomes), 6) for o in outcomes})
                assert accepted["date"] == agent.day.isoformat()
        resolved = (await agent.ok("resolved_questions"))["questions"]
        assert all(date.fromisoformat(r["resolution_date"]) <= agent.day and "bss" in r for r in resolved)
        resolved_seen = max(resolved_seen, len(resolved))
        if previous_day is None:
            assert (await agent.ok("memory_read", name="plan"))["text"] == "day one"
        moved = await agent.ok("next_day", days=step)
        assert all(date.fromisoformat(r["resolution_date"]) <= date.fromisoformat(moved["date"]) for r in moved["resolved"])
        assert isinstance(moved["new_articles"], int) and moved["new_articles"] >= 0
        previous_day, agent.day = agent.day, date.fromisoformat(moved["date"])
        assert agent.day > previous_day
        if moved["done"]:
            assert moved["summary"]["questions"] > 0
            break
    assert refused_placeholder and refused_sum and resolved_seen > 0
    assert "over" in await agent.error("submit_forecast", question_id="q", outcomes={"Alpha": 0.5})
    assert (await agent.ok("memory_read", name="plan"))["text"] == "day one"  # kept for the whole run
    return agent


def _assert_scored_like_eval_score(snapshot, run, tmp_path):
    """The run's scores equal `eval score` on its ledger."""
    rescored = tmp_path / "rescored"
    result = CliRunner().invoke(cli_main, ["eval", "score", "--snapshot", str(snapshot), "--forecasts",
                                           str(run / "ledger.jsonl"), "--out", str(rescored)])
    assert result.exit_code == 0, result.output
    mine = pl.read_parquet(run / "scores.parquet").sort("question_id")
    theirs = pl.read_parquet(rescored / "scores.parquet").sort("question_id")
    assert mine.height > 0 and mine["forecast_made"].sum() > 0
    assert mine.equals(theirs)


@pytest.mark.slow  # over 10 s: `make test-slow` and CI
def test_a_stdio_client_replays_the_demo_snapshot_and_is_scored_like_eval_score(demo_snapshot, tmp_path):
    run = tmp_path / "run"
    params = StdioServerParameters(command=sys.executable, args=_mcp_args(demo_snapshot, run),
                                   env=_env(tmp_path), cwd=str(tmp_path))

    async def go():
        async with Client(params) as client:
            return await replay(client)

    agent = asyncio.run(go())
    assert {"ledger.jsonl", "scores.parquet", "run.json"} <= {p.name for p in run.iterdir()}
    record = json.loads((run / "run.json").read_text())
    assert record["tool_calls"]["submit_forecast"] >= 2 and record["transport"] == "mcp-stdio"
    _assert_scored_like_eval_score(demo_snapshot, run, tmp_path)
    assert leaks(demo_snapshot, agent.seen) == []


def test_an_http_client_replays_through_streamable_http(demo_snapshot, tmp_path):
    run = tmp_path / "run"
    server = subprocess.Popen([sys.executable, *_mcp_args(demo_snapshot, run, "--transport", "http", "--port", "0")],
                              env=_env(tmp_path), stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        url = _announced_url(server)

        async def go():
            async with Client(url) as client:
                return await replay(client, step=5)

        agent = asyncio.run(go())
        assert server.wait(timeout=60) == 0  # the replay is over: the server stops by itself
    finally:
        if server.poll() is None:
            server.kill()
    _assert_scored_like_eval_score(demo_snapshot, run, tmp_path)
    assert leaks(demo_snapshot, agent.seen) == []


def _announced_url(server: subprocess.Popen, timeout_s: float = 120.0) -> str:
    """The URL the server prints on stderr; its stderr is drained from then on (a full pipe
    would block it)."""
    import threading

    found: list[str] = []
    ready = threading.Event()

    def read():
        for line in server.stderr:
            match = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
            if match and not found:
                found.append(match.group(1))
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    ready.wait(timeout_s)
    assert found, "the server stopped (or took too long) before it said where it listens"
    return found[0]


def test_a_busy_port_is_a_one_line_error_and_leaves_nothing(demo_snapshot, tmp_path):
    import socket

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    try:
        result = subprocess.run([sys.executable, *_mcp_args(demo_snapshot, tmp_path / "run", "--transport", "http",
                                                            "--port", str(port))],
                                env=_env(tmp_path), capture_output=True, text=True, timeout=120)
    finally:
        taken.close()
    assert result.returncode == 1 and f"127.0.0.1:{port}" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "run").exists()


def test_a_client_that_leaves_early_leaves_no_run_without_forecasts(demo_snapshot, tmp_path):
    run = tmp_path / "run"
    params = StdioServerParameters(command=sys.executable, args=_mcp_args(demo_snapshot, run),
                                   env=_env(tmp_path), cwd=str(tmp_path))

    async def go(forecast: bool):
        async with Client(params) as client:
            agent = Agent(client)
            questions = (await agent.ok("list_questions"))["questions"]
            if forecast:
                await agent.ok("submit_forecast", question_id=questions[0]["question_id"],
                               outcomes={"Mara Quell": 0.5})

    asyncio.run(go(forecast=False))
    assert not run.exists()  # nothing to keep: served again without --force
    asyncio.run(go(forecast=True))
    assert (run / ".ledger.jsonl.partial").read_text().count("\n") == 1  # the forecast is kept
    refused = subprocess.run([sys.executable, *_mcp_args(demo_snapshot, run)], env=_env(tmp_path), cwd=tmp_path,
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1 and "unfinished" in refused.stderr  # refused without --force


def test_the_leak_scan_finds_an_answer_shown_before_its_time(demo_snapshot):
    """The scan the replay tests rely on does see a leak: an answer shown on its question's
    first day is reported, the same text on the resolution day is not."""
    questions = read_table(demo_snapshot, "questions")
    candidates = [r for r in questions.iter_rows(named=True) if not r["candidate_outcomes"]
                  and len(r["answer"] or "") >= 4 and not _visible_anyway(demo_snapshot, r, r["open_date"])]
    assert candidates  # the sample has questions whose answer no article states on their first day
    q = candidates[0]
    shown = json.dumps({"title": q["title"], "answer": q["answer"]})
    assert any(q["question_id"] in line for line in leaks(demo_snapshot, [(q["open_date"], shown)]))
    assert leaks(demo_snapshot, [(q["resolution_date"], shown)]) == []


def _visible_anyway(snapshot, q, day) -> bool:
    """The answer is in an article published by ``day`` (then the scan rightly calls it public)."""
    from leakscan import _visible_text
    from pastcast.matching import normalise

    articles = read_table(snapshot, "articles", columns=["title", "text", "published_at"])
    return normalise(q["answer"]) in _visible_text(articles, day)


def test_session_arguments_that_could_slip_past_the_gate(demo_snapshot, tmp_path, monkeypatch):
    """The oldest from_date, garbage dates, a note that is a link: refused or harmless."""
    from pastcast.evaluate.session import ReplaySession

    monkeypatch.setenv("PASTCAST_CACHE", str(tmp_path / "cache"))
    session = ReplaySession(demo_snapshot, tmp_path / "run", "probe")
    try:
        today = session.state()["date"]
        oldest = session.search_news("union president", k=20, from_date="0001-01-01")
        assert oldest["hits"] == session.search_news("union president", k=20)["hits"]
        assert all(h["published_at"][:10] <= today for h in oldest["hits"])
        for bad in ("2026-01-05; drop", "2026-1-5", "tomorrow", 20260105):
            with pytest.raises(ValueError, match="YYYY-MM-DD"):
                session.search_news("union", to_date=bad)
        (tmp_path / "secret.txt").write_text("not a note")
        session.memory_dir.mkdir(parents=True)
        (session.memory_dir / "link").symlink_to(tmp_path / "secret.txt")
        with pytest.raises(ValueError, match="link"):
            session.memory_read("link")
        assert session.memory_read()["notes"] == []
    finally:
        session.close()
    with pytest.raises(ValueError, match="closed"):
        session.submit_forecast("q", {"Alpha": 0.5})
