"""Finished runs scored against each other: the paired comparison of two runs (``pastcast eval
compare``), and the peer-relative scores of runs of one snapshot with the coordinate-wise
aggregate of their final forecasts, scored like an agent (``pastcast eval aggregate``)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import polars as pl

from pastcast.evaluate.environment import LedgerEntry
from pastcast.evaluate.metrics import aggregate_forecasts, final_forecasts, paired, peer_relative
from pastcast.evaluate.runner import read_ledger, score_questions
from pastcast.io import write_text
from pastcast.store import read_table

COMPARED = ("bss", "accuracy", "time_weighted_bss")


def compare_runs(run_a: str | os.PathLike, run_b: str | os.PathLike,
                 metrics: Iterable[str] = COMPARED) -> list[dict]:
    """Run A against run B on the questions both scored, one ``metrics.paired`` result per
    metric (mean of A - B, its bootstrap 95% interval, wins/ties/losses of A)."""
    a, b = (pl.read_parquet(Path(d) / "scores.parquet") for d in (run_a, run_b))
    return [paired(a, b, metric) for metric in metrics]


@dataclass(frozen=True)
class Peer:
    """One run among its peers."""

    run: str  # the run folder, as given
    agent: str
    mean_bss: float | None  # None when it scored no question
    peer_relative_bss: float | None  # None with a single run


@dataclass(frozen=True)
class AggregateResult:
    snapshot: Path
    peers: list[Peer]
    entries: list[LedgerEntry]  # the aggregate's forecasts, each dated the last day it can stand
    scores: pl.DataFrame  # the aggregate scored like an agent, one row per question

    @property
    def mean_bss(self) -> float | None:
        return self.scores["bss"].mean()

    def forecast_lines(self) -> str:
        """The aggregate as JSON lines of forecasts, the input of ``eval score``."""
        return "".join(json.dumps({"question_id": e.question_id, "date": e.date.isoformat(),
                                   "forecast": dict(e.forecast), "agent": "aggregate"}) + "\n" for e in self.entries)

    def write_forecasts(self, path: str | os.PathLike) -> Path:
        return write_text(self.forecast_lines(), path)


def aggregate_runs(run_dirs: Sequence[str | os.PathLike]) -> AggregateResult:
    """Peer-relative BSS of ``run_dirs`` and the coordinate-wise aggregate of their final
    forecasts (``metrics.aggregate_forecasts``: every run counts in every question's
    denominator), scored over the union of the runs' windows. The aggregate's forecast for a
    question is dated the day before it resolves, or the last replayed day if earlier.

    Raises ValueError when the runs replay different snapshots."""
    runs = {str(d): json.loads((Path(d) / "run.json").read_text()) for d in run_dirs}
    snapshots = {r["snapshot"]["path"] for r in runs.values()}
    if len(snapshots) != 1:
        raise ValueError(f"the runs replay different snapshots: {sorted(snapshots)}")
    snapshot = Path(snapshots.pop())
    questions = read_table(snapshot, "questions")
    finals = {d: final_forecasts(questions, read_ledger(d)) for d in runs}
    scores = {d: pl.read_parquet(Path(d) / "scores.parquet") for d in runs}
    start = min(date.fromisoformat(r["window"]["start"]) for r in runs.values())
    last_day = max(date.fromisoformat(r["window"]["end"]) for r in runs.values())
    resolution = dict(zip(questions["question_id"], questions["resolution_date"]))
    entries = [LedgerEntry(q, min(last_day, resolution[q] - timedelta(days=1)), f)
               for q, f in aggregate_forecasts(finals).items()]
    relative = peer_relative(scores) if len(runs) > 1 else {}
    peers = [Peer(d, run["agent"], scores[d]["bss"].mean(), relative.get(d)) for d, run in runs.items()]
    return AggregateResult(snapshot, peers, entries, score_questions(questions, entries, start, last_day))
