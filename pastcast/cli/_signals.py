"""SIGTERM and SIGHUP (a scheduler, CI, a closed terminal) end a serving command as Ctrl-C does,
so its clean-up runs: an unfinished run without a forecast leaves nothing behind, one with
forecasts keeps its partial ledger to resume, and the run folder's lock is released."""

from __future__ import annotations

import signal

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def stop_on_signals() -> None:
    """From now on, the first SIGTERM or SIGHUP raises KeyboardInterrupt in the main thread;
    later ones are ignored, so they cannot cut the clean-up short (SIGKILL still ends it)."""

    def interrupted(signum, frame):
        for sig in STOP_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        raise KeyboardInterrupt(signal.Signals(signum).name)

    for sig in STOP_SIGNALS:
        signal.signal(sig, interrupted)
