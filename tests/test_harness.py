"""`pastcast eval harness` driving a scripted CLI agent (a Python script that connects through the
generated MCP config, as Claude Code would) over a 14-day window of the demo snapshot: a day it
crashes and a day it hangs are recorded and the replay goes on; the run is scored; nothing the
agent saw held an answer before its question resolved (issue 19)."""

from __future__ import annotations

import json
import shlex
import sys
from datetime import date, timedelta
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from leakscan import leaks
from pastcast.cli import main as cli_main
from pastcast.evaluate import harness
from pastcast.evaluate.harness import run_harness
from pastcast.snapshot import read_manifest

AGENT = Path(__file__).parent / "agents" / "scripted_cli_agent.py"
WINDOW_DAYS = 14


@pytest.fixture()
def fortnight(demo_snapshot, tmp_path, monkeypatch):
    """The demo snapshot cut to a 14-day window (a copy whose manifest says so)."""
    from pastcast.io import write_json
    from pastcast.snapshot import MANIFEST, copy_version

    copy = copy_version(demo_snapshot, tmp_path / "snapshots" / "sample")  # parts linked, manifest its own
    manifest = read_manifest(copy)
    start = date.fromisoformat(manifest["window"]["start"])
    manifest["window"]["end"] = (start + timedelta(days=WINDOW_DAYS - 1)).isoformat()
    write_json(manifest, copy / MANIFEST)
    monkeypatch.setenv("PASTCAST_CACHE", str(tmp_path / "cache"))
    from pastcast.evaluate.environment import ReplayEnvironment

    ReplayEnvironment(copy).search("warm the index")  # built now, not inside an agent's timed day
    return copy, start


def _seen(log: Path) -> list[tuple[date, str]]:
    out = []
    for line in log.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        payload = entry["payload"]
        day = payload.get("date") if isinstance(payload, dict) else None
        out.append((date.fromisoformat(day or entry["date"]) if (day or entry["date"]) != "?" else date.min,
                    json.dumps(payload, ensure_ascii=False)))
    return out


def _workspace_files(run: Path) -> list[tuple[date, str]]:
    """The workspace as the agent last saw it, on the last day it was shown (the agent's log
    holds each day's copy of it, under that day)."""
    shown = date.fromisoformat(json.loads((run / "workspace" / "questions.json").read_text())["date"])
    return [(shown, p.read_text(encoding="utf-8")) for p in (run / "workspace").rglob("*") if p.is_file()]


@pytest.mark.slow  # over 10 s: `make test-slow` and CI
@pytest.mark.parametrize("mode", ["per-day", "session"])
def test_a_scripted_cli_agent_runs_a_fortnight_with_a_crash_and_a_hang(fortnight, tmp_path, monkeypatch, mode):
    snapshot, start = fortnight
    crash, hang, ends = start + timedelta(days=3), start + timedelta(days=6), start + timedelta(days=9)
    log = tmp_path / "seen.jsonl"
    monkeypatch.setenv("SCRIPTED_LOG", str(log))
    monkeypatch.setenv("SCRIPTED_CRASH_ON", crash.isoformat())
    monkeypatch.setenv("SCRIPTED_HANG_ON", hang.isoformat())
    if mode == "per-day":  # an agent that ends its own day with next_day, then lingers: stopped
        monkeypatch.setenv("SCRIPTED_NEXT_DAY_ON", ends.isoformat())
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENT))}" + (" --session" if mode == "session" else "")
    run = tmp_path / "run"
    # the timeout only has to catch the hang: a normal day takes a second or two (the index is
    # built beforehand), so 10 s is several times that even on a loaded machine; a lingering
    # agent is given 1 s after its next_day (5 s in use)
    monkeypatch.setattr(harness, "KILL_GRACE_S", 1.0)
    result = run_harness(snapshot, run, command, mode=mode, timeout_s=10.0, agent_name="scripted")

    assert result.failed == [crash.isoformat()] and result.timed_out == [hang.isoformat()]
    record = json.loads((run / "harness.json").read_text())
    days = {d["date"]: d for d in record["days"]}
    assert set(days) == {(start + timedelta(days=i)).isoformat() for i in range(WINDOW_DAYS)}  # every day, once
    assert days[crash.isoformat()]["exit_code"] == 3
    if mode == "per-day":
        assert days[ends.isoformat()]["status"] == "ok" and days[ends.isoformat()]["tool_calls"]["next_day"] == 1
    ok = [d for d in record["days"] if d["status"] == "ok"]
    assert len(ok) == WINDOW_DAYS - 2
    assert all(d["tool_calls"].get("list_questions") == 1 for d in ok if d["date"] != ends.isoformat())
    assert all(d["wall_s"] >= 0 for d in record["days"])
    assert record["forecasts"] == sum(d["forecasts"] for d in record["days"]) > 0
    # the command's output is kept, by the day it started on (a session's, from its first day)
    logs = {p.name: p.read_text() for p in (run / "logs").iterdir()}
    assert any("crashing" in text for text in logs.values())
    if mode == "per-day":
        assert "crashing" in logs[f"{crash.isoformat()}.log"] and len(logs) == WINDOW_DAYS

    # a scored run folder, as eval run writes it, scored as eval score scores its ledger
    assert {"ledger.jsonl", "scores.parquet", "run.json"} <= {p.name for p in run.iterdir()}
    assert json.loads((run / "run.json").read_text())["agent"] == "scripted"
    rescored = tmp_path / "rescored"
    scored = CliRunner().invoke(cli_main, ["eval", "score", "--snapshot", str(snapshot), "--forecasts",
                                           str(run / "ledger.jsonl"), "--out", str(rescored)])
    assert scored.exit_code == 0, scored.output
    assert pl.read_parquet(run / "scores.parquet").sort("question_id").equals(
        pl.read_parquet(rescored / "scores.parquet").sort("question_id"))

    # memory written on one day is read on the next
    notes = [json.loads(line) for line in log.read_text().splitlines()]
    reads = [n["payload"]["text"] for n in notes if n["what"] == "memory_read" and "text" in (n["payload"] or {})]
    assert any(text.count("\n") >= 2 for text in reads)
    # the workspace holds only what the agent may see
    names = {p.relative_to(run / "workspace").as_posix() for p in (run / "workspace").rglob("*") if p.is_file()}
    assert names == {"questions.json", "PROMPT.md", "memory/days"}
    assert not any(p.suffix == ".parquet" for p in (run / "workspace").rglob("*"))
    # nothing it saw (tool results, errors, workspace files) held an answer before its time
    assert leaks(snapshot, _seen(log) + _workspace_files(run)) == []


