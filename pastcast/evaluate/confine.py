"""Every process an agent's command started, found and ended: not only its process group (a
``setsid`` child leaves that) but its whole tree, daemons included.

On Linux the harness process is made a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``): a
process orphaned anywhere below it (a double fork's grandchild, whose parent exited) is
re-parented to the harness instead of to init, so every process the command started stays a
descendant of the harness and is found by walking ``/proc``. After each run of the command
the harness ends them all: SIGTERM, a grace period, then SIGKILL to whatever is left (repeated
until none is, so a process forking meanwhile is caught too), and reaps them.

Which of the harness's children are the agent's: those that were not already its children when
the command started (the harness starts no other process while an agent runs). Without a
subreaper (not Linux, or prctl refused) an orphaned daemon escapes the walk; the process group
is still ended. A cgroup would also hold the processes, but needs a delegated cgroup v2
subtree, which an ordinary user usually does not have."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
KILL_ROUNDS = 50  # SIGKILL rounds at most: each catches what forked since the one before
_lock = threading.Lock()
_holders = 0


def _prctl_subreaper(on: bool) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1 if on else 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


class Subreaper:
    """This process a child subreaper while held (held by each harness run; released by the
    last): orphans below it come back to it, to be ended and reaped."""

    def __enter__(self) -> Subreaper:
        global _holders
        with _lock:
            self.active = _prctl_subreaper(True) if _holders == 0 else True
            _holders += 1
        return self

    def __exit__(self, *exc) -> None:
        global _holders
        with _lock:
            _holders -= 1
            if _holders == 0:
                _prctl_subreaper(False)


def _processes() -> dict[int, tuple[int, str]]:
    """Every process: pid -> (parent pid, state letter), read from /proc (empty elsewhere)."""
    out = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:  # gone meanwhile
            continue
        fields = stat.rsplit(")", 1)[1].split()  # the command name may hold spaces and parentheses
        out[int(name)] = (int(fields[1]), fields[0])
    return out


def children() -> set[int]:
    """This process's children now."""
    me = os.getpid()
    return {pid for pid, (parent, _) in _processes().items() if parent == me}


def agent_processes(others: set[int]) -> tuple[list[int], list[int]]:
    """The processes below this one that are not under ``others`` (children that are not the
    agent's): (alive, zombies)."""
    table = _processes()
    below: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        below.setdefault(parent, []).append(pid)
    alive, zombies = [], []
    stack = [pid for pid in below.get(os.getpid(), []) if pid not in others]
    while stack:
        pid = stack.pop()
        (zombies if table[pid][1] in "ZX" else alive).append(pid)
        stack.extend(below.get(pid, []))
    return alive, zombies


def reap_orphans(others: set[int], skip: int | None = None) -> None:
    """Collect the exit status of the agent's processes re-parented to this one (never one a
    ``Popen`` here waits for: ``others`` and ``skip``)."""
    me = os.getpid()
    table = _processes()
    for pid, (parent, state) in table.items():
        if parent == me and pid not in others and pid != skip and state in "ZX":
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass


def _signal(pids, sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def end_all(proc: subprocess.Popen, others: set[int], grace_s: float, poll_s: float = 0.05) -> None:
    """End the command ``proc`` and every process it started (the harness's descendants not
    under ``others``): SIGTERM to all of them (and to its process group, for a system without
    /proc), up to ``grace_s`` for them to go, then SIGKILL until none is left; all reaped."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass
    alive, _ = agent_processes(others)
    _signal(alive, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while alive and time.monotonic() < deadline:
        time.sleep(poll_s)
        proc.poll()
        reap_orphans(others, skip=proc.pid)
        alive, _ = agent_processes(others)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for _ in range(KILL_ROUNDS):
        alive, _ = agent_processes(others)
        if not alive:
            break
        _signal(alive, signal.SIGKILL)
        time.sleep(poll_s / 5)
    proc.wait()
    # the last killed may need a moment to become zombies before they can be reaped
    deadline = time.monotonic() + grace_s
    while True:
        reap_orphans(others, skip=proc.pid)
        alive, zombies = agent_processes(others)
        if not alive and not zombies or time.monotonic() > deadline:
            break
        _signal(alive, signal.SIGKILL)
        time.sleep(poll_s / 5)
