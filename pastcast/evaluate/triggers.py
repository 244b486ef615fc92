"""Triggers the agent sets: when it is woken next, under ``--policy agent`` (ReLiveGym's finding:
when an agent wakes is part of its quality and its cost, and the agent itself can choose it).

A ``TriggerSet`` belongs to the replay (``ReplayEnvironment.triggers``); the agent fills it during
a wake, through the Python API (``env.triggers.sleep(env, 3)``) or the served tools of a
``ReplaySession`` (HTTP, MCP: ``TriggerTools``). Kinds:
- ``sleep(days)``: wake ``days`` days from today (once; a later ``sleep`` replaces it);
- ``wake_on(keywords, min_hits=1)``: a watcher: wake on a day when at least ``min_hits`` articles
  published that day (UTC) match the keywords, matched as ``search_news`` matches a query and
  date-gated as it is; checked when set (the dry run: ``matches_today``, ``would_wake_today``);
  a watcher that errors wakes the agent, never silences it;
- ``wake_every(days)``: every ``days`` days from the day it is set;
- ``wake_on_weekdays(weekdays)``: on those weekdays;
- ``wake_at(dates)``: on each of those dates, once.

Triggers stay until ``clear_triggers`` (a ``sleep`` and a ``wake_at`` date once they fire). A
one-time trigger whose day was skipped (``next_day(days=N)`` jumps over the days between) fires
on the first day checked after it; a watcher sees only the days checked. With no trigger set the
agent wakes daily (``policies.AgentTriggers``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TYPE_CHECKING

from pastcast.evaluate.policies import uses_triggers
from pastcast.search.index import query_terms

if TYPE_CHECKING:
    from pastcast.evaluate.environment import ReplayEnvironment

MAX_DAYS = 10_000  # as next_day's days
MAX_HITS = 100  # as search's k: a watcher counts at most this many articles a day
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
KINDS = ("sleep", "wake_on", "wake_every", "wake_on_weekdays", "wake_at")


def _short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def whole_number(value, name: str, top: int) -> int:
    """An integer in 1..``top`` (a bool, a float, a string, null, 0 or less refused, never rounded)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
        raise ValueError(f"{name} must be an integer from 1 to {top}, got {_short(value)}")
    return value


def keyword_list(value) -> tuple[str, ...]:
    """Words or phrases (a single string is one), each with a term search can match."""
    words = [value] if isinstance(value, str) else value
    if not isinstance(words, (list, tuple)) or not words or not all(isinstance(w, str) for w in words):
        raise ValueError(f"keywords must be a non-empty list of words or phrases, got {_short(value)}")
    words = tuple(dict.fromkeys(w.strip() for w in words))
    for word in words:
        if not query_terms(word):
            raise ValueError(f"keyword {_short(word)} has no searchable term (search would match nothing)")
    return words


def weekday_list(value) -> tuple[int, ...]:
    """Weekday names (monday or mon, any case) as numbers, Monday 0."""
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)) or not names:
        raise ValueError(f"weekdays must be a non-empty list of weekday names (monday..sunday), got {_short(value)}")
    days = []
    for name in names:
        text = name.strip().lower() if isinstance(name, str) else ""
        found = [i for i, day in enumerate(WEEKDAYS) if len(text) >= 3 and day.startswith(text)]
        if not found:
            raise ValueError(f"unknown weekday {_short(name)}: use monday..sunday (or mon..sun)")
        days.append(found[0])
    return tuple(sorted(set(days)))


def future_dates(value, env: ReplayEnvironment) -> tuple[date, ...]:
    """YYYY-MM-DD dates after today and within the replay window."""
    texts = [value] if isinstance(value, str) else value
    if not isinstance(texts, (list, tuple)) or not texts:
        raise ValueError(f"dates must be a non-empty list of YYYY-MM-DD dates, got {_short(value)}")
    days = set()
    for text in texts:
        try:
            day = date.fromisoformat(text.strip()) if isinstance(text, str) and len(text.strip()) == 10 else None
        except ValueError:
            day = None
        if day is None:
            raise ValueError(f"dates must be YYYY-MM-DD dates, got {_short(text)}")
        if day <= env.today:
            raise ValueError(f"{day} is not after today ({env.today}): a wake date must be in the future")
        if day > env.end:
            raise ValueError(f"{day} is outside the replay window ({env.start}..{env.end})")
        days.add(day)
    return tuple(sorted(days))


