"""When an agent wakes: wake-up policies for the replay harness (ReLiveGym's finding: WHEN an
agent wakes is part of its quality, and of its cost).

A policy is asked once per simulated day whether the agent wakes (``decide(env, last_wake)``
-> a reason string, or None to let it sleep). Bundled:
- ``EveryDay``: FutureSim's daily loop.
- ``Sleep``: the agent chooses: ``env.sleep(days)`` / ``env.sleep_until(day)`` during a wake
  sets its next wake (default: the next day).
- ``Cron(every_days, weekdays)``: a fixed schedule.
- ``Watcher(keywords)``: wakes when an article published since the last wake matches any
  keyword (the date-gated search, so nothing from the future); a watcher that errors wakes
  the agent, never silences it.
- ``AgentTriggers``: the agent sets its own triggers (sleep, watchers, schedules, dates:
  pastcast.evaluate.triggers) and wakes on the next day one fires; with none set, daily.
- ``DeadlineGuard(inner, days)``: wraps any policy and forces a wake when an open question
  with no forecast yet closes within ``days`` days.

A policy may also give every reason it wakes the agent (``reasons``; ``wake_reasons`` asks
any policy): what a run's ``wake_log`` records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pastcast.evaluate.environment import ReplayEnvironment


class WakePolicy(Protocol):
    name: str

    def decide(self, env: ReplayEnvironment, last_wake: date | None) -> str | None:
        """Why the agent wakes today, or None to let it sleep."""


class EveryDay:
    name = "daily"

    def decide(self, env: ReplayEnvironment, last_wake: date | None) -> str | None:
        return "daily"


class Sleep:
    """The agent sets its own next wake during each wake (``env.sleep``); default: tomorrow."""

    name = "sleep"

    def decide(self, env: ReplayEnvironment, last_wake: date | None) -> str | None:
        if last_wake is None:
            return "first day"
        wake_on = env.requested_wake or last_wake + timedelta(days=1)
        return "requested" if env.today >= wake_on else None


@dataclass
class Cron:
    every_days: int = 7  # from the first replayed day
    weekdays: tuple[int, ...] = ()  # or on these weekdays (Monday = 0)
    name: str = "cron"

    def decide(self, env: ReplayEnvironment, last_wake: date | None) -> str | None:
        if self.weekdays:
            return "schedule" if env.today.weekday() in self.weekdays else None
        return "schedule" if (env.today - env.start).days % max(self.every_days, 1) == 0 else None


@dataclass
class Watcher:
    keywords: tuple[str, ...]
    k: int = 5
    name: str = "watcher"

    def decide(self, env: ReplayEnvironment, last_wake: date | None) -> str | None:
        if last_wake is None:
            return "first day"
        try:
            for word in self.keywords:
                for hit in env.search(word, k=self.k):
                    if hit.published_at.date() > last_wake:
                        return f"new article matching {word!r}: {hit.article_id}"
        except Exception as exc:  # a broken watcher must wake the agent, never silence it
            return f"watcher error: {type(exc).__name__}: {exc}"
        return None


class AgentTriggers:
    """The agent's own triggers (``env.triggers``) decide; an agent that sets none wakes daily."""

    name = "agent"

    def reasons(self, env: ReplayEnvironment, last_wake: date | None) -> list[str]:
        if last_wake is None:
            return ["first day"]
        if not env.triggers:
            return ["daily: no trigger set"]
        return env.triggers.fire(env)

    def decide(self, env: ReplayEnvironment, last_wake: date | None) -> str | None:
        return "; ".join(self.reasons(env, last_wake)) or None


def wake_reasons(policy: WakePolicy, env: ReplayEnvironment, last_wake: date | None) -> list[str]:
    """Every reason ``policy`` wakes the agent today (empty: it sleeps on)."""
    reasons = getattr(policy, "reasons", None)
    if reasons is not None:
        return reasons(env, last_wake)
    reason = policy.decide(env, last_wake)
    return [reason] if reason else []


def uses_triggers(policy: WakePolicy) -> bool:
    """Whether the agent's triggers decide its wakes (``--policy agent``, guarded or not)."""
    return isinstance(policy, AgentTriggers) or isinstance(getattr(policy, "inner", None), AgentTriggers)


@dataclass
class DeadlineGuard:
    inner: WakePolicy
    days: int = 1  # wake when an unforecast question closes within this many days
    name: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = f"{self.inner.name}+deadline{self.days}"

    def reasons(self, env: ReplayEnvironment, last_wake: date | None) -> list[str]:
        """The inner policy's reasons, then every unforecast question about to close."""
        reasons = wake_reasons(self.inner, env, last_wake)
        forecast = {e.question_id for e in env.ledger}
        for q in env.open_questions():
            last_day = q.resolution_date - timedelta(days=1)
            if q.question_id not in forecast and (last_day - env.today).days < self.days:
                reasons.append(f"deadline: {q.question_id} closes after {last_day}")
        return reasons

    def decide(self, env: ReplayEnvironment, last_wake: date | None) -> str | None:
        reasons = self.reasons(env, last_wake)
        return reasons[0] if reasons else None


def parse_policy(spec: str, deadline_days: int = 0) -> WakePolicy:
    """``daily``, ``sleep``, ``agent`` (the agent's own triggers), ``cron:N`` (every N days),
    ``cron:mon,thu``, ``watcher:word,word``; with ``deadline_days`` > 0 wrapped in a ``DeadlineGuard``."""
    kind, _, arg = spec.partition(":")
    days = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    if kind == "daily":
        policy: WakePolicy = EveryDay()
    elif kind == "sleep":
        policy = Sleep()
    elif kind == "agent":
        policy = AgentTriggers()
    elif kind == "cron":
        names = [a.strip().lower()[:3] for a in arg.split(",") if a.strip()]
        if names and all(n in days for n in names):
            policy = Cron(weekdays=tuple(days.index(n) for n in names))
        else:
            try:
                policy = Cron(every_days=int(arg or 7))
            except ValueError:
                raise ValueError(f"cron takes a number of days or weekdays (cron:7, cron:mon,thu), not {arg!r}") from None
    elif kind == "watcher":
        words = tuple(w.strip() for w in arg.split(",") if w.strip())
        if not words:
            raise ValueError("watcher needs keywords: watcher:election,rate")
        policy = Watcher(words)
    else:
        raise ValueError(f"unknown policy {spec!r}: use daily, sleep, agent, cron:N, cron:mon,thu or watcher:word,word")
    return DeadlineGuard(policy, deadline_days) if deadline_days > 0 else policy
