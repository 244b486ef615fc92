"""Mentions of a name in a text, for every script: the one mention finder of the leak checks,
question dedup, pre-resolution revision and answer grounding.

Texts are compared as sequences of tokens (``mention_tokens``): ``pastcast.text.normalise``'s
tokens of each word as written, with three token-level steps of their own: a possessive 's
goes ("Okafor's" -> "okafor"), trailing decimal zeros go ("3.50" -> "3 5", "3.0" -> "3") and
"per cent" is "percent". Each token keeps its place in the original text, so a mention is
reported as written. In scripts written without spaces every character is a token
(``pastcast.text.normalise``, rule 5), so "北京" is found in "我今天去北京了".

``find_mention`` tries these rules in order and reports the first that fires:

1. ``exact`` / ``alias``: the answer / an alias as a whole-word phrase of tokens (a leading
   "the"/"a"/"an" of the phrase dropped). An answer written as an acronym ("ECB", "U.S.") is
   only found written in capitals (see 3).
2. ``transliteration``: for an answer or alias in Greek, Cyrillic, Armenian or Georgian letters,
   its Latin spelling (``pastcast.text.normalise.transliteration``; 4+ letters: "Рим" would be
   "rim"), found in Latin letters only ("Москва" is found written "Moskva"). Never for Han or
   kana, and never the other way round (a Latin answer is not looked for in other scripts).
3. ``abbreviation``: an acronym of a multi-word, non-person answer ("European Central Bank" ->
   "ECB", 3+ letters) or one from a small table of well-known ones (US, UK, EU, UN, NATO, IMF,
   WHO, FIFA, IOC, ...), found only as written in capitals in the original text ("U.S." and
   "US" count, the pronoun "us" never does; "Nato" counts for 4+ letters; never in a field
   written all in capitals); the other way round, an acronym answer's table expansions, or a
   run of capitalised words whose initials spell it (3+ letters).
4. ``surname``: for a person answer of 2+ words, the last name (4+ letters; Jr/Sr/II/III
   skipped; also of its transliteration) as a whole word written with a capital (so only in
   scripts with capitals).
5. ``fuzzy``: for an answer, alias, transliteration or (person) surname of 6+ characters
   without digits, a run of whole words (as many as the form has, one more or one fewer) whose
   rapidfuzz ratio with the form is >= ``FUZZY_SCORE`` (90): "Okafour" is "Okafor", but
   "Anaheim" is never "Ana". Never for a form with characters of a script written without
   spaces: one character apart, "北京市人民政府" (Beijing) is "南京市人民政府" (Nanjing).

Never looked for (``needle`` has no entries): Yes/No (True/False) answers (the words are the
options, not a leak) and answers that cannot be located meaningfully (one character, or a bare
integer of one or two digits with no unit). Numbers are matched exactly (after normalisation):
"6.6%" and "6.6 per cent" are the same, "6.6%" and "6.5%" are not.

``contains_phrase`` is rule 1 alone: whole-word containment of a phrase.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from anyascii import anyascii
from rapidfuzz import fuzz, process

from pastcast.text.normalise import (IDEOGRAPHIC, IGNORABLE, MARKS, SEGMENTED, tokens, transliteration,
                                     written_without_spaces)
from pastcast.text.vocabulary import BINARY_ANSWERS

FUZZY_SCORE = 90.0
FUZZY_MIN_CHARS = 6
SURNAME_MIN_LETTERS = 4
ACRONYM_MIN_LETTERS = 3  # derived acronyms and initials runs; 2-letter ones only from the table
ACRONYM_MAX_LETTERS = 6

TRANSLITERATION_MIN_CHARS = 4  # "Рим" would be the English word "rim"
RULES = ("exact", "alias", "transliteration", "abbreviation", "surname", "fuzzy")

_NAME_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv", "v"})
_CONNECTORS = frozenset({"of", "the", "and", "for", "de", "du", "des", "la", "le", "del", "di",
                         "da", "von", "van", "on", "in", "at", "to", "&"})

# Well-known acronyms and what they stand for (both ways). Forms written as here, matched
# case-sensitively; all-capital forms also with dots ("U.S.").
ACRONYMS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("US", "USA"), ("United States", "United States of America")),
    (("UK",), ("United Kingdom",)),
    (("EU",), ("European Union",)),
    (("UN",), ("United Nations",)),
    (("NATO",), ("North Atlantic Treaty Organization", "North Atlantic Treaty Organisation")),
    (("IMF",), ("International Monetary Fund",)),
    (("WHO",), ("World Health Organization", "World Health Organisation")),
    (("WTO",), ("World Trade Organization", "World Trade Organisation")),
    (("FIFA",), ("Fédération Internationale de Football Association",
                 "International Federation of Association Football")),
    (("UEFA",), ("Union of European Football Associations",)),
    (("IOC",), ("International Olympic Committee",)),
    (("OPEC",), ("Organization of the Petroleum Exporting Countries",
                 "Organisation of the Petroleum Exporting Countries")),
    (("OECD",), ("Organisation for Economic Co-operation and Development",
                 "Organization for Economic Cooperation and Development")),
    (("ECB",), ("European Central Bank",)),
    (("BoE",), ("Bank of England",)),
    (("BoJ",), ("Bank of Japan",)),
    (("Fed",), ("Federal Reserve",)),
    (("UAE",), ("United Arab Emirates",)),
    (("NASA",), ("National Aeronautics and Space Administration",)),
    (("FBI",), ("Federal Bureau of Investigation",)),
    (("CIA",), ("Central Intelligence Agency",)),
    (("NHS",), ("National Health Service",)),
    (("BBC",), ("British Broadcasting Corporation",)),
    (("ICC",), ("International Criminal Court", "International Cricket Council")),
    (("ICJ",), ("International Court of Justice",)),
    (("IAEA",), ("International Atomic Energy Agency",)),
    (("ASEAN",), ("Association of Southeast Asian Nations",)),
    (("SEC",), ("Securities and Exchange Commission",)),
    (("PRC",), ("People's Republic of China",)),
    (("DRC",), ("Democratic Republic of the Congo",)),
    (("NBA",), ("National Basketball Association",)),
    (("NFL",), ("National Football League",)),
)


@dataclass(frozen=True)
class Mention:
    """Where an answer shows in a text: ``text[start:end] == span``."""

    form: str  # what was looked for: the answer, an alias, an acronym, a surname
    span: str  # the matched text, as written
    start: int
    end: int
    rule: str  # exact, alias, transliteration, abbreviation, surname, fuzzy
    score: float = 100.0  # the fuzzy score; 100 for the other rules


# ---------------------------------------------------------------------------------------------
# Tokens with their place in the original text

# Marks and invisible format characters are part of the word they are written in ("भारत" is
# one word, not "भ" and "रत").
_IN_WORD = MARKS + IGNORABLE
_SPACED_CHAR = f"(?:(?![{IDEOGRAPHIC}{SEGMENTED}])[^\\W_]|[{_IN_WORD}])"
_JOINER = r"(?:['\u2018\u2019\u02bc`\uff07]|(?<=\d)[,\u066c\uff0c](?=\d{3}(?!\d))|(?<=\d)\.(?=\d))"
# one character of Han, kana, Thai, ... with its marks (a half-width kana's too: "ｶﾞ" is "ガ")
_TOKEN = re.compile(f"[{IDEOGRAPHIC}{SEGMENTED}][{_IN_WORD}\uff9e\uff9f]*"
                    f"|{_SPACED_CHAR}+(?:{_JOINER}{_SPACED_CHAR}+)*"
                    "|[&%\u066a\uff06\uff05\ufe60\ufe6a]")
# the same on ASCII text, twice as fast
_TOKEN_ASCII = re.compile(r"[A-Za-z0-9]+(?:(?:['`]|(?<=\d),(?=\d{3}(?!\d))|(?<=\d)\.(?=\d))[A-Za-z0-9]+)*"
                          r"|[&%]")


def raw_tokens(text: str) -> list[str]:
    """The words of ``text`` as written (one per character in scripts without spaces)."""
    return (_TOKEN_ASCII if text.isascii() else _TOKEN).findall(text)


_APOSTROPHE = re.compile(r"['\u2018\u2019\u02bc`\uff07]")
_POSSESSIVE = re.compile(r"['\u2018\u2019\u02bc`\uff07][sS]$")
_LEADING_ARTICLES = frozenset({"the", "a", "an"})


@lru_cache(maxsize=500_000)
def token_forms(raw: str) -> tuple[str, ...]:
    """One word as written (a ``raw_tokens`` match) to its mention tokens: ``tokens`` of it,
    without a possessive 's ("Okafor's" -> "okafor") and without trailing decimal zeros
    ("3.50" -> "3 5", "3.0" -> "3")."""
    raw = _POSSESSIVE.sub("", raw)
    if "." not in raw:  # a dot only joins digits: a decimal
        return tuple(tokens(raw))
    head, *fractions = raw.split(".")
    out = tokens(head)
    for f in fractions:
        part = tokens(f)
        if all(d.isdigit() for d in part):
            part = [d.rstrip("0") for d in part if d.rstrip("0")]
        out += part
    return tuple(out)


def _per_cent(toks: list[str], starts: list[int] | None = None, ends: list[int] | None = None
              ) -> list[str]:
    """"per cent" -> "percent", in place (and the spans)."""
    if "cent" not in toks:
        return toks
    i = 0
    while i < len(toks) - 1:
        if toks[i] == "per" and toks[i + 1] == "cent":
            toks[i] = "percent"
            del toks[i + 1]
            if starts is not None and ends is not None:
                del starts[i + 1]
                ends[i] = ends.pop(i + 1)
        i += 1
    return toks


_UPPER = re.compile(r"[A-Z]")
_LOWER = re.compile(r"[a-z]")


class Doc:
    """A text as mention tokens; where each token is in the original text is worked out only
    when a match is reported."""

    __slots__ = ("text", "toks", "_pos", "_starts", "_ends", "_initials", "_shouty")

    def __init__(self, text: str | None):
        self.text = text or ""
        self.toks = _per_cent([t for raw in raw_tokens(self.text) for t in token_forms(raw)])
        self._pos = self._starts = self._ends = self._initials = self._shouty = None

    @property
    def pos(self) -> dict[str, list[int]]:
        if self._pos is None:
            pos: dict[str, list[int]] = defaultdict(list)
            for i, t in enumerate(self.toks):
                pos[t].append(i)
            self._pos = pos
        return self._pos

    def span(self, i: int, j: int) -> tuple[int, int]:
        """Original span of tokens i..j-1 (a possessive 's left out)."""
        if self._starts is None:
            toks, starts, ends = [], [], []
            for m in (_TOKEN_ASCII if self.text.isascii() else _TOKEN).finditer(self.text):
                end = m.end() - 2 if _POSSESSIVE.search(m.group()) else m.end()
                for t in token_forms(m.group()):
                    toks.append(t)
                    starts.append(m.start())
                    ends.append(end)
            _per_cent(toks, starts, ends)  # the same tokens as self.toks: same regex and normaliser
            self._starts, self._ends = starts, ends
        return self._starts[i], self._ends[j - 1]

    def find(self, phrase: Sequence[str]) -> int | None:
        return next(self.find_all(phrase), None)

    def find_all(self, phrase: Sequence[str]) -> Iterator[int]:
        k = len(phrase)
        phrase = list(phrase)
        for p in self.pos.get(phrase[0], ()):
            if self.toks[p:p + k] == phrase:
                yield p

    @property
    def shouty(self) -> bool:
        """Written all in capitals: acronyms cannot be told from words."""
        if self._shouty is None:
            if self.text.isascii():
                up, low = len(_UPPER.findall(self.text)), len(_LOWER.findall(self.text))
            else:
                up = sum(c.isupper() for c in self.text)
                low = sum(c.islower() for c in self.text)
            self._shouty = up + low >= 12 and up > 0.6 * (up + low)
        return self._shouty

    @property
    def initials(self) -> list[tuple[str, int, int]]:
        if self._initials is None:
            self._initials = _capitalised_runs(self.text)
        return self._initials


def mention_tokens(text: str | None) -> list[str]:
    """The mention tokens of a text: ``tokens(text)`` with a possessive 's, trailing decimal
    zeros and "per cent" as "percent" (see the module doc)."""
    return Doc(text).toks


def phrase_tokens(text: str) -> tuple[str, ...]:
    """A needle's tokens: a leading article is dropped ("The Salt Road" = "Salt Road")."""
    toks = Doc(text).toks
    if len(toks) > 1 and toks[0] in _LEADING_ARTICLES:
        toks = toks[1:]
    return tuple(toks)


def contains_phrase(haystack: str | None, needle: str | None) -> bool:
    """Whole-word containment of a phrase: ``needle``'s tokens (a leading article dropped) in a
    row among ``haystack``'s mention tokens ("北京" in "我今天去北京了", "Okafor" in "Okafor's")."""
    phrase = list(phrase_tokens(needle or ""))
    if not phrase or not haystack:
        return False
    toks = mention_tokens(haystack)
    i = -1
    while True:  # a scan from each place of the first token: no index for a one-off search
        try:
            i = toks.index(phrase[0], i + 1)
        except ValueError:
            return False
        if toks[i:i + len(phrase)] == phrase:
            return True


def searchable(text: str | None) -> str:
    """A cheap view of ``text`` in which every token of ``tokens(text)`` and of
    ``mention_tokens(text)`` is a substring: a prefilter, since a phrase with a token that is
    not a substring of it is not in the text (``contains_phrase`` decides)."""
    text = text or ""
    if text.isascii():  # apostrophes and commas go, as in tokens; the rest only adds to it
        s = (text.lower().replace("'", "").replace("`", "").replace(",", "")
             .replace("&", " and ").replace("%", " percent "))
    else:
        s = " ".join(tokens(text))
    return f"{s} percent" if "cent" in s else s


_WORD = re.compile(f"[^\\W\\d_][\\w'\u2019{_IN_WORD}-]*")


def _capitalised_runs(text: str) -> list[tuple[str, int, int]]:
    """(initials, start, end) of every run of 3..6 capitalised words (connectors such as "of"
    or "and" allowed inside): "the European Central Bank said" gives ("ECB", ...)."""
    words = list(_WORD.finditer(text))
    out = []
    for i, w in enumerate(words):
        if not w.group()[0].isupper():
            continue
        initials = w.group()[0]
        end = w.end()
        j = i + 1
        while j < len(words) and len(initials) < ACRONYM_MAX_LETTERS:
            gap = text[end:words[j].start()]
            if gap.strip() not in ("", "&"):
                break
            word = words[j].group()
            if word[0].isupper():
                initials += word[0]
                end = words[j].end()
                if len(initials) >= ACRONYM_MIN_LETTERS:
                    out.append((initials.upper(), w.start(), end))
            elif word.lower() not in _CONNECTORS:
                break
            j += 1
    return out


# ---------------------------------------------------------------------------------------------
# What to look for: an answer's forms

@dataclass(frozen=True)
class Entry:
    kind: str  # phrase, acronym, initials, surname, fuzzy
    rule: str
    form: str  # as written in the answer / alias / table
    toks: tuple[str, ...] = ()  # normalised tokens (candidates are texts holding all of them)
    letters: str = ""  # acronym and initials: the letters as written (case matters)
    joined: str = ""  # fuzzy: the normalised form as one string
    capital: bool = False  # fuzzy: the match must be written with a capital (a surname)


@dataclass(frozen=True)
class Needle:
    answer: str
    entries: tuple[Entry, ...]


_ACRONYM_ANSWER = re.compile(r"^(?:[A-Z]\.?){2,6}$")
_TABLE_BY_FORM: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
_TABLE_BY_EXPANSION: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]] = {}
for _group in ACRONYMS:
    for _a in _group[0]:
        _TABLE_BY_FORM[_a.replace(".", "")] = _group
    for _e in _group[1]:
        _TABLE_BY_EXPANSION[phrase_tokens(_e)] = _group


