"""Answer leaks: a question's answer (or an alias) written in its own text, or in the visible
text of another question open at the same time.

A peer benchmark had a quarter of its answers verbatim in the titles of sibling questions, and
agents exploited it. Two steps guard against that here, both over the QUESTIONS schema:

- ``self_leaks``: the answer in the question's own title, background or resolution criteria
  (reason ``answer_in_own_text``);
- ``cross_leaks``: the answer of question A in the visible text (title, background,
  resolution criteria, candidate outcomes) of another question B while both are open
  (``[open_date, resolution_date)`` overlap); the fewest questions are dropped so that no such
  pair remains (reason ``answer_in_other_question``), and every pair is kept as evidence.

``find_mention`` is the one rule both use. Rules, tried in this order (the first that fires is
reported):

1. ``exact`` / ``alias``: the answer / an alias as a whole-word phrase after normalisation
   (case, accents, punctuation, possessive 's, "&" = "and", thousands separators, "%" =
   "per cent" = "percent", trailing decimal zeros: "3.50%" = "3.5%"). An answer written as an
   acronym ("ECB", "U.S.") is only found written in capitals (see 2).
2. ``abbreviation``: an acronym of a multi-word, non-person answer ("European Central Bank" ->
   "ECB", 3+ letters) or one from a small table of well-known ones (US, UK, EU, UN, NATO, IMF,
   WHO, FIFA, IOC, ...), found only as written in capitals in the original text ("U.S." and
   "US" count, the pronoun "us" never does; "Nato" counts for 4+ letters; never in a field
   written all in capitals); the other way round, an acronym answer's table expansions, or a
   run of capitalised words whose initials spell it (3+ letters).
3. ``surname``: for a person answer of 2+ words, the last name (4+ letters; Jr/Sr/II/III
   skipped) as a whole word written with a capital.
4. ``fuzzy``: for an answer, alias or (person) surname of 6+ characters without digits, a run
   of whole words (as many as the form has, one more or one fewer) whose rapidfuzz ratio with
   the form is >= ``FUZZY_SCORE`` (90): "Okafour" is "Okafor", but "Anaheim" is never "Ana".

Never checked: Yes/No (True/False) answers (the words are the options, not a leak) and
answers that cannot be located meaningfully (one character, or a bare integer of one or two
digits with no unit). Numbers are matched exactly (after normalisation): "6.6%" and
"6.6 per cent" are the same, "6.6%" and "6.5%" are not.

A question whose ``candidate_outcomes`` list its answer (a market's options) is not leaking
when its text lists the options too: a mention of the answer in a field that also names
another of its candidate outcomes is part of that list and is not counted as a self leak.
"""

from __future__ import annotations

import heapq
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

import polars as pl
from rapidfuzz import fuzz, process

from pastcast.questions.steps import Evidence, StepResult
from pastcast.schemas import QUESTIONS, complete

FUZZY_SCORE = 90.0
FUZZY_MIN_CHARS = 6
SURNAME_MIN_LETTERS = 4
ACRONYM_MIN_LETTERS = 3  # derived acronyms and initials runs; 2-letter ones only from the table
ACRONYM_MAX_LETTERS = 6

OWN_FIELDS = ("title", "background", "resolution_criteria")
VISIBLE_FIELDS = (*OWN_FIELDS, "candidate_outcomes")
RULES = ("exact", "alias", "abbreviation", "surname", "fuzzy")

BINARY_ANSWERS = frozenset({"yes", "no", "true", "false"})
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
    rule: str  # exact, alias, abbreviation, surname, fuzzy
    score: float = 100.0  # the fuzzy score; 100 for the other rules


# ---------------------------------------------------------------------------------------------
# Tokens with their place in the original text

_TOKEN = re.compile(r"(?:[^\W_]|[\u0300-\u036f])+"
                    r"(?:(?:['\u2018\u2019\u02bc`]|(?<=\d),(?=\d{3}(?!\d))|(?<=\d)\.(?=\d))"
                    r"(?:[^\W_]|[\u0300-\u036f])+)*"
                    r"|[&%]")
