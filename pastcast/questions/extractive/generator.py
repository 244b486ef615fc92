"""``generate_extractive``: dated articles to candidate questions and drops, one question per
outcome report, its title timed from the resolution date."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

import polars as pl

from pastcast.drops import Drop, drops_frame
from pastcast.io import stable_id
from pastcast.questions.extractive.background import _EarlierArticles
from pastcast.questions.extractive.categories import category_of
from pastcast.questions.extractive.outcome import Outcome
from pastcast.questions.extractive.rules import find_outcome
from pastcast.schemas import QUESTIONS, frame
from pastcast.search.visibility import question_source
from pastcast.text import normalise

STAGE = "generate"
GENERATOR = "extractive/v2"


@dataclass(frozen=True)
class GenerateConfig:
    horizon_days: int = 28  # a question opens this long before it resolves
    min_window_days: int = 7  # fewer forecasting days than this is not a question
    window_start: date | None = None


def _timed(outcome: Outcome, resolution: date) -> str:
    """The question's title with its time filled in from the resolution date."""
    title = outcome.timed_title or outcome.title
    prev = (resolution.replace(day=1) - timedelta(days=1))
    # a January figure published in February is of the same year; a December figure
    # published in January is of the year before
    title = re.sub(r"\{year_of:(\d+)\}", lambda y: str(resolution.year - (int(y[1]) > resolution.month)),
                   title)
    return (title.replace("{month}", resolution.strftime("%B %Y"))
            .replace("{year}", str(resolution.year))
            .replace("{day}", f"{resolution.day} {resolution:%B %Y}")
            .replace("{prev_month}", prev.strftime("%B %Y"))
            .replace("{prev_year}", str(resolution.year - 1)))


def generate_extractive(articles: pl.DataFrame, config: GenerateConfig = GenerateConfig(),
                        only: set[str] | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(candidate questions, drops) from dated articles (``question_source``); one question per
    outcome report.
    ``only``: generate from these article ids alone (a day's partition); every article still
    serves as background."""
    articles = articles.sort("published_at", "crawled_at")
    earlier = _EarlierArticles(articles)
    sources = set(articles.filter(question_source(articles.columns))["article_id"])
    rows, drops = [], []
    for art in articles.iter_rows(named=True):
        if (only is not None and art["article_id"] not in only) or art["article_id"] not in sources:
            continue  # archive pages and pages dated only by their crawl: background only
        outcome = find_outcome(art["text"] or "")
        if outcome is None:
            drops.append(Drop(art["article_id"], "article", STAGE, "no_outcome_report", art["url"]))
            continue
        resolution = art["published_at"].date()
        open_date = resolution - timedelta(days=config.horizon_days)
        if config.window_start and open_date < config.window_start:
            open_date = config.window_start
        if (resolution - open_date).days < config.min_window_days:
            drops.append(Drop(art["article_id"], "article", STAGE, "short_window",
                              f"{outcome.title} opens {open_date}, resolves {resolution}"))
            continue
        background = earlier.background(outcome, open_date)
        # Recurring events (a rate set every six weeks, a yearly cup) name their time to stay
        # distinct.
        title = _timed(outcome, resolution)
        rows.append({
            "question_id": stable_id(normalise(title), normalise(outcome.answer), art["article_id"]),
            "title": title,
            "background": background,
            # the source of truth: the news reports of the outcome (this article was one)
            "resolution_criteria": f"{_timed_text(outcome.criteria, resolution)} As reported in the "
                                   f"news; the question resolves on {resolution.isoformat()}.",
            "answer": outcome.answer,
            "answer_aliases": list(outcome.aliases),
            "answer_type": outcome.answer_type,
            "candidate_outcomes": list(outcome.options),
            "open_date": open_date,
            "resolution_date": resolution,
            "original_resolution_date": resolution,
            "revision_evidence": [],
            "source_kind": "news",
            "source_ids": [art["article_id"]],
            "generator": f"{GENERATOR}/{outcome.rule}",
            "category": outcome.category or category_of(f"{outcome.title} {outcome.subject}"),
        })
    return frame(rows, QUESTIONS), drops_frame(drops)


def _timed_text(text: str, resolution: date) -> str:
    return _timed(Outcome("", "", "", text, "", ""), resolution)
