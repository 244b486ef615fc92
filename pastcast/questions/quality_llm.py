"""The optional LLM pass of the quality audit: one call per kept question
(``pastcast/prompts/question_quality.toml``) asking whether it is verifiable and unambiguous.
A "no" becomes a ``llm_unverifiable`` or ``llm_ambiguous`` row of the ``question_quality`` table
with the model's reason; a failed call is a ``llm_no_verdict`` row (the audit says what it could
not check). Cached, budgeted and booked like every LLM call (``pastcast.llm``)."""

from __future__ import annotations

import asyncio

import polars as pl
from pydantic import BaseModel

from pastcast.llm import LLMClient, LLMSettings, load_prompt
from pastcast.questions.quality import LLM_FLAGS, NO_VERDICT
from pastcast.schemas import QUESTION_QUALITY

__all__ = ["LLM_FLAGS", "QualityVerdict", "llm_quality_flags"]


class QualityVerdict(BaseModel):
    verifiable: bool
    unambiguous: bool
    reason: str = ""


def llm_quality_flags(questions: pl.DataFrame, settings: LLMSettings) -> pl.DataFrame:
    """Rows of the ``question_quality`` table from the model's verdicts."""
    if questions.is_empty():
        return pl.DataFrame(schema=QUESTION_QUALITY)
    prompt = load_prompt("question_quality")
    client = LLMClient(settings, {"QualityVerdict": QualityVerdict})
    rows = questions.to_dicts()

    async def one(q: dict) -> list[dict]:
        result = await client.call(f"{q['question_id']}:quality", prompt, {
            "title": q["title"] or "", "background": q["background"] or "",
            "resolution_criteria": q["resolution_criteria"] or "", "answer_type": q["answer_type"] or "",
            "options": ", ".join(q["candidate_outcomes"] or []) or "(free-form)",
            "resolution_date": str(q["resolution_date"])})
        qid = q["question_id"]
        if not result.ok:
            return [{"question_id": qid, "flag": NO_VERDICT, "detail": result.reason}]
        v = result.value
        reason = " ".join((v.reason or "").split())[:300] or "(no reason given)"
        return ([{"question_id": qid, "flag": "llm_unverifiable", "detail": reason}] * (not v.verifiable)
                + [{"question_id": qid, "flag": "llm_ambiguous", "detail": reason}] * (not v.unambiguous))

    async def run() -> list[list[dict]]:
        return await asyncio.gather(*(one(q) for q in rows))

    try:
        found = [r for rs in asyncio.run(run()) for r in rs]
    finally:
        client.close()
    return pl.DataFrame(found, schema=QUESTION_QUALITY) if found else pl.DataFrame(schema=QUESTION_QUALITY)