# the same on ASCII text, twice as fast
_TOKEN_ASCII = re.compile(r"[A-Za-z0-9]+(?:(?:['`]|(?<=\d),(?=\d{3}(?!\d))|(?<=\d)\.(?=\d))[A-Za-z0-9]+)*|[&%]")


def _raw_tokens(text: str) -> list[str]:
    return (_TOKEN_ASCII if text.isascii() else _TOKEN).findall(text)


_POSSESSIVE = re.compile(r"['\u2018\u2019\u02bc`][sS]$")
_APOSTROPHES = re.compile(r"['\u2018\u2019\u02bc`]")
_NON_ALNUM = re.compile(r"[^0-9a-z]+")
_UPPER = re.compile(r"[A-Z]")
_LOWER = re.compile(r"[a-z]")
_TRANSLIT = str.maketrans({"ø": "o", "æ": "ae", "œ": "oe", "ł": "l", "đ": "d", "ð": "d",
                           "þ": "th", "ı": "i"})
_LEADING_ARTICLES = frozenset({"the", "a", "an"})


@lru_cache(maxsize=500_000)
def _norm_token(raw: str) -> tuple[str, ...]:
    """One raw token (a regex match) to its normalised token(s), as ``pastcast.text.normalise``
    would give them, except: no possessive 's ("Okafor's" -> "okafor"), no trailing decimal
    zeros ("3.50" -> "3 5", "3.0" -> "3"), and a few transliterations ("ø" -> "o")."""
    if raw == "&":
        return ("and",)
    if raw == "%":
        return ("percent",)
    raw = _POSSESSIVE.sub("", raw)
    if raw.isascii():
        s = _APOSTROPHES.sub("", raw).replace(",", "").lower()
    else:
        s = unicodedata.normalize("NFKD", raw)
        s = "".join(c for c in s if not unicodedata.combining(c)).casefold().translate(_TRANSLIT)
        s = _APOSTROPHES.sub("", s).replace(",", "")
    if "." in s:  # digits joined by dots: a decimal
        head, *rest = s.split(".")
        s = " ".join([head, *(f.rstrip("0") if f.isdigit() else f for f in rest)])
    return (s,) if s.isalnum() else tuple(_NON_ALNUM.sub(" ", s).split())


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


class _Doc:
    """A text as normalised tokens; where each token is in the original text is worked out
    only when a match is reported."""

    __slots__ = ("text", "toks", "_pos", "_starts", "_ends", "_initials", "_shouty")

    def __init__(self, text: str | None):
        self.text = text or ""
        self.toks = _per_cent([t for raw in _raw_tokens(self.text) for t in _norm_token(raw)])
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
                for t in _norm_token(m.group()):
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
            up, low = len(_UPPER.findall(self.text)), len(_LOWER.findall(self.text))
            self._shouty = up + low >= 12 and up > 0.6 * (up + low)
        return self._shouty

    @property
    def initials(self) -> list[tuple[str, int, int]]:
        if self._initials is None:
            self._initials = _capitalised_runs(self.text)
        return self._initials


_doc = _Doc


def tokens(text: str | None) -> list[str]:
    """The normalised tokens of a text (as ``normalise(text).split()``, plus "per cent" =
    "percent", no trailing decimal zeros and no possessive 's)."""
    return _doc(text).toks


def _phrase(text: str) -> tuple[str, ...]:
    """A needle's tokens: a leading article is dropped ("The Salt Road" = "Salt Road")."""
    toks = _doc(text).toks
    if len(toks) > 1 and toks[0] in _LEADING_ARTICLES:
        toks = toks[1:]
    return tuple(toks)


_WORD = re.compile(r"[^\W\d_][\w'\u2019-]*")


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
class _Entry:
    kind: str  # phrase, acronym, initials, surname, fuzzy
    rule: str
    form: str  # as written in the answer / alias / table
    toks: tuple[str, ...] = ()  # normalised tokens (candidates are texts holding all of them)
    letters: str = ""  # acronym and initials: the letters as written (case matters)
    joined: str = ""  # fuzzy: the normalised form as one string
    capital: bool = False  # fuzzy: the match must be written with a capital (a surname)


