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
from dataclasses import dataclass
from functools import lru_cache

from pastcast.matching import normalise
from pastcast.search.keywords import STOPWORDS
from pastcast.text.vocabulary import ARTICLES, MONTHS, WEEKDAYS

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
# A headline with more capitalised words than this share is read as Title Case (its runs are
# fragments); chosen on the tuning half of the hand-labelled excerpts (bench/candidates.py).
TITLE_CASE_SHARE = 0.5
_YEAR_CUES = re.compile(r"\b(?:which|what) year\b|\bin what year\b", re.I)


@lru_cache(maxsize=1 << 16)
def _word_key(word: str) -> str:
    """``normalise`` of one word; names repeat across hits, so it is cached."""
    return normalise(word)


def is_title_case(text: str, share: float = TITLE_CASE_SHARE) -> bool:
    """A headline written in Title Case: more than ``share`` of its 4+ words capitalised."""
    words = [w for w in text.split() if w[:1].isalpha()]
    return len(words) >= 4 and sum(w[:1].isupper() for w in words) > share * len(words)


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


@dataclass(frozen=True)
class NameRules:
    """The rules of ``name_candidates`` that were open to choice, each measured on the tuning half
    of hand-labelled excerpts of real news in 25 languages (``bench/candidates.py``); the
    defaults are the choice made there."""

    # a sentence's first word is capitalised whatever it is: a run starting a sentence loses a
    # leading article ("Die SVP" -> "SVP"), ...
    sentence_articles: bool = True
    # ... and a one-word run there is dropped unless the word is capitalised elsewhere in the text
    # too, not at a sentence start ("Shortly", "Viele", but "Russia ... in Russia" stays)
    sentence_words: bool = True
    # a capitalised word right after a lower-case article of another language is a common noun
    # (German capitalises nouns: "der Kinder", "im Umgang"), unless written in capitals ("die USA")
    nouns_after_articles: bool = True
    # an elided article before a name and a suffix after an apostrophe are cut ("l'Elysée" ->
    # "Elysée", "İzmir'in" -> "İzmir"), not only the English possessive
    apostrophes: bool = True


_SENTENCE_BREAK = re.compile(r"[.!?:]\s*$|\n\s*$")
_ELIDED = re.compile(r"^([^\W\d_]{1,4})['’](?=[^\W\d_])")
_SUFFIX = re.compile(r"['’‘]([^\W\d_]{1,4})$")


def _cut_apostrophes(word: str) -> tuple[str, bool]:
    """``word`` without an elided lower-case article before it ("l'Elysée") and a lower-case
    suffix after an apostrophe ("İzmir'in", "Swift's"); and whether a suffix was cut."""
    if (m := _ELIDED.match(word)) and m.group(1).islower():
        word = word[m.end():]
    if (m := _SUFFIX.search(word)) and m.group(1).islower():
        return word[:m.start()], True
    return word, False


def _is_acronym(word: str) -> bool:
    letters = [c for c in word if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def name_candidates(text: str, exclude: set[str], min_words: int = 1, cut_possessives: bool = True,
                    rules: NameRules = NameRules()) -> set[str]:
    """Runs of capitalised words not made of the question's words (``exclude``, normalised):
    a run is cut wherever one occurs, so "Prime Minister Ana Ruiz" yields "Ana Ruiz" when the
    question asks for a prime minister. ``cut_possessives``: a name ends at "'s" (else the
    word is kept whole, as the extractor did before; benchmarks compare the two). ``rules``:
    see ``NameRules``."""
    runs: list[tuple[list[str], bool]] = []  # (words, whether the run starts a sentence)
    inside: set[str] = set()  # capitalised words seen not at a sentence start

    def flush(run: list[str], starts: bool) -> None:
        while run and _word_key(run[-1]) in CONNECTORS:
            run.pop()
        if run:
            runs.append((run, starts))

    # the text in clauses, each with whether it starts a sentence (after . ! ? : or a line break)
    pieces = re.split(f"({_CLAUSE_BREAK.pattern})", text)
    sentence_start = True
    for clause, delimiter in zip(pieces[::2], [*pieces[1::2], ""]):
        run: list[str] = []
        starts = first = sentence_start
        previous = ""
        for word in clause.split():
            if rules.apostrophes and cut_possessives:
                word, suffixed = _cut_apostrophes(word)
            else:
                suffixed = cut_possessives and bool(_POSSESSIVE.search(word))
                word = _POSSESSIVE.sub("", word) if suffixed else word
            word = word.strip("'’‘-")
            after_article, previous = previous in ARTICLES, word
            # only capitalised words and connectors extend a run: the rest are not normalised
            if not word[:1].isupper() and not (run and word.lower() in CONNECTORS):
                flush(run, starts)
                run, first = [], False
                continue
            if word[:1].isupper() and not first:
                inside.add(word)
            n = _word_key(word)
            noun = rules.nouns_after_articles and after_article and not run and not _is_acronym(word)
            if n in CONNECTORS and run:
                run.append(word)
            elif (word[:1].isupper() and n and n not in exclude and n not in STOPWORDS and n not in NOT_ENTITIES
                  and not noun):
                if not run:
                    starts = first
                run.append(word)
            else:
                flush(run, starts)
                run = []
            first = first and n in ARTICLES  # "Der Brand": the noun after the article starts it too
            if suffixed:  # "Swift's new album": the name ends at the possessive
                flush(run, starts)
                run = []
        flush(run, starts)
        sentence_start = bool(_SENTENCE_BREAK.search(delimiter)) if delimiter else False

    out: set[str] = set()
    for run, starts in runs:
        if starts and rules.sentence_articles:
            while run and _word_key(run[0]) in ARTICLES:
                run = run[1:]
        if starts and rules.sentence_words and len(run) == 1 and run[0] not in inside and not _is_acronym(run[0]):
            continue
        if sum(_word_key(w) not in CONNECTORS for w in run) >= min_words:
            out.add(" ".join(run))
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
