"""How ingest starts its worker processes. Import-light on purpose: the CLI starts the fork
server (which imports and warms up the extraction code, about 3 s) before its own imports,
so the two overlap."""

from __future__ import annotations

import multiprocessing as mp
import os

WARMUP_MODULE = "pastcast.curate.warmup"


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
