"""Score an external agent's forecasts, given as JSON lines, against a snapshot.

Each line: ``{"question_id": ..., "date": "YYYY-MM-DD", "forecast": {"outcome": p, ...}}``
with an optional ``"agent"``. A line is accepted only if the replay environment could have
taken it on that day: the question exists, the date is inside the snapshot's replay window
and the question is open (open_date <= date < resolution_date), the forecast passes
``scoring.validate``, and (when it names one) the agent is the run's agent. Rejected lines
are listed with their line number and reason and never scored. Accepted lines are stably
sorted by date (file order within a day, as the environment's ledger would be) and scored
by the same ``score_questions`` as ``eval run``.

One question, one date, one forecast. A file says nothing about the order of forecasts
within a day (``eval run``'s ledger does: there a later same-day submission revises an
earlier one), so among the lines that pass every other check:

- an exact repeat of an earlier line's forecast for the same question and date (the same
  outcomes, in the same order, with the same probabilities, after ``validate``'s stripping)
  is counted once: the first line is kept, the repeats are neither scored nor rejected
  (``run.json``'s ``repeats`` counts them);
- two different forecasts for the same question and date reject every line of that question
  and date as ``conflicting_forecasts`` (the detail names all their line numbers); none of
  them is scored, the question's other days are. Outcome order counts as a difference: it
  decides the first matching outcome and breaks accuracy ties.

The file is read as bytes and split on newlines only (a U+2028 inside a JSON string does not
end a line); a line that is not UTF-8 text is ``malformed``; a leading byte-order mark is
ignored. A forecasts file that cannot be read is a ``ValueError`` naming it (a missing one
stays ``FileNotFoundError``), raised before the run folder is claimed.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import polars as pl

import pastcast
from pastcast.evaluate.consensus import MarketConsensus
from pastcast.evaluate.environment import LedgerEntry, ReplayEnvironment
from pastcast.evaluate.run_folder import claim_run_folder
from pastcast.evaluate.metrics import summary_metrics
from pastcast.evaluate.runner import ledger_line, score_questions, summarise, utcnow, with_crowd
from pastcast.evaluate.scoring import InvalidForecast, validate
from pastcast.io import loads_json, write_json, write_parquet, write_text
from pastcast.store import read_table

DEFAULT_AGENT = "external"
REASONS = ("malformed", "unknown_question", "agent_mismatch", "outside_window", "before_open",
           "on_or_after_resolution", "invalid_forecast", "conflicting_forecasts")


@dataclass(frozen=True)
class Rejection:
    line: int  # 1-based line number in the forecasts file
    reason: str  # one of REASONS
    detail: str
    question_id: str | None = None


@dataclass(frozen=True)
class ExternalResult:
    out_dir: Path
    scores: pl.DataFrame
    accepted: list[LedgerEntry]
    rejected: list[Rejection]
    run: dict
    repeats: list[int] = ()  # line numbers of exact repeats, counted once


@dataclass(frozen=True)
class Checked:
    accepted: list[LedgerEntry]  # sorted by date, file order within a day
    rejected: list[Rejection]  # in line order
    repeats: list[int]  # line numbers of exact repeats (neither scored nor rejected)
    agent: str


def _load_questions(snapshot_dir: Path) -> pl.DataFrame:
    return read_table(snapshot_dir, "questions").filter(
        pl.col("open_date").is_not_null() & pl.col("resolution_date").is_not_null()
    ).sort("question_id")


def check_lines(lines: list[str | bytes], questions: pl.DataFrame, start: date, end: date,
                agent: str | None = None) -> tuple[list[LedgerEntry], list[Rejection], str]:
    """Split forecast lines into accepted ledger entries (sorted by date, stable) and
    rejections; returns (accepted, rejected, agent). With ``agent`` None the run's agent is
    the first one a line names, else "external". Blank lines are skipped; see
    ``check_forecasts`` for repeats and conflicts."""
    checked = check_forecasts(lines, questions, start, end, agent)
    return checked.accepted, checked.rejected, checked.agent


def check_forecasts(lines: list[str | bytes], questions: pl.DataFrame, start: date, end: date,
                    agent: str | None = None) -> Checked:
    """``check_lines`` with the exact repeats reported: each line (text, or bytes decoded as
    UTF-8) is checked alone, then the survivors are grouped by question and date (the module
    docstring's rule)."""
    known = {q["question_id"]: q for q in questions.select("question_id", "open_date", "resolution_date").iter_rows(named=True)}
    accepted: list[tuple[int, LedgerEntry]] = []
    rejected: list[Rejection] = []
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        qid = None
        try:
            if isinstance(raw, bytes):
                try:
                    raw = raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise ValueError(f"the line is not UTF-8 text ({e.reason} at byte {e.start})") from None
            obj = loads_json(raw)
            if not isinstance(obj, dict):
                raise ValueError("a line must be a JSON object")
            qid = obj.get("question_id")
            if not isinstance(qid, str) or not qid:
                raise ValueError("question_id must be a non-empty string")
            if not isinstance(obj.get("date"), str):
                raise ValueError("date must be a YYYY-MM-DD string")
            day = date.fromisoformat(obj["date"])
            if "forecast" not in obj:
                raise ValueError("forecast is missing")
            line_agent = obj.get("agent")
            if line_agent is not None and not isinstance(line_agent, str):
                raise ValueError("agent must be a string")
        except ValueError as e:  # json.JSONDecodeError is a ValueError
            rejected.append(Rejection(n, "malformed", str(e), qid if isinstance(qid, str) else None))
            continue
        if line_agent is not None:
            agent = agent or line_agent
            if line_agent != agent:
                rejected.append(Rejection(n, "agent_mismatch", f"line is by {line_agent!r}, the run is {agent!r}", qid))
                continue
        q = known.get(qid)
        if q is None:
            rejected.append(Rejection(n, "unknown_question", f"unknown question {qid!r}", qid))
            continue
        if not start <= day <= end:
            rejected.append(Rejection(n, "outside_window", f"{day} is outside the replay window {start}..{end}", qid))
            continue
        if day < q["open_date"]:
            rejected.append(Rejection(n, "before_open", f"{day} is before the question opens ({q['open_date']})", qid))
            continue
        if day >= q["resolution_date"]:
            rejected.append(Rejection(n, "on_or_after_resolution",
                                      f"{day} is on or after the resolution date ({q['resolution_date']})", qid))
            continue
        try:
            forecast = validate(obj["forecast"])
        except InvalidForecast as e:
            rejected.append(Rejection(n, "invalid_forecast", e.reason, qid))
            continue
        accepted.append((n, LedgerEntry(qid, day, forecast)))
    accepted, conflicts, repeats = _one_forecast_a_day(accepted)
    rejected = sorted(rejected + conflicts, key=lambda r: r.line)
    accepted.sort(key=lambda ne: (ne[1].date, ne[0]))
    return Checked([e for _, e in accepted], rejected, repeats, agent or DEFAULT_AGENT)


def _one_forecast_a_day(candidates: list[tuple[int, LedgerEntry]]
                        ) -> tuple[list[tuple[int, LedgerEntry]], list[Rejection], list[int]]:
    """Keep one line per (question, date): the first of exact repeats; none where they differ."""
    groups: dict[tuple[str, date], list[tuple[int, LedgerEntry]]] = {}
    for n, entry in candidates:
        groups.setdefault((entry.question_id, entry.date), []).append((n, entry))
    kept, conflicts, repeats = [], [], []
    for (qid, day), group in groups.items():
        first = list(group[0][1].forecast.items())
        if all(list(e.forecast.items()) == first for _, e in group[1:]):
            kept.append(group[0])
            repeats.extend(n for n, _ in group[1:])
            continue
        lines = ", ".join(str(n) for n, _ in group)
        for n, _ in group:
            conflicts.append(Rejection(n, "conflicting_forecasts",
                                       f"lines {lines} give different forecasts for {qid!r} on {day}: "
                                       f"none of them is scored", qid))
    return kept, conflicts, sorted(repeats)


def read_forecast_lines(forecasts_file: str | os.PathLike) -> list[bytes]:
    """The file's lines as bytes (split on newlines only, a leading BOM dropped). Raises
    FileNotFoundError when it is missing, ValueError naming it when it cannot be read."""
    path = Path(forecasts_file)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"no forecasts file {str(path)!r}") from None
    except OSError as exc:  # a directory, no permission, an I/O error
        raise ValueError(f"cannot read the forecasts file {str(path)!r}: {exc.strerror or exc}") from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.split(b"\n")


