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
from pastcast.evaluate.resume import (Warn, progress_day, read_partial, read_progress, replay, rewrite_partial,
                                      warn_stderr)
from pastcast.evaluate.run_folder import PARTIAL, PROGRESS, claim_run_folder
from pastcast.snapshot import check_integrity
from pastcast.evaluate.agents import Agent, get_agent
from pastcast.evaluate.consensus import MarketConsensus
from pastcast.evaluate.environment import LedgerEntry, ReplayEnvironment
from pastcast.search.index import ArticleIndex
from pastcast.matching import matches, normalise
from pastcast.evaluate.metrics import summary_metrics
from pastcast.evaluate.policies import EveryDay, WakePolicy, wake_reasons
from pastcast.evaluate.scoring import brier_skill_score, standing, time_weighted_bss, top1_accuracy
from pastcast.evaluate.triggers import TriggerSet
from pastcast.io import write_json, write_parquet
from pastcast.llm import LLMSettings
from pastcast.store import read_table

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
    # the market consensus on the same question and days (null: no market behind it)
    "crowd_bss": pl.Float64,
    "crowd_accuracy": pl.Float64,
    "crowd_time_weighted_bss": pl.Float64,
}


@dataclass(frozen=True)
class RunResult:
    out_dir: Path
    scores: pl.DataFrame
    summary: dict
    run: dict


def utcnow() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def ledger_line(entry: LedgerEntry, agent: str) -> str:
    return json.dumps(
        {"date": entry.date.isoformat(), "question_id": entry.question_id, "forecast": dict(entry.forecast), "agent": agent},
        ensure_ascii=False,
    )


def _matcher(question_id: str, judged: set[tuple[str, str]] | None):
    """The matching rules, then what an LLM judge accepted for this question."""
    if not judged:
        return matches
    return lambda o, a, al: matches(o, a, al) or (question_id, normalise(o)) in judged


def score_question(history: list[tuple[date, dict]], answer: str, aliases, open_date: date, resolution_date: date,
                   start: date, end: date, match=matches) -> dict:
    """One question's scores from its forecasts (``history``, (date, forecast) in submission
    order): the final forecast before resolution, its BSS and accuracy, and the time-weighted
    BSS over the open window clipped to the replayed days."""
    history = [(d, f) for d, f in history if d < resolution_date]
    final = history[-1][1] if history else {}
    aliases = list(aliases or [])
    window_start = max(open_date, start)
    window_end = min(resolution_date, end + timedelta(days=1))
    return {"final_forecast": final or None,
            "bss": brier_skill_score(final, answer, aliases, match),
            "accuracy": top1_accuracy(final, answer, aliases, match),
            "time_weighted_bss": time_weighted_bss(history, answer, aliases, window_start, window_end, match)}


def score_questions(questions: pl.DataFrame, ledger: list[LedgerEntry], start: date, end: date,
                    judged: set[tuple[str, str]] | None = None) -> pl.DataFrame:
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
        scored = score_question(history, q["answer"] or "", q["answer_aliases"] or [], q["open_date"],
                                q["resolution_date"], start, end, _matcher(q["question_id"], judged))
        rows.append({
            "question_id": q["question_id"],
            "bss": scored["bss"], "accuracy": scored["accuracy"], "time_weighted_bss": scored["time_weighted_bss"],
            "forecast_made": bool(history),
            "n_forecasts": len(history),
            "category": q.get("category"),
            "source_kind": q.get("source_kind"),
            "open_date": q["open_date"],
            "resolution_date": q["resolution_date"],
            "crowd_bss": None, "crowd_accuracy": None, "crowd_time_weighted_bss": None,
        })
    return pl.DataFrame(rows, schema=SCORES_SCHEMA) if rows else pl.DataFrame(schema=SCORES_SCHEMA)


DAILY_SCHEMA = {"date": pl.Date, "open_questions": pl.Int64, "forecast_questions": pl.Int64,
                "submissions": pl.Int64, "mean_bss": pl.Float64}


