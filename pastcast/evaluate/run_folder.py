"""One run folder, one writer, nothing overwritten unasked.

``claim_run_folder`` is called by every replay that writes a run folder (``eval run``, ``eval
serve``): it takes an exclusive lock on ``OUT/.lock`` for as long as the run lives (a second
process on the same folder is refused, not interleaved), and refuses a folder that already
holds a run unless asked: ``resume`` continues an unfinished one (a finished run has nothing to
resume), ``force`` replaces it (its files are removed first). A refusal offers ``--resume`` only
to a caller that can resume (``resumable``: ``eval run``, ``serve``, ``mcp``, ``harness``; not
``eval score``)."""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

PROGRESS = ".progress.json"
PARTIAL = ".ledger.jsonl.partial"
HARNESS = "harness.json"  # eval harness: the agent's days (wall time, tool calls, failures)
RUN_FILES = ("ledger.jsonl", "run.json", "scores.parquet", "daily.parquet", "match_verdicts.jsonl",
             "rejected.jsonl", HARNESS, PARTIAL, PROGRESS)
MEMORY = "memory"  # an external agent's notes (eval mcp, eval harness)
WORKSPACE = "workspace"  # what eval harness shows a CLI agent
CONFIG = "config"  # eval harness: the CLIs' MCP configs
LOGS = "logs"  # eval harness: each day's output of the agent's command
RUN_FOLDERS = (MEMORY, WORKSPACE, CONFIG, LOGS)  # a run's own folders: a forced run starts without them


class RunFolderBusy(ValueError):
    """Another process is writing this run folder."""


class RunFolderLock:
    """The held lock of a run folder; ``release`` (or the process's end) frees it."""

    def __init__(self, handle):
        self._handle = handle

    def release(self) -> None:
        if self._handle is not None:
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            self._handle.close()
            self._handle = None


def remove_tree(folder: Path) -> None:
    """Remove ``folder`` whatever an agent did to its modes (a read-only note, a folder without
    write permission); an error when it cannot be removed, never a silent leftover."""
    def writable_then_retry(function, path, _exc_info):
        for target in (Path(path).parent, Path(path)):
            try:
                if not target.is_symlink():
                    target.chmod(0o700)
            except OSError:
                pass
        function(path)

    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.exists():
        shutil.rmtree(folder, onerror=writable_then_retry)
    if folder.exists() or folder.is_symlink():
        raise OSError(f"{folder} could not be removed")


def claim_run_folder(out_dir: str | os.PathLike, resume: bool = False, force: bool = False,
                     resumable: bool = False) -> RunFolderLock:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    # never follow a link planted as the lock, never truncate what it names
    try:
        handle = os.fdopen(os.open(out_dir / ".lock", os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644), "w")
    except OSError as exc:
        raise RunFolderBusy(f"{out_dir / '.lock'} cannot be used as the run's lock ({exc.strerror})") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise RunFolderBusy(f"{out_dir} is being written by another run (its .lock is held); use another --out") from None
    try:
        finished = (out_dir / "ledger.jsonl").is_file() and (out_dir / "run.json").is_file()
        # a replay that stopped while scoring (a ledger, no run.json) resumes by scoring again
        unfinished = (out_dir / PARTIAL).is_file() or (out_dir / "ledger.jsonl").is_file() and not finished
        # an agent's notes, workspace or logs are a run too: written later in a replay, they may
        # hold answers that came out then, and must never reach the first day of another
        unfinished = unfinished or any((out_dir / name).exists() for name in RUN_FOLDERS)
        if force:
            for name in RUN_FILES:
                (out_dir / name).unlink(missing_ok=True)
            for name in RUN_FOLDERS:
                remove_tree(out_dir / name)
        elif resume and finished:  # its notes and workspace stay with it: nothing to continue
            raise FileExistsError(f"{out_dir} holds a finished run: nothing to resume (--force replaces it)")
        elif not resume and (finished or unfinished):
            kind = "a finished" if finished else "an unfinished"
            if resumable and not finished:
                raise FileExistsError(f"{out_dir} holds an unfinished run: pass --resume to continue it, "
                                      f"or --force to replace it")
            raise FileExistsError(f"{out_dir} holds {kind} run: pass --force to replace it")
    except BaseException:
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()
        raise
    return RunFolderLock(handle)
