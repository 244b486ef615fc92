"""Answer matching without an LLM: normalisation, aliases, then a few principled fuzzy rules.

A submitted outcome matches the truth (the answer or any alias) when, after ``normalise``:

1. the strings are equal; or
2. the outcome is *more specific*: its tokens are a superset of the truth's tokens
   ("Ana Ruiz" matches the answer "Ruiz"; "Ruiz" does NOT match the answer "Ana Ruiz",
   because vaguer does not count). To stop one outcome from covering several candidates,
   the extra tokens may not contain digits ("45 to 50" is not "45") nor disjunctions
   ("Ruiz or Garcia"), and there are at most ``MAX_EXTRA_TOKENS`` of them; or
3. a typo: Levenshtein ratio >= 0.9, only when both strings are longer than 5 characters
   and neither contains a digit (a one-digit difference in a number is a different number).

Everything else is left to the optional LLM judge, which lives elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable

from pastcast.text import normalise

MAX_EXTRA_TOKENS = 3
TYPO_RATIO = 0.9
TYPO_MIN_LEN = 6  # "longer than 5 characters"
_DISJUNCTIONS = frozenset({"or", "and", "nor", "either", "neither", "vs", "versus"})
def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insert, delete, substitute each cost 1); O(len(a)*len(b))."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def similarity(a: str, b: str) -> float:
    """1 - distance / longer length: 1.0 for equal strings, 0.0 for nothing in common."""
    if not a and not b:
        return 1.0
    return 1.0 - edit_distance(a, b) / max(len(a), len(b))


def _more_specific(outcome: str, truth: str) -> bool:
    o, t = set(outcome.split()), set(truth.split())
    if not t or not t <= o:
        return False
    extra = o - t
    return (
        len(extra) <= MAX_EXTRA_TOKENS
        and not extra & _DISJUNCTIONS
        and not any(ch.isdigit() for tok in extra for ch in tok)
    )


def _typo(outcome: str, truth: str) -> bool:
    if min(len(outcome), len(truth)) < TYPO_MIN_LEN:
        return False
    if any(ch.isdigit() for ch in outcome + truth):
        return False
    return similarity(outcome, truth) >= TYPO_RATIO


def matches(outcome: str, answer: str | None, aliases: Iterable[str] | None = ()) -> bool:
    """True when ``outcome`` names the answer or one of its aliases (rules in the module doc)."""
    o = normalise(outcome)
    if not o:
        return False
    for truth in [answer, *(aliases or ())]:
        t = normalise(truth)
        if t and (o == t or _more_specific(o, t) or _typo(o, t)):
            return True
    return False
