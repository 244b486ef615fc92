"""Agents: the protocol, the non-LLM baselines (abstain, retrieval, market; uniform and base-rate
in ``pastcast.evaluate.naive``), and a registry that also loads user classes."""

from __future__ import annotations

import importlib
import math
from collections import defaultdict
from collections.abc import Iterable
from datetime import date
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pastcast.evaluate.candidates import NUMBER_TYPES, extract_candidates, hit_text
from pastcast.evaluate.naive import BaseRateAgent, UniformAgent, is_binary
from pastcast.evaluate.scoring import InvalidForecast
from pastcast.matching import PLACEHOLDERS, normalise
from pastcast.search.keywords import WORD, keywords

if TYPE_CHECKING:
    from pastcast.evaluate.environment import OpenQuestion, ReplayEnvironment
    from pastcast.search.index import Hit


@runtime_checkable
class Agent(Protocol):
    name: str

    def act(self, env: ReplayEnvironment) -> None:
        """Called once per simulated day; use env's tools (search, submit, ...)."""


class AbstainAgent:
    """Never forecasts: every question scores 0, the floor any useful agent must beat."""

    name = "abstain"

    def act(self, env: ReplayEnvironment) -> None:
        return None


_BODY_CHARS = 4000  # the lede carries the news; bounds the cost per hit on long articles


class RetrievalAgent:
    """A search-and-count baseline with no LLM.

    Each day, for each open question, it searches the gated corpus with the title's content
    words (a query searched once a day, however many questions share it) and credits every candidate outcome mentioned by a hit with that hit's weight
    (BM25 score, halved every ``half_life_days`` of age). Candidates are the question's
    ``candidate_outcomes`` when it has them, else names and numbers with units read from the
    hits (``pastcast.evaluate.candidates``), minus words of the question itself. It submits the top
    ``max_outcomes`` with probabilities proportional to evidence, total mass between
    ``min_mass`` and ``max_mass`` by how dominant and well supported the leader is.
    Binary (yes/no) questions are skipped before any search: counting mentions of "yes" is not
    evidence (the ``base-rate`` baseline forecasts them).
    """

    name = "retrieval"

    def __init__(self, k: int = 20, max_outcomes: int = 3, min_mass: float = 0.5, max_mass: float = 0.9,
                 half_life_days: float = 14.0, support_for_full_confidence: int = 3):
        self.k, self.max_outcomes = k, max_outcomes
        self.min_mass, self.max_mass = min_mass, max_mass
        self.half_life_days = half_life_days
        self.support_for_full_confidence = support_for_full_confidence
        self._env: ReplayEnvironment | None = None
        self._last: dict[str, dict[str, float]] = {}

    def restore(self, env: ReplayEnvironment, entries) -> None:
        """Resume: what this replay already submitted (from its ledger)."""
        self._env, self._last = env, {e.question_id: dict(e.forecast) for e in entries}

    def act(self, env: ReplayEnvironment) -> None:
        if env is not self._env:  # a new replay: forget what was submitted in the last one
            self._env, self._last = env, {}
        searched: dict[str, list[Hit]] = {}  # today's searches: templated questions repeat a query
        for q in env.open_questions():
            if is_binary(q):  # skipped before searching: counting mentions of "yes" is not evidence
                continue
            query = " ".join(keywords(q.title))
            if query not in searched:
                searched[query] = env.search(query, k=self.k)
            forecast = self.forecast(q, searched[query], env.today)
            # Only revisions go to the ledger; an unchanged forecast keeps standing.
            if forecast and forecast != self._last.get(q.question_id):
                try:
                    env.submit(q.question_id, forecast)
                except InvalidForecast:  # a baseline skips a question rather than end the run
                    continue
                self._last[q.question_id] = forecast

    def forecast(self, q: OpenQuestion, hits: Iterable[Hit], today: date) -> dict[str, float]:
        if is_binary(q):
            return {}
        exclude = {normalise(w) for w in WORD.findall(f"{q.title} {q.background}")}
        evidence: dict[str, float] = defaultdict(float)
        support: dict[str, int] = defaultdict(int)
        names: dict[str, str] = {}  # normalised -> first surface form seen
        for hit in hits:
            age = max(0.0, (today - hit.published_at.date()).days)
            weight = max(hit.score, 1e-6) * math.pow(0.5, age / self.half_life_days)
            body = (hit.text or hit.snippet)[:_BODY_CHARS]
            if q.candidate_outcomes:
                padded = f" {normalise(f'{hit.title}. {body}')} "
                found = {c for c in q.candidate_outcomes if normalise(c) and f" {normalise(c)} " in padded}
            else:
                found = self.spans(q, hit.title, body, exclude)
            # once per hit; never a placeholder ("Other" is a common market option)
            for key, c in {normalise(c): c for c in found}.items():
                if key in PLACEHOLDERS:
                    continue
                names.setdefault(key, c)
                evidence[key] += weight
                support[key] += 1
        if not evidence:
            return {}
        if not q.candidate_outcomes and (q.answer_type or "").lower() not in NUMBER_TYPES:
            _fold_into_more_specific(evidence, support)
        ranked = sorted(evidence, key=lambda key: (-evidence[key], names[key]))[: self.max_outcomes]
        total = sum(evidence.values())
        lead_share = evidence[ranked[0]] / total
        supported = min(1.0, support[ranked[0]] / self.support_for_full_confidence)
        mass = self.min_mass + (self.max_mass - self.min_mass) * lead_share * supported
        top_total = sum(evidence[key] for key in ranked)
        return {names[key]: round(mass * evidence[key] / top_total, 6) for key in ranked}


    def spans(self, q: OpenQuestion, title: str, body: str, exclude: set[str]) -> set[str]:
        """Candidate outcomes a hit names (``pastcast.evaluate.candidates``); a subclass may
        read them another way."""
        return extract_candidates(hit_text(title, body), (q.answer_type or "").lower(), exclude, q.title)


