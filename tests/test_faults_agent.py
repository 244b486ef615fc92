"""Faults an agent can cause from inside its replay (issue 36, items 2, 6 and the scored-run
case of 8): notes that lead out of their folder through a link, a note written after the run
is scored, an agent that replaces the harness's workspace files with folders or links, one
whose processes outlive it (setsid, a double fork, SIGTERM ignored), and one that floods its
log. Real subprocess agents (small Python scripts), a real MCP server on loopback, real files."""

from __future__ import annotations

import json
import os
import shlex
import sys
import textwrap
from datetime import timedelta
from pathlib import Path

import pytest

from pastcast.evaluate import harness
from pastcast.evaluate.harness import run_harness
from pastcast.evaluate.session import ReplaySession
from evalkit import cut_to_days

WINDOW_DAYS = 3


@pytest.fixture()
def short_window(demo_snapshot, tmp_path, monkeypatch):
    """The demo snapshot cut to a few days (a copy whose manifest says so), its index built."""
    monkeypatch.setenv("PASTCAST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(harness, "KILL_GRACE_S", 1.0)
    return cut_to_days(demo_snapshot, tmp_path, WINDOW_DAYS)


@pytest.fixture()
def session(short_window, tmp_path):
    snapshot, _ = short_window
    s = ReplaySession(snapshot, tmp_path / "run", "probe")
    yield s
    s.close()


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# -- notes ------------------------------------------------------------------------------------

def test_a_notes_folder_that_is_a_link_is_refused(session, short_window, tmp_path):
    """memory/ replaced by a link to a folder holding a copy of a manifest: nothing written
    there, nothing read from there, and the agent is told why."""
    snapshot, _ = short_window
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "manifest.json").write_bytes((snapshot / "manifest.json").read_bytes())
    before = _tree(elsewhere)
    session.memory_dir.parent.mkdir(parents=True, exist_ok=True)
    session.memory_dir.symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(ValueError, match="link"):
        session.memory_write("manifest.json", "{}")
    with pytest.raises(ValueError, match="link"):
        session.memory_write("fresh", "x")
    with pytest.raises(ValueError, match="link"):
        session.memory_read("manifest.json")
    with pytest.raises(ValueError, match="link"):
        session.memory_read()
    assert _tree(elsewhere) == before


def test_a_folder_above_the_notes_that_is_a_link_is_refused(short_window, tmp_path):
    """The harness keeps notes in workspace/memory: a workspace replaced by a link leads out too."""
    snapshot, _ = short_window
    run = tmp_path / "run"
    s = ReplaySession(snapshot, run, "probe", memory_dir=run / "workspace" / "memory")
    try:
        elsewhere = tmp_path / "elsewhere"
        (elsewhere / "memory").mkdir(parents=True)
        (elsewhere / "memory" / "secret").write_text("outside")
        (run / "workspace").symlink_to(elsewhere, target_is_directory=True)
        with pytest.raises(ValueError, match="link"):
            s.memory_write("secret", "overwritten", append=True)
        with pytest.raises(ValueError, match="link"):
            s.memory_read("secret")
        assert _tree(elsewhere) == {"memory/secret": b"outside"}
    finally:
        s.close()


def test_a_note_that_is_a_link_is_never_followed(session, tmp_path):
    """A note replaced by a link to a file outside: refused by append, by write and by read;
    the file outside keeps its bytes and no read ever returns them."""
    secret = tmp_path / "secret.txt"
    secret.write_text("not a note")
    assert session.memory_write("plan", "day one\n")["bytes"] == 8
    (session.memory_dir / "plan").unlink()
    (session.memory_dir / "plan").symlink_to(secret)
    for write in (lambda: session.memory_write("plan", "more\n", append=True),
                  lambda: session.memory_write("plan", "replaced\n")):
        with pytest.raises(ValueError, match="link"):
            write()
    with pytest.raises(ValueError, match="link"):
        session.memory_read("plan")
    assert secret.read_text() == "not a note"
    assert session.memory_read()["notes"] == []  # a link is not listed as a note
    # a fifo, a folder: not notes either, and never a hang
    os.mkfifo(session.memory_dir / "pipe")
    (session.memory_dir / "dir").mkdir()
    for name in ("pipe", "dir"):
        with pytest.raises(ValueError, match="not a note"):
            session.memory_read(name)
        with pytest.raises(ValueError, match="not a note"):
            session.memory_write(name, "x", append=True)