def daily_metrics(questions: pl.DataFrame, ledger: list[LedgerEntry], start: date, end: date,
                  judged: set[tuple[str, str]] | None = None) -> pl.DataFrame:
    """One row per replayed day: questions open, how many had a standing forecast, submissions
    made that day, and the mean BSS of the standing forecasts over the open questions (an
    unforecast one counts 0): the run's score over simulated time."""
    history: dict[str, list] = defaultdict(list)
    made: dict[date, int] = defaultdict(int)
    for e in ledger:
        history[e.question_id].append((e.date, dict(e.forecast)))
        made[e.date] += 1
    rows, day = [], start
    qs = questions.to_dicts()
    while day <= end:
        open_now = [q for q in qs if q["open_date"] <= day < q["resolution_date"]]
        total, forecast = 0.0, 0
        for q in open_now:
            f = standing(history.get(q["question_id"], []), day)
            if f is not None:
                forecast += 1
                total += brier_skill_score(f, q["answer"] or "", list(q["answer_aliases"] or []),
                                           _matcher(q["question_id"], judged))
        rows.append({"date": day, "open_questions": len(open_now), "forecast_questions": forecast,
                     "submissions": made.get(day, 0), "mean_bss": total / len(open_now) if open_now else None})
        day += timedelta(days=1)
    return pl.DataFrame(rows, schema=DAILY_SCHEMA) if rows else pl.DataFrame(schema=DAILY_SCHEMA)


def crowd_ledger(questions: pl.DataFrame, consensus: MarketConsensus, start: date, end: date
                 ) -> list[LedgerEntry]:
    """What the market agent would submit: each market question's consensus on every replayed
    day it is open, recorded when it moves."""
    entries = []
    for q in questions.iter_rows(named=True):
        if q["question_id"] not in consensus:
            continue
        day, last = max(q["open_date"], start), None
        stop = min(q["resolution_date"] - timedelta(days=1), end)
        while day <= stop:
            forecast = consensus.forecast(q["question_id"], day)
            if forecast and forecast != last:
                entries.append(LedgerEntry(q["question_id"], day, forecast))
                last = forecast
            day += timedelta(days=1)
    return entries


def with_crowd(scores: pl.DataFrame, questions: pl.DataFrame, consensus: MarketConsensus,
               start: date, end: date) -> pl.DataFrame:
    """``scores`` with the crowd's scores beside the agent's on questions that have a market."""
    market_q = questions.filter(pl.col("question_id").is_in([q for q in questions["question_id"] if q in consensus]))
    crowd = score_questions(market_q, crowd_ledger(market_q, consensus, start, end), start, end).select(
        "question_id", pl.col("bss").alias("crowd_bss"), pl.col("accuracy").alias("crowd_accuracy"),
        pl.col("time_weighted_bss").alias("crowd_time_weighted_bss"))
    return scores.drop("crowd_bss", "crowd_accuracy", "crowd_time_weighted_bss").join(
        crowd, on="question_id", how="left").select(list(SCORES_SCHEMA))


def summarise(scores: pl.DataFrame) -> dict:
    """Means over ALL questions: an unforecast question counts as an abstention (0).

    On questions with a market, the agent's and the crowd's means side by side (the
    human-crowd comparison line)."""
    n = scores.height
    mean = lambda df, col: float(df[col].mean()) if df.height else 0.0  # noqa: E731
    summary = {
        "questions": n,
        "forecast": int(scores["forecast_made"].sum()) if n else 0,
        "mean_bss": mean(scores, "bss"),
        "accuracy": mean(scores, "accuracy"),
        "time_weighted_bss": mean(scores, "time_weighted_bss"),
    }
    market = scores.filter(pl.col("crowd_bss").is_not_null()) if "crowd_bss" in scores.columns else scores.clear()
    summary["market_questions"] = market.height
    if market.height:
        summary["crowd"] = {
            "agent_mean_bss": mean(market, "bss"), "crowd_mean_bss": mean(market, "crowd_bss"),
            "agent_accuracy": mean(market, "accuracy"), "crowd_accuracy": mean(market, "crowd_accuracy"),
            "agent_time_weighted_bss": mean(market, "time_weighted_bss"),
            "crowd_time_weighted_bss": mean(market, "crowd_time_weighted_bss"),
        }
    return summary


