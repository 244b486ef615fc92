"""One replay driven from outside the process: the environment, its run folder, the agent's
memory, and every tool an external agent may call, as JSON-ready values.

``eval serve`` (HTTP), ``eval mcp`` (MCP over stdio or streamable HTTP) and ``eval harness``
(a CLI agent run day by day) all drive a ``ReplaySession``; only the transport differs. The
session holds the snapshot and the answers; what it returns is what ``ReplayEnvironment``'s
public tools give on the current simulated day, and answers and the agent's own scores only
for questions already resolved. When the clock passes the window's end the run is scored
exactly like ``eval run`` (ledger.jsonl, scores.parquet, run.json in the run folder).

A stopped session keeps, beside its partial ledger, a progress file (``.progress.json``: the day
it was on, its wakes, tool calls, and what its caller keeps there); ``resume`` continues it:
the ledger replayed, the clock back on that day (pastcast.evaluate.resume).
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict
from datetime import date, datetime, timedelta
from pathlib import Path

from pastcast.evaluate.environment import ReplayEnvironment
from pastcast.evaluate.notes import Notes, check_note_name
from pastcast.evaluate.policies import EveryDay, WakePolicy, wake_reasons
from pastcast.evaluate.resume import (Warn, check_agent, progress_day, read_partial, read_progress, replay,
                                      rewrite_partial, warn_stderr)
from pastcast.evaluate.triggers import TriggerSet, TriggerTools
from pastcast.evaluate.run_folder import MEMORY, PARTIAL, PROGRESS, RUN_FOLDERS, claim_run_folder, remove_tree
from pastcast.io import write_json
from pastcast.evaluate.runner import finish_run, ledger_line, score_question, utcnow

MAX_K = 100
MAX_ADVANCE_DAYS = 10_000  # far past any window: advancing past the end just ends the replay
MAX_TEXT_CHARS = 20_000  # an article's text in a search hit, when asked for
DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
EARLIEST_DAY = date(1900, 1, 1)
_LOCK_FILE = ".lock"  # claim_run_folder's lock


def short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def jsonable(value):
    """Dates as ISO strings, tuples as lists, recursively: a tool result is plain JSON."""
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def advance_days(value) -> int:
    """Days to advance: an integer in 1..MAX_ADVANCE_DAYS (a bool, a float, a string, null, 0
    or a negative number is refused, never rounded)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ADVANCE_DAYS:
        raise ValueError(f"days must be an integer from 1 to {MAX_ADVANCE_DAYS}, got {short(value)}")
    return value


def clamp_k(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"k must be an integer (clamped to 1..{MAX_K}), got {short(value)}")
    return max(1, min(MAX_K, value))


