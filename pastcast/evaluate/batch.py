"""Replaying one snapshot to several agents: the bundled evaluation of every new snapshot."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from pastcast.evaluate.runner import run_eval

BASELINES = ("abstain", "uniform", "base-rate", "retrieval", "market")  # offline, no API key


def evaluate_agents(snapshot_dir: str | Path, agents: Iterable[str], out_root: str | Path,
                    on_agent: Callable[[str, Path], None] | None = None) -> list[Path]:
    """Each agent's run in ``out_root/<agent>``. A finished run (its run.json written) is kept, an
    interrupted one resumed, so a retried or repeated evaluation costs only what is missing."""
    dirs = []
    for agent in agents:
        out = Path(out_root) / agent.replace(":", "_").replace("/", "_")
        if not (out / "run.json").is_file():
            run_eval(snapshot_dir, agent, out, resume=True)
        if on_agent:
            on_agent(agent, out)
        dirs.append(out)
    return dirs
