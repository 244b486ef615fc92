"""Answer matching without an LLM: normalisation, aliases, then a few principled fuzzy rules.

A submitted outcome matches the truth (the answer or any alias) when, after ``normalise``
(``pastcast.text``: every script; case, accents, compatibility forms and punctuation folded):

1. the strings are equal; or
2. the outcome is *more specific*: its words are a superset of the truth's words
   ("Ana Ruiz" matches the answer "Ruiz"; "Ruiz" does NOT match the answer "Ana Ruiz",
   because vaguer does not count). To stop one outcome from covering several candidates,
   the extra words may not contain digits ("45 to 50" is not "45") nor disjunctions
   ("Ruiz or Garcia"), and there are at most ``MAX_EXTRA_TOKENS`` of them. Words are
   ``pastcast.text.words``: a run of characters of a script written without spaces is one
   word, so "京東" is not "東京", and "北京市" is not found more specific than "北京" (a
   character run cannot be split into words soundly; the LLM judge decides those); or
3. a typo: Levenshtein ratio >= 0.9, only when both strings are longer than 5 characters,
   neither contains a digit (a one-digit difference in a number is a different number) and
   neither is in a script written without spaces (one character apart, "北京市人民政府" is
   Beijing's government and "南京市人民政府" Nanjing's); or
4. a transliteration: when exactly one side is written in Latin letters and the other in
   Greek, Cyrillic, Armenian or Georgian, the other side's Latin spelling
   (``pastcast.text.transliteration``) matched by 1-3 ("Moskva" matches "Москва"). Native
   forms are always compared as written: two names in the same script never match because
   their Latin spellings collide, and Han and kana are never transliterated (one pinyin
   spelling stands for many names).

Everything else is left to the optional LLM judge, which lives elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable

from rapidfuzz.distance import Levenshtein

from pastcast.text import normalise, transliteration, words, written_without_spaces

MAX_EXTRA_TOKENS = 3
TYPO_RATIO = 0.9
TYPO_MIN_LEN = 6  # "longer than 5 characters"
_DISJUNCTIONS = frozenset({"or", "and", "nor", "either", "neither", "vs", "versus"})

# Compared after normalise(), so "N/A", "n.a." and "None of the above!" are all caught.
PLACEHOLDERS = frozenset(
    normalise(p)
    for p in (
        "unknown", "other", "others", "n/a", "na", "none", "none of the above", "no answer",
        "tbd", "?", "something else", "someone else", "anything else",
    )
)


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insert, delete, substitute each cost 1)."""
    return Levenshtein.distance(a, b)


def similarity(a: str, b: str) -> float:
    """1 - distance / longer length: 1.0 for equal strings, 0.0 for nothing in common."""
    if not a and not b:
        return 1.0
    return 1.0 - edit_distance(a, b) / max(len(a), len(b))


def _more_specific(outcome: str, truth: str) -> bool:
    o, t = set(words(outcome)), set(words(truth))
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
    if written_without_spaces(outcome) or written_without_spaces(truth):
        return False
    return similarity(outcome, truth) >= TYPO_RATIO


def _same(o: str, t: str) -> bool:
    """Rules 1-3 on two normalised strings."""
    return o == t or _more_specific(o, t) or _typo(o, t)


def matches(outcome: str, answer: str | None, aliases: Iterable[str] | None = ()) -> bool:
    """True when ``outcome`` names the answer or one of its aliases (rules in the module doc)."""
    o = normalise(outcome)
    if not o:
        return False
    truths = [t for t in (normalise(x) for x in [answer, *(aliases or ())]) if t]
    if any(_same(o, t) for t in truths):
        return True
    # rule 4: a Latin spelling on one side only, the native forms having not matched
    o_latin = None if o.isascii() else transliteration(o)
    for t in truths:
        if o.isascii() and not t.isascii():
            t_latin = transliteration(t)
            if t_latin and _same(o, t_latin):
                return True
        elif t.isascii() and o_latin and _same(o_latin, t):
            return True
    return False
