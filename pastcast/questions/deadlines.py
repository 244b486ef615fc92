"""The deadline a question's title names, and the first day its answer can be known.

A market's close date is when forecasting stops, not always when the outcome is known:
ForecastBench copies a Metaculus question's close date as its resolution date, so "Will USA top
the Olympic Medal Table at Paris 2024?" would reveal its answer on 25 July 2024, before the
Games. The benchmark's rule is that an answer is revealed no earlier than it is known, so:

- ``named_deadline(title, reference)``: the latest deadline a title states ("before 2025", "by
  the end of 2024", "by December 31?", "on or before 30 June 2025", "by 2025-06-30", "on 11
  January 2025", "between 1 April 2024 and 31 March 2025", "in 2025", "of 2025", "by mid-2025",
  "Q3 2025", "by EOY") as the first day after it, with its kind: ``by`` (the event may happen earlier)
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
_BEFORE_DAY = re.compile(rf"\b(?P<word>on or before|before|by|until|through|prior to|no later than|on|as of|"
                         rf"at the end of)\s+(?:the\s+)?{_day_month_year('c')}", re.I)
_ISO_DAY = re.compile(r"\b(?P<word>on or before|before|by|until|through|prior to|no later than|on|as of)\s+"
                      r"(?P<iso>(?:19|20)\d\d-\d\d-\d\d)\b", re.I)
_BEFORE_MONTH = re.compile(rf"\b(?P<word>before|by|until|through|in|during|by the end of|at the end of|end of)\s+"
                           rf"{_M.format('m')},?\s+{_YEAR.format('y')}", re.I)
_BEFORE_YEAR = re.compile(rf"\b(?P<word>before|by|until|through|in|during|by the end of|before the end of|"
                          rf"at the end of|end of|for|of|by mid-?|mid-?|in the first half of|"
                          rf"in the second half of|(?:in\s+|by\s+)?q[1-4]\s*|(?:in\s+|by\s+)?h[12]\s*)\s*"
                          rf"{_YEAR.format('y')}(?![-–/]\d)", re.I)
# words of a state on (or up to) the day, certain only after it: "remain CEO through 2025"
_ON_WORDS = {"on", "as of", "at the end of", "end of", "of", "through", "until"}
# "by EOY", "by the end of the year", "by year-end": the year of the question's open date
_END_OF_YEAR = re.compile(r"\b(?:by|before|until)\s+(?:eoy|the\s+end\s+of\s+(?:the|this)\s+year|year[- ]end|"
                          r"the\s+end\s+of\s+the\s+year)\b|\beoy\b", re.I)


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


def _day_deadline(word: str, day: date) -> tuple[str, date]:
    if word in ("before", "prior to"):
        return "by", day
    return ("on" if word in _ON_WORDS else "by"), day + timedelta(days=1)



def _year_deadline(word: str, year: int) -> tuple[str, date]:
    word = " ".join(word.lower().split())
    if word == "before":
        return "by", date(year, 1, 1)
    if word.startswith(("mid", "by mid", "in the first half", "h1", "in h1", "by h1")):
        return "by", date(year, 7, 1)
    quarter = re.search(r"q([1-4])", word)
    if quarter:
        return "by", _month_after(year, 3 * int(quarter.group(1)))
    return ("on" if word in _ON_WORDS else "by"), date(year + 1, 1, 1)


# words that may date something other than the deadline ("launched in March 2024", "the
# champion of 2024"): read as deadlines, never as proof that a close reaches the event
_LOOSE = {"in", "during", "of", "for"}


def _candidates(text: str, reference: date):
    """(kind, first day after, loose) of every deadline the text names."""
    for m in _BETWEEN.finditer(text):
        if end := _date(m, "b", reference):
            yield "by", end + timedelta(days=1), False
    for m in _BEFORE_DAY.finditer(text):
        if day := _date(m, "c", reference):
            yield *_day_deadline(m.group("word").lower(), day), False
    for m in _ISO_DAY.finditer(text):
        try:
            yield *_day_deadline(m.group("word").lower(), date.fromisoformat(m.group("iso"))), False
        except ValueError:
            pass
    for m in _BEFORE_MONTH.finditer(text):
        word, year, month = m.group("word").lower(), int(m.group("y")), _MONTH[m.group("m").lower().rstrip(".")]
        if word == "before":
            yield "by", date(year, month, 1), False
        else:
            yield ("on" if word in _ON_WORDS else "by"), _month_after(year, month), word in _LOOSE
    for m in _BEFORE_YEAR.finditer(text):
        word = " ".join(m.group("word").lower().split())
        yield *_year_deadline(word, int(m.group("y"))), word in _LOOSE
    if _END_OF_YEAR.search(text):
        yield "by", date(reference.year + 1, 1, 1), False


def named_deadline(title: str, reference: date, strict: bool = False) -> tuple[str, date] | None:
    """(kind, first day after the deadline) of the latest deadline ``title`` names, or None.
    Kind ``on``: a state on that day; ``by``: an event up to then (see the module doc). The
    latest counts: "Following its launch in March 2024, will it reach orbit by 2026?" is 2026.
    ``strict``: None unless that latest date is an explicit deadline (by, before, until, on,
    ...), not "in 2024" or "of 2024", which may date something else ("After the ceasefire
    signed on January 19, 2025, will fighting resume in 2025?" has no explicit deadline)."""
    found = list(_candidates(title or "", reference))
    if not found:
        return None
    kind, day, loose = max(found, key=lambda kdl: (kdl[1], kdl[0] == "on", not kdl[2]))
    if strict and loose:
        return None
    return kind, day


def known_from(kind: str, deadline: date, answer: str | None) -> date | None:
    """The first day the answer is certain, when the deadline decides it (None otherwise)."""
    if kind == "on" or (answer or "").strip().lower() == "no":
        return deadline
    return None
