"""The distinctive phrases of a question's texts, in every script: what its title, background
and resolution criteria name that a reader could date.

Three kinds, each looked for the way its script writes it:

- ``title``: quoted or title-marked text, in any script: '…', "…", ‘…’, “…”, „…“, «…», ‹…›,
  《…》, 〈…〉, 「…」, 『…』, 【…】 (a parenthesis at the end left out: "The Death of Slim Shady
  (Coup de Grâce)" is looked for as "The Death of Slim Shady"). An apostrophe inside a word is
  never a quote ("Eminem's").
- ``name``: in scripts with capitals (Latin, Cyrillic, Greek, ...), a run of capitalised words
  with lower-case connectors inside ("Bank of England") and numbers after a word ("Billboard
  200"), never across punctuation, cut at a possessive ("Eminem's" ends a run); a run that
  starts a sentence loses its leading function word ("Will Rudy Giuliani" -> "Rudy Giuliani")
  and, if one word long, counts only when the word is capitalised elsewhere in the question
  too ("Swift beat ..." alone is not a name); a capitalised word after a lower-case article of
  another language is a common noun ("der Kinder"). In Japanese, a run of three or more
  katakana (foreign names and new coinages are written in it). A field written in Title Case
  or in capitals gives no names: every word is capitalised there.
- ``figure``: an amount with a scale word ("$4.7 billion", "1,8 Milliarden", "3,5 млрд",
  "5000亿") or written with "percent", and at least two significant digits: the search index
  keeps no "$", "%" or "€", so "5.2%" would be looked for as "5 2", and "$1 billion" is in
  every year's news.

Left out, since every question has them or they date nothing: month and weekday names, the
function words of ``pastcast.search.keywords.STOPWORDS`` and the question frame's own words
(``FRAME_WORDS``: "Yes", "Resolution", "UTC", ...), bare numbers, years and dates, and the
options a question lists as known candidates (``candidate_outcomes``: a market lists its
options from its start; a minor candidate first covered later is rarely reported, not new).

Scripts without capitals or spaces get titles, katakana runs, Latin-script names written in
them ("iPhone 16", "OpenAI") and figures, but no other names: Chinese, Arabic, Hebrew or Hindi
do not mark names, and a rarity test on character n-grams would need their frequencies, which
the search index does not keep (it holds a term per character: a phrase is found, its rarity
among all n-grams is not known).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pastcast.questions.candidate_lists import NAME_CONNECTORS
from pastcast.search.index import phrase_terms
from pastcast.search.keywords import STOPWORDS
from pastcast.text.normalise import IDEOGRAPHIC
from pastcast.text.vocabulary import ARTICLES, MONTH_ABBREVIATIONS, MONTHS, WEEKDAYS

KINDS = ("title", "name", "figure")
FIELDS = ("title", "background", "resolution_criteria")

# Words of the question frame, capitalised for reasons other than naming something (lower case).
FRAME_WORDS = frozenset(
    """yes no true false question questions resolve resolves resolved resolution criteria
    background note notes fine print clarification clarifications update edit edited source
    sources otherwise example e.g i.e utc gmt et est edt pt pst pdt cet cest bst ist jst n/a tbd
    q1 q2 q3 q4 h1 h2 mr mrs ms dr st""".split())
_NEVER_NAMES = FRAME_WORDS | frozenset(w.lower() for w in (*MONTHS, *MONTH_ABBREVIATIONS, *WEEKDAYS))
# capitalised at a sentence start whatever they are; inside a sentence part of a name ("Bank of
# The West"), never a name alone, and only these start one ("The Hague", "New York", "El Paso")
_FUNCTION_WORDS = STOPWORDS | frozenset(ARTICLES)
_NAME_STARTS = NAME_CONNECTORS | {"new"}
_NOT_NAMES = _NEVER_NAMES | _FUNCTION_WORDS

# Scripts, most specific first: a phrase's script is the first of these its letters are in.
SCRIPTS: tuple[tuple[str, re.Pattern], ...] = tuple((name, re.compile(f"[{chars}]")) for name, chars in (
    ("cjk", IDEOGRAPHIC),  # Han and kana
    ("hangul", "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"),
    ("thai", "\u0e00-\u0e7f"),
    ("lao", "\u0e80-\u0eff"),
    ("khmer", "\u1780-\u17ff"),
    ("myanmar", "\u1000-\u109f"),
    ("cyrillic", "\u0400-\u052f"),
    ("greek", "\u0370-\u03ff\u1f00-\u1fff"),
    ("arabic", "\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff"),
    ("hebrew", "\u0590-\u05ff"),
    ("devanagari", "\u0900-\u097f"),
    ("bengali", "\u0980-\u09ff"),
    ("georgian", "\u10a0-\u10ff"),
    ("armenian", "\u0530-\u058f"),
    ("latin", "A-Za-z\u00c0-\u024f\u1e00-\u1eff"),
))


@dataclass(frozen=True)
class Phrase:
    text: str  # as the question writes it
    kind: str  # title, name, figure
    script: str  # of SCRIPTS
    field: str  # the first field it is in


def script_of(text: str) -> str | None:
    """The script of ``text``: the first of ``SCRIPTS`` any of its characters is in."""
    for name, letters in SCRIPTS:
        if letters.search(text):
            return name
    return None


# -- titles ----------------------------------------------------------------------------------

_QUOTE_PAIRS = (("“", "”"), ("„", "“"), ("„", "”"), ("«", "»"), ("»", "«"), ("‹", "›"), ("《", "》"),
                ("〈", "〉"), ("「", "」"), ("『", "』"), ("【", "】"), ("‘", "’"), ('"', '"'), ("'", "'"))
# ASCII and typographic single quotes double as apostrophes: a quote opens after no letter and
# closes before none ("Eminem's 'The Death'": the first is an apostrophe, the second opens).
_APOSTROPHES = frozenset("'‘’")
_QUOTED = re.compile("|".join(
    (f"(?<![\\w]){re.escape(o)}(?!s\\s)" if o in _APOSTROPHES or c in _APOSTROPHES else re.escape(o))
    + f"(?P<q{i}>[^{re.escape(o + c)}\\n]{{2,160}}?){re.escape(c)}"
    + ("(?![\\w])" if o in _APOSTROPHES or c in _APOSTROPHES else "")
    for i, (o, c) in enumerate(_QUOTE_PAIRS)))
_PARENTHESIS = re.compile(r"\s*[(（\[][^)）\]]*[)）\]]")
MAX_TITLE_WORDS = 12
_CLEAN_EDGES = " \t,.;:!?-–—…'\"’‘“”«»"


def _titles(text: str) -> list[tuple[str, int, int]]:
    """(quoted text, start, end) of each quoted or title-marked span."""
    out = []
    for m in _QUOTED.finditer(text):
        body = next(v for v in m.groupdict().values() if v is not None)
        body = _PARENTHESIS.sub("", body).strip(_CLEAN_EDGES)
        words = body.split()
        if not words or len(words) > MAX_TITLE_WORDS or not any(c.isalpha() for c in body):
            continue
        if not written_unspaced(body):
            if len(words) == 1 and (len(body) < 4 or body.lower() in _NOT_NAMES):
                continue
            if _has_case(body) and not any(_capitalised(w) for w in words):
                continue  # scare quotes around ordinary words ('unborn child'), not a title
        out.append((body, m.start(), m.end()))
    return out


UNSPACED_SCRIPTS = frozenset({"cjk", "thai", "lao", "khmer", "myanmar"})
CASED_SCRIPTS = frozenset({"latin", "cyrillic", "greek", "armenian"})


def written_unspaced(text: str) -> bool:
    return script_of(text) in UNSPACED_SCRIPTS


def _has_case(text: str) -> bool:
    return script_of(text) in CASED_SCRIPTS


# -- names -----------------------------------------------------------------------------------

_TOKEN = re.compile(r"(?P<word>(?:[^\W_]|['’.\-&](?=[^\W_]))+)|(?P<break>[^\w\s])|(?P<line>\n)")
_SENTENCE_END = frozenset(".!?:;")
_ELIDED = re.compile(r"^[a-zà-ÿ]{1,2}['’](?=[^\W\d_])")  # "l'Elysée", "d'Italia"
_SUFFIX = re.compile(r"['’]([^\W\d_]{1,4})$")  # "Swift's", "İzmir'in"
_YEAR = re.compile(r"^(?:1[89]|20)\d\d$")
_KATAKANA = re.compile(r"[\u30a1-\u30fa\u30fc\u31f0-\u31ff\uff66-\uff9d]{3,}")


def _capitalised(word: str) -> bool:
    first = word[:1]
    if first.isupper():
        return True
    # "iPhone", "eBay": a capital after a lower-case first letter
    return first.islower() and any(c.isupper() for c in word[1:]) and first.isascii()


def _acronym(word: str) -> bool:
    letters = [c for c in word if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def _title_case(text: str) -> bool:
    """Written in capitals, or in Title Case: 3+ words, none of 4+ letters in lower case, and a
    function word capitalised after the first word that starts no name ("Will Lisa From
    Blackpink Perform Solo At The Global Citizen Festival?", "Will It Happen?"; not "According
    to The New York Times")."""
    words = [w.strip(_CLEAN_EDGES) for w in text.split()]
    words = [w for w in words if w[:1].isalpha() and _has_case(w)]
    if len(words) < 3:
        return False
    if all(w.isupper() for w in words if len(w) > 1):
        return True
    if any(w[:1].islower() and not _capitalised(w) and len(w) >= 4 for w in words):
        return False
    return any(w[:1].isupper() and w.lower() in _FUNCTION_WORDS and w.lower() not in _NAME_STARTS for w in words[1:])


def _runs(text: str) -> list[tuple[list[str], bool, int]]:
    """(words, starts a sentence, start offset) of each run of capitalised words."""
    runs: list[tuple[list[str], bool, int]] = []
    run: list[str] = []
    run_start, run_at_sentence = 0, False
    sentence_start = True
    previous = ""

    def flush():
        nonlocal run
        while run and run[-1] in NAME_CONNECTORS:
            run.pop()
        if run:
            runs.append((run, run_at_sentence, run_start))
        run = []

    for m in _TOKEN.finditer(text):
        if m.lastgroup != "word":
            flush()
            if m.lastgroup == "line" or m.group() in _SENTENCE_END:
                sentence_start = True
            previous = ""
            continue
        word = m.group()
        if (e := _ELIDED.match(word)) and not run:
            word = word[e.end():]
        suffix = _SUFFIX.search(word)
        ends = bool(suffix and suffix.group(1).islower())
        if ends:
            word = word[:suffix.start()]
        at_sentence = sentence_start
        sentence_start = False
        after_article, previous = previous in ARTICLES, word.lower()
        low = word.lower()
        function = low in _FUNCTION_WORDS and (at_sentence or not (run or low in _NAME_STARTS))
        if _capitalised(word) and low not in _NEVER_NAMES and not function and not (
                after_article and not run and not _acronym(word)):
            if not run:
                run_start, run_at_sentence = m.start(), at_sentence
            run.append(word)
        elif run and word in NAME_CONNECTORS:
            run.append(word)
        elif run and word.isdigit() and not _YEAR.match(word):
            run.append(word)
        else:
            flush()
        if ends:
            flush()
    flush()
    return runs


def _names(text: str, elsewhere: set[str]) -> list[tuple[str, int]]:
    """(name, start offset) of each run that counts as a name (see the module doc)."""
    out = []
    for words, at_sentence, start in _runs(text):
        if at_sentence and len(words) == 1 and words[0] not in elsewhere and not _acronym(words[0]):
            continue
        name = " ".join(words)
        letters = sum(c.isalpha() for c in name)
        if letters < 3 or written_unspaced(name):
            continue
        out.append((name, start))
    for m in _KATAKANA.finditer(text):
        out.append((m.group(), m.start()))
    return out


def _capitalised_inside(texts: list[str]) -> set[str]:
    """Capitalised words of the texts that are not at a sentence start: "Russia" in "... in
    Russia" makes a sentence's first word "Russia" a name too."""
    found = set()
    for text in texts:
        for words, at_sentence, _ in _runs(text):
            found.update(words[1:] if at_sentence else words)
    return found


# -- figures ---------------------------------------------------------------------------------

_SCALES = (r"million|millions|billion|billions|trillion|trillions|thousand|bn|mn|Million|Millionen|Milliarde|"
           r"Milliarden|Mio|Mrd|milliard|milliards|millón|millones|miliardi|milioni|miliardo|milione|"
           r"миллион\w*|миллиард\w*|млн|млрд|трлн|тыс\w*|percent|per cent|Prozent|pour cent|por ciento|"
           r"per cento|процент\w*")
_FIGURE = re.compile(
    r"(?<![0-9A-Za-z_.,])(?:[$€£¥₹₽]\s?)?(?P<number>\d{1,3}(?:[,.\u00a0\u202f ]\d{3})+|\d+)(?:[.,](?P<decimal>\d+))?"
    rf"(?:\s?(?P<scale>(?:{_SCALES})(?!\w))|(?P<unspaced>[万億亿兆]))", re.I)


def _figures(text: str) -> list[tuple[str, int]]:
    out = []
    for m in _FIGURE.finditer(text):
        digits = re.sub(r"\D", "", m.group("number") + (m.group("decimal") or "")).strip("0")
        if len(digits) < 2:
            continue
        out.append((m.group().strip(), m.start()))
    return out


# -- all of them ----------------------------------------------------------------------------

_KIND_ORDER = {k: i for i, k in enumerate(KINDS)}


def distinctive_phrases(title: str | None, background: str | None = None, resolution_criteria: str | None = None,
                        candidate_outcomes=(), max_phrases: int = 32) -> list[Phrase]:
    """The distinctive phrases of a question's texts (see the module doc), each once (by the
    terms it is searched as), titles first, then names with more words, then figures; at most
    ``max_phrases``."""
    texts = {"title": title or "", "background": background or "", "resolution_criteria": resolution_criteria or ""}
    main_script = script_of(texts["title"]) or script_of(" ".join(texts.values())) or "latin"
    known = {phrase_terms(o) for o in (candidate_outcomes or []) if o}
    elsewhere = _capitalised_inside([t for t in texts.values() if not _title_case(t)])
    found: list[tuple[tuple, Phrase]] = []
    seen: set[tuple[str, ...]] = set()
    for order, (field, text) in enumerate(texts.items()):
        if not text:
            continue
        spans = _titles(text)
        masked = text
        for _, start, end in spans:  # a quoted title's words are no names of their own
            masked = masked[:start] + "\n" + " " * (end - start - 1) + masked[end:]
        candidates = [(body, "title", start) for body, start, _ in spans]
        if not _title_case(text):
            candidates += [(name, "name", start) for name, start in _names(masked, elsewhere)]
        candidates += [(figure, "figure", start) for figure, start in _figures(masked)]
        for phrase, kind, start in candidates:
            terms = phrase_terms(phrase)
            if terms is None or terms in seen or terms in known:
                continue
            if all(t in _NOT_NAMES for t in phrase.lower().split()):
                continue
            seen.add(terms)
            script = main_script if kind == "figure" else (script_of(phrase) or main_script)
            rank = (_KIND_ORDER[kind], -len(terms) if kind == "name" else 0, order, start)
            found.append((rank, Phrase(phrase, kind, script, field)))
    found.sort(key=lambda f: f[0])
    return [p for _, p in found[:max_phrases]]
