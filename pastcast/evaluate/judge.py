"""The optional LLM judge of answer matching: outcomes the rules of ``matching`` did not accept
but that may name the recorded answer (a shared word, initials, a close spelling) go to a model
(``pastcast/prompts/answer_match.toml``: more specific matches, vaguer does not). It runs in the scoring
process after the replay, so agents never see it; every verdict is cached by the LLM module
and logged to ``match_verdicts.jsonl`` in the run folder."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from pathlib import Path

import polars as pl
from pydantic import BaseModel
from rapidfuzz import fuzz

from pastcast.evaluate.environment import LedgerEntry
from pastcast.matching import matches, normalise
from pastcast.matching import PLACEHOLDERS
from pastcast.io import write_text
from pastcast.llm import LLMClient, LLMSettings, load_prompt

SIMILAR = 60  # rapidfuzz ratio above which two strings may be the same thing


class MatchVerdict(BaseModel):
    match: bool
    reason: str = ""


_LINKS = frozenset({"of", "the", "and", "for", "de", "du", "la", "le", "von", "van"})


def _initials(text: str) -> str:
    """"United States of America" -> "usa"."""
    return "".join(w[0] for w in normalise(text).split() if w and w not in _LINKS)


def worth_judging(outcome: str, truths: Iterable[str]) -> bool:
    """Whether ``outcome`` might name one of ``truths``: a shared word, initials, a close spelling."""
    o = normalise(outcome)
    if not o or o in PLACEHOLDERS:
        return False
    for truth in truths:
        t = normalise(truth)
        if not t:
            continue
        if set(o.split()) & set(t.split()) or o.replace(" ", "") in (_initials(truth), _initials(truth)[:-1]) \
                or t.replace(" ", "") == _initials(outcome) or fuzz.ratio(o, t) >= SIMILAR:
            return True
    return False


def pairs_to_judge(questions: pl.DataFrame, ledger: Iterable[LedgerEntry]) -> list[tuple[dict, str]]:
    """(question, outcome) for every distinct outcome submitted that the rules do not match but
    that may name the answer."""
    by_id = {q["question_id"]: q for q in questions.iter_rows(named=True)}
    seen, out = set(), []
    for entry in ledger:
        q = by_id.get(entry.question_id)
        if q is None:
            continue
        truths = [q["answer"] or "", *(q["answer_aliases"] or [])]
        for outcome in entry.forecast:
            key = (q["question_id"], normalise(outcome))
            if key in seen:
                continue
            seen.add(key)
            if not matches(outcome, truths[0], truths[1:]) and worth_judging(outcome, truths):
                out.append((q, outcome))
    return out


def judge_matches(questions: pl.DataFrame, ledger: Iterable[LedgerEntry], settings: LLMSettings,
                  log_path: str | Path) -> set[tuple[str, str]]:
    """{(question_id, normalised outcome)} the judge accepted; every verdict is logged."""
    pairs = pairs_to_judge(questions, ledger)
    prompt = load_prompt("answer_match")
    client = LLMClient(settings, {"MatchVerdict": MatchVerdict})

    async def one(q: dict, outcome: str):
        return await client.call(f"{q['question_id']}|{outcome}", prompt, {
            "question": q["title"], "answer": q["answer"], "outcome": outcome,
            "aliases": ", ".join(q["answer_aliases"] or []) or "(none)"})

    async def run():
        return await asyncio.gather(*(one(q, o) for q, o in pairs))

    try:
        results = asyncio.run(run()) if pairs else []
    finally:
        client.close()
    accepted, lines = set(), []
    for (q, outcome), result in zip(pairs, results):
        verdict = result.value.match if result.ok else None
        if verdict:
            accepted.add((q["question_id"], normalise(outcome)))
        lines.append(json.dumps({"question_id": q["question_id"], "outcome": outcome, "answer": q["answer"],
                                 "match": verdict, "reason": result.value.reason if result.ok else result.reason,
                                 "cached": result.cached, "model": settings.model}, ensure_ascii=False))
    write_text("".join(line + "\n" for line in lines), log_path)
    return accepted