def flag(value, name: str) -> bool:
    """A true/false argument: a bool only (a string, a number or null is refused, never read as
    one: every transport validates as the session does)."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {short(value)}")
    return value


def parse_day(value, name: str) -> date | None:
    if value is None or value == "":
        return None
    if isinstance(value, str) and DAY.fullmatch(value.strip()):
        try:
            day = date.fromisoformat(value.strip())
        except ValueError:
            pass
        else:
            return max(day, EARLIEST_DAY)  # no article is older; a day before it is that day
    raise ValueError(f"{name} must be a YYYY-MM-DD date, got {short(value)}")


class ReplaySession(TriggerTools):
    """One replay, its ledger file, its memory notes, its scoring at the end. Every method is
    safe to call from several threads (one call at a time touches the environment). The
    agent's triggers (``--policy agent``) are set with ``TriggerTools``' methods."""

    def __init__(self, snapshot_dir: str | os.PathLike, out_dir: str | os.PathLike, agent_name: str = "external",
                 force: bool = False, policy: WakePolicy | None = None, memory_dir: str | os.PathLike | None = None,
                 extra: dict | None = None, hold_folder: bool = False, resume: bool = False,
                 restart_day: bool = False, warn: Warn = warn_stderr):
        """``hold_folder``: keep the run folder's lock once the run is scored, until
        ``release_folder`` (a caller that writes more into it, as the harness does).

        ``resume``: continue the unfinished run in ``out_dir`` (its partial ledger replayed,
        the clock back on the day it stopped on, its wakes and tool calls restored; ``warn`` is
        told of a torn last ledger line, dropped). With ``restart_day`` that day starts again
        (its forecasts and tool calls dropped: the harness runs the agent's day anew), without
        it the agent continues it (an MCP client). Nothing to resume: a new run."""
        self.snapshot_dir, self.out_dir = Path(snapshot_dir), Path(out_dir)
        self.env = ReplayEnvironment(self.snapshot_dir)  # checks the snapshot first
        # what this run creates, removed again if it ends without a forecast
        self._created_dirs = []
        for p in (self.out_dir, *self.out_dir.parents):
            if p.exists():
                break
            self._created_dirs.append(p)
        self._created_lock = not (self.out_dir / _LOCK_FILE).exists()
        # one writer per run folder, never over a finished run unless asked (held while serving)
        self.folder_lock = claim_run_folder(self.out_dir, resume=resume, force=force, resumable=True)
        self.agent_name, self.started = agent_name, utcnow()
        self.policy = policy or EveryDay()
        self.extra = dict(extra or {})
        self.lock = threading.RLock()
        self.memory_dir = Path(memory_dir) if memory_dir is not None else self.out_dir / MEMORY
        self.notes = Notes(self.memory_dir, self.out_dir)
        self._partial = self.out_dir / PARTIAL
        self.result = None
        self.tool_calls: Counter[str] = Counter()
        self.calls_by_day: dict[str, Counter[str]] = {}
        self.wakes: list[str] = []  # the days the agent was woken, in order
        self.wake_log: list[dict] = []  # and why: {date, reasons} (run.json's wake_log)
        self.woken_at: dict[str, float] = {}  # and when (time.monotonic), for wall time per day
        self._last_wake: date | None = None
        self.on_wake: Callable[[], None] | None = None  # called on each wake, before any tool answers
        self.hold_folder, self.closed = hold_folder, False
        self.kept: dict = {}  # what a caller keeps across a resume (the harness: its day records)
        self.resumed: dict | None = None  # what the run record says of a resume
        self._ledger = None
        try:
            if resume:
                self._restore(restart_day, warn)
        except BaseException:  # the stopped run stays as it was, to be resumed or replaced
            self.folder_lock.release()
            raise
        try:
            self._ledger = self._partial.open("a" if self.resumed else "w", encoding="utf-8")
            if self.resumed:
                self._save_progress()
            else:
                self._wake()
        except BaseException:
            if self._ledger is not None:
                self._ledger.close()
            if self.resumed:
                self.folder_lock.release()
            else:
                self._discard()
            raise

    # -- resume -----------------------------------------------------------------------------
    def _restore(self, restart_day: bool, warn: Warn) -> None:
        """The stopped run's state, back: its forecasts replayed onto the environment up to the
        day it was on, the partial ledger rewritten to exactly those, wakes and counts."""
        path = self.out_dir / PROGRESS
        progress = read_progress(path)
        if not self._partial.is_file():
            return  # nothing was kept (a run without forecasts leaves nothing): a new run
        warnings: list[str] = []

        def note(message: str) -> None:
            warnings.append(message)
            warn(message)

        saved = read_partial(self._partial, note)
        check_agent(saved, progress, self.agent_name, self.out_dir)
        last = max((s.entry.date for s in saved), default=None)
        # the day it was on (a partial ledger from before progress files: its last forecast's)
        day = progress_day(progress, "today", path) or last or self.env.start
        if last is not None and last > day and not restart_day:
            day = last
        replayed = replay(self.env, saved, day, self._partial, with_to_day=not restart_day)
        rewrite_partial(self._partial, replayed)
        today = self.env.today.isoformat()
        self.wakes = [w for w in progress.get("wakes", []) if isinstance(w, str) and w <= today]
        self.wake_log = [w for w in progress.get("wake_log", []) if isinstance(w, dict) and str(w.get("date")) <= today]
        self.env.triggers = TriggerSet.from_json(progress.get("triggers"))
        if not self.env.done and today not in self.wakes:
            self.wakes.append(today)
            self.wake_log.append({"date": today, "reasons": ["resumed"]})
        self._last_wake = self.env.today if not self.env.done else progress_day(progress, "last_wake", path)
        self.env.requested_wake = progress_day(progress, "requested_wake", path)
        self.woken_at[today] = time.monotonic()
        self.calls_by_day = {d: Counter(c) for d, c in (progress.get("calls_by_day") or {}).items()
                             if d < today or (d == today and not restart_day)}
        self.tool_calls = sum(self.calls_by_day.values(), Counter())
        self.kept = dict(progress.get("kept") or {})
        self.resumed = {"from_day": today, "forecasts_replayed": len(replayed), "restart_day": restart_day,
                        "warnings": warnings}
        self.extra["resume"] = self.resumed

    def _save_progress(self) -> None:
        """Where the run is, beside its partial ledger (atomically): what ``resume`` restores."""
        env = self.env
        write_json({"agent": self.agent_name, "today": env.today.isoformat(),
                    "last_wake": self._last_wake.isoformat() if self._last_wake else None,
                    "requested_wake": env.requested_wake.isoformat() if env.requested_wake else None,
                    "wakes": self.wakes, "wake_log": self.wake_log, "policy": self.policy.name,
                    "triggers": env.triggers.to_json(),
                    "calls_by_day": {d: dict(c) for d, c in sorted(self.calls_by_day.items())},
                    "kept": self.kept}, self.out_dir / PROGRESS)

    def keep(self, key: str, value) -> None:
        """Keep ``value`` in the progress file under ``key`` (``kept`` after a resume)."""
        with self.lock:
            self.kept[key] = value
            if self.result is None and not self.closed:
                self._save_progress()

    # -- bookkeeping ------------------------------------------------------------------------
    def count(self, tool: str) -> None:
        """A tool call, counted for the run record (by name, and by simulated day)."""
        with self.lock:
            self.tool_calls[tool] += 1
            self.calls_by_day.setdefault(self.env.today.isoformat(), Counter())[tool] += 1

    def _wake(self) -> None:
        """Move on to the first day the policy wakes the agent (today, if it does)."""
        reasons: list[str] = []
        while not self.env.done and not (reasons := wake_reasons(self.policy, self.env, self._last_wake)):
            self.env.advance()
        if not self.env.done:
            self.env.requested_wake = None
            self._last_wake = self.env.today
            self.wakes.append(self.env.today.isoformat())
            self.wake_log.append({"date": self.env.today.isoformat(), "reasons": reasons})
            self.woken_at[self.env.today.isoformat()] = time.monotonic()
            self._save_progress()
            if self.on_wake is not None:
                self.on_wake()

    def _check_open(self) -> None:
        if self.closed:
            raise ValueError("the replay is closed")

    def day_stats(self, day: str) -> tuple[dict[str, int], int]:
        """Tool calls by name and forecasts submitted on ``day``."""
        with self.lock:
            calls = dict(sorted(self.calls_by_day.get(day, Counter()).items()))
            return calls, sum(1 for e in self.env.ledger if e.date.isoformat() == day)

    def wake_times(self) -> tuple[list[str], dict[str, float]]:
        with self.lock:
            return list(self.wakes), dict(self.woken_at)

    def advance_if_today(self, day: str) -> bool:
        """Advance one day if today is still ``day`` (the agent did not end it): one step under
        the lock, so an agent's own ``next_day`` in between is never doubled."""
        with self.lock:
            if self.env.done or self.env.today.isoformat() != day:
                return False
            self.advance(1)
            return True

    # -- tools ------------------------------------------------------------------------------
    def state(self) -> dict:
        with self.lock:
            env = self.env
            return {"date": env.today.isoformat(), "today": env.today.isoformat(),
                    "start": env.start.isoformat(), "end": env.end.isoformat(), "done": env.done,
                    "forecasts": len(env.ledger), "agent": self.agent_name, "policy": self.policy.name}

    def questions(self) -> dict:
        """The open questions (no answers), each with the agent's standing forecast."""
        with self.lock:
            standing = {e.question_id: dict(e.forecast) for e in self.env.ledger}
            return {"date": self.env.today.isoformat(),
                    "questions": [{**jsonable(asdict(q)), "your_forecast": standing.get(q.question_id)}
                                  for q in self.env.open_questions()]}

    def _search(self, posts: bool, query, k, from_date, to_date, full_text: bool = False) -> dict:
        if not isinstance(query, str):
            raise ValueError(f"query must be a string, got {short(query)}")
        k = clamp_k(10 if k is None else k)
        full_text = flag(full_text, "full_text")
        since, until = parse_day(from_date, "from_date"), parse_day(to_date, "to_date")
        with self.lock:
            today, notes = self.env.today, []
            if until is not None and until > today:
                notes.append(f"to_date {until} is after today ({today}): searched through {today}")
            if since is not None and since > today:
                notes.append(f"from_date {since} is after today ({today}): nothing is published yet")
            search = self.env.search_posts if posts else self.env.search
            hits = search(query, k=k, since=since, until=until)
        out = []
        for h in hits:
            hit = {"id": h.article_id, "title": h.title, "published_at": h.published_at.isoformat(),
                   "score": h.score, "snippet": h.snippet}
            if full_text:
                hit["text"] = h.text[:MAX_TEXT_CHARS]
            out.append(hit)
        return {"date": today.isoformat(), "query": query, "hits": out, **({"note": "; ".join(notes)} if notes else {})}

    def search_news(self, query, k=10, from_date=None, to_date=None, full_text: bool = False) -> dict:
        return self._search(False, query, k, from_date, to_date, full_text)

    def search_posts(self, query, k=10, from_date=None, to_date=None) -> dict:
        return self._search(True, query, k, from_date, to_date)

    def market_consensus(self, question_id) -> dict:
        if not isinstance(question_id, str):
            raise ValueError(f"question_id must be a string, got {short(question_id)}")
        with self.lock:
            return {"date": self.env.today.isoformat(), "question_id": question_id,
                    "consensus": self.env.market_consensus(question_id)}

    def submit_forecast(self, question_id, outcomes) -> dict:
        """Validated as ``eval run`` validates (InvalidForecast names the reason)."""
        self._check_open()
        if not isinstance(question_id, str):
            raise ValueError(f"question_id must be a string, got {short(question_id)}")
        with self.lock:
            if self.env.done:
                raise ValueError("the replay is over")
            entry = self.env.submit(question_id, outcomes)
            self._ledger.write(ledger_line(entry, self.agent_name) + "\n")
            self._ledger.flush()
            return {"question_id": entry.question_id, "date": entry.date.isoformat(), "forecast": dict(entry.forecast)}

    def _resolved(self, since: date | None = None) -> list[dict]:
        """Resolved questions (resolved after ``since``, when given) with answers and the
        agent's own scores."""
        env = self.env
        history: dict[str, list[tuple[date, dict]]] = {}
        for e in env.ledger:
            history.setdefault(e.question_id, []).append((e.date, dict(e.forecast)))
        # scored as eval run scores (the matching rules; an LLM judge, when a run has one, rules
        # only at the end)
        return [{**jsonable(asdict(q)), **score_question(history.get(q.question_id, []), q.answer, q.answer_aliases,
                                                          q.open_date, q.resolution_date, env.start, env.end)}
                for q in env.resolved() if since is None or q.resolution_date > since]

    def resolved_questions(self) -> dict:
        with self.lock:
            return {"date": self.env.today.isoformat(), "questions": self._resolved()}

    def advance(self, days=1) -> dict:
        """Advance ``days``, then on to the day the policy next wakes the agent (why:
        ``woken_because``); what resolved meanwhile (answers, the agent's scores), how many
        articles were published meanwhile, and, once past the window's end, the scored run's
        summary."""
        days = advance_days(days)
        with self.lock:
            self._check_open()
            env = self.env
            if env.done:
                raise ValueError("the replay is over")
            before = env.today
            env.sleep(days)  # the policy "sleep" wakes on it; the others decide for themselves
            for _ in range(days):
                if env.done:
                    break
                env.advance()
            self._wake()
            through = min(env.today, env.end)
            out = {**self.state(), "previous_date": before.isoformat(),
                   "resolved": [q for q in self._resolved(since=before) if q["resolution_date"] <= through.isoformat()],
                   "new_articles": env.articles_published(before + timedelta(days=1), through)}
            if not env.done:
                out["woken_because"] = self.wake_log[-1]["reasons"]
            if env.done:
                self._finish()
                out["summary"] = self.result.summary
            return out

    # -- memory -----------------------------------------------------------------------------
    # notes are confined to their folder (pastcast.evaluate.notes): the agent may have a shell
    # in it, and a link there must never lead a note's read or write anywhere else
    def memory_write(self, name, text, append: bool = False) -> dict:
        self._check_open()
        check_note_name(name)
        if not isinstance(text, str):
            raise ValueError(f"text must be a string, got {short(text)}")
        with self.lock:
            if self.result is not None or self.env.done:  # answers are out: a note now could carry them
                raise ValueError("the replay is over: notes can no longer be written")
            size = self.notes.write(name, text, append=append)
            return {"name": name, "bytes": size, "date": self.env.today.isoformat()}

    def memory_read(self, name=None) -> dict:
        self._check_open()
        with self.lock:
            if name is None or name == "":
                return {"notes": self.notes.list()}
            return {"name": name, "text": self.notes.read(name)}

    # -- the end ----------------------------------------------------------------------------
    def _finish(self) -> None:
        if self.result is not None:
            return
        if not self._ledger.closed:
            self._ledger.close()
            os.replace(self._partial, self.out_dir / "ledger.jsonl")
        try:
            self.result = finish_run(self.env, self.snapshot_dir, self.out_dir, self.agent_name, self.started, {
                "policy": self.policy.name, "wakes": len(self.wakes), "wake_log": self.wake_log,
                "tool_calls": dict(sorted(self.tool_calls.items())), **self.extra})
            (self.out_dir / PROGRESS).unlink(missing_ok=True)  # scored: nothing to resume
        finally:
            if not self.hold_folder:
                self.folder_lock.release()  # the run is written: the folder is free

    def release_folder(self) -> None:
        self.folder_lock.release()

    def finish(self) -> dict:
        """Advance to the window's end (no more wakes) and score the run."""
        with self.lock:
            while not self.env.done:
                self.env.advance()
            self._finish()
            return self.result.summary

    def close(self) -> bool:
        """End the run (its transport has stopped). A finished run is left as written. An
        unfinished one without a forecast is removed with whatever it created (its partial
        ledger, memory, the lock, folders), so the folder can be used again without
        ``--force``; one with forecasts keeps its partial ledger (True: an unfinished run is
        left)."""
        with self.lock:
            self.closed = True  # a transport still up (a request in flight) changes nothing now
            if self.result is not None:
                self.folder_lock.release()
                return False
            if self._ledger is not None and not self._ledger.closed:
                self._ledger.close()
                self._save_progress()  # the day's tool calls too
            # forecasts, a ledger scoring failed on, or a resumed run (its notes predate us)
            if self.env.ledger or self.env.done or self.resumed:
                self.folder_lock.release()
                return True
            self._discard()
            return False

    def _discard(self) -> None:
        """Remove this unfinished run's own files, then free the folder."""
        try:
            self._partial.unlink(missing_ok=True)
            (self.out_dir / PROGRESS).unlink(missing_ok=True)
            for name in RUN_FOLDERS:  # notes, workspace, logs of a run that left no forecast
                try:
                    remove_tree(self.out_dir / name)
                except OSError:
                    pass
            if self._created_lock:
                (self.out_dir / _LOCK_FILE).unlink(missing_ok=True)
            for folder in self._created_dirs:  # deepest first; one that is not empty stays
                try:
                    folder.rmdir()
                except OSError:
                    break
        finally:
            self.folder_lock.release()