def _acronym(rule: str, form: str) -> list[Entry]:
    """Entries for an acronym written solid ("US") and with dots ("U.S.": tokens "u", "s")."""
    letters = form.replace(".", "")
    out = [Entry("acronym", rule, form, (letters.lower(),), letters=letters)]
    if letters.isupper():
        out.append(Entry("acronym", rule, form, tuple(letters.lower()), letters=letters))
    return out


def _written_as(span: str, letters: str) -> bool:
    """An acronym as written in the original: its letters in that case, dots allowed ("U.S.");
    a 4+ letter all-capital one also capitalised ("Nato")."""
    written = span.replace(".", "")
    return written == letters or (len(letters) >= 4 and letters.isupper()
                                  and written == letters.capitalize())


def _is_acronym(s: str) -> bool:
    s = s.strip()
    return bool(_ACRONYM_ANSWER.match(s)) or s.replace(".", "") in _TABLE_BY_FORM


def _derived_acronym(s: str) -> str | None:
    """"European Central Bank" -> "ECB" (connectors skipped); None for fewer than 2 words or
    words with digits."""
    words = [w for w in _WORD.findall(s) if w.lower() not in _CONNECTORS]
    if len(words) < 2 or len(_WORD.findall(s)) != len([w for w in s.split() if w != "&"]):
        return None
    return "".join(w[0] for w in words).upper()


