"""Who does what to whom, and whether it is denied: what tells two look-alike titles apart as
different events ("Will Israel attack Iran?" and "Will Iran attack Israel?"; "Will X win?" and
"Will X not win?"). Read by question dedup (``pastcast.questions.question_dedup``), which never
merges titles whose roles are swapped or whose polarity differs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rapidfuzz import fuzz

from pastcast.text.normalise import written_without_spaces
from pastcast.text.vocabulary import NEGATIONS

# Words that join names into one unordered group ("Trump and Biden", "Germany vs. Greece"): the
# order of a group's names says nothing about their roles.
JOINERS = frozenset("and or vs vs. v v. versus und oder et ou y o e и или".split())
# exchanging two names must bring one title this much closer to the other (rapidfuzz ratio
# points) for their roles to count as swapped
EXCHANGE_GAIN = 5
# A title's negations, by what they deny (``vocabulary.NEGATIONS``; whole words, except in
# scripts written without spaces).
_NEGATION = {kind: re.compile("|".join(w if written_without_spaces(w) else rf"(?<!\w){w}(?!\w)" for w in words))
             for kind, words in NEGATIONS.items()}


def negation_kinds(title: str | None) -> frozenset[str]:
    """The kinds of negation a title holds (``vocabulary.NEGATIONS``: not, never, fail)."""
    lowered = (title or "").lower().replace("\u2019", "'")
    return frozenset(kind for kind, pattern in _NEGATION.items() if pattern.search(lowered))


def name_order(written: Sequence[str], name_tokens: Callable[[str], set[str]]) -> tuple[frozenset[str], ...]:
    """The names of a title's words in the order written: a capitalised word's ``name_tokens``,
    and names joined only by "and", "or", "vs" and the like, one group."""
    groups: list[set[str]] = []
    joined = False  # only joiners since the last name
    for w in written:
        name = name_tokens(w)
        if w[0].isupper() and name:
            if joined:
                groups[-1] |= name
            else:
                groups.append(name)
            joined = True
        elif w.lower() not in JOINERS:
            joined = False
    return tuple(frozenset(g) for g in groups)


def swapped_names(shared: frozenset[str], order_a: Sequence[frozenset[str]], order_b: Sequence[frozenset[str]],
                  words_a: Sequence[str], words_b: Sequence[str]) -> tuple[str, str] | None:
    """Two of the ``shared`` names whose roles the titles exchange: written in one order in one
    title and the other order in the other, in separate groups ("Trump and Biden" is one), and
    exchanging them in one title's words makes it read as the other (who attacks whom:
    "Will Israel attack Iran?", "Will Iran attack Israel?"). A clause moved ("Per Coinbase, will
    Bitcoin hit ...?" and "Will Bitcoin hit ... per Coinbase?") is no exchange. None when none."""
    if len(shared) < 2:
        return None
    places = []
    for order in (order_a, order_b):
        at: dict[str, int] = {}
        for i, group in enumerate(order):
            for n in group & shared:
                at.setdefault(n, i)  # where a name is first written
        places.append(at)
    a, b = places
    names = sorted(n for n in shared if n in a and n in b)
    as_written = fuzz.ratio(" ".join(words_a), " ".join(words_b))
    for x in names:
        for y in names:
            if x < y and (a[x] - a[y]) * (b[x] - b[y]) < 0:
                exchanged = [y if w == x else x if w == y else w for w in words_b]
                if fuzz.ratio(" ".join(words_a), " ".join(exchanged)) >= as_written + EXCHANGE_GAIN:
                    return x, y
    return None