@dataclass(frozen=True)
class _Needle:
    answer: str
    entries: tuple[_Entry, ...]


_ACRONYM_ANSWER = re.compile(r"^(?:[A-Z]\.?){2,6}$")
_TABLE_BY_FORM: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
_TABLE_BY_EXPANSION: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]] = {}
for _group in ACRONYMS:
    for _a in _group[0]:
        _TABLE_BY_FORM[_a.replace(".", "")] = _group
    for _e in _group[1]:
        _TABLE_BY_EXPANSION[_phrase(_e)] = _group


def _acronym(rule: str, form: str) -> list[_Entry]:
    """Entries for an acronym written solid ("US") and with dots ("U.S.": tokens "u", "s")."""
    letters = form.replace(".", "")
    out = [_Entry("acronym", rule, form, (letters.lower(),), letters=letters)]
    if letters.isupper():
        out.append(_Entry("acronym", rule, form, tuple(letters.lower()), letters=letters))
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
    toks = _phrase(answer)
    if not toks:
        return True
    if answer_type == "binary" or " ".join(toks) in BINARY_ANSWERS:
        return True
    if len(toks) == 1 and len(toks[0]) == 1:
        return True
    return len(toks) == 1 and toks[0].isdigit() and len(toks[0]) <= 2


@lru_cache(maxsize=100_000)
def _needle(answer: str, aliases: tuple[str, ...] = (), answer_type: str = "") -> _Needle:
    answer_type = (answer_type or "").lower()
    if _skipped(answer or "", answer_type):
        return _Needle(answer or "", ())
    forms = [(answer, "exact")] + [(a, "alias") for a in aliases if a and not _skipped(a, answer_type)]
    entries: dict[tuple, _Entry] = {}  # deduplicated, first rule wins

    def add(e: _Entry) -> None:
        key = (e.kind, e.toks, e.letters, e.capital)
        entries.setdefault(key, e)

    later: list[_Entry] = []  # abbreviation, surname and fuzzy entries come after every phrase
    person = answer_type == "person"
    for form, rule in forms:
        form = form.strip()
        toks = _phrase(form)
        if _is_acronym(form):
            for e in _acronym(rule, form):
                add(e)
            group = _TABLE_BY_FORM.get(form.replace(".", ""))
            if group:
                for a in group[0]:
                    later.extend(_acronym("abbreviation", a))
                for e in group[1]:
                    later.append(_Entry("phrase", "abbreviation", e, _phrase(e)))
            letters = form.replace(".", "")
            if len(letters) >= ACRONYM_MIN_LETTERS:
                later.append(_Entry("initials", "abbreviation", form, letters=letters.upper()))
            continue
        add(_Entry("phrase", rule, form, toks))
        if person or any(c.isdigit() for c in form):
            continue
        group = _TABLE_BY_EXPANSION.get(toks)
        if group:
            for a in group[0]:
                later.extend(_acronym("abbreviation", a))
        acronym = _derived_acronym(form)
        if acronym and len(acronym) >= ACRONYM_MIN_LETTERS:
            later.extend(_acronym("abbreviation", acronym))
    for e in later:
        add(e)
    toks = _phrase(answer)
    surname = None
    if person and len(toks) >= 2:
        names = [t for t in toks if t not in _NAME_SUFFIXES]
        if len(names) >= 2 and names[-1].isalpha() and len(names[-1]) >= SURNAME_MIN_LETTERS:
            surname = names[-1]
            written = next((w for w in reversed(_WORD.findall(answer)) if _phrase(w) == (surname,)),
                           surname)
            add(_Entry("surname", "surname", written, (surname,)))
    for form, _rule in forms:
        ftoks = _phrase(form)
        joined = " ".join(ftoks)
        if (len(joined) >= FUZZY_MIN_CHARS and not any(c.isdigit() for c in joined)
                and not _is_acronym(form)):
            add(_Entry("fuzzy", "fuzzy", form.strip(), ftoks, joined=joined))
    if surname and len(surname) >= FUZZY_MIN_CHARS:
        add(_Entry("fuzzy", "fuzzy", written, (surname,), joined=surname, capital=True))
    order = {r: i for i, r in enumerate(RULES)}
    return _Needle(answer, tuple(sorted(entries.values(), key=lambda e: order[e.rule])))


