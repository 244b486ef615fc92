"""Text normalisation shared by question generation, validation and answer matching.

One normaliser everywhere: a leak check and the scorer must agree on when two strings
name the same thing.
"""

from __future__ import annotations

import re
import unicodedata

LEADING_ARTICLE = re.compile(r"^(?:the|a|an)\s+")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?:\D|$))")  # "1,000" -> "1000"
_APOSTROPHES = re.compile(r"['\u2018\u2019\u02bc`]")  # "O'Brien" -> "obrien", not "o brien"
_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def normalise(s: str | None) -> str:
    """Lower-case, strip accents and punctuation, collapse spaces, drop a leading the/a/an."""
    if not s:
        return ""
    s = unicodedata.normalize("NFKD", s)
    s = "".join(c for c in s if not unicodedata.combining(c)).casefold()
    s = _THOUSANDS.sub("", s)
    s = _APOSTROPHES.sub("", s)
    s = s.replace("&", " and ").replace("%", " percent ")
    s = _NON_ALNUM.sub(" ", s).strip()
    return LEADING_ARTICLE.sub("", s)


SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'“])")


def contains_phrase(haystack: str, needle: str) -> bool:
    """Whole-word containment of a normalised phrase."""
    needle = normalise(needle)
    if not needle:
        return False
    return f" {needle} " in f" {normalise(haystack)} "


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split((text or "").replace("\n", " ")) if s.strip()]