@dataclass
class Trigger:
    """One trigger: its kind and what it holds (only the fields of its kind are set)."""

    id: str
    kind: str
    set_on: date
    until: date | None = None  # sleep
    keywords: tuple[str, ...] = ()  # wake_on
    min_hits: int = 1
    every_days: int = 0  # wake_every
    next_due: date | None = None
    weekdays: tuple[int, ...] = ()  # wake_on_weekdays
    dates: tuple[date, ...] = ()  # wake_at: the dates still to fire

    def describe(self) -> dict:
        out: dict = {"id": self.id, "kind": self.kind, "set_on": self.set_on.isoformat()}
        if self.kind == "sleep":
            out["until"] = self.until.isoformat()
        elif self.kind == "wake_on":
            out.update(keywords=list(self.keywords), min_hits=self.min_hits)
        elif self.kind == "wake_every":
            out.update(days=self.every_days, next=self.next_due.isoformat())
        elif self.kind == "wake_on_weekdays":
            out["weekdays"] = [WEEKDAYS[d] for d in self.weekdays]
        else:
            out["dates"] = [d.isoformat() for d in self.dates]
        return out

    @classmethod
    def from_json(cls, data: dict) -> Trigger:
        """A trigger as ``describe`` wrote it (the progress file of a stopped run)."""
        day = lambda key: date.fromisoformat(data[key])  # noqa: E731
        kind = data["kind"]
        trigger = cls(str(data["id"]), kind, day("set_on"))
        if kind == "sleep":
            trigger.until = day("until")
        elif kind == "wake_on":
            trigger.keywords, trigger.min_hits = tuple(data["keywords"]), int(data["min_hits"])
        elif kind == "wake_every":
            trigger.every_days, trigger.next_due = int(data["days"]), day("next")
        elif kind == "wake_on_weekdays":
            trigger.weekdays = tuple(WEEKDAYS.index(d) for d in data["weekdays"])
        elif kind == "wake_at":
            trigger.dates = tuple(date.fromisoformat(d) for d in data["dates"])
        else:
            raise ValueError(f"unknown trigger kind {kind!r}")
        return trigger


def matches_on(env: ReplayEnvironment, keywords: tuple[str, ...], day: date) -> int:
    """How many articles published on ``day`` match ``keywords`` (at most ``MAX_HITS``)."""
    return len(env.published_matching(" ".join(keywords), day, MAX_HITS))


