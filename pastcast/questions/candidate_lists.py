"""Candidate lists are not leaks: naming the answer among every option known in advance gives
nothing away, singling it out does.

A mention of the answer in a question's own text is one item of a list when, in its sentence,
it belongs to a chain of names (words starting with a capital, or runs of a script without
case) joined by list marks (",", ";", "/", "、") and conjunctions
(``pastcast.text.vocabulary.LIST_CONJUNCTIONS``), and the chain is a list: a conjunction or
"、" joins it ("A, B and C", "A oder B", "A、B和C"), or it has three names after a colon
("Three bid: A, B, C"); a comma alone is no list ("the Veloria Cup, Port Alder Rovers?"). And
nothing in the sentence singles an option out (``SINGLING_CUES``: favourite, leads, won,
insiders, ...; or a hedge of ``HEDGES``: expected, likely, tipped, ...). Every mention counts:
a later sentence that singles the answer out is a leak. "Bids were submitted by Korsholm,
Estvale and Tarnby" lists Estvale; "Estvale, the clear favourite, ..." and "insiders say
Estvale has won" single it out. When unsure, it is a leak.
"""

from __future__ import annotations

import re

from pastcast.text import written_without_spaces
from pastcast.text.vocabulary import HEDGES, LIST_CONJUNCTIONS, SINGLING_CUES, phrases

_SENTENCE_END = re.compile(r"[.!?。！？\n]+(?=\s|$)|[。！？\n]")
_GAP = r"\s+"
_SPACED = [c for c in (*SINGLING_CUES, *HEDGES) if not written_without_spaces(c)]
_UNSPACED = [c for c in SINGLING_CUES if written_without_spaces(c)]
# cues in scripts without spaces have no word boundaries to look for
_CUE = re.compile(rf"(?<!\w)(?:{phrases(_SPACED, _GAP)})(?!\w)|{'|'.join(map(re.escape, _UNSPACED))}", re.I)
_CONJUNCTIONS = {c.lower() for c in LIST_CONJUNCTIONS if " " not in c and not written_without_spaces(c)}
_UNSPACED_CONJUNCTIONS = "".join(c for c in LIST_CONJUNCTIONS if written_without_spaces(c))
# words, list marks and other marks; a run of Chinese or Japanese is cut at its conjunctions (和, と)
_TOKEN = re.compile(rf"[{_UNSPACED_CONJUNCTIONS}]|[^\W{_UNSPACED_CONJUNCTIONS}][\w'’.\-]*?(?=[{_UNSPACED_CONJUNCTIONS}]|[^\w'’.\-]|$)|[,;/、:：]|\S")
_QUOTES = "\"'“‘”’()"


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    begin = 0
    for m in _SENTENCE_END.finditer(text, 0, start):
        begin = m.end()
    stop = _SENTENCE_END.search(text, end)
    return begin, (stop.start() if stop else len(text))


def _kind(token: str) -> str:
    """name (starts like a name: a capital, or a letter of a script without case), mark (a list
    mark), and (a conjunction), colon, or other."""
    if token in (",", ";", "/"):
        return "mark"
    if token == "、":
        return "mark_unspaced"
    if token in (":", "："):
        return "colon"
    if token.lower() in _CONJUNCTIONS or token in _UNSPACED_CONJUNCTIONS:
        return "and"
    first = token.lstrip(_QUOTES)[:1]
    return "name" if first.isalpha() and not first.islower() else "other"


def _walk(kinds: list[str], step: int, at: int) -> tuple[int, set[str], int]:
    """From the item at ``at`` outwards (``step`` -1 or 1): how many more items the list has,
    the separators seen, and the index of the first token outside the list."""
    items, seps, i = 0, set(), at + step
    while 0 <= i < len(kinds):
        gap = []
        while 0 <= i < len(kinds) and kinds[i] in ("mark", "mark_unspaced", "and"):
            gap.append(kinds[i])
            i += step
        if not gap or not (0 <= i < len(kinds)) or kinds[i] != "name":
            return items, seps, i - step * (len(gap) + 1) if gap else i
        while 0 <= i + step < len(kinds) and kinds[i + step] == "name":  # a name of several words
            i += step
        items += 1
        seps.update(gap)
        i += step
    return items, seps, i - step


def listed_among_others(text: str, start: int, end: int) -> bool:
    """True when ``text[start:end]`` (a mention of the answer) is one item of a list of options
    and its sentence singles none out (see the module doc)."""
    begin, stop = _sentence(text, start, end)
    if _CUE.search(text[begin:stop]):
        return False
    before = [m.group(0) for m in _TOKEN.finditer(text, begin, start)]
    after = [m.group(0) for m in _TOKEN.finditer(text, end, stop)]
    kinds = [_kind(t) for t in before] + ["name"] + [_kind(t) for t in after]
    at = len(before)
    left, left_seps, first = _walk(kinds, -1, at)
    right, right_seps, _ = _walk(kinds, 1, at)
    seps, items = left_seps | right_seps, 1 + left + right
    if items < 2:
        return False
    introduced = 0 <= first < len(kinds) and kinds[first] == "colon"  # "Three bid: A, B, C"
    return bool(seps & {"and", "mark_unspaced"}) or (items >= 3 and introduced)
