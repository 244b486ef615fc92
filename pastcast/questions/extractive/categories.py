"""A question's category: ``pastcast.questions.categories``, re-exported where generators and
peer imports have always found it (``category_of(text)``, with ``tags=`` and ``source=``).

``CATEGORIES`` keeps its old shape, ``(name, compiled pattern)`` pairs tried in order, for
callers that run the rule vectorised (a polars ``str.contains`` per class): every class's strong
phrases in ``VOCABULARY`` order, then every class's weak ones, whole words only (``\\b`` is
Unicode-aware in Python's ``re`` and in polars' regex engine; a name may appear twice). It is a
first-match approximation of ``category_of`` on raw text (no weights, no tags or source, no
accent folding; ``bench/categories.py`` measures how often the two agree): call
``category_of`` where exactness matters.
"""

from __future__ import annotations

import re

from pastcast.questions.categories import KEYWORDS, VOCABULARY, category_of


def _raw_phrase(phrase: str) -> str:
    """A keyword phrase as a regex over raw text: its words separated by non-word characters,
    ``*`` a prefix."""
    words = [re.escape(w.rstrip("*")) + (r"\w*" if w.endswith("*") else "") for w in phrase.split()]
    return r"\W+".join(words)


def _pattern(phrases: tuple[str, ...]) -> re.Pattern:
    return re.compile(r"\b(?:" + "|".join(sorted(map(_raw_phrase, phrases), key=len, reverse=True)) + r")\b",
                      re.I)


CATEGORIES: tuple[tuple[str, re.Pattern], ...] = tuple(
    (name, _pattern(KEYWORDS[name][tier])) for tier in (0, 1)
    for name in VOCABULARY if name != "other" and KEYWORDS.get(name, ((), ()))[tier])

__all__ = ["CATEGORIES", "VOCABULARY", "category_of"]
