"""Questions from articles with an LLM: select, generate, check and rewrite.

1. Selection (``pastcast.questions.selection``): which articles get generation calls, by
   cue words (``cues``), a cheap yes/no LLM screen on headline and lead (``llm``,
   ``pastcast/prompts/article_screen.toml``, on this run's client: cached, budgeted, in the
   ledger) or none (``all``); then at most ``per_cluster`` articles per story, ``per_day`` per
   publication day, and no topic above ``max_topic_share`` of a day's picks. Every article
   left out is a drop with its reason.
2. Generation (``pastcast/prompts/question_generate.toml``): the article becomes up to
   ``max_questions`` candidate questions asked as if the outcome were unknown.
3. Check and rewrite (``pastcast/prompts/question_check.toml``): the candidates are checked against
   the article, the best is kept, and spans of its text that give the answer away are
   rewritten.
4. Deterministic checks on the result: the answer must appear in the article; the resolution
   date is the day the article says the outcome became public (never after the article, at
   most a month before it); the question opens ``horizon_days`` before it resolves.

Each article ends as one question or a drop with a reason; LLM calls are cached, concurrent,
retried and budgeted by ``pastcast.llm``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Annotated

import polars as pl
from pydantic import BaseModel, Field

from pastcast.drops import Drop, drops_frame
from pastcast.io import stable_id
from pastcast.llm import LLMClient, LLMSettings, Prompt, Usage, load_prompt
from pastcast.questions.extractive import category_of
from pastcast.questions.selection import (CUES, LEAD_CHARS, SCREEN_PROMPT, ArticleScreen, SelectConfig, Verdict,
                                          outcome_score, screen_inputs, select_articles)
from pastcast.schemas import QUESTIONS, frame
from pastcast.text import contains_phrase, normalise
from pastcast.text.answer_types import answer_type_original, canonical_answer_type

STAGE = "generate"
# Any label: the model writes "organization" as often as "organisation"; rows carry the
# vocabulary's type (pastcast.text.answer_types) and the label as written.
AnswerType = Annotated[str, Field(description="person, organisation, place, title, number, date or other")]


class GeneratedQuestion(BaseModel):
    title: str = Field(min_length=8)
    background: str = ""
    resolution_criteria: str = ""
    answer: str = Field(min_length=1)
    answer_aliases: list[str] = []
    answer_type: AnswerType = "other"
    resolution_date: date | None = None
    evidence: str = ""


class GeneratedQuestions(BaseModel):
    reports_outcome: bool
    questions: list[GeneratedQuestion] = Field(default_factory=list, max_length=10)


class CheckedQuestion(BaseModel):
    keep: bool
    best: int | None = None
    title: str = ""
    background: str = ""
    resolution_criteria: str = ""
    answer: str = ""
    answer_aliases: list[str] = []
    answer_type: AnswerType = "other"
    resolution_date: date | None = None
    rewrote: list[str] = []
    reason: str = ""


SCHEMAS = {"GeneratedQuestions": GeneratedQuestions, "CheckedQuestion": CheckedQuestion,
           "ArticleScreen": ArticleScreen}
# selection lives in pastcast.questions.selection; its names stay importable from here
OUTCOME_CUES, PREVIEW_CUES = CUES["en"].outcome, CUES["en"].preview  # the English cue lists
_REEXPORTED = (LEAD_CHARS, outcome_score)


@dataclass(frozen=True)
class LLMGenerateConfig:
    horizon_days: int = 28  # a question opens this long before it resolves
    min_window_days: int = 7
    window_start: date | None = None  # no question opens before this day
    max_questions: int = 3  # candidates per article from the generation pass
    text_chars: int = 6000  # of the article sent to the model
    select: SelectConfig = field(default_factory=SelectConfig)
    generate_prompt: str = "question_generate"
    check_prompt: str = "question_check"
    screen_prompt: str = SCREEN_PROMPT  # select.mode "llm"


@dataclass
class LLMGeneration:
    questions: pl.DataFrame
    drops: pl.DataFrame
    usage: Usage
    articles: int
    selected: int
    ledger: pl.DataFrame  # one row per LLM call (pastcast.llm.LEDGER)


def _resolution(llm_day: date | None, article_day: date) -> date:
    """The day the outcome became public: the model's date when plausible, else the article's."""
    if llm_day is not None and article_day - timedelta(days=31) <= llm_day <= article_day:
        return llm_day
    return article_day


class _Generator:
    def __init__(self, client: LLMClient, config: LLMGenerateConfig, prompts: tuple[Prompt, Prompt]):
        self.client, self.config = client, config
        self.generate_prompt, self.check_prompt = prompts
        self.generator = f"llm:{client.settings.model}/{self.generate_prompt.ref}+{self.check_prompt.ref}"

    def _inputs(self, a: dict) -> dict:
        return {"article_date": a["published_at"].date().isoformat(), "domain": a.get("domain") or "",
                "title": a.get("title") or "", "text": (a.get("text") or "")[: self.config.text_chars],
                "max_questions": str(self.config.max_questions)}

    async def article(self, a: dict) -> tuple[dict | None, Drop | None]:
        aid = a["article_id"]

        def drop(reason: str, detail: str = "") -> tuple[None, Drop]:
            return None, Drop(aid, "article", STAGE, reason, detail[:500])

        inputs = self._inputs(a)
        generated = await self.client.call(aid, self.generate_prompt, inputs)
        if not generated.ok:
            return drop(generated.reason, f"generation: {generated.detail}")
        candidates = generated.value.questions[: self.config.max_questions]
        if not generated.value.reports_outcome or not candidates:
            return drop("no_outcome", "the model found no settled outcome in the article")
        checked = await self.client.call(aid, self.check_prompt, {
            **inputs, "candidates": [c.model_dump(mode="json") for c in candidates]})
        if not checked.ok:
            return drop(checked.reason, f"check: {checked.detail}")
        c = checked.value
        if not c.keep:
            return drop("check_rejected", c.reason or "no candidate passed the check")
        if not c.title.strip().endswith("?") or not c.answer.strip():
            return drop("malformed_question", f"title {c.title!r}, answer {c.answer!r}")
        if not contains_phrase(a.get("text") or "", c.answer) and not any(
                contains_phrase(a.get("text") or "", alias) for alias in c.answer_aliases):
            return drop("answer_not_in_article", f"answer {c.answer!r}")
        article_day = a["published_at"].date()
        resolution = _resolution(c.resolution_date, article_day)
        open_date = resolution - timedelta(days=self.config.horizon_days)
        if self.config.window_start:
            open_date = max(open_date, self.config.window_start)
        if (resolution - open_date).days < self.config.min_window_days:
            return drop("short_window", f"opens {open_date}, resolves {resolution}")
        aliases = [x for x in dict.fromkeys(c.answer_aliases) if normalise(x) and normalise(x) != normalise(c.answer)]
        return {
            "question_id": stable_id("llm", aid, normalise(c.title)),
            "title": c.title.strip(),
            "background": c.background.strip(),
            "resolution_criteria": c.resolution_criteria.strip(),
            "answer": c.answer.strip(),
            "answer_aliases": aliases,
            "answer_type": canonical_answer_type(c.answer_type),
            "answer_type_original": answer_type_original(c.answer_type),
            "candidate_outcomes": [],
            "open_date": open_date,
            "resolution_date": resolution,
            "original_resolution_date": resolution,
            "revision_evidence": [],
            "source_kind": "news",
            "source_ids": [aid],
            "generator": self.generator,
            "category": category_of(c.title),
        }, None


class LLMScreen:
    """``select_articles``'s screen for mode ``llm``: one ``article_screen`` call per article
    (headline and lead), concurrent within the client's limit, on the client's event loop."""

    def __init__(self, client: LLMClient, prompt: Prompt, config: SelectConfig):
        self.client, self.prompt, self.config = client, prompt, config

    async def _one(self, a: dict) -> Verdict:
        result = await self.client.call(a["article_id"], self.prompt, screen_inputs(a, self.config))
        if not result.ok:
            return Verdict(False, result.reason, f"screen ({self.prompt.ref}): {result.detail}")
        why = " ".join((result.value.why or "").split())[:200]
        if result.value.reports_outcome:
            return Verdict(True, detail=why)
        return Verdict(False, "not_outcome_report",
                       f"screen ({self.prompt.ref}) said no: {why or 'no reason given'}")

    def __call__(self, rows) -> list[Verdict]:
        async def batch() -> list[Verdict]:
            return list(await asyncio.gather(*(self._one(a) for a in rows)))

        return self.client.run(batch())


async def _run(gen: _Generator, rows: list[dict], progress: Callable[[int, int], None] | None
               ) -> list[tuple[dict | None, Drop | None]]:
    # As many articles in flight as requests may be: each worker finishes its article (both
    # passes) before taking the next, so a budget that runs out stops new articles, not
    # half-done ones, and memory stays flat on a large day.
    window = gen.client.settings.concurrency
    results: list[tuple[dict | None, Drop | None]] = [(None, None)] * len(rows)
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(len(rows)):
        queue.put_nowait(i)
    done = 0

    async def worker() -> None:
        nonlocal done
        while True:
            try:
                i = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            results[i] = await gen.article(rows[i])
            done += 1
            if progress:
                progress(done, len(rows))

    await asyncio.gather(*(worker() for _ in range(min(window, len(rows)))))
    return results


def generate_llm(articles: pl.DataFrame, settings: LLMSettings,
                 config: LLMGenerateConfig = LLMGenerateConfig(),
                 progress: Callable[[int, int], None] | None = None,
                 prompts_dir: str | None = None) -> LLMGeneration:
    """Questions from ``articles`` through the LLM; every article is a question or a drop."""
    prompts = (load_prompt(config.generate_prompt, prompts_dir), load_prompt(config.check_prompt, prompts_dir))
    client = LLMClient(settings, SCHEMAS)
    try:
        screen = None
        if config.select.mode == "llm":
            screen = LLMScreen(client, load_prompt(config.screen_prompt, prompts_dir), config.select)
        selected, drops = select_articles(articles, config.select, screen=screen,
                                          wave=max(16, 2 * settings.concurrency))
        gen = _Generator(client, config, prompts)
        results = client.run(_run(gen, selected.sort("published_at", "article_id").to_dicts(), progress))
    finally:
        client.close()
    rows = [q for q, _ in results if q is not None]
    drops += [d for _, d in results if d is not None]
    return LLMGeneration(frame(rows, QUESTIONS), drops_frame(drops), client.usage, articles.height,
                         selected.height, client.ledger_frame())
