"""Triggers the agent sets (issue 39, item 1): sleep, wake_on (a keyword watcher with its dry
run), wake_every, wake_on_weekdays, wake_at, triggers and clear_triggers, the same in the Python
API, HTTP and MCP; ``--policy agent`` moves next_day to the next day one fires (daily while none
is set), the deadline guard included; run.json's ``wake_log`` gives every wake's reasons."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import urllib.request
from datetime import date, timedelta, timezone
from pathlib import Path

import polars as pl
import pytest
from mcp import Client, StdioServerParameters

import pastcast
from evalkit import article, question, ts, write_snapshot
from pastcast.evaluate.policies import AgentTriggers, EveryDay, parse_policy
from pastcast.evaluate.runner import run_eval
from pastcast.evaluate.session import ReplaySession

CODE = str(Path(pastcast.__file__).resolve().parents[1])  # the server runs the pastcast under test
START, END = "2024-01-01", "2024-01-20"  # 2024-01-01 is a Monday


@pytest.fixture(scope="module")
def snap(tmp_path_factory):
    articles = [article("h3", "Harbour vote", "The harbour board votes on the new quay.", ts("2024-01-03")),
                article("x5", "Weather", "Rain across the north.", ts("2024-01-05")),
                article("h9", "Harbour board", "The harbour board chose Ana Ruiz as chair.", ts("2024-01-09")),
                article("h12a", "Harbour fees", "Harbour fees rise.", ts("2024-01-12", 8)),
                article("h12b", "Harbour works", "Works at the harbour begin.", ts("2024-01-12", 20))]
    questions = [question("q-early", "Who will chair the harbour board?", "Ana Ruiz", "2024-01-02", "2024-01-08"),
                 question("q-late", "Who will run the port authority?", "Bo Lind", "2024-01-02", "2024-01-18")]
    return write_snapshot(tmp_path_factory.mktemp("t") / "s", articles, questions, START, END)


@pytest.fixture
def session(snap, tmp_path):
    run = ReplaySession(snap, tmp_path / "run", "t", policy=AgentTriggers())
    yield run
    run.close()


def _next(session: ReplaySession, days: int = 1) -> tuple[str, list[str]]:
    moved = session.advance(days)
    return moved["date"], moved.get("woken_because", [])


def test_an_agent_without_triggers_wakes_daily(session):
    assert session.state()["policy"] == "agent" and session.triggers()["active"] is True
    assert _next(session) == ("2024-01-02", ["daily: no trigger set"])
    assert _next(session, 3) == ("2024-01-05", ["daily: no trigger set"])


def test_wake_on_answers_a_dry_run_and_wakes_on_the_days_matching_articles_are_published(session):
    set_ = session.wake_on(["harbour"])
    assert set_["matches_today"] == 0 and set_["would_wake_today"] is False
    assert set_["trigger"]["kind"] == "wake_on" and set_["trigger"]["keywords"] == ["harbour"]
    day, why = _next(session)
    assert day == "2024-01-03" and why[0].startswith("wake_on (t1): 1 article(s)")
    again = session.wake_on("Harbour quay", min_hits=1)  # today's article matches: the dry run says so
    assert again["matches_today"] == 1 and again["would_wake_today"] is True
    session.clear_triggers()
    session.wake_on(["harbour"], min_hits=2)
    assert _next(session)[0] == "2024-01-12"  # 01-09 has one matching article, 01-12 two
    assert session.triggers()["triggers"][0]["min_hits"] == 2  # a watcher stays until cleared


def test_a_watcher_sees_no_later_day(session):
    assert session.env.published_matching("harbour", date(2024, 1, 1), 10) == []
    with pytest.raises(ValueError, match="after today"):
        session.env.published_matching("harbour", date(2024, 1, 3), 10)


def test_sleep_wake_every_weekdays_and_wake_at(session):
    session.sleep(days=4)
    assert _next(session) == ("2024-01-05", ["sleep (t1): asked on 2024-01-01 to wake on 2024-01-05"])
    assert session.triggers()["triggers"] == []  # a sleep fires once: then daily again
    session.sleep(days=9)
    session.sleep(days=2)  # replaces the earlier sleep
    assert [t["until"] for t in session.triggers()["triggers"]] == ["2024-01-07"]
    assert _next(session)[0] == "2024-01-07"

    session.wake_every(days=3)
    assert [_next(session)[0] for _ in range(2)] == ["2024-01-10", "2024-01-13"]
    session.clear_triggers()
    session.wake_on_weekdays(["thu", "Monday"])
    assert [_next(session)[0] for _ in range(2)] == ["2024-01-15", "2024-01-18"]  # Monday, Thursday
    session.clear_triggers()
    session.wake_at(["2024-01-20", "2024-01-19"])
    assert _next(session) == ("2024-01-19", ["wake_at (t6): 2024-01-19"])
    assert session.triggers()["triggers"][0]["dates"] == ["2024-01-20"]


def test_one_time_triggers_skipped_over_fire_on_the_first_day_checked(session):
    session.wake_at(["2024-01-03"])
    session.wake_every(days=2)
    day, why = _next(session, 5)  # next_day(days=5) jumps over both due days
    assert day == "2024-01-06" and [w.split(" (")[0] for w in why] == ["wake_at", "wake_every"]
    assert [t["kind"] for t in session.triggers()["triggers"]] == ["wake_every"]
    assert session.triggers()["triggers"][0]["next"] == "2024-01-07"  # every 2 days from 01-01


def test_bad_arguments_are_refused_with_their_reason(session):
    for call, message in [(lambda: session.sleep(-1), "days must be an integer from 1"),
                          (lambda: session.sleep("3"), "days must be an integer"),
                          (lambda: session.wake_every(0), "days must be an integer from 1"),
                          (lambda: session.wake_on([]), "keywords must be a non-empty list"),
                          (lambda: session.wake_on(["..."]), "no searchable term"),
                          (lambda: session.wake_on(["harbour"], min_hits=0), "min_hits must be an integer"),
                          (lambda: session.wake_on_weekdays(["funday"]), "unknown weekday 'funday'"),
                          (lambda: session.wake_on_weekdays([]), "non-empty list of weekday names"),
                          (lambda: session.wake_at(["2024-02-01"]), "outside the replay window"),
                          (lambda: session.wake_at(["2024-01-01"]), "not after today"),
                          (lambda: session.wake_at(["next week"]), "YYYY-MM-DD")]:
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            call()
    assert session.triggers()["triggers"] == []


def test_triggers_are_refused_under_another_policy(snap, tmp_path):
    daily = ReplaySession(snap, tmp_path / "run", "t", policy=EveryDay())
    try:
        with pytest.raises(ValueError, match="only with --policy agent.*'daily'"):
            daily.sleep(3)
        assert daily.triggers() == {"date": START, "policy": "daily", "active": False, "triggers": []}
    finally:
        daily.close()


def test_a_watcher_that_errors_wakes_the_agent(session, monkeypatch):
    session.wake_on(["harbour"])

    def broken(*args):
        raise OSError("index gone")

    monkeypatch.setattr(session.env, "published_matching", broken)
    day, why = _next(session)
    assert day == "2024-01-02" and why == ["wake_on error (t1): OSError: index gone"]


def test_the_deadline_guard_wakes_an_agent_that_sleeps_too_long(snap, tmp_path):
    guarded = ReplaySession(snap, tmp_path / "run", "t", policy=parse_policy("agent", deadline_days=1))
    try:
        assert guarded.policy.name == "agent+deadline1" and guarded.triggers()["active"] is True
        guarded.advance(1)  # the questions open on 01-02
        guarded.sleep(days=15)
        day, why = _next(guarded)
        assert day == "2024-01-07" and why == ["deadline: q-early closes after 2024-01-07"]
        assert guarded.triggers()["triggers"][0]["kind"] == "sleep"  # still set: it has not fired
        guarded.submit_forecast("q-early", {"Ana Ruiz": 0.6})
        guarded.submit_forecast("q-late", {"Bo Lind": 0.6})
        assert _next(guarded)[0] == "2024-01-17"  # the sleep, asked on 01-02
        summary = guarded.advance(5)
        assert summary["done"] is True
    finally:
        guarded.close()
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["policy"] == "agent+deadline1" and record["wakes"] == 4
    assert record["wake_log"] == [
        {"date": "2024-01-01", "reasons": ["first day"]},
        {"date": "2024-01-02", "reasons": ["daily: no trigger set"]},
        {"date": "2024-01-07", "reasons": ["deadline: q-early closes after 2024-01-07"]},
        {"date": "2024-01-17", "reasons": ["sleep (t1): asked on 2024-01-02 to wake on 2024-01-17"]}]


def test_a_resumed_session_keeps_its_triggers(snap, tmp_path):
    first = ReplaySession(snap, tmp_path / "run", "t", policy=AgentTriggers())
    first.advance(1)
    first.submit_forecast("q-late", {"Bo Lind": 0.5})
    first.wake_on(["harbour"])
    first.wake_at(["2024-01-15"])
    assert first.close() is True  # a forecast: the unfinished run is kept
    again = ReplaySession(snap, tmp_path / "run", "t", policy=AgentTriggers(), resume=True)
    try:
        assert [t["id"] for t in again.triggers()["triggers"]] == ["t1", "t2"]
        assert again.wake_every(5)["trigger"]["id"] == "t3"
        assert _next(again)[0] == "2024-01-03"
        assert [w["date"] for w in again.wake_log] == ["2024-01-01", "2024-01-02", "2024-01-03"]
    finally:
        again.close()


class Watching:
    """An in-process agent that forecasts, then watches for its question's key word."""

    name = "watching"

    def __init__(self):
        self.woke: list[date] = []

    def act(self, env):
        self.woke.append(env.today)
        for q in env.open_questions():
            env.submit(q.question_id, {"Ana Ruiz": 0.6})
        if not env.triggers:
            env.triggers.wake_on(env, ["harbour"])