def score_external(snapshot_dir: str | os.PathLike, forecasts_file: str | os.PathLike,
                   out_dir: str | os.PathLike, agent: str | None = None, force: bool = False) -> ExternalResult:
    """Check and score ``forecasts_file``; write ledger.jsonl, rejected.jsonl, scores.parquet
    and run.json to ``out_dir`` (each atomically). A folder holding a run is refused unless
    ``force`` (``pastcast.evaluate.run_folder``)."""
    snapshot_dir, forecasts_file, out_dir = Path(snapshot_dir), Path(forecasts_file), Path(out_dir)
    started = utcnow()
    env = ReplayEnvironment(snapshot_dir)  # the same window and manifest as `eval run`
    lines = read_forecast_lines(forecasts_file)  # a bad file claims no run folder
    lock = claim_run_folder(out_dir, force=force)
    try:
        return _score(env, snapshot_dir, forecasts_file, lines, out_dir, agent, started)
    finally:
        lock.release()


def _score(env: ReplayEnvironment, snapshot_dir: Path, forecasts_file: Path, lines: list[bytes], out_dir: Path,
           agent: str | None, started: str) -> ExternalResult:
    questions = _load_questions(snapshot_dir)
    checked = check_forecasts(lines, questions, env.start, env.end, agent)
    accepted, rejected, agent = checked.accepted, checked.rejected, checked.agent

    scores = score_questions(questions, accepted, env.start, env.end)
    scores = with_crowd(scores, questions, MarketConsensus.from_snapshot(snapshot_dir, questions), env.start, env.end)

    out_dir.mkdir(parents=True, exist_ok=True)
    write_text("".join(ledger_line(e, agent) + "\n" for e in accepted), out_dir / "ledger.jsonl")
    write_text("".join(json.dumps({"line": r.line, "reason": r.reason, "detail": r.detail,
                                   "question_id": r.question_id}, ensure_ascii=False) + "\n"
                       for r in rejected), out_dir / "rejected.jsonl")
    write_parquet(scores, out_dir / "scores.parquet")

    summary = summarise(scores)
    summary["metrics"] = summary_metrics(scores, accepted, questions)
    manifest = env.manifest
    run = {
        "snapshot": {"name": manifest.get("name"), "version": manifest.get("version"),
                     "path": str(snapshot_dir.resolve())},
        "agent": agent,
        "source": {"kind": "external", "forecasts": str(forecasts_file.resolve())},
        "window": {"start": env.start.isoformat(), "end": env.end.isoformat()},
        "days": env.n_days,
        "forecasts_submitted": len(accepted),
        "accepted": len(accepted),
        "rejected": len(rejected),
        "rejected_by_reason": dict(sorted(Counter(r.reason for r in rejected).items())),
        "repeats": len(checked.repeats),
        "started": started,
        "finished": utcnow(),
        "code_version": pastcast.__version__,
        "summary": summary,
    }
    write_json(run, out_dir / "run.json")
    return ExternalResult(out_dir=out_dir, scores=scores, accepted=accepted, rejected=rejected, run=run,
                          repeats=checked.repeats)