@dataclass
class TriggerSet:
    """The agent's triggers, in the order set."""

    items: list[Trigger] = field(default_factory=list)
    last_id: int = 0

    def __len__(self) -> int:
        return len(self.items)

    def _add(self, kind: str, env: ReplayEnvironment, **fields) -> Trigger:
        self.last_id += 1
        trigger = Trigger(f"t{self.last_id}", kind, env.today, **fields)
        self.items.append(trigger)
        return trigger

    # -- set --------------------------------------------------------------------------------
    def sleep(self, env: ReplayEnvironment, days) -> Trigger:
        """Wake ``days`` days from today (replacing an earlier ``sleep``)."""
        days = whole_number(days, "days", MAX_DAYS)
        self.items = [t for t in self.items if t.kind != "sleep"]
        return self._add("sleep", env, until=env.today + timedelta(days=days))

    def wake_on(self, env: ReplayEnvironment, keywords, min_hits=1) -> tuple[Trigger, int]:
        """A watcher, and its dry run: how many articles published today match it."""
        words, hits = keyword_list(keywords), whole_number(min_hits, "min_hits", MAX_HITS)
        matches = matches_on(env, words, env.today)  # a broken index fails here, when set
        return self._add("wake_on", env, keywords=words, min_hits=hits), matches

    def wake_every(self, env: ReplayEnvironment, days) -> Trigger:
        days = whole_number(days, "days", MAX_DAYS)
        return self._add("wake_every", env, every_days=days, next_due=env.today + timedelta(days=days))

    def wake_on_weekdays(self, env: ReplayEnvironment, weekdays) -> Trigger:
        return self._add("wake_on_weekdays", env, weekdays=weekday_list(weekdays))

    def wake_at(self, env: ReplayEnvironment, dates) -> Trigger:
        return self._add("wake_at", env, dates=future_dates(dates, env))

    def clear(self) -> int:
        cleared, self.items = len(self.items), []
        return cleared

    def describe(self) -> list[dict]:
        return [t.describe() for t in self.items]

    # -- fire -------------------------------------------------------------------------------
    def fire(self, env: ReplayEnvironment) -> list[str]:
        """Why the agent wakes today (empty: it sleeps on). The one-time triggers that fire are
        spent; a ``wake_every`` moves to its next due day."""
        today, reasons, kept = env.today, [], []
        for t in self.items:
            reason = None
            if t.kind == "sleep" and t.until <= today:
                reason = f"sleep ({t.id}): asked on {t.set_on} to wake on {t.until}"
            elif t.kind == "wake_on":
                try:
                    n = matches_on(env, t.keywords, today)
                except Exception as exc:  # a broken watcher must wake the agent, never silence it
                    reason = f"wake_on error ({t.id}): {type(exc).__name__}: {exc}"
                else:
                    if n >= t.min_hits:
                        reason = f"wake_on ({t.id}): {n} article(s) published today match {list(t.keywords)}"
            elif t.kind == "wake_every" and t.next_due <= today:
                reason = f"wake_every ({t.id}): every {t.every_days} day(s)"
                while t.next_due <= today:
                    t.next_due += timedelta(days=t.every_days)
            elif t.kind == "wake_on_weekdays" and today.weekday() in t.weekdays:
                reason = f"wake_on_weekdays ({t.id}): {WEEKDAYS[today.weekday()]}"
            elif t.kind == "wake_at" and t.dates[0] <= today:
                due = [d for d in t.dates if d <= today]
                reason = f"wake_at ({t.id}): {', '.join(d.isoformat() for d in due)}"
                t.dates = tuple(d for d in t.dates if d > today)
            if reason:
                reasons.append(reason)
            spent = reason and (t.kind == "sleep" or (t.kind == "wake_at" and not t.dates))
            if not spent:
                kept.append(t)
        self.items = kept
        return reasons

    # -- keep -------------------------------------------------------------------------------
    def to_json(self) -> dict:
        return {"last_id": self.last_id, "items": self.describe()}

    @classmethod
    def from_json(cls, data: dict | None) -> TriggerSet:
        data = data or {}
        return cls([Trigger.from_json(t) for t in data.get("items", [])], int(data.get("last_id", 0)))


class TriggerTools:
    """The trigger tools of a ``ReplaySession`` (its ``env``, ``lock``, ``policy`` and
    ``_check_open``), JSON-ready: the same over HTTP and MCP."""

    def _set(self, make) -> dict:
        self._check_open()
        with self.lock:
            env = self.env
            if env.done:
                raise ValueError("the replay is over")
            if not uses_triggers(self.policy):
                raise ValueError(f"triggers take effect only with --policy agent; this replay wakes the agent by "
                                 f"policy {self.policy.name!r}")
            made = make(env)
            trigger, extra = made if isinstance(made, tuple) else (made, {})
            return {"date": env.today.isoformat(), "trigger": trigger.describe(), **extra,
                    "triggers": env.triggers.describe()}

    def sleep(self, days=1) -> dict:
        return self._set(lambda env: env.triggers.sleep(env, days))

    def wake_on(self, keywords, min_hits=1) -> dict:
        def make(env):
            trigger, matches = env.triggers.wake_on(env, keywords, min_hits)
            return trigger, {"matches_today": matches, "would_wake_today": matches >= trigger.min_hits}

        return self._set(make)

    def wake_every(self, days) -> dict:
        return self._set(lambda env: env.triggers.wake_every(env, days))

    def wake_on_weekdays(self, weekdays) -> dict:
        return self._set(lambda env: env.triggers.wake_on_weekdays(env, weekdays))

    def wake_at(self, dates) -> dict:
        return self._set(lambda env: env.triggers.wake_at(env, dates))

    def triggers(self) -> dict:
        with self.lock:
            return {"date": self.env.today.isoformat(), "policy": self.policy.name,
                    "active": uses_triggers(self.policy), "triggers": self.env.triggers.describe()}

    def clear_triggers(self) -> dict:
        self._check_open()
        with self.lock:
            return {"date": self.env.today.isoformat(), "cleared": self.env.triggers.clear(), "triggers": []}