def _capitalised(doc: _Doc, start: int) -> bool:
    return doc.text[start:start + 1].isupper()


def _match_entry(doc: _Doc, e: _Entry) -> Mention | None:
    if e.kind == "phrase":
        p = doc.find(e.toks) if e.toks else None
        if p is not None:
            s, t = doc.span(p, p + len(e.toks))
            return Mention(e.form, doc.text[s:t], s, t, e.rule)
    elif e.kind == "acronym":
        if doc.shouty:
            return None
        for p in doc.find_all(e.toks):
            s, t = doc.span(p, p + len(e.toks))
            if _written_as(doc.text[s:t], e.letters):
                if "." in doc.text[s:t] and doc.text[t:t + 1] == ".":
                    t += 1  # "U.S."
                return Mention(e.form, doc.text[s:t], s, t, e.rule)
    elif e.kind == "initials":
        if doc.shouty:
            return None
        for letters, s, t in doc.initials:
            if letters == e.letters:
                return Mention(e.form, doc.text[s:t], s, t, e.rule)
    elif e.kind == "surname":
        for p in doc.find_all(e.toks):
            s, t = doc.span(p, p + 1)
            if _capitalised(doc, s):
                return Mention(e.form, doc.text[s:t], s, t, e.rule)
    elif e.kind == "fuzzy":
        return _fuzzy(doc, e)
    return None


def _fuzzy(doc: _Doc, e: _Entry) -> Mention | None:
    k = len(e.toks)
    n = len(doc.toks)
    # a quick reject: a run of words scoring 90 gives a partial alignment of about 80 or more
    if not fuzz.partial_ratio(e.joined, " ".join(doc.toks), score_cutoff=FUZZY_SCORE - 15):
        return None
    windows: list[str] = []
    where: list[tuple[int, int]] = []
    for w in {max(1, k - 1), k, k + 1}:
        for i in range(0, n - w + 1):
            windows.append(" ".join(doc.toks[i:i + w]))
            where.append((i, i + w))
    if not windows:
        return None
    best = None
    for _s, score, idx in process.extract_iter(e.joined, windows, scorer=fuzz.ratio,
                                               score_cutoff=FUZZY_SCORE):
        i, j = where[idx]
        s, t = doc.span(i, j)
        if e.capital and not _capitalised(doc, s):
            continue
        if best is None or (score, -s) > (best.score, -best.start):
            best = Mention(e.form, doc.text[s:t], s, t, "fuzzy", round(score, 1))
    return best


def _match(doc: _Doc, needle: _Needle) -> Mention | None:
    for e in needle.entries:
        m = _match_entry(doc, e)
        if m:
            return m
    return None


def find_mention(text: str, answer: str, aliases: Iterable[str] = (), answer_type: str = ""
                 ) -> Mention | None:
    """The first mention of ``answer`` (or an alias) in ``text`` by the rules of the module doc
    (exact, alias, abbreviation, surname, fuzzy, in that order), or None."""
    needle = _needle(answer or "", tuple(a for a in (aliases or ()) if a), answer_type or "")
    if not needle.entries or not text:
        return None
    return _match(_doc(text), needle)


# ---------------------------------------------------------------------------------------------
# Questions

def _rows(questions) -> tuple[pl.DataFrame, list[dict]]:
    df = questions if isinstance(questions, pl.DataFrame) else pl.DataFrame(list(questions))
    if not set(QUESTIONS) <= set(df.columns):
        df = df.hstack(complete(df, QUESTIONS).drop(df.columns)).select(
            [*QUESTIONS, *(c for c in df.columns if c not in QUESTIONS)])
    return df, list(df.iter_rows(named=True))


def _needle_of(q: dict) -> _Needle:
    return _needle(q["answer"] or "", tuple(a for a in (q.get("answer_aliases") or []) if a),
                   q.get("answer_type") or "")


