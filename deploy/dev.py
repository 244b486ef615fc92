"""Run a Dagster dev command (`make dev`: `dg dev`) and take it down whole.

Usage: python deploy/dev.py COMMAND [ARGS...]

Left to itself, `make dev` left every process running after a SIGTERM to make (make does not
pass signals on: the dev command, webserver, daemon and code servers lived on, orphaned), and a
signal to the dev command itself left its code servers alive for seconds after it exited. This
wrapper:

- asks the kernel for a SIGTERM when its parent (make) dies, so a signal to make reaches it;
- starts the command in a process group of its own and passes it the signal it got (SIGINT,
  SIGTERM, SIGHUP), so it stops its webserver and daemon in order;
- is the subreaper of everything below it (Linux), so it sees every descendant, even those the
  dev command orphaned; once the command has ended (or after ``GRACE`` seconds), it sends
  SIGTERM to whatever is left, then SIGKILL, and returns only when no descendant is alive.
"""

from __future__ import annotations

import ctypes
import errno
import os
import signal
import subprocess
import sys
import time

GRACE = 30.0  # seconds for the dev command to stop its services (it allows each one 10 s)
LEFTOVERS = 10.0  # seconds for what is left after it to end on SIGTERM, before SIGKILL
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36


def _prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _reap() -> bool:
    """Reap every descendant that has ended; False once none is left."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True


def _signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        pass
    except PermissionError as exc:  # a pid reused by someone else's process: never ours to kill
        if exc.errno != errno.EPERM:
            raise


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    parent = os.getppid()
    subreaper = _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    received: list[int] = []
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, lambda s, _frame: received.append(s))
    if os.getppid() != parent:  # make died before the death signal was set up
        return 128 + signal.SIGTERM
    try:
        child = subprocess.Popen(argv, start_new_session=True)
    except OSError as exc:
        print(f"deploy/dev.py: cannot start {argv[0]}: {exc.strerror or exc} (run `make venv`?)", file=sys.stderr)
        return 127
    status: int | None = None
    forwarded = False
    deadline = None
    while status is None:
        if received and not forwarded:
            forwarded = True
            deadline = time.monotonic() + GRACE
            try:
                os.killpg(child.pid, received[0])  # the whole group at once, as Ctrl-C in a terminal does
            except ProcessLookupError:
                pass
        if deadline is not None and time.monotonic() > deadline:
            print(f"deploy/dev.py: {argv[0]} still running {GRACE:.0f} s after the signal; stopping it",
                  file=sys.stderr)
            _signal_group(child.pid, signal.SIGKILL)
            deadline = None
        try:
            pid, raw = os.waitpid(child.pid, os.WNOHANG)
        except ChildProcessError:
            break
        if pid:
            status = os.waitstatus_to_exitcode(raw)
        else:
            time.sleep(0.2)
        _reap()
    # What the dev command left behind (code servers wait for a missed heartbeat otherwise): its
    # process group, and, as their subreaper, anything that left the group.
    _stop_leftovers(child.pid, signal.SIGTERM, subreaper)
    end = time.monotonic() + LEFTOVERS
    while _reap() if subreaper else _group_alive(child.pid):
        if time.monotonic() > end:
            _stop_leftovers(child.pid, signal.SIGKILL, subreaper)
            end = time.monotonic() + LEFTOVERS
        time.sleep(0.1)
    if received:
        return 128 + received[0]
    return status if status is not None and status >= 0 else 128 + -(status or 0)


def _stop_leftovers(pgid: int, signum: int, subreaper: bool) -> None:
    _signal_group(pgid, signum)
    if subreaper:
        _signal_children(signum)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def _signal_children(signum: int) -> None:
    """Signal our direct children (as subreaper, the orphans of the dev command's tree)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    me = os.getpid()
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me and fields[0] != b"Z":
            try:
                os.kill(int(entry), signum)
            except ProcessLookupError:
                pass


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