def _reasons(wakes: list[dict]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for w in wakes:
        counts[w["reason"].split(":", 1)[0]] += 1
    return dict(sorted(counts.items()))


# PROGRESS (pastcast.evaluate.run_folder): the last replayed day of an unfinished run, beside the
# partial ledger (pastcast.evaluate.resume reads both)


def _replay_partial(env: ReplayEnvironment, agent: Agent, out_dir: Path, warn: Warn) -> tuple[int, dict]:
    """Resume: submit the partial ledger's forecasts again, day by day, up to the last day the
    interrupted run finished (a torn last line dropped with a warning; the unfinished day's
    forecasts dropped: the agent is asked that day again), and rewrite the partial ledger to
    exactly those; returns the days replayed and what the run record says of the resume. The
    agent gets the entries through ``restore(env, entries)`` when it has one (its memory of
    what it submitted)."""
    progress = read_progress(out_dir / PROGRESS)
    if progress.get("agent") != agent.name:
        raise ValueError(f"{out_dir} holds an unfinished run of agent {progress.get('agent')!r}, not {agent.name!r}")
    last = progress_day(progress, "last_day", out_dir / PROGRESS)
    if last is None:
        raise ValueError(f"{out_dir / PROGRESS}: no last_day: the run cannot be resumed (--force replaces the run)")
    env.requested_wake = progress_day(progress, "requested_wake", out_dir / PROGRESS)
    warnings: list[str] = []

    def note(message: str) -> None:
        warnings.append(message)
        warn(message)

    saved = read_partial(out_dir / PARTIAL, note)
    replayed = replay(env, saved, last + timedelta(days=1), out_dir / PARTIAL, with_to_day=False)
    rewrite_partial(out_dir / PARTIAL, replayed)
    if hasattr(agent, "restore"):
        agent.restore(env, list(env.ledger))
    return (env.today - env.start).days, {"from_day": env.today.isoformat(), "forecasts_replayed": len(replayed),
                                          "warnings": warnings}


def read_ledger(run_dir: str | os.PathLike) -> list[LedgerEntry]:
    """A finished run's forecasts (its ``ledger.jsonl``), in ledger order."""
    lines = (Path(run_dir) / "ledger.jsonl").read_text().splitlines()
    return [LedgerEntry(r["question_id"], date.fromisoformat(r["date"]), r["forecast"]) for r in map(json.loads, lines)]


def run_eval(
    snapshot_dir: str | os.PathLike,
    agent: Agent | str,
    out_dir: str | os.PathLike,
    progress: Progress | None = None,
    index: ArticleIndex | None = None,
    start: date | None = None,
    end: date | None = None,
    resume: bool = False,
    policy: WakePolicy | None = None,
    judge: LLMSettings | None = None,
    force: bool = False,
    warn: Warn = warn_stderr,
) -> RunResult:
    """Replay ``snapshot_dir`` to ``agent`` over its window; write ledger.jsonl, scores.parquet, run.json.

    With ``resume``, an interrupted run in ``out_dir`` continues after its last finished day
    (its forecasts are submitted again from the partial ledger, not asked of the agent), and
    scores exactly as an uninterrupted run of a deterministic agent would (``warn`` is told of a
    torn last line of the partial ledger, dropped; pastcast.evaluate.resume). A folder holding a
    run is refused unless ``resume`` (an unfinished one) or ``force`` (replace it); one process
    at a time writes it (``pastcast.evaluate.run_folder``)."""
    agent = get_agent(agent) if isinstance(agent, str) else agent
    snapshot_dir, out_dir = Path(snapshot_dir), Path(out_dir)
    env = ReplayEnvironment(snapshot_dir, start=start, end=end, index=index)  # checks the snapshot first
    lock = claim_run_folder(out_dir, resume=resume, force=force, resumable=True)
    try:
        return _run(env, agent, snapshot_dir, out_dir, progress, resume, policy, judge, warn)
    finally:
        lock.release()


def _run(env: ReplayEnvironment, agent: Agent, snapshot_dir: Path, out_dir: Path, progress: Progress | None,
         resume: bool, policy: WakePolicy | None, judge: LLMSettings | None, warn: Warn) -> RunResult:
    started = utcnow()

    # The ledger streams to a hidden partial file as the run goes (evidence if it crashes, and
    # the state to resume from) and is renamed into place only when the replay completes.
    partial = out_dir / PARTIAL
    policy = policy or EveryDay()
    resuming = resume and partial.is_file() and (out_dir / PROGRESS).is_file()
    wakes: list[dict] = []
    last_wake: date | None = None
    resumed: dict = {}
    if resuming:
        day_index, resumed = _replay_partial(env, agent, out_dir, warn)
        saved = read_progress(out_dir / PROGRESS)
        wakes = saved.get("wakes", [])
        env.triggers = TriggerSet.from_json(saved.get("triggers"))
        last_wake = date.fromisoformat(wakes[-1]["date"]) if wakes else None
    else:
        day_index = 0
    written = len(env.ledger)
    with partial.open("a" if resuming else "w", encoding="utf-8") as ledger_file:
        while not env.done:
            if progress:
                progress(day_index, env.n_days, env.today)
            reasons = wake_reasons(policy, env, last_wake)
            if reasons:
                env.requested_wake = None
                agent.act(env)
                wakes.append({"date": env.today.isoformat(), "reason": reasons[0], "reasons": reasons})
                last_wake = env.today
            for entry in env.ledger[written:]:
                ledger_file.write(ledger_line(entry, agent.name) + "\n")
            written = len(env.ledger)
            ledger_file.flush()
            write_json({"agent": agent.name, "last_day": env.today.isoformat(), "wakes": wakes,
                        "requested_wake": env.requested_wake.isoformat() if env.requested_wake else None,
                        "triggers": env.triggers.to_json()},
                       out_dir / PROGRESS)
            env.advance()
            day_index += 1
        if progress:
            progress(env.n_days, env.n_days, env.end)
    os.replace(partial, out_dir / "ledger.jsonl")
    (out_dir / PROGRESS).unlink(missing_ok=True)

    return finish_run(env, snapshot_dir, out_dir, agent.name, started, {
        "agent_config": {k: v for k, v in vars(agent).items()
                         if not k.startswith("_") and isinstance(v, (bool, int, float, str))},
        "resumed": resuming, **({"resume": resumed} if resumed else {}), "policy": policy.name, "wakes": len(wakes), "wake_reasons": _reasons(wakes),
        "wake_log": [{"date": w["date"], "reasons": w.get("reasons", [w["reason"]])} for w in wakes],
        **({"llm": agent.usage} if isinstance(getattr(agent, "usage", None), dict) else {})},
        judge=judge)


def finish_run(env: ReplayEnvironment, snapshot_dir: Path, out_dir: Path, agent_name: str, started: str,
               extra: dict | None = None, judge: LLMSettings | None = None) -> RunResult:
    """Score a finished replay (its ledger is in ``env``) and write scores.parquet and run.json;
    with ``judge``, an LLM also rules on outcomes the matching rules did not accept."""
    check_integrity(snapshot_dir)  # again: a long replay (a served one: days) must score what it replayed
    questions = read_table(snapshot_dir, "questions").filter(
        pl.col("open_date").is_not_null() & pl.col("resolution_date").is_not_null()
    ).sort("question_id")
    judged = None
    if judge is not None:
        from pastcast.evaluate.judge import judge_matches

        judged = judge_matches(questions, list(env.ledger), judge, out_dir / "match_verdicts.jsonl")
        extra = {**(extra or {}), "match_judge": judge.model, "judge_accepted": len(judged)}
    scores = score_questions(questions, list(env.ledger), env.start, env.end, judged)
    write_parquet(daily_metrics(questions, list(env.ledger), env.start, env.end, judged), out_dir / "daily.parquet")
    consensus = MarketConsensus.from_snapshot(snapshot_dir, questions)
    scores = with_crowd(scores, questions, consensus, env.start, env.end)
    write_parquet(scores, out_dir / "scores.parquet")

    summary = summarise(scores)
    summary["metrics"] = summary_metrics(scores, list(env.ledger), questions)
    manifest = env.manifest
    run = {
        "snapshot": {"name": manifest.get("name"), "version": manifest.get("version"), "path": str(snapshot_dir.resolve())},
        "agent": agent_name,
        "window": {"start": env.start.isoformat(), "end": env.end.isoformat()},
        "days": env.n_days,
        "forecasts_submitted": len(env.ledger),
        **(extra or {}),
        "search": env.search_latency(),
        "closed_without_forecast": int(scores.filter(~pl.col("forecast_made")).height),
        "started": started,
        "finished": utcnow(),
        "code_version": pastcast.__version__,
        "summary": summary,
    }
    write_json(run, out_dir / "run.json")
    return RunResult(out_dir=out_dir, scores=scores, summary=summary, run=run)
