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
- ``deadline_spans(title, reference)``: where in the title each deadline phrase stands, with
  its kind and day; ``without_deadlines`` cuts them out and keeps the event ("Will X sign the
  deal by the end of 2024?" -> "Will X sign the deal?"), for the leak checks of yes/no questions.
- ``known_from(kind, deadline, answer)``: the first day the answer is certain: after the
  deadline for an ``on`` question, or for a ``by`` question that resolved No (the event did
  not happen until the time ran out); a ``by`` question that resolved Yes may be known earlier.

Titles in English, German, French, Spanish, Italian, Portuguese, Russian, Chinese and Japanese
("bis Ende 2024", "avant le 1er juillet 2025", "до 1 июля 2025 года", "2024年底前", "2025年6月30日までに")
with the same kinds and days: English is read by the patterns below, the other languages by one
table each in ``pastcast.questions.deadline_words``. No language is detected first: a title is
read with every table (a phrase two languages share, "en 2025", means the same in both). A
title naming no deadline gives None.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta

from pastcast.questions.deadline_words import find_phrases
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


def _calendar_day(year: int | None, month: int, day: int, reference: date) -> date | None:
    """The day; without a year, the first such day on or after ``reference``. None if none is."""
    try:
        if year:
            return date(year, month, day)
        for y in (reference.year, reference.year + 1):
            if (d := date(y, month, day)) >= reference:
                return d
    except ValueError:
        return None
    return None


def _date(m: re.Match, tag: str, reference: date) -> date | None:
    try:
        day, month = int(_group(m, tag, "d")), _MONTH[_group(m, tag, "m").lower().rstrip(".")]
    except (ValueError, TypeError):
        return None
    year = _group(m, tag, "y")
    return _calendar_day(int(year) if year else None, month, day, reference)


def _month_after(year: int, month: int) -> date:
    return date(year + (month == 12), month % 12 + 1, 1)


def _day_deadline(word: str, day: date) -> tuple[str, date]:
    if word in ("before", "prior to"):
        return "by", day
    return ("on" if word in _ON_WORDS else "by"), day + timedelta(days=1)


def _month_deadline(word: str, year: int, month: int) -> tuple[str, date]:
    if word == "before":
        return "by", date(year, month, 1)
    return ("on" if word in _ON_WORDS else "by"), _month_after(year, month)


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


@dataclass(frozen=True)
class DeadlineSpan:
    """A deadline phrase at ``title[start:end]``, preposition included ("by the end of 2024",
    "до конца 2024 года", "2024年底前"): its kind (``by`` or ``on``), the first day after it,
    and whether it is loose ("in 2024", "of 2024": it may date something other than the deadline)."""
    start: int
    end: int
    kind: str
    first_day_after: date
    loose: bool


def _english(text: str, reference: date) -> Iterator[DeadlineSpan]:
    for m in _BETWEEN.finditer(text):
        if end := _date(m, "b", reference):
            yield DeadlineSpan(*m.span(), "by", end + timedelta(days=1), False)
    for m in _BEFORE_DAY.finditer(text):
        if day := _date(m, "c", reference):
            yield DeadlineSpan(*m.span(), *_day_deadline(m.group("word").lower(), day), False)
    for m in _ISO_DAY.finditer(text):
        try:
            day = date.fromisoformat(m.group("iso"))
        except ValueError:
            continue
        yield DeadlineSpan(*m.span(), *_day_deadline(m.group("word").lower(), day), False)
    for m in _BEFORE_MONTH.finditer(text):
        word, month = m.group("word").lower(), _MONTH[m.group("m").lower().rstrip(".")]
        yield DeadlineSpan(*m.span(), *_month_deadline(word, int(m.group("y")), month), word in _LOOSE)
    for m in _BEFORE_YEAR.finditer(text):
        word = " ".join(m.group("word").lower().split())
        yield DeadlineSpan(*m.span(), *_year_deadline(word, int(m.group("y"))), word in _LOOSE)


def _other_languages(text: str, reference: date) -> Iterator[DeadlineSpan]:
    for p in find_phrases(text):
        if p.date_kind == "year":
            yield DeadlineSpan(p.start, p.end, *_year_deadline(p.meaning, p.year), p.meaning in _LOOSE)
        elif p.date_kind == "month":
            yield DeadlineSpan(p.start, p.end, *_month_deadline(p.meaning, p.year, p.month), p.meaning in _LOOSE)
        elif p.date_kind == "day":
            if day := _calendar_day(p.year, p.month, p.day, reference):
                yield DeadlineSpan(p.start, p.end, *_day_deadline(p.meaning, day), False)
        else:  # the end of the open date's year, as "by EOY"
            yield DeadlineSpan(p.start, p.end, "by", date(reference.year + 1, 1, 1), False)


def _candidates(text: str, reference: date) -> Iterator[DeadlineSpan]:
    """Every deadline phrase the text names, in any language; they may overlap."""
    if any(ch.isdigit() for ch in text):  # every English phrase but the end of the year has a number
        yield from _english(text, reference)
    for m in _END_OF_YEAR.finditer(text):
        yield DeadlineSpan(*m.span(), "by", date(reference.year + 1, 1, 1), False)
    yield from _other_languages(text, reference)


def deadline_spans(title: str, reference: date) -> list[DeadlineSpan]:
    """The deadline phrases ``title`` names, in text order, none overlapping another: of phrases
    that overlap, the one starting first (the longest of those) is the phrase ("before the end
    of 2024", not "end of 2024"). ``reference``: the open date (see ``named_deadline``)."""
    spans: list[DeadlineSpan] = []
    for span in sorted(_candidates(title or "", reference), key=lambda s: (s.start, -s.end)):
        if not spans or span.start >= spans[-1].end:
            spans.append(span)
    return spans


def named_deadline(title: str, reference: date, strict: bool = False) -> tuple[str, date] | None:
    """(kind, first day after the deadline) of the latest deadline ``title`` names, or None.
    Kind ``on``: a state on that day; ``by``: an event up to then (see the module doc). The
    latest counts: "Following its launch in March 2024, will it reach orbit by 2026?" is 2026.
    ``strict``: None unless that latest date is an explicit deadline (by, before, until, on,
    ...), not "in 2024" or "of 2024", which may date something else ("After the ceasefire
    signed on January 19, 2025, will fighting resume in 2025?" has no explicit deadline)."""
    spans = deadline_spans(title, reference)
    if not spans:
        return None
    latest = max(spans, key=lambda s: (s.first_day_after, s.kind == "on", not s.loose))
    if strict and latest.loose:
        return None
    return latest.kind, latest.first_day_after


_FIRST_JOINED_CHARACTER = "\u2e80"  # CJK radicals; kana, ideographs and full-width forms come after
_COMMAS = ",;，、；"
_CLOSING_MARKS = "?!.,;:)]？！。，、；：）"
_OPENING_MARKS = "¿¡(["
_BRACKETS = {"(": ")", "[": "]", "（": "）"}


def _cut(left: str, right: str) -> str:
    """The text on either side of a deadline phrase, joined with the punctuation that set the
    phrase off tidied away; the rest of the text is left as written."""
    gap = right[:len(right) - len(right.lstrip())]
    left, right = left.rstrip(), right.lstrip()
    if left and right and _BRACKETS.get(left[-1]) == right[0]:  # "Will X (by 2025) sign?"
        left, right = left[:-1].rstrip(), right[1:].lstrip()
    if not left:  # the title opened with its deadline: "By 2025, will X sign?"
        return right.lstrip(_COMMAS + ":：").lstrip()
    if not right:
        return left.rstrip(_COMMAS)
    if left[-1] in _COMMAS and right[0] in _COMMAS:  # "Will X, by 2025, sign?"
        left, right = left[:-1].rstrip(), right[1:].lstrip()
    if right[0] in _CLOSING_MARKS:  # "Will X sign by 2025?"; French keeps its space: "signé d'ici 2025 ?"
        return left.rstrip(_COMMAS).rstrip() + (" " if gap and right[0] in "?!:;" else "") + right
    # Chinese and Japanese words (and their punctuation) run together without spaces
    joined = left[-1] >= _FIRST_JOINED_CHARACTER or right[0] >= _FIRST_JOINED_CHARACTER
    return left + ("" if joined or left[-1] in _OPENING_MARKS else " ") + right


def without_deadlines(title: str, reference: date) -> str:
    """``title`` with its deadline phrases cut out and the punctuation that set them off tidied:
    what the question asks happen, without when ("Will X sign the deal by the end of 2024?" ->
    "Will X sign the deal?", "2024年底前，X会签署协议吗？" -> "X会签署协议吗？")."""
    text = title or ""
    for span in reversed(deadline_spans(text, reference)):
        text = _cut(text[:span.start], text[span.end:])
    # a title that opened with its deadline ("By 2025, will ...") still opens with a capital
    first = next((i for i, ch in enumerate(text) if ch.isalpha()), None)
    if first is not None and next((ch for ch in title or "" if ch.isalpha()), "").isupper():
        text = text[:first] + text[first].upper() + text[first + 1:]
    return text


def known_from(kind: str, deadline: date, answer: str | None) -> date | None:
    """The first day the answer is certain, when the deadline decides it (None otherwise)."""
    if kind == "on" or (answer or "").strip().lower() == "no":
        return deadline
    return None
