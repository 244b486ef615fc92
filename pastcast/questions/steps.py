"""What every question filter step returns: the questions it kept, its drops, and the evidence
behind each decision (for the audit report)."""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from pastcast.drops import Drop

ITEM_KIND = "question"


@dataclass(frozen=True)
class Evidence:
    """Why a question was dropped, revised, merged or paired with another, and what showed it."""

    question_id: str
    stage: str  # the step: validate, self_leak, dedup, revision, cross_leak, difficulty
    action: str  # drop, revise, merge, pair
    reason: str  # the drop reason, or what was revised
    article_ids: tuple[str, ...] = ()
    dates: tuple[str, ...] = ()  # ISO dates of those articles, same order
    spans: tuple[str, ...] = ()  # the matching text (a sentence, a title, ...)
    other_question_id: str | None = None  # the other side of a pair or a merge
    detail: str = ""


@dataclass
class StepResult:
    kept: pl.DataFrame  # the QUESTIONS schema
    drops: list[Drop] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)

    def drop(self, question_id: str, stage: str, reason: str, detail: str = "") -> None:
        self.drops.append(Drop(question_id, ITEM_KIND, stage, reason, detail))