def _skipped(answer: str, answer_type: str) -> bool:
    toks = phrase_tokens(answer)
    if not toks:
        return True
    if " ".join(toks) in BINARY_ANSWERS:  # by the answer, never by its label: a name typed binary is checked
        return True
    if len(toks) == 1 and len(toks[0]) == 1:
        return True
    return len(toks) == 1 and toks[0].isdigit() and len(toks[0]) <= 2


def _latin_spelling(form: str) -> str | None:
    """``form``'s transliteration, when it is one worth looking for (see the module doc)."""
    latin = transliteration(form)
    return latin if latin and len(latin.replace(" ", "")) >= TRANSLITERATION_MIN_CHARS else None


def _latin_written(form: str) -> str:
    """``form`` in Latin letters as a reader would write it ("Казань" -> "Kazan", no soft sign)."""
    return _APOSTROPHE.sub("", anyascii(form.strip()))


def _surname(answer: str) -> tuple[str, str] | None:
    """(surname as written, surname token) of a person's name of 2+ words."""
    toks = phrase_tokens(answer)
    names = [t for t in toks if t not in _NAME_SUFFIXES]
    if len(names) < 2 or not names[-1].isalpha() or len(names[-1]) < SURNAME_MIN_LETTERS:
        return None
    surname = names[-1]
    written = next((w for w in reversed(_WORD.findall(answer)) if phrase_tokens(w) == (surname,)),
                   surname)
    return written, surname


