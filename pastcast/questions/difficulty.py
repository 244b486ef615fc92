"""Optional difficulty filters through the LLM module, each off by default.

- ``too_easy``: a model that sees only articles published before the question opens answers
  it correctly: the question is stale or trivially inferable (drop ``too_easy``).
- ``label_noise``: a model that sees every article up to the resolution day still does not
  give the recorded answer: the answer is probably wrong or unknowable (drop ``unanswerable``).

Each probe is one LLM call (``pastcast/prompts/difficulty_probe.toml``) with the ``k`` best date-gated
search hits as excerpts; the model's answer is compared with the recorded one by the
evaluator's matcher. Every drop keeps the model's answer and the article ids it saw.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import date, timedelta

import polars as pl
from pydantic import BaseModel, Field

from pastcast.search.keywords import keywords
from pastcast.search.index import ArticleIndex
from pastcast.matching import matches
from pastcast.llm import LLMClient, LLMSettings, load_prompt
from pastcast.questions.steps import Evidence, StepResult
from pastcast.schemas import QUESTIONS, frame

STAGE = "difficulty"
EXCERPT_CHARS = 600


class ProbeAnswer(BaseModel):
    answer: str = ""
    probability: float = Field(default=0.0, ge=0.0, le=1.0)


@dataclass(frozen=True)
class DifficultyConfig:
    too_easy: bool = False
    label_noise: bool = False
    k: int = 8  # search hits shown to the model

    @property
    def enabled(self) -> bool:
        return self.too_easy or self.label_noise


def _excerpts(index: ArticleIndex, q: dict, as_of: date, k: int) -> tuple[str, list]:
    hits = index.search(" ".join(keywords(q["title"])), as_of, k)
    text = "\n\n".join(f"[{h.published_at.date()}] {h.title}\n{h.text[:EXCERPT_CHARS]}" for h in hits)
    return text or "(no articles)", hits


async def _probe(client: LLMClient, prompt, q: dict, index: ArticleIndex, as_of: date, k: int, tag: str):
    excerpts, hits = _excerpts(index, q, as_of, k)
    result = await client.call(f"{q['question_id']}:{tag}", prompt, {
        "as_of": as_of.isoformat(), "title": q["title"], "background": q["background"] or "",
        "resolution_criteria": q["resolution_criteria"] or "", "excerpts": excerpts})
    return result, hits


def difficulty_filter(questions: pl.DataFrame, index: ArticleIndex, settings: LLMSettings,
                      config: DifficultyConfig) -> StepResult:
    """Questions that pass the enabled probes; a probe that fails to get an answer keeps the
    question (the filter is advisory) and is noted in the evidence; a question no probe could
    judge counts as skipped (``llm_no_answer``) in the audit."""
    result = StepResult(frame([], QUESTIONS))
    if not config.enabled or questions.is_empty():
        result.kept = questions
        return result
    prompt = load_prompt("difficulty_probe")
    client = LLMClient(settings, {"ProbeAnswer": ProbeAnswer})
    rows = questions.to_dicts()

    async def one(q: dict) -> tuple[str, str, Evidence] | None:
        probes = []
        if config.too_easy:
            probes.append(("too_easy", q["open_date"] - timedelta(days=1), True))
        if config.label_noise:
            probes.append(("unanswerable", q["resolution_date"], False))
        failed = 0
        for reason, as_of, drop_if_right in probes:
            answered, hits = await _probe(client, prompt, q, index, as_of, config.k, reason)
            ids = tuple(h.article_id for h in hits)
            dates = tuple(h.published_at.date().isoformat() for h in hits)
            if not answered.ok:
                result.evidence.append(Evidence(q["question_id"], STAGE, "note", "probe_failed",
                                                ids, dates, (), None, f"{reason}: {answered.reason}"))
                failed += 1
                continue
            right = matches(answered.value.answer, q["answer"], q["answer_aliases"])
            if right == drop_if_right:
                detail = (f"the model answered {answered.value.answer!r} (p={answered.value.probability:.2f}) "
                          f"from {len(hits)} articles up to {as_of}; recorded answer {q['answer']!r}")
                return reason, detail, Evidence(q["question_id"], STAGE, "drop", reason, ids, dates,
                                                (answered.value.answer,), None, detail)
        if failed == len(probes):
            result.skip(q["question_id"], "llm_no_answer")  # kept, but no probe judged it: the audit says so
        return None

    async def run() -> list:
        return await asyncio.gather(*(one(q) for q in rows))

    try:
        outcomes = asyncio.run(run())
    finally:
        client.close()
    kept = []
    for q, outcome in zip(rows, outcomes):
        if outcome is None:
            kept.append(q)
        else:
            reason, detail, evidence = outcome
            result.drop(q["question_id"], STAGE, reason, detail)
            result.evidence.append(evidence)
    result.kept = frame(kept, QUESTIONS)
    return result
