"""Text helpers shared by the question stages: normalisation and containment."""

from __future__ import annotations

import re
import unicodedata

PUNCT = re.compile(r"[^\w\s%.]|(?<!\d)\.|\.(?!\d)")
SPACE = re.compile(r"\s+")
LEADING_ARTICLE = re.compile(r"^(the|a|an) ")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'“])")


def normalise(text: str) -> str:
    """Lower case, accents and punctuation gone, single spaces; keeps '3.75%' intact."""
    text = unicodedata.normalize("NFKD", text or "")
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    text = PUNCT.sub(" ", text)
    return SPACE.sub(" ", text).strip()


def contains_phrase(haystack: str, needle: str) -> bool:
    """Whole-word containment of a normalised phrase."""
    needle = LEADING_ARTICLE.sub("", normalise(needle))
    if not needle:
        return False
    return f" {needle} " in f" {normalise(haystack)} "


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(text.replace("\n", " ")) if s.strip()]