@lru_cache(maxsize=100_000)
def needle_for(answer: str, aliases: tuple[str, ...] = (), answer_type: str = "") -> Needle:
    """What to look for to find ``answer`` (or an alias): its entries, in rule order."""
    answer_type = (answer_type or "").lower()
    if _skipped(answer or "", answer_type):
        return Needle(answer or "", ())
    forms = [(answer, "exact")] + [(a, "alias") for a in aliases if a and not _skipped(a, answer_type)]
    latin_forms = []  # (as written in Latin letters, tokens) of the forms in other alphabets
    for form, _rule in forms:
        latin = _latin_spelling(form)
        if latin:
            latin_forms.append((_latin_written(form), tuple(latin.split())))
    entries: dict[tuple, Entry] = {}  # deduplicated, first rule wins

    def add(e: Entry) -> None:
        key = (e.kind, e.toks, e.letters, e.capital)
        entries.setdefault(key, e)

    later: list[Entry] = []  # abbreviation, surname and fuzzy entries come after every phrase
    person = answer_type == "person"
    for form, rule in forms:
        form = form.strip()
        toks = phrase_tokens(form)
        if _is_acronym(form):
            for e in _acronym(rule, form):
                add(e)
            group = _TABLE_BY_FORM.get(form.replace(".", ""))
            if group:
                for a in group[0]:
                    later.extend(_acronym("abbreviation", a))
                for e in group[1]:
                    later.append(Entry("phrase", "abbreviation", e, phrase_tokens(e)))
            letters = form.replace(".", "")
            if len(letters) >= ACRONYM_MIN_LETTERS:
                later.append(Entry("initials", "abbreviation", form, letters=letters.upper()))
            continue
        add(Entry("phrase", rule, form, toks))
        if person or any(c.isdigit() for c in form):
            continue
        group = _TABLE_BY_EXPANSION.get(toks)
        if group:
            for a in group[0]:
                later.extend(_acronym("abbreviation", a))
        acronym = _derived_acronym(form)
        if acronym and len(acronym) >= ACRONYM_MIN_LETTERS:
            later.extend(_acronym("abbreviation", acronym))
    for written, toks in latin_forms:
        add(Entry("phrase", "transliteration", written, toks))
    for e in later:
        add(e)
    surnames = []
    if person:  # the answer's surname, and that of its transliteration
        latin_answer = [_latin_written(answer)] if _latin_spelling(answer) else []
        surnames = [s for s in map(_surname, [answer, *latin_answer]) if s]
    for written, surname in surnames:
        add(Entry("surname", "surname", written, (surname,)))
    fuzzy_forms = [(f.strip(), phrase_tokens(f)) for f, _rule in forms if not _is_acronym(f)]
    for form, ftoks in [*fuzzy_forms, *latin_forms]:
        joined = " ".join(ftoks)
        if (len(joined) >= FUZZY_MIN_CHARS and not any(c.isdigit() for c in joined)
                and not written_without_spaces(joined)):
            add(Entry("fuzzy", "fuzzy", form, ftoks, joined=joined))
    for written, surname in surnames:
        if len(surname) >= FUZZY_MIN_CHARS:
            add(Entry("fuzzy", "fuzzy", written, (surname,), joined=surname, capital=True))
    order = {r: i for i, r in enumerate(RULES)}
    return Needle(answer, tuple(sorted(entries.values(), key=lambda e: order[e.rule])))