def _field_docs(q: dict, fields: Sequence[str]) -> list[tuple[str, _Doc]]:
    """(field name, doc) of a question's fields; each candidate outcome is its own doc."""
    out = []
    for f in fields:
        if f == "candidate_outcomes":
            out.extend((f, _doc(o)) for o in (q.get(f) or []) if o)
        elif q.get(f):
            out.append((f, _doc(q[f])))
    return out


def _listed_among_options(q: dict, doc: _Doc, needle: _Needle) -> bool:
    """True when ``q``'s candidate outcomes include its answer and ``doc`` also names another of
    them: the answer is mentioned as one option of a list, not singled out."""
    options = [o for o in (q.get("candidate_outcomes") or []) if o]
    if len(options) < 2:
        return False
    answer_toks = [e.toks for e in needle.entries if e.kind == "phrase" and e.rule in ("exact", "alias")]
    others = [o for o in options if _phrase(o) not in answer_toks]
    if len(others) == len(options):  # the answer is not one of the options
        return False
    return any(_match(doc, _needle(o, (), "")) for o in others)


def self_leak_mentions(q: dict) -> list[tuple[str, Mention]]:
    """(field, mention) of ``q``'s answer in its own title, background, resolution criteria."""
    needle = _needle_of(q)
    if not needle.entries:
        return []
    out = []
    for f, doc in _field_docs(q, OWN_FIELDS):
        m = _match(doc, needle)
        if m and not _listed_among_options(q, doc, needle):
            out.append((f, m))
    return out


def _describe(m: Mention) -> str:
    how = m.rule if m.rule != "fuzzy" else f"fuzzy {m.score:g}"
    return f"{m.span!r} ({how}: {m.form!r})"


def self_leaks(questions: pl.DataFrame, stage: str = "self_leak") -> StepResult:
    """Drop every question whose answer (or an alias) is mentioned in its own title, background
    or resolution criteria (reason ``answer_in_own_text``; options of its own candidate outcomes
    are not looked at, see the module doc)."""
    df, rows = _rows(questions)
    result = StepResult(df)
    dropped = set()
    for q in rows:
        found = self_leak_mentions(q)
        if not found:
            continue
        qid = q["question_id"]
        dropped.add(qid)
        detail = "; ".join(f"{f}: {_describe(m)}" for f, m in found)
        result.drop(qid, stage, "answer_in_own_text", f"answer {q['answer']!r} in {detail}")
        result.evidence.append(Evidence(qid, stage, "drop", "answer_in_own_text",
                                        spans=tuple(m.span for _, m in found), detail=detail))
    result.kept = df.filter(~pl.col("question_id").is_in(list(dropped)))
    return result


# ---------------------------------------------------------------------------------------------
# Cross leaks

@dataclass(frozen=True)
class Pair:
    """Question ``leaker``'s answer is mentioned in question ``host``'s visible text while both
    are open."""

    leaker: str  # A: the question whose answer shows
    host: str  # B: the question whose text shows it
    answer: str
    mentions: tuple[tuple[str, Mention], ...]  # (field of B, mention)


def _ordinal(d: date | None, default: int) -> int:
    return d.toordinal() if d is not None else default


def _overlap(a: dict, b: dict) -> bool:
    """[open_date, resolution_date) of a and b intersect (a missing date is unbounded)."""
    lo, hi = -(10 ** 9), 10 ** 9
    return (_ordinal(a["open_date"], lo) < _ordinal(b["resolution_date"], hi)
            and _ordinal(b["open_date"], lo) < _ordinal(a["resolution_date"], hi))


