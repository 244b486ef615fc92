"""The working folder's writer lease: one build writes a working folder (and the snapshots built
from it) at a time, whatever started it (`pastcast build`, a step of a Dagster run of any job,
`dagster asset materialize` from the command line).

The lease is a small JSON file in the working folder naming its owner (the CLI's process, or a
Dagster run) and the processes working for it now (members: a run's steps may run in parallel
processes, each a member while it runs). A claim succeeds when the lease is free, already the
claimant's owner's, or its owner is over: every member has exited (same host) or stopped
renewing (``GRACE_SECONDS``, another host), or the caller knows the owner has ended (``alive``:
the library does not import Dagster, so a run's status is the caller's to judge). Members renew
every ``HEARTBEAT_SECONDS`` while they work and leave when done; the file goes with the last.
Reading and writing it happen under an advisory lock, so two claimants never both win.

A Dagster run holds the lease step by step, so a build outside the run queue can only go between
two of its steps, never beside one; the queue itself starts one writing run at a time (the
writers' pool, deploy/dagster.yaml).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

from pastcast.io import locked, write_json

LEASE = "writer.json"
LEASE_LOCK = ".writer.lock"
HEARTBEAT_SECONDS = 30
GRACE_SECONDS = 180  # a member of another host that stopped renewing this long ago is over

Alive = Callable[[dict], "bool | None"]


class StoreBusy(RuntimeError):
    """Another build holds the working folder's writer lease."""

    def __init__(self, work_dir: Path, owner: dict, waited: float):
        self.work_dir, self.owner, self.waited = work_dir, owner, waited
        after = f" (waited {waited:.0f} s)" if waited >= 1 else ""
        super().__init__(f"{work_dir}: {describe(owner)} is writing this working folder{after}; "
                         "one build writes it at a time")


def describe(owner: dict) -> str:
    """An owner in words: "Dagster run 1a2b3c4d of build_news" or "pastcast build (pid 4242 on host)"."""
    if owner.get("kind") == "dagster_run":
        return f"Dagster run {str(owner.get('id', '?'))[:8]} of {owner.get('label') or 'a job'}"
    return f"{owner.get('label') or 'a process'} (pid {owner.get('pid')} on {owner.get('host')})"


def process_owner(label: str) -> dict:
    """This process as an owner (a CLI build)."""
    host, pid = socket.gethostname(), os.getpid()
    return {"kind": "process", "id": f"process:{host}:{pid}", "label": label, "pid": pid, "host": host}


def run_owner(run_id: str, job_name: str) -> dict:
    """A Dagster run as an owner (its steps are its members)."""
    return {"kind": "dagster_run", "id": run_id, "label": job_name}


def _member_key() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _member_alive(key: str, renewed: float) -> bool:
    host, _, pid = key.rpartition(":")
    if host != socket.gethostname():
        return time.time() - float(renewed or 0) < GRACE_SECONDS  # only its renewals tell
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, ValueError):
        return True  # exists but is not ours to signal; a damaged pid is no proof of an end
    return True


def read_lease(work_dir: str | Path) -> dict | None:
    """The lease (owner and members), or None when there is none or it cannot be read as one."""
    try:
        lease = json.loads((Path(work_dir) / LEASE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(lease, dict) or not isinstance(lease.get("owner"), dict) or not lease["owner"].get("id"):
        return None
    if not isinstance(lease.get("members"), dict):
        lease["members"] = {}
    return lease


def _is_live(lease: dict, alive: Alive | None) -> bool:
    verdict = alive(lease["owner"]) if alive is not None else None
    if verdict is False:
        return False
    return any(_member_alive(k, v) for k, v in lease["members"].items())


def current_owner(work_dir: str | Path, alive: Alive | None = None) -> dict | None:
    """The owner writing the working folder now, or None when it is free."""
    lease = read_lease(work_dir)
    return lease["owner"] if lease is not None and _is_live(lease, alive) else None


WAIT_REPORT_SECONDS = 60  # how often a waiting claim says so (a line a minute, not one a poll)


def claim(work_dir: str | Path, owner: dict, alive: Alive | None = None, wait_seconds: float = 0,
          poll_seconds: float = 2, on_wait: Callable[[dict, float], None] | None = None) -> None:
    """Join (or take) the lease for ``owner`` as this process; wait up to ``wait_seconds`` while
    another live owner has it (``on_wait(owner, waited)`` when the wait begins, then every
    ``WAIT_REPORT_SECONDS``), then raise ``StoreBusy``.

    ``alive(owner)`` says False for an owner the caller knows has ended (a finished run), None
    when it cannot tell; an owner is live while one of its members is."""
    work = Path(work_dir)
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    reported: float | None = None
    while True:
        with locked(work / LEASE_LOCK):
            lease = read_lease(work)
            if lease is None or lease["owner"]["id"] != owner["id"] and not _is_live(lease, alive):
                lease = {"owner": owner, "claimed": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                         "members": {}}
            if lease["owner"]["id"] == owner["id"]:
                lease["members"][_member_key()] = time.time()
                write_json(lease, work / LEASE)
                return
        waited = time.monotonic() - started
        if waited >= wait_seconds:
            raise StoreBusy(work, lease["owner"], waited)
        if on_wait is not None and (reported is None or waited - reported >= WAIT_REPORT_SECONDS):
            reported = waited
            on_wait(lease["owner"], waited)
        time.sleep(min(poll_seconds, max(wait_seconds - waited, 0.01)))


def renew(work_dir: str | Path, owner_id: str) -> bool:
    """Mark this process's membership as still working; False when the lease is no longer its owner's."""
    work = Path(work_dir)
    with locked(work / LEASE_LOCK):
        lease = read_lease(work)
        if lease is None or lease["owner"]["id"] != owner_id:
            return False
        lease["members"][_member_key()] = time.time()
        write_json(lease, work / LEASE)
        return True


def release(work_dir: str | Path, owner_id: str) -> None:
    """This process leaves the lease; the file goes with the owner's last member (nothing when
    another owner has it)."""
    work = Path(work_dir)
    with locked(work / LEASE_LOCK):
        lease = read_lease(work)
        if lease is None or lease["owner"]["id"] != owner_id:
            return
        lease["members"].pop(_member_key(), None)
        if lease["members"]:
            write_json(lease, work / LEASE)
        else:
            (work / LEASE).unlink(missing_ok=True)


@contextlib.contextmanager
def heartbeat(work_dir: str | Path, owner_id: str, every: float = HEARTBEAT_SECONDS) -> Iterator[None]:
    """Renew this process's membership every ``every`` seconds while the block runs (a thread)."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(every):
            try:
                renew(work_dir, owner_id)
            except OSError:
                pass  # a hiccup of the file system; the next beat tries again

    thread = threading.Thread(target=beat, name="pastcast-lease", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


@contextlib.contextmanager
def holding(work_dir: str | Path, owner: dict, alive: Alive | None = None, wait_seconds: float = 0,
            on_wait: Callable[[dict, float], None] | None = None) -> Iterator[None]:
    """Hold the lease for the block: claimed, renewed while it runs, released at its end."""
    claim(work_dir, owner, alive, wait_seconds=wait_seconds, on_wait=on_wait)
    try:
        with heartbeat(work_dir, owner["id"]):
            yield
    finally:
        release(work_dir, owner["id"])