def _capitalised(doc: Doc, start: int) -> bool:
    return doc.text[start:start + 1].isupper()


def _match_entry(doc: Doc, e: Entry) -> Mention | None:
    if e.kind == "fuzzy":
        return _fuzzy(doc, e)
    return next(_entry_mentions(doc, e), None)


def _entry_mentions(doc: Doc, e: Entry) -> Iterator[Mention]:
    """Every place entry ``e`` matches in ``doc``, in text order (fuzzy: every window scoring
    at least FUZZY_SCORE)."""
    if e.kind == "phrase":
        for p in doc.find_all(e.toks) if e.toks else ():
            s, t = doc.span(p, p + len(e.toks))
            yield Mention(e.form, doc.text[s:t], s, t, e.rule)
    elif e.kind == "acronym":
        if doc.shouty:
            return
        for p in doc.find_all(e.toks):
            s, t = doc.span(p, p + len(e.toks))
            if _written_as(doc.text[s:t], e.letters):
                if "." in doc.text[s:t] and doc.text[t:t + 1] == ".":
                    t += 1  # "U.S."
                yield Mention(e.form, doc.text[s:t], s, t, e.rule)
    elif e.kind == "initials":
        if doc.shouty:
            return
        for letters, s, t in doc.initials:
            if letters == e.letters:
                yield Mention(e.form, doc.text[s:t], s, t, e.rule)
    elif e.kind == "surname":
        for p in doc.find_all(e.toks):
            s, t = doc.span(p, p + 1)
            if _capitalised(doc, s):
                yield Mention(e.form, doc.text[s:t], s, t, e.rule)
    elif e.kind == "fuzzy":
        yield from sorted(_fuzzy_all(doc, e), key=lambda m: (m.start, -m.score))


