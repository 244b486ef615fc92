"""The executor every job runs on, chosen by configuration (PASTCAST_EXECUTOR), not code.

- ``multiprocess`` (default): Dagster's own, steps in subprocesses of the run worker; run config
  ``execution: {config: {multiprocess: {max_concurrent: N}}}`` bounds them (``in_process`` there
  runs everything in one process).
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


def llm_pool() -> str | None:
    """Dagster's concurrency pool for LLM-bound steps (``dagster instance concurrency set llm N``).

    Not on Dask: a run that carries pool state cannot be submitted by dagster-dask 0.29.27 to
    dask >= 2024.12 (dask's task parser iterates the run record, which Dagster forbids). There,
    the jobs' ``pastcast/llm`` run tag bounds LLM work through the run queue's tag limits
    (README, "Production")."""
    return None if _choice() == "dask" else "llm"


def executor_from_env() -> dg.ExecutorDefinition:
    choice = _choice()
    if choice == "multiprocess":
        return dg.multi_or_in_process_executor
    if choice == "dask":
        try:
            from dagster_dask import dask_executor
        except ImportError as exc:
            raise ImportError("PASTCAST_EXECUTOR=dask needs dagster-dask: pip install 'pastcast[dask]'") from exc
        return dask_executor
    raise ValueError(f"PASTCAST_EXECUTOR={choice!r}: use one of {', '.join(EXECUTORS)}")
