"""Templated families of market and dataset questions capped: one template over many series
or entities is one kind of question.

Dataset-built sets write one template over hundreds of series ("Will X's market close price on
D be higher than on D0?", "will a vaccine have been developed for X by D?"). Left alone, such a
family dominates a snapshot's scores with near-copies of one question. ``template_family`` is a
title with its numbers, dates, quoted strings and capitalised names masked; ``cap_families``
keeps at most ``max_share`` of the kept questions from any one family (never fewer than
``min_per_family``, so a small snapshot keeps its few look-alike questions), choosing the kept
ones by a stable hash of their id (the same choice on every run, spread over the family); the
rest are ``template_family_cap`` drops. Before the cap, ``base_rate_answers`` drops a question
its family's earlier outcomes answer (the same answer at least 95% of the time). Only market-sourced questions (``source_kind`` market:
prediction markets and data series) are grouped and capped: masking names would merge distinct
news questions ("Who will win the Super Bowl?", "... the World Cup?") into one family.
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from dataclasses import dataclass

import polars as pl

from pastcast.questions.steps import StepResult
from pastcast.text.families import template_family
from pastcast.schemas import QUESTIONS, frame

STAGE = "template_cap"


@dataclass(frozen=True)
class TemplateCapConfig:
    max_share: float | None = 0.1  # of the kept questions, per family; None: no cap
    min_per_family: int = 10
    # a family whose questions resolved before this one opens gave one answer this often
    # answers it by its base rate; None: no such drop
    max_base_rate: float | None = 0.95
    base_rate_min_resolved: int = 10  # resolved members needed before a base rate counts


def _market_rows(questions: pl.DataFrame, columns: list[str]):
    """The market questions' ``columns`` as rows (news questions are never grouped; a year of
    them is not read as rows)."""
    return questions.filter(pl.col("source_kind") == "market").select(columns).iter_rows(named=True)


def base_rate_answers(questions: pl.DataFrame, config: TemplateCapConfig = TemplateCapConfig()) -> StepResult:
    """Drop a market or dataset question when its template family's questions that resolved
    before it opens (what a forecaster could count) gave one answer at least ``max_base_rate``
    of the time, over at least ``base_rate_min_resolved`` of them (reason
    ``base_rate_answers``). Decided from the earlier members alone, never from the question's
    own answer (keeping only the surprises would bias the benchmark)."""
    if config.max_base_rate is None or questions.is_empty():
        return StepResult(questions)
    families: dict[str, list[tuple]] = defaultdict(list)
    rows = list(_market_rows(questions, ["question_id", "title", "answer", "open_date", "resolution_date"]))
    for q in rows:
        families[template_family(q["title"])].append((q["resolution_date"], q["answer"]))
    result = StepResult(frame([], QUESTIONS))
    dropped = set()
    for q in rows:
        family = template_family(q["title"])
        earlier = [a for day, a in families[family] if day is not None and q["open_date"] is not None
                   and day <= q["open_date"]]
        if len(earlier) < config.base_rate_min_resolved:
            continue
        answer, n = max(((a, earlier.count(a)) for a in set(earlier)), key=lambda an: (an[1], str(an[0])))
        if n / len(earlier) >= config.max_base_rate:
            dropped.add(q["question_id"])
            result.drop(q["question_id"], STAGE, "base_rate_answers",
                        f"{n} of the {len(earlier)} questions of the template {family!r} resolved by "
                        f"{q['open_date']} were {answer!r}")
    result.kept = questions.filter(~pl.col("question_id").is_in(list(dropped)))
    return result


def _order(question_id: str) -> str:
    return hashlib.sha256(question_id.encode()).hexdigest()


def family_cap(sizes: list[int], max_share: float, min_per_family: int) -> int:
    """The largest per-family cap under which every family is at most ``max_share`` of what is
    kept (or ``min_per_family``, whichever is more)."""
    cap = max(sizes, default=0)
    while cap > min_per_family:
        kept = sum(min(s, cap) for s in sizes)
        if cap <= max_share * kept:
            break
        cap = max(min_per_family, math.floor(max_share * kept))
        if sum(min(s, cap) for s in sizes) == kept:
            break
    return cap


def cap_families(questions: pl.DataFrame, config: TemplateCapConfig = TemplateCapConfig()) -> StepResult:
    if config.max_share is None or questions.is_empty():
        return StepResult(questions)
    families: dict[str, list[dict]] = defaultdict(list)
    for q in _market_rows(questions, ["question_id", "title"]):  # news questions: never grouped (module doc)
        families[template_family(q["title"])].append(q)
    kept_ids = set(questions.filter(pl.col("source_kind").fill_null("") != "market")["question_id"].to_list())
    cap = family_cap([len(m) for m in families.values()], config.max_share, config.min_per_family)
    result = StepResult(frame([], QUESTIONS))
    for family, members in families.items():
        ranked = sorted(members, key=lambda q: _order(q["question_id"]))
        kept_ids.update(q["question_id"] for q in ranked[:cap])
        for q in ranked[cap:]:
            result.drop(q["question_id"], STAGE, "template_family_cap",
                        f"{len(members)} questions of the template {family!r}, at most {cap} kept")
    result.kept = questions.filter(pl.col("question_id").is_in(list(kept_ids)))
    return result


def template_steps(questions: pl.DataFrame, config: TemplateCapConfig = TemplateCapConfig()) -> StepResult:
    """The filter's template stage: ``base_rate_answers`` then ``cap_families``."""
    answered = base_rate_answers(questions, config)
    capped = cap_families(answered.kept, config)
    result = StepResult(capped.kept, answered.drops + capped.drops, answered.evidence + capped.evidence)
    # what the stage does not judge, said (the audit counts it): news and imported questions are
    # written one by one, never from a template; with both checks off, nothing is judged
    off = config.max_share is None and config.max_base_rate is None
    judged = pl.lit(False) if off else pl.col("source_kind").fill_null("") == "market"
    result.skipped = dict.fromkeys(questions.filter(~judged)["question_id"].to_list(),
                                   "template_checks_off" if off else "not_a_market_question")
    return result