class _Index:
    """Visible texts of every question, and where each normalised token occurs (and, built on
    first use, each acronym spelt by a run of capitalised words, key "I:<letters>")."""

    def __init__(self, rows: list[dict]):
        self.rows = rows
        self._docs: dict[int, list[tuple[str, _Doc]]] = {}
        postings: dict[str, set[int]] = defaultdict(set)
        for i, q in enumerate(rows):
            raw = set()
            for f in VISIBLE_FIELDS:
                v = q.get(f)
                if v:
                    raw.update(_raw_tokens(v if isinstance(v, str) else "\n".join(x for x in v if x)))
            toks = {t for r in raw for t in _norm_token(r)}
            if "cent" in toks:
                toks.add("percent")  # a superset of the tokens of each field is enough here
            for t in toks:
                postings[t].add(i)
        self.postings = postings
        self._deletions: dict[str, set[str]] | None = None
        self._neighbours: dict[str, set[str]] = {}
        self._initials: dict[str, set[int]] | None = None

    def docs(self, i: int) -> list[tuple[str, _Doc]]:
        if i not in self._docs:
            self._docs[i] = _field_docs(self.rows[i], VISIBLE_FIELDS)
        return self._docs[i]

    def holding_all(self, toks: Sequence[str]) -> set[int]:
        sets = sorted((self.postings.get(t, set()) for t in set(toks)), key=len)
        if not sets or not sets[0]:
            return set()
        return set.intersection(*sets) if len(sets) > 1 else set(sets[0])

    def spelling(self, letters: str) -> set[int]:
        if self._initials is None:
            initials: dict[str, set[int]] = defaultdict(set)
            for i in range(len(self.rows)):
                for _f, doc in self.docs(i):
                    for spelt, _s, _t in doc.initials:
                        initials[spelt].add(i)
            self._initials = initials
        return self._initials.get(letters, set())

    def neighbours(self, tok: str) -> set[str]:
        """Vocabulary tokens within one edit of ``tok`` (itself included), by deletion
        neighbourhoods; tokens under 4 characters only match themselves."""
        if len(tok) < 4:
            return {tok}
        if tok in self._neighbours:
            return self._neighbours[tok]
        if self._deletions is None:
            dels: dict[str, set[str]] = defaultdict(set)
            for v in self.postings:
                if len(v) >= 4:
                    dels[v].add(v)
                    for i in range(len(v)):
                        dels[v[:i] + v[i + 1:]].add(v)
            self._deletions = dels
        out = {tok}
        for key in {tok, *(tok[:i] + tok[i + 1:] for i in range(len(tok)))}:
            out |= self._deletions.get(key, set())
        self._neighbours[tok] = out
        return out

    def candidates(self, needle: _Needle) -> set[int]:
        out: set[int] = set()
        for e in needle.entries:
            if e.kind in ("phrase", "acronym", "surname") and e.toks:
                out |= self.holding_all(e.toks)
            elif e.kind == "initials":
                out |= self.spelling(e.letters)
            elif e.kind == "fuzzy":
                sets = []
                for t in set(e.toks):
                    s = set()
                    for v in self.neighbours(t):
                        s |= self.postings.get(v, set())
                    sets.append(s)
                sets.sort(key=len)
                if sets and sets[0]:
                    out |= set.intersection(*sets)
        return out


def find_pairs(questions: pl.DataFrame) -> list[Pair]:
    """Every (A, B), A != B, open at the same time, with A's answer in B's visible text.

    Candidates come from an inverted index (texts holding every token of a form; acronyms
    spelt by capitalised runs; for fuzzy forms, texts holding each token or a word within one
    edit of it) and are verified with the same rules as ``find_mention``. The fuzzy rule is
    thereby limited to typos of at most one edit per word (one letter added, dropped or
    changed; tokens under 4 characters exact), which covers a score of 90 for names up to
    about 20 characters.
    """
    return _find_pairs(_rows(questions)[1])


def _find_pairs(rows: list[dict]) -> list[Pair]:
    index = _Index(rows)
    pairs = []
    for a, qa in enumerate(rows):
        needle = _needle_of(qa)
        if not needle.entries:
            continue
        for b in sorted(index.candidates(needle)):
            if b == a or not _overlap(qa, rows[b]):
                continue
            found = []
            for f, doc in index.docs(b):
                m = _match(doc, needle)
                if m:
                    found.append((f, m))
            if found:
                pairs.append(Pair(qa["question_id"], rows[b]["question_id"], qa["answer"], tuple(found)))
    return pairs


