"""The optional judge of candidate early reports: the ``Judge`` protocol, what decided
(``decided_by``), and ``LLMJudge``, an LLM that reads each candidate passage
(``pastcast/prompts/leak_judge.toml``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import polars as pl
from pydantic import BaseModel

from pastcast.questions.revision.lexical import LEXICAL


@dataclass(frozen=True)
class ArticleRef:
    article_id: str
    day: date  # publication day, UTC
    title: str


class JudgeItem(NamedTuple):
    question: dict  # a QUESTIONS row
    answer: str
    article: ArticleRef
    span: str  # the candidate sentence


Verdict = tuple[bool | None, str]  # (confirmed; None = no verdict, the lexical rule decides), reason


class Judge(Protocol):
    """Confirms or rejects a candidate early report. May also offer
    ``judge_many(items: list[JudgeItem]) -> list[Verdict]`` to judge a batch concurrently, and
    a ``decided_by`` string for reports."""

    def __call__(self, question: dict, answer: str, article: ArticleRef, span: str) -> Verdict: ...


def decided_by(judge: Judge | Callable | None) -> str:
    """What decides which early reports count: "lexical rule", "LLM judge (<model>)", or
    "judge (<name>)" for another callable."""
    if judge is None:
        return LEXICAL
    label = getattr(judge, "decided_by", None)
    if label:
        return str(label)
    name = getattr(judge, "name", None) or getattr(judge, "__name__", None) or type(judge).__name__
    return f"judge ({name})"


def _judge_all(judge: Judge, items: list[JudgeItem]) -> list[Verdict]:
    many = getattr(judge, "judge_many", None)
    if many is not None:
        return list(many(items))
    return [judge(*item) for item in items]


class LeakVerdict(BaseModel):
    reveals: bool
    reason: str = ""


SCHEMAS = {"LeakVerdict": LeakVerdict}


def _yes_no_note(question: dict, answer: str) -> str:
    """For a yes/no question, what its answer means (the prompt's rule for yes/no questions)."""
    from pastcast.questions.revision.events import YesNoEvent

    event = YesNoEvent.of({**question, "answer": answer})
    if event is None:
        return ""
    meaning = ("the event this question asks about happened (or was decided)" if event.answer == "Yes" else
               "the event this question asks about did not happen by its deadline")
    return f"\nThis is a yes/no question: the answer {event.answer} means {meaning}."


class LLMJudge:
    """An LLM reads each candidate passage (``pastcast/prompts/leak_judge.toml``): does it, published on
    day D, already state the answer as a settled outcome? Calls are cached, concurrent,
    retried and budgeted by ``pastcast.llm.LLMClient``; a failed call is no verdict."""

    def __init__(self, settings, prompt: str = "leak_judge", prompts_dir: str | Path | None = None,
                 background_chars: int = 800):
        from pastcast.llm import LLMClient, load_prompt

        self.settings = settings
        self.prompt = load_prompt(prompt, prompts_dir)
        self.client = LLMClient(settings, SCHEMAS)
        self.decided_by = f"LLM judge ({settings.model})"
        self.background_chars = background_chars
        self._runner: asyncio.Runner | None = None

    @property
    def usage(self):
        return self.client.usage

    def ledger_frame(self) -> pl.DataFrame:
        return self.client.ledger_frame()

    def _inputs(self, item: JudgeItem) -> dict[str, Any]:
        q = item.question
        aliases = [a for a in (q.get("answer_aliases") or []) if a != item.answer]
        return {"question": q.get("title") or "", "background": (q.get("background") or "")[: self.background_chars],
                "resolution_criteria": q.get("resolution_criteria") or "", "answer": item.answer,
                "aliases": ", ".join(aliases) or "(none)", "yes_no": _yes_no_note(q, item.answer),
                "article_date": item.article.day.isoformat(),
                "article_title": item.article.title or "", "passage": item.span}

    async def _one(self, item: JudgeItem) -> Verdict:
        result = await self.client.call(f"{item.question.get('question_id')}:{item.article.article_id}",
                                        self.prompt, self._inputs(item))
        if not result.ok:
            return None, f"{result.reason}: {result.detail}"[:300]
        return bool(result.value.reveals), result.value.reason

    def judge_many(self, items: list[JudgeItem]) -> list[Verdict]:
        if not items:
            return []
        if self._runner is None:
            # One runner (one event loop) for the judge's life: the client's semaphore stays
            # bound to its loop.
            self._runner = asyncio.Runner()

        async def run() -> list[Verdict]:
            return await asyncio.gather(*(self._one(i) for i in items))

        return self._runner.run(run())

    def __call__(self, question: dict, answer: str, article: ArticleRef, span: str) -> Verdict:
        return self.judge_many([JudgeItem(question, answer, article, span)])[0]

    def close(self) -> None:
        self.client.close()
        runner, self._runner = self._runner, None
        if runner is not None:
            runner.close()  # cancels what litellm left running (its logging worker), closes the loop

    def __enter__(self) -> LLMJudge:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
