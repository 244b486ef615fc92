"""Candidate outcomes read from news text, for the retrieval baseline: names (people,
organisations, places) and numbers with their units, as written.

A rule-based extractor (no model to download): names are runs of capitalised words, lower-case
connectors allowed inside ("Bank of England"), never across punctuation; a possessive ending is
cut ("Swift's" -> "Swift"); a headline written in Title Case gives no names (every word of it is
capitalised, so its runs are fragments: "Donna Kelce Calls Taylor Swift's"). Numbers are whole
numbers as written: digits with thousands separators and a decimal part, a sign, a unit or a
magnitude after them ("4.1%", "3,200 votes", "$5 billion"), also right after a character of a
script written without spaces ("增长了5.2%"), not inside a Latin code ("A320"); a number alone in a clause's
punctuation ("11,") is not cut there, and a bare number is a candidate only when the question
asks for a count, a year only when it asks for a year.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pastcast.matching import normalise
from pastcast.search.keywords import STOPWORDS
from pastcast.text.vocabulary import MONTHS, WEEKDAYS

# Capitalised for reasons other than being an entity: weekdays, months and these.
NOT_ENTITIES = frozenset(w.lower() for w in (*WEEKDAYS, *MONTHS)) | frozenset(
    "however meanwhile also said says mr mrs ms dr today yesterday tomorrow".split())
CONNECTORS = frozenset({"of", "de", "del", "da", "di", "la", "le", "van", "von", "der", "du"})
_CLAUSE_BREAK = re.compile(r"[.,;:!?()\[\]{}\"“”«»\n|/]+")
_POSSESSIVE = re.compile(r"['’]s$")
_UNITS = (r"%|percent\b|per cent\b|percentage points?\b|million\b|billion\b|trillion\b|thousand\b|bn\b|m\b"
          r"|points?\b|seats?\b|votes?\b|degrees?\b|dollars?\b|euros?\b|pounds?\b|yen\b|people\b|deaths?\b"
          r"|cases?\b|barrels?\b|tonnes?\b|km\b|miles?\b|years?\b|days?\b|goals?\b|runs?\b|wickets?\b")
_NUMBER = re.compile(
    r"(?<![0-9A-Za-z_.,])(?P<currency>[$€£¥])?(?P<value>[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(?![\d])"
    rf"(?:\s?(?P<unit>{_UNITS}))?", re.I)
_YEAR = re.compile(r"^(?:1[89]|20)\d\d$")
NUMBER_TYPES = frozenset({"number", "numeric", "quantity", "percentage", "count", "year"})
MULTIWORD_TYPES = frozenset({"person"})  # a lone capitalised word is too often a sentence start
_COUNT_CUES = re.compile(r"\bhow many\b|\bnumber of\b|\bcount\b", re.I)
_YEAR_CUES = re.compile(r"\b(?:which|what) year\b|\bin what year\b", re.I)


@lru_cache(maxsize=1 << 16)
def _word_key(word: str) -> str:
    """``normalise`` of one word; names repeat across hits, so it is cached."""
    return normalise(word)


def is_title_case(text: str) -> bool:
    """A headline written in Title Case: most of its words capitalised."""
    words = [w for w in text.split() if w[:1].isalpha()]
    return len(words) >= 4 and sum(w[:1].isupper() for w in words) > 0.6 * len(words)


def number_candidates(text: str, exclude: set[str], counts: bool = False, years: bool = False) -> set[str]:
    """Numbers with their units as written; bare numbers only when ``counts`` are asked for,
    years (1800-2099 alone) only when ``years`` are."""
    out = set()
    for m in _NUMBER.finditer(text):
        value, unit, currency = m.group("value"), m.group("unit"), m.group("currency")
        bare = not unit and not currency
        if bare and not (years if _YEAR.match(value) else counts):
            continue
        span = m.group(0).strip()
        key = normalise(span)
        if key and key not in exclude:
            out.add(span)
    return out


def name_candidates(text: str, exclude: set[str], min_words: int = 1, cut_possessives: bool = True) -> set[str]:
    """Runs of capitalised words not made of the question's words (``exclude``, normalised):
    a run is cut wherever one occurs, so "Prime Minister Ana Ruiz" yields "Ana Ruiz" when the
    question asks for a prime minister. ``cut_possessives``: a name ends at "'s" (else the
    word is kept whole, as the extractor did before; benchmarks compare the two)."""
    out: set[str] = set()

    def flush(run: list[str]) -> None:
        while run and _word_key(run[-1]) in CONNECTORS:
            run.pop()
        if sum(_word_key(w) not in CONNECTORS for w in run) >= min_words:
            out.add(" ".join(run))

    # str.isupper() also catches accented capitals ("Élodie")
    for clause in _CLAUSE_BREAK.split(text):
        run: list[str] = []
        for word in clause.split():
            possessive = cut_possessives and bool(_POSSESSIVE.search(word))
            word = (_POSSESSIVE.sub("", word) if possessive else word).strip("'’-")
            # only capitalised words and connectors extend a run: the rest are not normalised
            if not word[:1].isupper() and not (run and word.lower() in CONNECTORS):
                flush(run)
                run = []
                continue
            n = _word_key(word)
            if n in CONNECTORS and run:
                run.append(word)
            elif word[:1].isupper() and n and n not in exclude and n not in STOPWORDS and n not in NOT_ENTITIES:
                run.append(word)
            else:
                flush(run)
                run = []
            if possessive:  # "Swift's new album": the name ends at the possessive
                flush(run)
                run = []
        flush(run)
    return out


def extract_candidates(text: str, answer_type: str, exclude: set[str], question: str = "") -> set[str]:
    """Entity-like spans of ``text`` (numbers, for numeric questions) not made of the question's
    words; ``question`` (its title) tells whether a bare count or a year is asked for."""
    if answer_type in NUMBER_TYPES:
        return number_candidates(text, exclude, counts=answer_type == "count" or bool(_COUNT_CUES.search(question)),
                                 years=answer_type == "year" or bool(_YEAR_CUES.search(question)))
    return name_candidates(text, exclude, 2 if answer_type in MULTIWORD_TYPES else 1)


def hit_text(title: str, body: str) -> str:
    """What a hit offers for names: its body, and its title unless written in Title Case."""
    return body if is_title_case(title) else f"{title}. {body}"
