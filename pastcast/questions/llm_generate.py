"""Questions from articles with an LLM: select, generate, check and rewrite.

1. Selection, without the LLM: a cheap scorer keeps articles whose headline or lead reads
   like a settled outcome (won, elected, appointed, resigned, ruled, set the rate at, ...) and
   not like a preview; then at most ``per_cluster`` articles per story (dedup cluster), at most
   ``per_day`` per publication day, and no topic above ``max_topic_share`` of a day's picks
   while others wait. Every article left out is a drop with its reason.
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
from collections import defaultdict
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
from pastcast.questions.generate import background_only
from pastcast.schemas import QUESTIONS, frame
from pastcast.text import contains_phrase, normalise
from pastcast.text.answer_types import answer_type_original, canonical_answer_type
from pastcast.search.visibility import question_source

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


SCHEMAS = {"GeneratedQuestions": GeneratedQuestions, "CheckedQuestion": CheckedQuestion}

# The cheap scorer: settled-outcome verbs score, preview and opinion cues count against.
# (Rust-regex compatible: polars counts the matches.)
OUTCOME_CUES = (
    r"(?i)\b(won|wins|beat|beats|defeated|elected|re-elected|appointed|named|chosen|selected|"
    r"picked|resigned|resigns|stepped down|steps down|ruled|rejected|approved|voted|awarded|"
    r"claimed|clinched|secured|announced|acquired|agreed to buy|set (?:its|the) \w+ (?:rate )?at|"
    r"raised|cut|held|rose to|fell to|came in at|closed at|settled at|will succeed|"
    r"has been (?:appointed|named|elected|chosen))\b")
PREVIEW_CUES = (
    r"(?i)\b(will face|is expected to|are expected to|could|might|may|preview|ahead of|poll shows|"
    r"predict|prediction|odds|favourite|favorite|opinion|analysis|what to know|how to watch)\b")
LEAD_CHARS = 600


def outcome_score() -> pl.Expr:
    """How much the headline and lead read like a settled outcome (two regex counts)."""
    lead = pl.concat_str(pl.col("title").fill_null(""), pl.lit(". "),
                         pl.col("text").fill_null("").str.slice(0, LEAD_CHARS))
    return (lead.str.count_matches(OUTCOME_CUES) - 0.5 * lead.str.count_matches(PREVIEW_CUES)).cast(pl.Float64)


@dataclass(frozen=True)
class SelectConfig:
    min_score: float = 1.0
    per_day: int | None = 100  # articles sent to the LLM per publication day
    per_cluster: int = 1  # per story (dedup cluster): its copies say the same
    max_topic_share: float = 0.5  # of a day's picks, while other topics have candidates


def select_articles(articles: pl.DataFrame, config: SelectConfig = SelectConfig()
                    ) -> tuple[pl.DataFrame, list[Drop]]:
    """Articles worth an LLM call, best first per day; the rest as drops."""
    drops: list[Drop] = []
    # archive pages and pages dated only by their crawl (generate_questions leaves them out
    # before; this keeps a direct caller from using them): background only
    source = articles.select(pl.col("published_at").is_not_null() & question_source(articles.columns)).to_series()
    scored = articles.filter(source).with_columns(
        outcome_score().alias("_score"), pl.col("published_at").dt.date().alias("_day"))
    drops += background_only(articles.filter(~source))
    keep_ids: list[str] = []
    per_cluster: dict[str, int] = defaultdict(int)
    for (day,), part in scored.sort("_day", "_score", "published_at", "article_id",
                                   descending=[False, True, False, False]).group_by(["_day"], maintain_order=True):
        picks: list[dict] = []
        waiting: list[dict] = []
        for a in part.iter_rows(named=True):
            if a["_score"] < config.min_score:
                drops.append(Drop(a["article_id"], "article", STAGE, "not_outcome_report",
                                  f"outcome score {a['_score']:.1f} < {config.min_score}"))
                continue
            cluster = a.get("dup_cluster") or a["article_id"]
            if per_cluster[cluster] >= config.per_cluster:
                drops.append(Drop(a["article_id"], "article", STAGE, "cluster_limit", f"story {cluster}"))
                continue
            per_cluster[cluster] += 1
            waiting.append(a)
        limit = config.per_day if config.per_day is not None else len(waiting)
        by_topic: dict[str, int] = defaultdict(int)
        deferred: list[dict] = []
        for a in waiting:  # best first; a topic past its share waits for the others
            topic = category_of(f"{a['title']} {a['text'][:300]}")
            share_cap = max(1, int(config.max_topic_share * limit))
            if len(picks) < limit and by_topic[topic] < share_cap:
                picks.append(a)
                by_topic[topic] += 1
            else:
                deferred.append(a)
        for a in deferred:  # fill what the other topics left
            if len(picks) < limit:
                picks.append(a)
            else:
                drops.append(Drop(a["article_id"], "article", STAGE, "day_limit",
                                  f"{day}: {limit} articles already chosen"))
        keep_ids += [a["article_id"] for a in picks]
    selected = articles.filter(pl.col("article_id").is_in(keep_ids))
    return selected, drops


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
    selected, drops = select_articles(articles, config.select)
    client = LLMClient(settings, SCHEMAS)
    try:
        gen = _Generator(client, config, prompts)
        results = asyncio.run(_run(gen, selected.sort("published_at", "article_id").to_dicts(), progress))
    finally:
        client.close()
    rows = [q for q, _ in results if q is not None]
    drops += [d for _, d in results if d is not None]
    return LLMGeneration(frame(rows, QUESTIONS), drops_frame(drops), client.usage, articles.height,
                         selected.height, client.ledger_frame())
