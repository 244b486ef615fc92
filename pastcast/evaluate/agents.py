"""Agents: the protocol, the non-LLM baselines (abstain, retrieval, market), and a registry that
also loads user classes."""

from __future__ import annotations

import importlib
import math
import re
from collections import defaultdict
from collections.abc import Iterable
from datetime import date
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pastcast.evaluate.scoring import InvalidForecast
from pastcast.matching import PLACEHOLDERS, normalise
from pastcast.search.keywords import STOPWORDS, WORD, keywords
from pastcast.text.vocabulary import MONTHS, WEEKDAYS

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


# Capitalised for reasons other than being an entity: weekdays, months and these.
_NOT_ENTITIES = frozenset(w.lower() for w in (*WEEKDAYS, *MONTHS)) | frozenset(
    "however meanwhile also said says mr mrs ms dr today yesterday tomorrow".split())
_CONNECTORS = frozenset({"of", "de", "del", "da", "di", "la", "le", "van", "von", "der", "du"})
_CLAUSE_BREAK = re.compile(r"[.,;:!?()\[\]{}\"“”«»\n|/]+")
_NUMBER = re.compile(
    r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?\s?(?:%|percent\b|per cent\b|million\b|billion\b|trillion\b"
    r"|thousand\b|bn\b|points?\b|seats?\b|votes?\b|degrees?\b|dollars?\b|euros?\b)?"
)
_NUMBER_TYPES = {"number", "numeric", "quantity", "percentage", "count"}
_MULTIWORD_TYPES = {"person"}  # a lone capitalised word is too often a sentence start
_BODY_CHARS = 4000  # the lede carries the news; bounds the cost per hit on long articles


@lru_cache(maxsize=1 << 16)
def _word_key(word: str) -> str:
    """``normalise`` of one word; names repeat across hits, so it is cached."""
    return normalise(word)


def extract_candidates(text: str, answer_type: str, exclude: set[str]) -> set[str]:
    """Entity-like spans (numbers, for numeric questions) not made of the question's words.

    ``exclude`` holds normalised words of the question: a span is cut wherever one occurs,
    so "Prime Minister Ana Ruiz" yields "Ana Ruiz" when the question asks for a prime minister.
    """
    if answer_type in _NUMBER_TYPES:
        found = {m.group(0).strip() for m in _NUMBER.finditer(text)}
        return {c for c in found if normalise(c) and normalise(c) not in exclude}
    min_words = 2 if answer_type in _MULTIWORD_TYPES else 1
    out: set[str] = set()

    def flush(run: list[str]) -> None:
        while run and normalise(run[-1]) in _CONNECTORS:
            run.pop()
        if sum(normalise(w) not in _CONNECTORS for w in run) >= min_words:
            out.add(" ".join(run))

    # Runs of capitalised words (lower-case connectors allowed inside: "Bank of England"),
    # never across punctuation; str.isupper() also catches accented capitals ("Élodie").
    for clause in _CLAUSE_BREAK.split(text):
        run: list[str] = []
        for word in clause.split():
            word = word.strip("'’-")
            # Only capitalised words and connectors can extend a run: skip normalising the rest
            # (two thirds of a replay's time went here on lower-case words).
            if not word[:1].isupper() and not (run and word.lower() in _CONNECTORS):
                flush(run)
                run = []
                continue
            n = _word_key(word)
            if n in _CONNECTORS and run:
                run.append(word)
            elif word[:1].isupper() and n and n not in exclude and n not in STOPWORDS and n not in _NOT_ENTITIES:
                run.append(word)
            else:
                flush(run)
                run = []
        flush(run)
    return out


class RetrievalAgent:
    """A search-and-count baseline with no LLM.

    Each day, for each open question, it searches the gated corpus with the title's content
    words and credits every candidate outcome mentioned by a hit with that hit's weight
    (BM25 score, halved every ``half_life_days`` of age). Candidates are the question's
    ``candidate_outcomes`` when it has them, else entity spans (numbers for numeric questions)
    extracted from the hits, minus words of the question itself. It submits the top
    ``max_outcomes`` with probabilities proportional to evidence, total mass between
    ``min_mass`` and ``max_mass`` by how dominant and well supported the leader is.
    Binary (yes/no) questions are skipped: counting mentions of "yes" is not evidence.
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
        for q in env.open_questions():
            forecast = self.forecast(q, env.search(" ".join(keywords(q.title)), k=self.k), env.today)
            # Only revisions go to the ledger; an unchanged forecast keeps standing.
            if forecast and forecast != self._last.get(q.question_id):
                try:
                    env.submit(q.question_id, forecast)
                except InvalidForecast:  # a baseline skips a question rather than end the run
                    continue
                self._last[q.question_id] = forecast

    def forecast(self, q: OpenQuestion, hits: Iterable[Hit], today: date) -> dict[str, float]:
        if (q.answer_type or "").lower() == "binary":
            return {}
        exclude = {normalise(w) for w in WORD.findall(f"{q.title} {q.background}")}
        evidence: dict[str, float] = defaultdict(float)
        support: dict[str, int] = defaultdict(int)
        names: dict[str, str] = {}  # normalised -> first surface form seen
        for hit in hits:
            age = max(0.0, (today - hit.published_at.date()).days)
            weight = max(hit.score, 1e-6) * math.pow(0.5, age / self.half_life_days)
            body = f"{hit.title}. {(hit.text or hit.snippet)[:_BODY_CHARS]}"
            if q.candidate_outcomes:
                padded = f" {normalise(body)} "
                found = {c for c in q.candidate_outcomes if normalise(c) and f" {normalise(c)} " in padded}
            else:
                found = extract_candidates(body, (q.answer_type or "").lower(), exclude)
            # once per hit; never a placeholder ("Other" is a common market option)
            for key, c in {normalise(c): c for c in found}.items():
                if key in PLACEHOLDERS:
                    continue
                names.setdefault(key, c)
                evidence[key] += weight
                support[key] += 1
        if not evidence:
            return {}
        if not q.candidate_outcomes and (q.answer_type or "").lower() not in _NUMBER_TYPES:
            _fold_into_more_specific(evidence, support)
        ranked = sorted(evidence, key=lambda key: (-evidence[key], names[key]))[: self.max_outcomes]
        total = sum(evidence.values())
        lead_share = evidence[ranked[0]] / total
        supported = min(1.0, support[ranked[0]] / self.support_for_full_confidence)
        mass = self.min_mass + (self.max_mass - self.min_mass) * lead_share * supported
        top_total = sum(evidence[key] for key in ranked)
        return {names[key]: round(mass * evidence[key] / top_total, 6) for key in ranked}


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


AGENTS = {"abstain": AbstainAgent, "retrieval": RetrievalAgent, "market": MarketAgent}


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