@pytest.mark.parametrize("name", ["../escape", "a/b", "..", ".", "", "a\0b", "/etc/passwd", ".hidden", "x" * 65])
def test_a_note_name_is_one_plain_component(session, name):
    with pytest.raises(ValueError, match="name"):
        session.memory_write(name, "x")
    assert not session.memory_dir.exists() or list(session.memory_dir.iterdir()) == []


def test_notes_still_work_and_stay_within_their_budget(session):
    session.memory_write("plan", "a\n")
    session.memory_write("plan", "b\n", append=True)
    assert session.memory_read("plan")["text"] == "a\nb\n"
    assert session.memory_read()["notes"] == [{"name": "plan", "bytes": 4}]
    with pytest.raises(ValueError, match="at most"):
        session.memory_write("big", "x" * (300 << 10))
    assert sorted(p.name for p in session.memory_dir.iterdir()) == ["plan"]  # no temp file left


def test_no_note_is_written_once_the_run_is_scored(session):
    session.memory_write("plan", "before\n")
    session.finish()
    assert session.result is not None
    with pytest.raises(ValueError, match="over"):
        session.memory_write("plan", "after the answers came out\n", append=True)
    with pytest.raises(ValueError, match="over"):
        session.memory_write("late", "x")
    assert session.memory_read("plan")["text"] == "before\n"
    assert not (session.memory_dir / "late").exists()


# -- the harness -------------------------------------------------------------------------------

