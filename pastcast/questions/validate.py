"""Basic validation of candidate questions; each failure is a drop with a reason.

Checks here: required fields, a short answer, a question about the future, a forecasting
window, the answer not in the question's own visible text, and one question per event
(syndicated copies of a report produce the same question; the earliest is kept).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pastcast.drops import Drop, drops_frame
from pastcast.evaluate.scoring import PLACEHOLDERS
from pastcast.text import contains_phrase, normalise
from pastcast.schemas import QUESTIONS, frame

STAGE = "validate"


@dataclass(frozen=True)
class ValidateConfig:
    max_answer_words: int = 6
    min_window_days: int = 7


def _problem(q: dict, config: ValidateConfig) -> tuple[str, str] | None:
    for field in ("title", "answer", "resolution_criteria", "open_date", "resolution_date"):
        if q[field] in (None, ""):
            return "missing_field", field
    answer = normalise(q["answer"])
    if not answer or answer in PLACEHOLDERS:
        return "placeholder_answer", q["answer"]
    if len(answer.split()) > config.max_answer_words:
        return "answer_too_long", q["answer"]
    if not q["title"].rstrip().endswith("?"):
        return "not_a_question", q["title"]
    if (q["resolution_date"] - q["open_date"]).days < config.min_window_days:
        return "short_window", f"{q['open_date']} to {q['resolution_date']}"
    # Options listed by design (market questions) are not a leak; a free-form answer is.
    if not q["candidate_outcomes"]:
        for field in ("title", "background", "resolution_criteria"):
            for answer_text in [q["answer"], *(q["answer_aliases"] or [])]:
                if contains_phrase(q[field] or "", answer_text):
                    return "answer_in_question", f"{answer_text!r} in {field}"
    return None


def validate_questions(candidates: pl.DataFrame, config: ValidateConfig = ValidateConfig()
                       ) -> tuple[pl.DataFrame, pl.DataFrame]:
    kept: dict[tuple[str, str], dict] = {}
    drops: list[Drop] = []
    for q in candidates.sort("resolution_date", "question_id").iter_rows(named=True):
        problem = _problem(q, config)
        if problem:
            drops.append(Drop(q["question_id"], "question", STAGE, *problem))
            continue
        key = (normalise(q["title"]), normalise(q["answer"]))
        if key in kept:  # a later report of the same event: keep the earliest, note the source
            first = kept[key]
            first["source_ids"] = [*first["source_ids"], *q["source_ids"]]
            drops.append(Drop(q["question_id"], "question", STAGE, "duplicate_question",
                              f"same event as {first['question_id']} (sources {q['source_ids']})"))
            continue
        kept[key] = dict(q)
    return frame(kept.values(), QUESTIONS), drops_frame(drops)


def leaks_in_own_text(questions: pl.DataFrame) -> list[str]:
    """Ids of questions whose answer shows in their own visible text (a snapshot check)."""
    return [q["question_id"] for q in questions.iter_rows(named=True)
            if (p := _problem(q, ValidateConfig(min_window_days=0))) and p[0] == "answer_in_question"]
