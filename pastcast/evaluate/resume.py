"""What a stopped run resumes from: its partial ledger (``.ledger.jsonl.partial``, one JSON line
per forecast, appended as the run goes) and its progress file (``.progress.json``, the day it
reached and the state kept beside the ledger), shared by ``eval run`` and the served replays
(``eval serve``, ``eval mcp``, ``eval harness``).

A crash mid-write can tear the partial ledger's LAST line: that line is dropped with a warning
naming the file and line, and the run resumes without it (the forecast it held belonged to the
day being written, which is asked again or continued). A damaged line anywhere else is not a
crash's trace: resuming stops with an error naming the file and line, and nothing is changed.
Once replayed, the partial ledger is rewritten (atomically) to hold exactly the replayed
forecasts, so the lines appended next never follow a torn one or repeat a dropped day.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from pastcast.evaluate.environment import LedgerEntry, ReplayEnvironment
from pastcast.evaluate.scoring import InvalidForecast
from pastcast.io import loads_json, warn, write_text

Warn = Callable[[str], None]
REPLACE_HINT = "--force replaces the run"


warn_stderr = warn  # the default for a resume's warnings: stderr (stdout may be an MCP client's channel)


@dataclass(frozen=True)
class SavedForecast:
    """One line of a partial ledger: where it is, what it holds, and its text as written."""

    line: int
    entry: LedgerEntry
    agent: str | None
    text: str


def _forecast(raw: bytes) -> tuple[LedgerEntry, str | None, str]:
    """One ledger line, or ValueError saying what is wrong with it."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    try:
        row = loads_json(text)
    except ValueError as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(row, dict):
        raise ValueError(f"not a JSON object ({type(row).__name__})")
    qid, day, forecast, agent = row.get("question_id"), row.get("date"), row.get("forecast"), row.get("agent")
    if not isinstance(qid, str):
        raise ValueError("question_id is not a string")
    try:
        when = date.fromisoformat(day) if isinstance(day, str) else None
    except ValueError:
        when = None
    if when is None:
        raise ValueError(f"date is not a YYYY-MM-DD date ({str(day)[:40]!r})")
    if not isinstance(forecast, dict):
        raise ValueError("forecast is not an object")
    if agent is not None and not isinstance(agent, str):
        raise ValueError("agent is not a string")
    return LedgerEntry(qid, when, forecast), agent, text


def read_partial(path: Path, warn: Warn = warn_stderr) -> list[SavedForecast]:
    """The forecasts of a partial ledger in file order; a torn last line is dropped (``warn``
    names it), a damaged line before it is a ``ValueError`` naming the file and line."""
    lines = path.read_bytes().split(b"\n")
    numbered = [(n, raw) for n, raw in enumerate(lines, 1) if raw.strip()]
    saved = []
    for i, (n, raw) in enumerate(numbered):
        try:
            entry, agent, text = _forecast(raw)
        except ValueError as exc:
            if i == len(numbered) - 1:
                warn(f"{path} line {n}: torn last line dropped ({exc}): a crash while it was written; "
                     f"the run resumes from the line before")
                break
            raise ValueError(f"{path} line {n}: damaged ledger line ({exc}), not the last line a crash could "
                             f"tear: the run cannot be resumed ({REPLACE_HINT})") from None
        saved.append(SavedForecast(n, entry, agent, text))
    return saved


def read_progress(path: Path) -> dict:
    """A run's progress file ({} when there is none); one that is not a JSON object is an
    error naming it (it is written atomically: damage is not a crash's)."""
    if not path.is_file():
        return {}
    try:
        progress = loads_json(path.read_bytes())
    except ValueError as exc:
        raise ValueError(f"{path}: damaged progress file ({exc}): the run cannot be resumed ({REPLACE_HINT})") from None
    if not isinstance(progress, dict):
        raise ValueError(f"{path}: damaged progress file (not a JSON object): the run cannot be resumed "
                         f"({REPLACE_HINT})")
    return progress


def progress_day(progress: dict, key: str, path: Path) -> date | None:
    """A day of the progress file (None when absent), or an error naming the file and key."""
    value = progress.get(key)
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except (TypeError, ValueError):
        raise ValueError(f"{path}: {key} is not a YYYY-MM-DD date ({str(value)[:40]!r}): the run cannot be "
                         f"resumed ({REPLACE_HINT})") from None


def check_agent(saved: Iterable[SavedForecast], progress: dict, agent: str, out_dir: Path) -> None:
    """A run is resumed only by the agent it was made by (another would inherit its forecasts)."""
    theirs = progress.get("agent") or next((s.agent for s in saved if s.agent), None)
    if theirs is not None and theirs != agent:
        raise ValueError(f"{out_dir} holds an unfinished run of agent {theirs!r}, not {agent!r}")


def replay(env: ReplayEnvironment, saved: list[SavedForecast], to_day: date, path: Path,
           with_to_day: bool) -> list[SavedForecast]:
    """Move ``env``'s clock from its start to ``to_day`` (or the window's end), submitting each
    saved forecast on its own day, those of ``to_day`` too when ``with_to_day``; returns the
    forecasts replayed (later ones are the stopped day's, dropped). A forecast the replay
    refuses is a damaged ledger: an error naming the file and line."""
    by_day: dict[date, list[SavedForecast]] = defaultdict(list)
    for s in saved:
        by_day[s.entry.date].append(s)
    replayed: list[SavedForecast] = []

    def submit_day() -> None:
        for s in by_day.pop(env.today, []):
            try:
                env.submit(s.entry.question_id, s.entry.forecast)
            except InvalidForecast as exc:
                raise ValueError(f"{path} line {s.line}: refused on replay ({exc.reason}): the run cannot be "
                                 f"resumed ({REPLACE_HINT})") from None
            replayed.append(s)

    while not env.done and env.today < to_day:
        submit_day()
        env.advance()
    if with_to_day and not env.done:
        submit_day()
    early = [s for day, rows in by_day.items() if day < env.today for s in rows]
    if early:  # before the window, or on a day the replay passed without it: not this run's
        s = min(early, key=lambda s: s.line)
        raise ValueError(f"{path} line {s.line}: dated {s.entry.date}, outside the replayed days "
                         f"{env.start}..{env.today}: the run cannot be resumed ({REPLACE_HINT})")
    return replayed


def rewrite_partial(path: Path, saved: list[SavedForecast]) -> None:
    """The partial ledger holding exactly ``saved`` (atomically): a torn line or a dropped
    day's forecasts never stay in front of the lines appended next."""
    write_text("".join(s.text + "\n" for s in saved), path)

