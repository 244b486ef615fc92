"""`make dev` stops whole: after a SIGTERM to make (a supervisor, `kill`) or Ctrl-C in its terminal
(SIGINT to the foreground process group), no webserver, daemon or code server is left running.
Before deploy/dev.py, a SIGTERM to make left all five dev processes running, orphaned."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads the process tree from /proc")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stat(pid: int) -> tuple[int, str, int] | None:
    """(parent pid, state, start time) of a process, None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]), fields[0].decode(), int(fields[19])


def descendants(root: int) -> dict[int, int]:
    """pid -> start time of every process below ``root`` (a pid reused later is not mistaken for one)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(int(entry))):
            children.setdefault(stat[0], []).append(int(entry))
    found, todo = {}, [root]
    while todo:
        for pid in children.get(todo.pop(), []):
            if stat := _stat(pid):
                found[pid] = stat[2]
                todo.append(pid)
    return found


def alive(processes: dict[int, int]) -> dict[int, str]:
    """The processes still running (not zombies), with their command lines."""
    live = {}
    for pid, started in processes.items():
        stat = _stat(pid)
        if stat and stat[2] == started and stat[1] != "Z":
            try:
                live[pid] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:120]
            except OSError:
                continue
    return live


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@pytest.mark.parametrize("how", ["SIGTERM to make", "SIGINT to the group"])
def test_make_dev_leaves_no_process_behind(tmp_path, how):
    port = free_port()
    log = open(tmp_path / "dev.log", "wb")
    # -o: never reinstall the venv from inside a test; DEV_HOME: a fresh instance, not the checkout's
    make = subprocess.Popen(["make", "-s", "-o", ".venv/.installed", "dev", f"DEV_PORT={port}",
                             f"DEV_HOME={tmp_path / 'home'}"], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)  # its own group, as a terminal's job
    tree: dict[int, int] = {}
    try:
        deadline = time.monotonic() + 300  # a loaded 2-core machine takes its time to load the code location
        while True:
            assert make.poll() is None, (tmp_path / "dev.log").read_text()[-3000:]
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/server_info", timeout=5)
                break
            except OSError:
                assert time.monotonic() < deadline, "the webserver never answered:\n" + \
                    (tmp_path / "dev.log").read_text()[-3000:]
                time.sleep(1)
        # the daemon starts after the webserver; wait until every service is up to see all of them
        while time.monotonic() < deadline:
            tree = descendants(make.pid)
            commands = " ".join(cmdline(p) for p in tree)
            if all(s in commands for s in ("dagster_webserver", "dagster._daemon", "code-server", "api grpc")):
                break
            time.sleep(1)
        commands = " ".join(cmdline(p) for p in tree)
        assert all(s in commands for s in ("dagster_webserver", "dagster._daemon", "code-server")), commands

        if how == "SIGTERM to make":
            make.send_signal(signal.SIGTERM)
        else:
            os.killpg(make.pid, signal.SIGINT)
        make.wait(timeout=120)  # the wrapper returns only once every descendant has ended
        survivors = alive(tree)
        bound = time.monotonic() + 60  # generous: a process ending is polled for, never timed
        while survivors and time.monotonic() < bound:
            time.sleep(0.5)
            survivors = alive(tree)
        assert not survivors, f"alive after {how}: {survivors}"
        assert "Dagster services shut down" in (tmp_path / "dev.log").read_text()
    finally:
        log.close()
        for pid in alive({make.pid: _stat(make.pid)[2]} if _stat(make.pid) else {}) | alive(tree):
            os.kill(pid, signal.SIGKILL)
