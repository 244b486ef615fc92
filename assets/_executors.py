"""The executor every job runs on, chosen by configuration (PASTCAST_EXECUTOR), not code.

- ``multiprocess`` (default): Dagster's multiprocess-or-in-process executor, in process unless a
  launch asks for ``execution: {config: {multiprocess: {max_concurrent: N}}}`` (steps in
  subprocesses of the run worker).
- ``dask``: steps as tasks on a Dask cluster through dagster-dask (the ``dask`` extra); run config
  ``execution: {config: {cluster: {existing: {address: tcp://scheduler:8786}}}}`` for a running
  cluster or ``{local: {n_workers: 2}}`` for one started for the run. Needs a persistent Dagster
  instance and storage every worker can reach (README "Production").
"""

from __future__ import annotations

import dagster as dg

EXECUTORS = ("multiprocess", "dask")


def _choice() -> str:
    return dg.EnvVar("PASTCAST_EXECUTOR").get_value("multiprocess").strip().lower()


# Every step that writes the working folder or the snapshot store is in this pool. The shipped
# instance config (deploy/dagster.yaml) enforces pools per run with a limit of 1: a run holding
# any such step holds the pool from start to end, so the queue starts one writing run at a time
# whatever launched it (a job, a sensor, the schedule, a backfill from the catalog or the graph),
# tagged or not.
WRITER_POOL = "pastcast_store"


def writer_pool() -> str | None:
    """The writers' concurrency pool, none on Dask: a run that carries pool state cannot be
    submitted by dagster-dask 0.29.27 to dask >= 2024.12 (dask's task parser iterates the run
    record, which Dagster forbids). There the jobs' ``pastcast/writes`` run tag (the queue's tag
    limit) and the working folder's writer lease keep writers apart (README, "Production")."""
    return None if _choice() == "dask" else WRITER_POOL


def _in_process_first() -> dg.ExecutorDefinition:
    """Dagster's multiprocess-or-in-process executor with in-process as its default.

    The steps are small (a one-day build: 18 steps, about 10 s of work in all) and the
    multiprocess executor starts a Python process per step that loads the whole code location
    again: about 74 s of an 85 s one-day run (docs/operations.md, bench/run_overhead.py). The
    ingest step keeps its own pool of extraction processes, so no parallelism that matters is
    lost. A launch can still choose ``execution: {config: {multiprocess: {}}}``. An executor
    default, not a job's config: a partitioned job's config applies only to runs of one
    partition key, never to range runs, and the asset catalog's runs have no job config."""
    executor = dg.multi_or_in_process_executor
    return executor.configured(lambda config: config, config_schema=dg.Field(
        executor.config_schema.config_type, default_value={"in_process": {}}))


def executor_from_env() -> dg.ExecutorDefinition:
    choice = _choice()
    if choice == "multiprocess":
        return _in_process_first()
    if choice == "dask":
        try:
            from dagster_dask import dask_executor
        except ImportError as exc:
            raise ImportError("PASTCAST_EXECUTOR=dask needs dagster-dask: pip install 'pastcast[dask]'") from exc
        return dask_executor
    raise ValueError(f"PASTCAST_EXECUTOR={choice!r}: use one of {', '.join(EXECUTORS)}")
