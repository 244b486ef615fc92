"""The deadline a question's title names, and the first day its answer can be known.

A market's close date is when forecasting stops, not always when the outcome is known:
ForecastBench copies a Metaculus question's close date as its resolution date, so "Will USA top
the Olympic Medal Table at Paris 2024?" would reveal its answer on 25 July 2024, before the
Games. The benchmark's rule is that an answer is revealed no earlier than it is known, so:

- ``named_deadline(title, reference)``: the deadline a title states ("before 2025", "by the end
  of 2024", "by December 31?", "on 11 January 2025", "between 1 April 2024 and 31 March 2025",
  "in 2025") as the first day after it, with its kind: ``by`` (the event may happen earlier)
  or ``on`` (a state on that day, known only then). A date without a year ("by December 31?")
  takes the first such day on or after ``reference`` (the question's open date).
- ``known_from(kind, deadline, answer)``: the first day the answer is certain: after the
  deadline for an ``on`` question, or for a ``by`` question that resolved No (the event did
  not happen until the time ran out); a ``by`` question that resolved Yes may be known earlier.

English titles only (the market sets are English); a title naming no deadline gives None.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from pastcast.text.vocabulary import MONTHS

_MONTH = {m.lower(): i + 1 for i, m in enumerate(MONTHS)}
_MONTH.update({m.lower()[:3]: i + 1 for i, m in enumerate(MONTHS)})
_MONTH["sept"] = 9
_M = r"(?P<{}>" + "|".join(sorted(_MONTH, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<{}>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<{}>(?:19|20)\d\d)"


def _day_month_year(tag: str) -> str:
    """"31 December 2024", "December 31, 2024", "Dec 31" (year optional)."""
    d, m, y = (f"{tag}_{x}" for x in ("d", "m", "y"))
    d2, m2, y2 = (f"{tag}_{x}2" for x in ("d", "m", "y"))
    return (rf"(?:{_DAY.format(d)}\s+{_M.format(m)}(?:,?\s+{_YEAR.format(y)})?"
            rf"|{_M.format(m2)}\s+{_DAY.format(d2)}(?!\d)(?:,?\s+{_YEAR.format(y2)})?)")


_BETWEEN = re.compile(rf"\bbetween\s+{_day_month_year('a')}\s+and\s+{_day_month_year('b')}", re.I)
_BEFORE_DAY = re.compile(rf"\b(?P<word>before|by|until|prior to|no later than|on|as of|at the end of)\s+"
                         rf"(?:the\s+)?{_day_month_year('c')}", re.I)
_BEFORE_MONTH = re.compile(rf"\b(?P<word>before|by|until|in|during|by the end of|at the end of|end of)\s+"
                           rf"{_M.format('m')},?\s+{_YEAR.format('y')}", re.I)
_BEFORE_YEAR = re.compile(rf"\b(?P<word>before|by|until|in|during|by the end of|before the end of|"
                          rf"at the end of|end of|for)\s+{_YEAR.format('y')}(?![-–/]\d)", re.I)
_ON_WORDS = {"on", "as of", "at the end of", "end of"}


def _group(m: re.Match, tag: str, x: str) -> str | None:
    return m.group(f"{tag}_{x}") or m.group(f"{tag}_{x}2")


def _date(m: re.Match, tag: str, reference: date) -> date | None:
    try:
        day, month = int(_group(m, tag, "d")), _MONTH[_group(m, tag, "m").lower().rstrip(".")]
        year = _group(m, tag, "y")
        if year:
            return date(int(year), month, day)
        for y in (reference.year, reference.year + 1):  # the first such day on or after reference
            if (d := date(y, month, day)) >= reference:
                return d
    except (ValueError, TypeError):
        return None
    return None


def _month_after(year: int, month: int) -> date:
    return date(year + (month == 12), month % 12 + 1, 1)


def named_deadline(title: str, reference: date) -> tuple[str, date] | None:
    """(kind, first day after the deadline) of the deadline ``title`` names, or None. Kind
    ``on``: a state on that day; ``by``: an event up to then (see the module doc)."""
    text = title or ""
    if m := _BETWEEN.search(text):
        end = _date(m, "b", reference)
        return ("by", end + timedelta(days=1)) if end else None
    if m := _BEFORE_DAY.search(text):
        day = _date(m, "c", reference)
        if day is None:
            return None
        word = m.group("word").lower()
        if word in ("before", "prior to"):
            return "by", day
        return ("on" if word in _ON_WORDS else "by"), day + timedelta(days=1)
    if m := _BEFORE_MONTH.search(text):
        word, year, month = m.group("word").lower(), int(m.group("y")), _MONTH[m.group("m").lower().rstrip(".")]
        if word == "before":
            return "by", date(year, month, 1)
        return ("on" if word in _ON_WORDS else "by"), _month_after(year, month)
    if m := _BEFORE_YEAR.search(text):
        word, year = m.group("word").lower(), int(m.group("y"))
        if word == "before":
            return "by", date(year, 1, 1)
        return ("on" if word in _ON_WORDS else "by"), date(year + 1, 1, 1)
    return None


def known_from(kind: str, deadline: date, answer: str | None) -> date | None:
    """The first day the answer is certain, when the deadline decides it (None otherwise)."""
    if kind == "on" or (answer or "").strip().lower() == "no":
        return deadline
    return None
