"""How ingest starts its worker processes. Import-light on purpose: the CLI starts the fork
server (which imports and warms up the extraction code, about 3 s) before its own imports,
so the two overlap."""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import signal
import sys

WARMUP_MODULE = "pastcast.curate.warmup"
PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def context():
    """forkserver: workers start clean (no copy of the caller's threads or Dagster state) and
    fork from a server that has already imported and warmed up the extraction code."""
    if os.name != "posix":
        return mp.get_context("spawn")
    context = mp.get_context("forkserver")
    context.set_forkserver_preload([WARMUP_MODULE])
    return context


def start_early() -> None:
    """Start the fork server now, in the background, rather than at the first task."""
    if context().get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


def die_with_parent(ingest_pid: int) -> None:
    """Worker initializer: end with the ingesting process ``ingest_pid``, even when it is
    SIGKILLed (it runs no cleanup then, and workers blocked on the task queue would wait
    forever, holding memory). Linux only; elsewhere a no-op.

    A worker's parent is the fork server, so: the worker gets SIGKILL when the fork server
    dies (PR_SET_PDEATHSIG; the server is single-threaded, so no thread of it ending sends the
    signal early), and the worker closes its copy of the fork server's "alive" pipe, which
    every forkserver child inherits: the server exits when the ingesting process dies only
    once no copy of that pipe is left open. The copy is closed after the signal is armed, so
    the server cannot exit in between; a parent gone already is checked right after arming.
    """
    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            return
    except (OSError, AttributeError):
        return
    if os.getppid() != parent or not _alive(ingest_pid):
        os._exit(1)  # the parent died before the signal was armed: nothing would send it
    _release_fork_server()


def _release_fork_server() -> None:
    from multiprocessing import forkserver

    server = getattr(forkserver, "_forkserver", None)
    alive_fd = getattr(server, "_forkserver_alive_fd", None)
    if server is None or alive_fd is None or server.get_inherited_fds() is None:
        return  # not started by a fork server
    server._forkserver_alive_fd = None
    try:
        os.close(alive_fd)
    except OSError:
        pass


def _alive(pid: int) -> bool:
    """Running, not a zombie (a killed process stays one until its own parent reaps it)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except (OSError, IndexError):
        if os.path.isdir("/proc/self"):
            return False  # /proc is there and the process is not
    try:  # no /proc (a sandbox): ask the kernel, which counts a zombie as alive
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True
