"""A question's background: the lead of the latest earlier article about its subject, never a
sentence naming the answer."""

from __future__ import annotations

import re
from bisect import bisect_right
from datetime import date

import polars as pl

from pastcast.questions.extractive.lead import lead_of
from pastcast.questions.extractive.outcome import Outcome
from pastcast.search.visibility import not_archive
from pastcast.text import contains_phrase, normalise, searchable


class _EarlierArticles:
    """Background search over the articles, sorted by publication: each article's words are
    normalised once, not once per question, and only for articles that pass a cheap test."""

    def __init__(self, articles: pl.DataFrame):
        articles = articles.filter(not_archive(articles.columns))  # archive pages are never background
        self.rows = articles.select("title", "text", "published_at").rows(named=True)
        self.days = [r["published_at"].date() for r in self.rows]
        self._words: dict[int, set[str]] = {}
        self._folded: dict[int, str] = {}

    def _text(self, i: int) -> str:
        """What an article is about: its title and lead, not a mention deep in the text."""
        return f"{self.rows[i]['title']} {' '.join(lead_of(self.rows[i]['text'], 3))}"

    def words(self, i: int) -> set[str]:
        if i not in self._words:
            self._words[i] = set(normalise(self._text(i)).split())
        return self._words[i]

    def has_all(self, i: int, terms: set[str]) -> bool:
        if i not in self._folded:
            self._folded[i] = searchable(self._text(i))  # every normalised word is a substring of it
        folded = self._folded[i]
        return all(t in folded for t in terms) and terms <= self.words(i)

    def background(self, outcome: Outcome, open_date: date) -> str:
        """Lead sentences of the latest article about the subject (every word of it in the
        title or lead) published by the question's open date, leaving out any sentence that
        names the answer."""
        terms = {t for t in normalise(re.sub(r"\{\w+\}", "", outcome.subject)).split()
                 if len(t) > 2 and t != "the"}
        names = [] if outcome.answer_type == "binary" else [outcome.answer, *outcome.aliases]
        for i in reversed(range(bisect_right(self.days, open_date))):
            if terms and self.has_all(i, terms):
                art = self.rows[i]
                lead = [s for s in lead_of(art["text"], 3)
                        if not any(contains_phrase(s, n) for n in names)]
                if lead:
                    return f"As reported on {self.days[i].isoformat()}: " + " ".join(lead[:2])
        subject = re.sub(r"\{\w+\}", "", outcome.subject).strip()
        subject = subject if re.match(r"the\s", subject, re.I) else f"the {subject}"
        return (f"This question is about {subject}. "
                "Forecast the outcome from the news available on each day.")