def test_eval_run_with_the_agent_policy_and_the_python_api(snap, tmp_path):
    agent = Watching()
    result = run_eval(snap, agent, tmp_path / "run", policy=parse_policy("agent"))
    assert [d.isoformat() for d in agent.woke] == ["2024-01-01", "2024-01-03", "2024-01-09", "2024-01-12"]
    assert result.run["policy"] == "agent" and result.run["wakes"] == 4
    assert [w["date"] for w in result.run["wake_log"]] == ["2024-01-01", "2024-01-03", "2024-01-09", "2024-01-12"]
    assert result.run["wake_log"][3]["reasons"] == ["wake_on (t1): 2 article(s) published today match ['harbour']"]


def test_the_triggers_over_http(snap, tmp_path):
    import threading

    from pastcast.evaluate.serve import make_server

    server, run = make_server(snap, tmp_path / "run", policy=AgentTriggers())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"

    def call(path: str, body: dict | None = None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(base + path, data=data, method="GET" if body is None else "POST",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    try:
        status, set_ = call("/wake_on", {"keywords": ["harbour"], "min_hits": 2})
        assert status == 200 and set_["would_wake_today"] is False and set_["matches_today"] == 0
        assert call("/sleep", {"days": -2}) == (400, {"error": "days must be an integer from 1 to 10000, got -2"})
        assert call("/wake_on_weekdays", {"weekdays": ["someday"]})[0] == 400
        assert call("/triggers")[1]["triggers"][0]["min_hits"] == 2
        status, moved = call("/advance", {})
        assert status == 200 and moved["date"] == "2024-01-12"
        assert call("/clear_triggers", {})[1]["cleared"] == 1
        assert call("/advance", {})[1]["date"] == "2024-01-13"
    finally:
        server.shutdown()
        server.server_close()
        run.close()


# -- the first goal: the official MCP client against `eval mcp --policy agent` ----------

def _first_later_day(snapshot) -> tuple[str, date, date]:
    """A word (a search term: its stem) of the searchable articles first published on a known day
    at least two days after the window's start (read from the articles table, not the index),
    the start, and that day."""
    from pastcast.evaluate.environment import ReplayEnvironment
    from pastcast.search.index import ANALYZER
    from pastcast.search.visibility import not_archive
    from pastcast.store import read_table

    start = ReplayEnvironment(snapshot).start
    articles = read_table(snapshot, "articles")
    articles = articles.filter(pl.col("published_at").is_not_null() & not_archive(articles.columns))
    days: dict[str, set[date]] = {}
    for published, title, text in articles.select("published_at", "title", "text").iter_rows():
        for term in set(ANALYZER.analyze(f"{title or ''} {text or ''}")):
            if term.isascii() and term.isalpha() and len(term) >= 6:
                days.setdefault(term, set()).add(published.astimezone(timezone.utc).date())
    # distinctive: on one or two days, the first of them two days or more into the window
    word, day = min(((w, min(d)) for w, d in days.items() if len(d) <= 2 and min(d) >= start + timedelta(days=2)),
                    key=lambda wd: (wd[1], wd[0]))
    return word, start, day


@pytest.mark.slow  # over 10 s with the demo snapshot's build: `make test-slow` and CI
def test_an_mcp_agent_sets_its_triggers_over_stdio(demo_snapshot, tmp_path):
    word, start, day = _first_later_day(demo_snapshot)
    run = tmp_path / "run"
    params = StdioServerParameters(
        command=sys.executable, cwd=str(tmp_path),
        env={**os.environ, "PASTCAST_CACHE": str(tmp_path / "cache"), "PYTHONPATH": CODE},  # this code, served
        args=["-m", "pastcast.cli", "eval", "mcp", "--snapshot", str(demo_snapshot), "--out", str(run),
              "--policy", "agent"])

    async def go() -> None:
        async with Client(params) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"sleep", "wake_on", "wake_every", "wake_on_weekdays", "wake_at", "triggers",
                    "clear_triggers"} <= names

            async def ok(tool: str, **args) -> dict:
                result = await client.call_tool(tool, args)
                assert not result.is_error, (tool, result.content)
                return result.structured_content

            state = await ok("state")
            assert state["date"] == start.isoformat() and state["policy"] == "agent"
            refused = await client.call_tool("sleep", {"days": -1})
            assert refused.is_error and "days must be an integer" in refused.content[0].text
            watch = await ok("wake_on", keywords=[word])
            assert watch["date"] == start.isoformat() and watch["would_wake_today"] is False
            assert watch["matches_today"] == 0
            moved = await ok("next_day")
            assert moved["date"] == day.isoformat() and moved["woken_because"][0].startswith("wake_on (t1)")
            # the date gate: the article is visible today, and no matching one was before today
            hits = (await ok("search_news", query=word, k=100))["hits"]
            assert hits and all(h["published_at"][:10] <= day.isoformat() for h in hits)
            assert any(h["published_at"][:10] == day.isoformat() for h in hits)
            assert (await ok("clear_triggers"))["cleared"] == 1
            await ok("sleep", days=10)
            slept = await ok("next_day")
            assert slept["date"] == (day + timedelta(days=10)).isoformat() and not slept["done"]
            finished = await ok("next_day", days=10_000)  # past the window's end: scored
            assert finished["done"] is True

    asyncio.run(go())
    record = json.loads((run / "run.json").read_text())
    assert record["policy"] == "agent" and record["wakes"] == len(record["wake_log"]) == 3
    assert record["wake_log"][0] == {"date": start.isoformat(), "reasons": ["first day"]}
    assert record["wake_log"][1]["date"] == day.isoformat()
    assert record["wake_log"][1]["reasons"][0].startswith("wake_on (t1): ")
    assert record["wake_log"][2] == {"date": (day + timedelta(days=10)).isoformat(),
                                     "reasons": [f"sleep (t2): asked on {day} to wake on {day + timedelta(days=10)}"]}


def test_the_cli_takes_the_agent_policy(snap, tmp_path):
    from click.testing import CliRunner

    from pastcast.cli import main as cli_main

    done = CliRunner().invoke(cli_main, ["eval", "run", "--snapshot", str(snap), "--agent", "abstain", "--out",
                                         str(tmp_path / "run"), "--policy", "agent", "--deadline-guard", "1"])
    assert done.exit_code == 0, done.output
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert record["policy"] == "agent+deadline1" and record["wakes"] == 20 == len(record["wake_log"])  # none set
    bad = CliRunner().invoke(cli_main, ["eval", "serve", "--snapshot", str(snap), "--out", str(tmp_path / "srv"),
                                        "--policy", "hourly"])
    assert bad.exit_code != 0 and "unknown policy" in bad.output and not (tmp_path / "srv").exists()
