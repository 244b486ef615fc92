"""What every question filter step returns: the questions it kept, its drops, and the evidence
behind each decision (for the audit report). A step may hand back records it kept from the build
before as frames (the revision memo's), so a nightly build never turns them into objects."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import polars as pl

from pastcast.drops import Drop, drops_frame
from pastcast.schemas import QUESTION_EVIDENCE, columns_frame

ITEM_KIND = "question"
# Skip reasons more than one step gives (the audit counts them by step): what a leak or revision
# check looks for cannot be made of the question.
ANSWER_NOT_LOCATABLE = "answer_not_locatable"  # one character, a bare one- or two-digit number
NO_EVENT_IN_TITLE = "no_event_in_title"  # a yes/no title whose words name nothing to look for


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


EVIDENCE_FIELDS = [f.name for f in fields(Evidence)]  # the QUESTION_EVIDENCE columns


def evidence_frame(records: list[Evidence]) -> pl.DataFrame:
    """Evidence records as a QUESTION_EVIDENCE frame (built column by column)."""
    return columns_frame({c: [getattr(e, c) for e in records] for c in QUESTION_EVIDENCE}, QUESTION_EVIDENCE)


def evidence_records(table: pl.DataFrame) -> list[Evidence]:
    """The rows of a QUESTION_EVIDENCE frame as records."""
    return [Evidence(*(tuple(v) if isinstance(v, list) else v for v in row))
            for row in table.select(EVIDENCE_FIELDS).iter_rows()]


def by_question(records: list) -> dict[str, list]:
    """Drops (by ``item_id``) or evidence records (by ``question_id``) grouped by question."""
    out: dict[str, list] = {}
    for r in records:
        out.setdefault(r.item_id if isinstance(r, Drop) else r.question_id, []).append(r)
    return out


def drop_records(table: pl.DataFrame) -> list[Drop]:
    """The rows of a DROPS frame as records."""
    return [Drop(*row) for row in table.select([f.name for f in fields(Drop)]).iter_rows()]


@dataclass
class StepResult:
    kept: pl.DataFrame  # the QUESTIONS schema
    drops: list[Drop] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    # when set, the step's whole drops (evidence) as a frame: the records above are then only
    # those worked out in this run, the rest were stored by the build before (read the frames)
    drop_table: pl.DataFrame | None = None
    evidence_table: pl.DataFrame | None = None
    # the questions this step could not judge, by id, with why (a short code: the audit's
    # coverage counts every question a step saw as examined or skipped, never silently passed)
    skipped: dict[str, str] = field(default_factory=dict)

    def skip(self, question_id: str, reason: str) -> None:
        self.skipped[question_id] = reason

    def drop(self, question_id: str, stage: str, reason: str, detail: str = "") -> None:
        self.drops.append(Drop(question_id, ITEM_KIND, stage, reason, detail))

    def drops_frame(self) -> pl.DataFrame:
        return self.drop_table if self.drop_table is not None else drops_frame(self.drops)

    def evidence_frame(self) -> pl.DataFrame:
        return self.evidence_table if self.evidence_table is not None else evidence_frame(self.evidence)