@pytest.mark.slow  # over 10 s: `make test-slow` and CI
def test_an_interrupted_run_keeps_its_forecasts_and_one_without_leaves_nothing(fortnight, tmp_path, monkeypatch):
    snapshot, start = fortnight
    monkeypatch.setenv("SCRIPTED_LOG", str(tmp_path / "seen.jsonl"))
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENT))}"

    def interrupt_after(n):
        def on_day(day):
            if len(seen) + 1 >= n:
                raise KeyboardInterrupt
            seen.append(day)
        seen = []
        return on_day

    run = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):  # day 1: the agent forecasts nothing (no candidates yet)
        run_harness(snapshot, run, "true", timeout_s=20.0, on_day=interrupt_after(1))
    assert not run.exists()  # no forecast: no run, no workspace, no logs; a retry needs no --force
    with pytest.raises(KeyboardInterrupt):
        run_harness(snapshot, run, command, timeout_s=20.0, on_day=interrupt_after(WINDOW_DAYS // 2))
    forecasts = (run / ".ledger.jsonl.partial").read_text().count("\n")
    assert forecasts > 0 and not (run / "run.json").exists()
    with pytest.raises(FileExistsError, match="unfinished"):  # kept, and refused without --force
        run_harness(snapshot, run, command, timeout_s=20.0)
    (run / "workspace" / "memory" / "stuck").mkdir()
    (run / "workspace" / "memory" / "stuck").chmod(0o500)  # what an agent could leave behind
    result = run_harness(snapshot, run, "true", timeout_s=20.0, force=True)
    assert len(result.days) == WINDOW_DAYS and not (run / "workspace" / "memory" / "stuck").exists()
    assert not (run / "workspace" / "memory" / "days").exists()  # the earlier run's notes are gone


def test_the_cli_refuses_a_bad_command_and_a_finished_run(fortnight, tmp_path):
    snapshot, _ = fortnight
    runner = CliRunner()
    bad = runner.invoke(cli_main, ["eval", "harness", "--snapshot", str(snapshot), "--out", str(tmp_path / "r"),
                                   "--command", "   "])
    assert bad.exit_code == 1 and "empty" in bad.output and not (tmp_path / "r" / "run.json").exists()
    done = runner.invoke(cli_main, ["eval", "harness", "--snapshot", str(snapshot), "--out", str(tmp_path / "r"),
                                    "--command", "true", "--timeout-s", "5"])
    assert done.exit_code == 0, done.output
    assert f"{WINDOW_DAYS} agent days" in done.output
    again = runner.invoke(cli_main, ["eval", "harness", "--snapshot", str(snapshot), "--out", str(tmp_path / "r"),
                                     "--command", "true"])
    assert again.exit_code == 1 and "--force" in again.output
