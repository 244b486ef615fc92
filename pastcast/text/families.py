"""Template families: look-alike questions written from one template over many series or
entities ("Will X's close on D be higher than on D0?", "will a vaccine have been developed for
X by D?") read as one kind of question, whatever the wording of the part that varies.

Two layers:

- ``template_family(title)``: one title's mask. Quoted strings (Q), dates (D: ISO days, "May 1,
  2024", "1 May 2024", "July 2024"), numbers (#) and capitalised names (N, in any cased
  script; consecutive or hyphen-joined names are one N) are masked, parentheses dropped
  ("Legionellosis (Legionnaires' disease)" is the name, the gloss is not the template).
  Usable one title at a time (the base-rate baseline learns online).
- ``template_families(titles)``: families over a set, by structure. Two masks are one family
  when they align token by token except in slots: each difference between them touches a
  masked token (a name written with lower-case words, "Pontiac fever" or "yellow fever" against
  "Legionellosis"; 'Battles' against "fatalities") and the shared tokens are most of both; or
  they differ in one slot only, inside a long frame holding two masks ("Will <a series, in
  any words> have increased by D as compared to its value on D?", "... the world record for
  #m <stroke> in long course ... on D?"). Otherwise a difference of plain words ("win" against
  "lose", "more" against "more than ten times as many") is a different template. Each family
  is named by its most common mask.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher

from pastcast.text.function_words import ALL_FUNCTION_WORDS
from pastcast.text.normalise import word_count
from pastcast.text.vocabulary import MONTH_ABBREVIATIONS, MONTHS

_MONTH = "|".join(sorted((*MONTHS, *MONTH_ABBREVIATIONS), key=len, reverse=True))
_DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b"  # ISO day
    rf"|\b(?:{_MONTH})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b"  # May 1(st)(, 2024)
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTH})\.?(?:,?\s+\d{{4}})?\b"  # 1 May (2024)
    rf"|\b(?:{_MONTH})\.?,?\s+\d{{4}}\b")  # July 2024
_NUMBER = re.compile(r"\d[\d,.\-/:]*")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|“[^”]*”|‘[^’]*’|«[^»]*»|„[^“”]*[“”]")
_PARENTHESES = re.compile(r"\s*\([^()]*\)|\s*（[^（）]*）")
_WORD = re.compile(r"\b[^\W\d_][\w\-&.']*")
_NAMES = re.compile(r"N(?:\s+N)+")  # consecutive capitalised words are one name
_JOINED_NAMES = re.compile(r"N(?:\s*[–—-]\s*N)+")  # "Heathrow – London" is one name
_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)
MASKS = frozenset({"N", "Q", "#", "D"})
# two masks are one family only when the tokens they share are at least this share of each
MIN_SHARED = 0.6
MIN_TEMPLATE_WORDS = 3
# masks that differ in slots share at least this many plain words
MIN_FRAME_WORDS = 4
# a frame of this many plain words (and two masks) around one slot is one template, whatever fills it
LONG_FRAME_WORDS = 6
# a slot's plain words on one side: at most this many ("hemorrhagic fever" beside a name)
MAX_SLOT_WORDS = 4


def template_family(title: str) -> str:
    """The title with quoted strings (Q), dates (D), numbers (#) and capitalised names (N)
    masked and parentheses dropped."""
    masked = _QUOTED.sub(" Q ", title or "")
    while _PARENTHESES.search(masked):  # innermost first: "(ocular larva migrans (OLM))"
        masked = _PARENTHESES.sub("", masked)
    masked = _NUMBER.sub("#", _DATE.sub(" D ", masked))
    # a capital in any cased script (Latin, Cyrillic, Greek, ...); scripts without case keep their
    # names. A capitalised function word is no name ("Will", "Who", "The" opening a title): it
    # says which template it is ("Who will lead ...?" is not "Will N lead ...?")
    masked = _WORD.sub(lambda w: w[0] if w[0] in MASKS or not w[0][0].isupper() else
                       w[0].lower() if w[0].lower() in ALL_FUNCTION_WORDS else "N", masked)
    masked = _JOINED_NAMES.sub("N", _NAMES.sub("N", " ".join(masked.split())))
    return " ".join(masked.split())


def _plain(token: str) -> bool:
    """A word of a mask that is not itself a mask (nor punctuation)."""
    return token not in MASKS and token[0].isalpha()


def _plain_words(mask: str) -> int:
    """Words of the mask that are not masks, counted per script (``pastcast.text.word_count``)."""
    return word_count(" ".join(t for t in _tokens(mask) if _plain(t)))


def _tokens(mask: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(mask))


def _slot(a: Sequence[str], b: Sequence[str], i1: int, i2: int, j1: int, j2: int) -> bool:
    """Whether a difference a[i1:i2] / b[j1:j2] is the varying part of one template: short on
    both sides, and touching a mask (one in it, or plain words inserted beside a mask both
    titles share, as "hemorrhagic fever" after a name)."""
    left, right = a[i1:i2], b[j1:j2]
    if max(len(left), len(right)) > MAX_SLOT_WORDS:
        return False
    if MASKS & set(left) or MASKS & set(right):
        return True
    if left and right:  # plain words replaced by plain words: another template ("win", "lose")
        return False
    before = a[i1 - 1] if i1 > 0 else None
    after = a[i2] if i2 < len(a) else None
    return before in MASKS or after in MASKS


def _one_long_slot(a: Sequence[str], b: Sequence[str]) -> bool:
    """A long frame around one slot: "Will <a series described in words> have increased by D as
    compared to its value on D?" is one template however the series is described."""
    prefix = 0
    while prefix < min(len(a), len(b)) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(a), len(b)) - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    frame = (*a[:prefix], *a[len(a) - suffix:])
    words = sum(map(_plain, frame))
    if words < LONG_FRAME_WORDS or sum(t in MASKS for t in frame) < 2:
        return False
    left, right = a[prefix:len(a) - suffix], b[prefix:len(b) - suffix]
    # two fillings of one slot have little in common; two templates differing in two places
    # ("more Q in N ... compared to" against "more than ten times as many Q in N ... compared
    # to one plus") share most of what lies between their differences
    if sum((Counter(left) & Counter(right)).values()) > 1:
        return False
    # an event named by its distance ("#m freestyle", "#m backstroke", "#km sprint"): one noun
    # after a number and a short unit fills a slot; an adjective after "#%" does not ("higher")
    if len(left) == len(right) == 1 and prefix >= 2 and a[prefix - 2] == "#" and a[prefix - 1].isalpha() \
            and len(a[prefix - 1]) <= 2:
        return True
    # a filling is an entity: one side is nothing but one (masks, function words, punctuation),
    # the other describes one in any words. Plain words on both sides are another template,
    # however long the frame ("the N # have decreased" against "the N's rate have increased")
    return _entity_only(left) or _entity_only(right)