def _period(q: dict) -> str:
    return f"open {q['open_date']}..{q['resolution_date']}"


def _pair_detail(p: Pair, rows: dict[str, dict], dropped: str) -> str:
    where = ", ".join(f"{f} {_describe(m)}" for f, m in p.mentions)
    a, b = rows[p.leaker], rows[p.host]
    if dropped == p.leaker:
        return (f"its answer {p.answer!r} shows in {p.host}'s {where} ({_period(b)}; this one "
                f"{_period(a)})")
    return (f"shows {p.leaker}'s answer {p.answer!r} in its {where} ({p.leaker} {_period(a)}; "
            f"this one {_period(b)})")


def _choose_drops(pairs: list[Pair], rows: dict[str, dict]) -> list[tuple[str, list[Pair]]]:
    """Greedy cover: repeatedly drop the question in the most remaining pairs (ties: one whose
    answer leaks, then the later open_date, then the greater id); returns (dropped id, the
    pairs it removed) in drop order."""
    edges: dict[str, set[int]] = defaultdict(set)
    for i, p in enumerate(pairs):
        edges[p.leaker].add(i)
        edges[p.host].add(i)
    alive = set(range(len(pairs)))
    ids = sorted(edges)
    rank = {q: n for n, q in enumerate(ids)}

    def key(q: str) -> tuple:
        leaks = any(pairs[i].leaker == q for i in edges[q])
        return (-len(edges[q]), -int(leaks), -_ordinal(rows[q]["open_date"], 0), -rank[q])

    heap = [(key(q), q) for q in ids]
    heapq.heapify(heap)
    out = []
    while alive and heap:
        k, q = heapq.heappop(heap)
        if not edges[q] or k != key(q):  # stale: a fresh entry was pushed when q's pairs changed
            continue
        removed = sorted(edges[q])
        alive -= set(removed)
        for i in removed:
            other = pairs[i].host if pairs[i].leaker == q else pairs[i].leaker
            if other != q:
                edges[other].discard(i)
                if edges[other]:
                    heapq.heappush(heap, (key(other), other))
        edges[q] = set()
        out.append((q, [pairs[i] for i in removed]))
    return out


def cross_leaks(questions: pl.DataFrame, stage: str = "cross_leak") -> StepResult:
    """Drop the fewest questions (greedily) so that no question's answer (or alias) shows in
    the visible text of another question open at the same time; every pair is evidence."""
    df, rows = _rows(questions)
    by_id = {q["question_id"]: q for q in rows}
    pairs = _find_pairs(rows)
    result = StepResult(df)
    for p in pairs:
        result.evidence.append(Evidence(
            p.leaker, stage, "pair", "answer_in_other_question",
            spans=tuple(m.span for _, m in p.mentions), other_question_id=p.host,
            detail=f"answer {p.answer!r} in {p.host}'s " + ", ".join(
                f"{f} {_describe(m)}" for f, m in p.mentions)))
    dropped = []
    for qid, removed in _choose_drops(pairs, by_id):
        dropped.append(qid)
        details = [_pair_detail(p, by_id, qid) for p in removed[:3]]
        if len(removed) > 3:
            details.append(f"and {len(removed) - 3} more pairs")
        result.drop(qid, stage, "answer_in_other_question", "; ".join(details))
    result.kept = df.filter(~pl.col("question_id").is_in(dropped))
    return result


def leaks_in_snapshot(questions: pl.DataFrame) -> dict[str, list[str]]:
    """Every self and cross leak left in a set of questions, by the id of the question whose
    answer leaks (for blocking asset checks: empty means clean)."""
    _df, rows = _rows(questions)
    out: dict[str, list[str]] = defaultdict(list)
    for q in rows:
        for f, m in self_leak_mentions(q):
            out[q["question_id"]].append(f"answer {q['answer']!r} in its own {f}: {_describe(m)}")
    for p in _find_pairs(rows):
        where = ", ".join(f"{f} {_describe(m)}" for f, m in p.mentions)
        out[p.leaker].append(f"answer {p.answer!r} in {p.host}'s {where} while both are open")
    return dict(out)
