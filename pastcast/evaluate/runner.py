"""Replay a snapshot to one agent, day by day, and write its ledger, scores and run record."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import polars as pl

import pastcast
from pastcast.evaluate.agents import Agent, get_agent
from pastcast.evaluate.environment import LedgerEntry, ReplayEnvironment
from pastcast.evaluate.index import ArticleIndex
from pastcast.evaluate.scoring import brier_skill_score, time_weighted_bss, top1_accuracy
from pastcast.io import write_json, write_parquet

Progress = Callable[[int, int, date], None]

SCORES_SCHEMA = {
    "question_id": pl.String,
    "bss": pl.Float64,
    "accuracy": pl.Float64,
    "time_weighted_bss": pl.Float64,
    "forecast_made": pl.Boolean,
    "n_forecasts": pl.Int64,
    "category": pl.String,
    "source_kind": pl.String,
    "open_date": pl.Date,
    "resolution_date": pl.Date,
}


@dataclass(frozen=True)
class RunResult:
    out_dir: Path
    scores: pl.DataFrame
    summary: dict
    run: dict


def _utcnow() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _ledger_line(entry: LedgerEntry, agent: str) -> str:
    return json.dumps(
        {"date": entry.date.isoformat(), "question_id": entry.question_id, "forecast": dict(entry.forecast), "agent": agent},
        ensure_ascii=False,
    )


def score_questions(questions: pl.DataFrame, ledger: list[LedgerEntry], start: date, end: date) -> pl.DataFrame:
    """One row per question: final-forecast BSS and accuracy, and time-weighted BSS.

    The time-weighted window is the question's open window clipped to the replayed days, so
    a question open before the replay starts is not charged for days no agent could act on.
    """
    by_question: dict[str, list[tuple[date, dict]]] = defaultdict(list)
    for e in ledger:
        by_question[e.question_id].append((e.date, dict(e.forecast)))
    rows = []
    for q in questions.iter_rows(named=True):
        history = [(d, f) for d, f in by_question.get(q["question_id"], []) if d < q["resolution_date"]]
        answer, aliases = q["answer"] or "", list(q["answer_aliases"] or [])
        final = history[-1][1] if history else {}
        window_start = max(q["open_date"], start)
        window_end = min(q["resolution_date"], end + timedelta(days=1))
        rows.append({
            "question_id": q["question_id"],
            "bss": brier_skill_score(final, answer, aliases),
            "accuracy": top1_accuracy(final, answer, aliases),
            "time_weighted_bss": time_weighted_bss(history, answer, aliases, window_start, window_end),
            "forecast_made": bool(history),
            "n_forecasts": len(history),
            "category": q.get("category"),
            "source_kind": q.get("source_kind"),
            "open_date": q["open_date"],
            "resolution_date": q["resolution_date"],
        })
    return pl.DataFrame(rows, schema=SCORES_SCHEMA) if rows else pl.DataFrame(schema=SCORES_SCHEMA)


def summarise(scores: pl.DataFrame) -> dict:
    """Means over ALL questions: an unforecast question counts as an abstention (0)."""
    n = scores.height
    mean = lambda col: float(scores[col].mean()) if n else 0.0  # noqa: E731
    return {
        "questions": n,
        "forecast": int(scores["forecast_made"].sum()) if n else 0,
        "mean_bss": mean("bss"),
        "accuracy": mean("accuracy"),
        "time_weighted_bss": mean("time_weighted_bss"),
    }


def run_eval(
    snapshot_dir: str | os.PathLike,
    agent: Agent | str,
    out_dir: str | os.PathLike,
    progress: Progress | None = None,
    index: ArticleIndex | None = None,
    start: date | None = None,
    end: date | None = None,
) -> RunResult:
    """Replay ``snapshot_dir`` to ``agent`` over its window; write ledger.jsonl, scores.parquet, run.json."""
    agent = get_agent(agent) if isinstance(agent, str) else agent
    snapshot_dir, out_dir = Path(snapshot_dir), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    env = ReplayEnvironment(snapshot_dir, start=start, end=end, index=index)
    started = _utcnow()

    # The ledger streams to a hidden partial file as the run goes (evidence if it crashes) and
    # is renamed into place only when the replay completes.
    partial = out_dir / ".ledger.jsonl.partial"
    written = 0
    with partial.open("w", encoding="utf-8") as ledger_file:
        day_index = 0
        while not env.done:
            if progress:
                progress(day_index, env.n_days, env.today)
            agent.act(env)
            for entry in env.ledger[written:]:
                ledger_file.write(_ledger_line(entry, agent.name) + "\n")
            written = len(env.ledger)
            ledger_file.flush()
            env.advance()
            day_index += 1
        if progress:
            progress(env.n_days, env.n_days, env.end)
    os.replace(partial, out_dir / "ledger.jsonl")

    questions = pl.read_parquet(snapshot_dir / "questions.parquet").filter(
        pl.col("open_date").is_not_null() & pl.col("resolution_date").is_not_null()
    ).sort("question_id")
    scores = score_questions(questions, list(env.ledger), env.start, env.end)
    write_parquet(scores, out_dir / "scores.parquet")

    summary = summarise(scores)
    manifest = env.manifest
    run = {
        "snapshot": {"name": manifest.get("name"), "version": manifest.get("version"), "path": str(snapshot_dir.resolve())},
        "agent": agent.name,
        "window": {"start": env.start.isoformat(), "end": env.end.isoformat()},
        "days": env.n_days,
        "forecasts_submitted": len(env.ledger),
        "started": started,
        "finished": _utcnow(),
        "code_version": pastcast.__version__,
        "summary": summary,
    }
    write_json(run, out_dir / "run.json")
    return RunResult(out_dir=out_dir, scores=scores, summary=summary, run=run)