def _fold_into_more_specific(evidence: dict[str, float], support: dict[str, int]) -> None:
    """Credit a span to a longer span containing all its words ("John Park" -> "Rival John Park").

    Towards the more specific form because matching counts a more specific outcome as a
    match and a vaguer one as a miss; splitting evidence between the two would also
    understate it. Not for numbers: "5" is not a vaguer "5 million".
    """
    tokens = {key: set(key.split()) for key in evidence}
    for key in sorted(evidence, key=lambda k: len(tokens[k])):
        wider = [w for w in evidence if tokens[key] < tokens[w]]
        if wider:
            target = max(wider, key=lambda w: (evidence[w], w))
            evidence[target] += evidence.pop(key)
            support[target] += support.pop(key)


class MarketAgent:
    """The crowd: on each open market question, the market's consensus as of today (its last
    prices, never later ones); questions without a market are left alone. A forecast is
    submitted again only when the consensus moved."""

    name = "market"

    def __init__(self) -> None:
        self._last: dict[str, dict[str, float]] = {}

    def restore(self, env: ReplayEnvironment, entries) -> None:
        """Resume: what this replay already submitted (from its ledger)."""
        self._last = {e.question_id: dict(e.forecast) for e in entries}

    def act(self, env: ReplayEnvironment) -> None:
        for q in env.open_questions():
            forecast = env.market_consensus(q.question_id)
            if forecast and forecast != self._last.get(q.question_id):
                env.submit(q.question_id, forecast)
                self._last[q.question_id] = forecast


AGENTS = {"abstain": AbstainAgent, "uniform": UniformAgent, "base-rate": BaseRateAgent,
          "retrieval": RetrievalAgent, "market": MarketAgent}


def get_agent(name: str, **kwargs) -> Agent:
    """A bundled agent by name, or a user's by import path ``package.module:ClassName``."""
    if name in AGENTS:
        return AGENTS[name](**kwargs)
    if name == "llm":  # PASTCAST_LLM_MODEL and its budget variables; imports litellm only now
        from pastcast.evaluate.llm_agent import LLMAgent

        return LLMAgent(**kwargs)
    if ":" not in name:
        raise ValueError(f"unknown agent {name!r}: use one of {sorted(AGENTS)} or 'package.module:ClassName'")
    module_name, _, attr = name.partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as e:
        raise ValueError(f"cannot load agent {name!r}: {e}") from e
    agent = factory(**kwargs)
    if not callable(getattr(agent, "act", None)):
        raise TypeError(f"{name!r} built {agent!r}, which has no act(env) method")
    if not getattr(agent, "name", None):
        agent.name = name  # a user class without a name is still identifiable in the ledger
    return agent