def _agent(tmp_path: Path, body: str) -> str:
    script = tmp_path / "agent.py"
    script.write_text("import os, sys, json, signal, subprocess, time\n" + textwrap.dedent(body))
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def _alive(pid: int) -> bool:
    """The process is there and not a zombie (a pid reused by something else is not ours: the
    agent's processes carry a marker in their command line)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z" and b"pastcast-agent-marker" in cmdline


def _scored(run: Path, result) -> None:
    assert len(result.days) == WINDOW_DAYS
    record = json.loads((run / "harness.json").read_text())
    assert record["agent_days"] == WINDOW_DAYS
    assert {"ledger.jsonl", "scores.parquet", "run.json"} <= {p.name for p in run.iterdir()}


def test_an_agent_that_replaces_the_workspace_files_with_folders_and_links(short_window, tmp_path):
    """questions.json and PROMPT.md replaced by folders (one unreadable) and by links to files
    outside: the harness goes on, rewrites both from its own state each day, and never writes
    through a link."""
    snapshot, start = short_window
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    outside_logs, outside_folder = tmp_path / "outside-logs", tmp_path / "outside-folder"
    outside_logs.mkdir()
    outside_folder.mkdir()
    command = _agent(tmp_path, f"""
        day = os.environ["PASTCAST_DATE"]
        seen = json.load(open("questions.json"))["date"]
        open({str(tmp_path / 'days.txt')!r}, "a").write(f"{{day}} {{seen}}\\n")
        for name in ("questions.json", "PROMPT.md"):
            os.chmod(".", 0o700)
            os.remove(name) if not os.path.isdir(name) or os.path.islink(name) else None
        if day == {start.isoformat()!r}:  # folders, one holding a file, one unreadable
            os.makedirs("questions.json/deep/er")
            open("questions.json/deep/x", "w").write("x")
            os.mkdir("PROMPT.md")
            os.chmod("PROMPT.md", 0)
            os.chmod(".", 0o500)  # and the workspace read-only
        elif day == {(start + timedelta(days=1)).isoformat()!r}:  # the workspace itself a link
            subprocess.run(["rm", "-rf", "../workspace"])
            os.symlink({str(outside_folder)!r}, "../workspace")
        else:  # links to a file outside
            os.symlink({str(outside)!r}, "questions.json")
            os.symlink({str(outside)!r}, "PROMPT.md")
        # beside the workspace, as the same user: a config made a folder, the logs a link
        subprocess.run(["rm", "-rf", "../config/opencode.json"])
        os.mkdir("../config/opencode.json")
        if day == {start.isoformat()!r}:
            subprocess.run(["rm", "-rf", "../logs"])
            os.symlink({str(outside_logs)!r}, "../logs")
    """)
    run = tmp_path / "run"
    result = run_harness(snapshot, run, command, timeout_s=30.0)
    _scored(run, result)
    assert all(d.status == "no_tools" for d in result.days), result.days  # ran, ended, called no tool
    # each day the agent found that day's questions.json, a file, whatever it did the day before
    days = [line.split() for line in (tmp_path / "days.txt").read_text().splitlines()]
    assert len(days) == WINDOW_DAYS and all(day == seen for day, seen in days)
    assert outside.read_text() == "keep me"
    assert (run / "workspace" / "questions.json").is_symlink()  # the last day's links: never written through
    assert list(outside_logs.iterdir()) == [] and not (run / "logs").is_symlink()
    assert list(outside_folder.iterdir()) == [] and not (run / "workspace").is_symlink()
    assert {p.name for p in (run / "logs").iterdir()} == {f"{(start + timedelta(days=i)).isoformat()}.log"
                                                          for i in range(1, WINDOW_DAYS)}


@pytest.mark.parametrize("mode", ["per-day", "session"])
def test_an_agent_whose_processes_outlive_it_leaves_none_behind(short_window, tmp_path, mode):
    """setsid sleep, a double-forked daemon that ignores SIGTERM, a plain background child:
    after each day none of them is left, and the harness finishes the run."""
    snapshot, _ = short_window
    pids = tmp_path / "pids.txt"
    command = _agent(tmp_path, f"""
        marker = ["-c", "import time, signal; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(301)",
                  "pastcast-agent-marker"]
        def note(pid):
            open({str(pids)!r}, "a").write(f"{{pid}}\\n")
        # setsid: a session and process group of its own
        note(subprocess.Popen([sys.executable, *marker], start_new_session=True).pid)
        # a plain background child in the agent's own group
        note(subprocess.Popen([sys.executable, *marker]).pid)
        # a double-forked daemon: its parent exits, it is orphaned, in a new session
        r, w = os.pipe()
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                os.write(w, str(os.getpid()).encode())
                os.execv(sys.executable, [sys.executable, *marker])
            os._exit(0)
        os.close(w)
        note(int(os.read(r, 32)))
    """)
    run = tmp_path / "run"
    result = run_harness(snapshot, run, command, mode=mode, timeout_s=30.0)
    _scored(run, result)  # with --session: exits each day without next_day (or a tool call), started again
    started = [int(line) for line in pids.read_text().split()]
    assert len(started) == 3 * WINDOW_DAYS
    assert [pid for pid in started if _alive(pid)] == []


def test_a_flooding_agent_keeps_a_capped_log(short_window, tmp_path):
    """30 MB of output: the log keeps its head and its tail, within the cap, and says how many
    bytes were cut between them."""
    snapshot, start = short_window
    command = _agent(tmp_path, """
        out = sys.stdout.buffer
        out.write(b"HEAD-OF-LOG\\n")
        block = b"x" * 1023 + b"\\n"
        for _ in range(30 * 1024):
            out.write(block)
        out.write(b"TAIL-OF-LOG\\n")
        out.flush()
    """)
    run = tmp_path / "run"
    result = run_harness(snapshot, run, command, timeout_s=60.0)
    _scored(run, result)
    log = (run / "logs" / f"{start.isoformat()}.log").read_bytes()
    assert len(log) <= harness.LOG_CAP_BYTES + 200
    assert log.startswith(b"HEAD-OF-LOG\n") and log.endswith(b"TAIL-OF-LOG\n")
    total = len(b"HEAD-OF-LOG\n") + 30 * 1024 * 1024 + len(b"TAIL-OF-LOG\n")
    cut = total - harness.LOG_CAP_BYTES
    assert f"{cut} bytes cut".encode() in log