def _entity_only(tokens: Sequence[str]) -> bool:
    return bool(MASKS & set(tokens)) and all(t in MASKS or not t[0].isalpha() or t in ALL_FUNCTION_WORDS
                                             for t in tokens)


def same_template(a: Sequence[str], b: Sequence[str]) -> bool:
    """Two token lists of masks align except in slots (module doc)."""
    if a == b:
        return True
    if _one_long_slot(a, b):
        return True
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    shared = sum(block.size for block in matcher.get_matching_blocks())
    differences = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    if shared < MIN_SHARED * max(len(a), len(b)):
        return False
    # a short title's frame is too little to call a template: "will N win the N?" and "will N
    # win the most N awards?" are two questions that happen to start alike
    frame_words = sum(sum(map(_plain, a[block.a:block.a + block.size])) for block in matcher.get_matching_blocks())
    if frame_words < MIN_FRAME_WORDS:
        return False
    return all(_slot(a, b, i1, i2, j1, j2) for _, i1, i2, j1, j2 in differences)


def _may_align(a: frozenset[str], b: frozenset[str]) -> bool:
    """A cheap bound before aligning: one template's masks share most of their plain words (a
    long slot's words aside, the frame's six at least)."""
    shared = len(a & b)
    return shared >= LONG_FRAME_WORDS or shared >= MIN_SHARED * min(len(a), len(b))


def template_families(titles: Iterable[str]) -> list[str]:
    """Each title's family over the set, named by its most common mask (module doc): masks that
    align are joined, and so are masks joined through a third. The same set gives the same
    families in any order."""
    titles = list(titles)
    # a mask of fewer than MIN_TEMPLATE_WORDS plain words is no template: a title written in
    # Title Case ("Iran Nuke in 2025?", "New Pandemic in 2025?") masks to "N in #?"
    masks = [m if _plain_words(m) >= MIN_TEMPLATE_WORDS else t or ""
             for t, m in ((t, template_family(t)) for t in titles)]
    counts = Counter(masks)
    distinct = sorted(counts, key=lambda m: (-counts[m], m))
    tokens = {m: _tokens(m) for m in distinct}
    plain = {m: frozenset(filter(_plain, tokens[m])) for m in distinct}
    rank = {m: i for i, m in enumerate(distinct)}
    parent = {m: m for m in distinct}

    def root(m: str) -> str:
        while parent[m] != m:
            parent[m] = parent[parent[m]]
            m = parent[m]
        return m

    # only masks sharing their first or last three tokens are compared: a slot at one end
    # leaves the other end's tokens in common
    buckets: dict[tuple, list[str]] = defaultdict(list)
    for m in distinct:
        buckets[("head", *tokens[m][:3])].append(m)
        buckets[("tail", *tokens[m][-3:])].append(m)
    for members in buckets.values():
        for i, a in enumerate(members):
            for b in members[i + 1:]:
                if root(a) == root(b) or not _may_align(plain[a], plain[b]):
                    continue
                if same_template(tokens[a], tokens[b]):
                    ra, rb = root(a), root(b)
                    keep, join = (ra, rb) if rank[ra] < rank[rb] else (rb, ra)  # the commoner names it
                    parent[join] = keep
    return [root(m) for m in masks]