def _fuzzy_all(doc: Doc, e: Entry) -> Iterator[Mention]:
    k = len(e.toks)
    n = len(doc.toks)
    # a quick reject: a run of words scoring 90 gives a partial alignment of about 80 or more
    if not fuzz.partial_ratio(e.joined, " ".join(doc.toks), score_cutoff=FUZZY_SCORE - 15):
        return
    windows: list[str] = []
    where: list[tuple[int, int]] = []
    for w in {max(1, k - 1), k, k + 1}:
        for i in range(0, n - w + 1):
            windows.append(" ".join(doc.toks[i:i + w]))
            where.append((i, i + w))
    for _s, score, idx in process.extract_iter(e.joined, windows, scorer=fuzz.ratio,
                                               score_cutoff=FUZZY_SCORE):
        i, j = where[idx]
        s, t = doc.span(i, j)
        if e.capital and not _capitalised(doc, s):
            continue
        yield Mention(e.form, doc.text[s:t], s, t, "fuzzy", round(score, 1))


def _fuzzy(doc: Doc, e: Entry) -> Mention | None:
    best = None
    for m in _fuzzy_all(doc, e):
        if best is None or (m.score, -m.start) > (best.score, -best.start):
            best = m
    return best


def match(doc: Doc, needle: Needle) -> Mention | None:
    for e in needle.entries:
        m = _match_entry(doc, e)
        if m:
            return m
    return None


def all_mentions(doc: Doc, needle: Needle) -> list[Mention]:
    """Every place the answer shows in ``doc``, by any rule, in text order: where several
    rules' spans overlap, the first rule in ``needle``'s order (then the longer span) stands
    for the place. A check that must look at each mention (a candidate list may name the
    answer once and a later sentence single it out) reads this, not ``match``."""
    found = sorted(((m.start, -(m.end - m.start), rank, m) for rank, e in enumerate(needle.entries)
                    for m in _entry_mentions(doc, e)), key=lambda x: (x[0], x[2], x[1]))
    out: list[Mention] = []
    for _start, _neg_len, _rank, m in found:
        if out and m.start < out[-1].end:
            continue  # overlaps a place already reported
        out.append(m)
    return out


def find_mention(text: str, answer: str, aliases: Iterable[str] = (), answer_type: str = ""
                 ) -> Mention | None:
    """The first mention of ``answer`` (or an alias) in ``text`` by the rules of the module doc
    (exact, alias, transliteration, abbreviation, surname, fuzzy, in that order), or None."""
    needle = needle_for(answer or "", tuple(a for a in (aliases or ()) if a), answer_type or "")
    if not needle.entries or not text:
        return None
    return match(Doc(text), needle)
