"""The replay environment: a daily UTC clock over a snapshot, and the tools an agent may use.

Agents only ever see the present: open questions without answers, search gated at today,
and answers of questions that have already resolved. The answer table is held in a private
attribute and only copied out for resolved questions.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import polars as pl

from pastcast.evaluate.consensus import MarketConsensus
from pastcast.search.index import ArticleIndex, Hit
from pastcast.search.index_store import open_or_build
from pastcast.evaluate.scoring import InvalidForecast, validate
from pastcast.evaluate.triggers import TriggerSet
from pastcast.snapshot import MANIFEST, check_integrity, read_manifest
from pastcast.store import has_table, read_table

ANSWER_FIELDS = ("answer", "answer_aliases")


@dataclass(frozen=True)
class OpenQuestion:
    """What an agent may see of a question while it is open: no answer fields."""

    question_id: str
    title: str
    background: str
    resolution_criteria: str
    answer_type: str
    candidate_outcomes: tuple[str, ...]
    open_date: date
    resolution_date: date


@dataclass(frozen=True)
class ResolvedQuestion(OpenQuestion):
    answer: str
    answer_aliases: tuple[str, ...]


@dataclass(frozen=True)
class LedgerEntry:
    question_id: str
    date: date
    forecast: Mapping[str, float]


def _public(row: dict) -> dict:
    return {
        "question_id": row["question_id"],
        "title": row["title"] or "",
        "background": row["background"] or "",
        "resolution_criteria": row["resolution_criteria"] or "",
        "answer_type": row["answer_type"] or "",
        "candidate_outcomes": tuple(row["candidate_outcomes"] or ()),
        "open_date": row["open_date"],
        "resolution_date": row["resolution_date"],
    }


class ReplayEnvironment:
    def __init__(
        self,
        snapshot_dir: str | os.PathLike,
        start: date | None = None,
        end: date | None = None,
        index: ArticleIndex | None = None,
    ):
        # The snapshot path and the index stay private: the index can search any date and the
        # folder holds the answers. In-process agents could still dig them out (it is Python);
        # the public API simply never offers a way.
        self._snapshot_dir = Path(snapshot_dir)
        check_integrity(self._snapshot_dir)  # an edited, truncated or deleted table is refused, named
        # a bare folder of tables (tests, hand-made snapshots) may have no manifest
        has_manifest = (self._snapshot_dir / MANIFEST).is_file()
        self.manifest = read_manifest(self._snapshot_dir) if has_manifest else {}
        questions = read_table(self._snapshot_dir, "questions").filter(
            pl.col("open_date").is_not_null() & pl.col("resolution_date").is_not_null()
        )
        rows = questions.sort("open_date", "question_id").to_dicts()
        self._questions = {r["question_id"]: _public(r) for r in rows}
        # Private: answers leave this dict only through resolved(), once the clock has passed them.
        self.__answers = {
            r["question_id"]: (r["answer"] or "", tuple(r["answer_aliases"] or ())) for r in rows
        }
        window = self.manifest.get("window") or {}
        self.start = start or (date.fromisoformat(window["start"]) if window.get("start") else None) or min(
            (q["open_date"] for q in self._questions.values()), default=date.today()
        )
        self.end = end or (date.fromisoformat(window["end"]) if window.get("end") else None) or max(
            (q["resolution_date"] for q in self._questions.values()), default=self.start
        )
        if self.end < self.start:
            raise ValueError(f"replay window ends ({self.end}) before it starts ({self.start})")
        self.today = self.start
        self._index = index
        self._post_index: ArticleIndex | None = None
        self._has_posts = has_table(self._snapshot_dir, "posts")
        self._ledger: list[LedgerEntry] = []
        self.requested_wake: date | None = None  # set by sleep(); read by the Sleep policy
        self.triggers = TriggerSet()  # set by the agent; read by the AgentTriggers policy (--policy agent)
        self._search_ms: list[float] = []
        # Private like the index: it holds prices of every day, including later ones.
        self._consensus = MarketConsensus.from_snapshot(self._snapshot_dir, questions)

    # -- clock ---------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.today > self.end

    @property
    def n_days(self) -> int:
        return (self.end - self.start).days + 1

    def advance(self, days: int = 1) -> date:
        """Move the clock forward (never back); returns the new today."""
        if days < 1:
            raise ValueError("the clock only moves forward")
        if self.done:
            raise RuntimeError("the replay is over")
        self.today += timedelta(days=days)
        return self.today

    # -- tools ---------------------------------------------------------------------------
    def _article_index(self) -> ArticleIndex:
        if self._index is None:  # built lazily: an agent that never searches never pays for it
            self._index = open_or_build(self._snapshot_dir, trust_snapshot_copy=False)
        return self._index

    def is_open(self, question_id: str) -> bool:
        q = self._questions.get(question_id)
        return q is not None and q["open_date"] <= self.today < q["resolution_date"]

    def open_questions(self) -> list[OpenQuestion]:
        return [OpenQuestion(**q) for qid, q in self._questions.items() if self.is_open(qid)]

    def _through(self, until: date | None) -> date:
        """The last day a search may see: today, or an earlier ``until`` (never a later one)."""
        return self.today if until is None else min(until, self.today)

    def search(self, query: str, k: int = 10, since: date | None = None, until: date | None = None) -> list[Hit]:
        """The ``k`` best articles published on or before today (UTC), within ``since`` ..
        ``until`` when given (an ``until`` after today is today: the gate comes first)."""
        index = self._article_index()
        started = time.perf_counter()
        hits = index.search(query, self._through(until), k, since=since)
        self._search_ms.append((time.perf_counter() - started) * 1000)
        return hits

    def articles_published(self, since: date, through: date) -> int:
        """How many searchable articles were published over ``since`` .. ``through`` (capped
        at today)."""
        return self._article_index().count_published(since, self._through(through))

    def published_matching(self, query: str, day: date, k: int) -> list[str]:
        """The ids of up to ``k`` articles published on ``day`` (UTC, not after today) that match
        ``query`` as ``search`` matches it (a trigger's check: not counted as the agent's search)."""
        if day > self.today:
            raise ValueError(f"{day} is after today ({self.today})")
        return [h.article_id for h in self._article_index().search(query, day, k, snippets=False, since=day)]

    def search_latency(self) -> dict:
        """Searches made so far and their latency (ms), for the run record."""
        times = sorted(self._search_ms)
        if not times:
            return {"searches": 0}
        pick = lambda q: round(times[min(len(times) - 1, int(q * len(times)))], 3)  # noqa: E731
        return {"searches": len(times), "p50_ms": pick(0.5), "p99_ms": pick(0.99), "max_ms": round(times[-1], 3)}

    def search_posts(self, query: str, k: int = 10, since: date | None = None, until: date | None = None) -> list[Hit]:
        """The k best social posts made on or before today (UTC), gated like ``search``; a
        hit's article_id is the post_id and its title names the platform, kind and community."""
        if not self._has_posts:
            return []
        if self._post_index is None:
            self._post_index = open_or_build(self._snapshot_dir, table="posts", trust_snapshot_copy=False)
        return self._post_index.search(query, self._through(until), k, since=since)

    def market_consensus(self, question_id: str) -> dict[str, float] | None:
        """The market's forecast for an open market question as of the end of today (its last
        prices, never later ones), or None when it has no market or no price yet."""
        if not self.is_open(question_id):
            return None
        return self._consensus.forecast(question_id, self.today)

    def sleep(self, days: int = 1) -> date:
        """Ask to be woken ``days`` days from today (policies that let the agent choose)."""
        if days < 1:
            raise ValueError("sleep at least one day")
        self.requested_wake = self.today + timedelta(days=days)
        return self.requested_wake

    def sleep_until(self, day: date) -> date:
        if day <= self.today:
            raise ValueError(f"wake day {day} is not after today ({self.today})")
        self.requested_wake = day
        return day

    def submit(self, question_id: str, forecast: Mapping[str, float]) -> LedgerEntry:
        """Validate and record a forecast (a later one revises an earlier one)."""
        # one answer for every id that is not open, whether it will open, will resolve, will be
        # cancelled or never exists: ids come from market ids, so another answer tells the future
        if question_id not in self._questions or not self.is_open(question_id):
            raise InvalidForecast(f"question {question_id!r} is not open on {self.today}")
        entry = LedgerEntry(question_id, self.today, validate(forecast))
        self._ledger.append(entry)
        return entry

    def resolved(self) -> list[ResolvedQuestion]:
        """Questions whose answer is public today (resolution_date <= today), with answers."""
        out = []
        for qid, q in self._questions.items():
            if q["resolution_date"] <= self.today:
                answer, aliases = self.__answers[qid]
                out.append(ResolvedQuestion(**q, answer=answer, answer_aliases=aliases))
        return out

    @property
    def ledger(self) -> tuple[LedgerEntry, ...]:
        """Every submission so far, in order (a copy: the ledger is append-only)."""
        return tuple(self._ledger)
