"""Did an agent see an answer before its question resolved? Scans everything the agent saw
(tool results, error messages, workspace files), day by day, for the answer of every question
still unresolved on that day.

An answer may legitimately be in what the agent saw when public data of that day states it:
a question's own candidate outcomes, or an article published by the end of that day (the
leakage filter's business, not the replay's). Every other occurrence is a leak. Answers too
short or too common to be evidence (Yes, No, numbers of one or two characters) are not
scanned for: their presence says nothing.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path

import polars as pl

from pastcast.matching import normalise
from pastcast.store import read_table

MIN_ANSWER_CHARS = 4


def _visible_text(articles: pl.DataFrame, day: date) -> str:
    end = datetime.combine(day + timedelta(days=1), time(0), tzinfo=timezone.utc)
    seen = articles.filter(pl.col("published_at") < end)
    return normalise(" ".join(seen["title"].fill_null("").to_list() + seen["text"].fill_null("").to_list()))


def leaks(snapshot_dir: Path, seen: list[tuple[date, str]]) -> list[str]:
    """What ``seen`` ((simulated day, text the agent saw that day)) reveals before its time:
    one line per unresolved answer found, empty when nothing leaked."""
    questions = read_table(snapshot_dir, "questions").filter(
        pl.col("resolution_date").is_not_null())
    articles = read_table(snapshot_dir, "articles", columns=["title", "text", "published_at"])
    found, visible = [], {}
    for day, text in seen:
        text = normalise(text)
        for q in questions.iter_rows(named=True):
            if q["resolution_date"] <= day:
                continue  # resolved: its answer is public
            for answer in [q["answer"] or "", *(q["answer_aliases"] or [])]:
                key = normalise(answer)
                if len(key) < MIN_ANSWER_CHARS or key in {"yes", "no"} or key not in text:
                    continue
                public = normalise(" ".join([q["title"] or "", q["background"] or "", q["resolution_criteria"] or "",
                                             *(q["candidate_outcomes"] or [])]))
                if key in public:
                    continue
                if day not in visible:
                    visible[day] = _visible_text(articles, day)
                if key in visible[day]:
                    continue
                found.append(f"{day}: the answer {answer!r} of {q['question_id']} (resolves {q['resolution_date']})")
    return found
