"""Yes/no questions as events: what a yes/no question's title asks about.

A yes/no question's outcome is not the word "Yes": it is the event its title asks about ("Will
the board approve the merger by June?") or the event's absence. ``YesNoEvent.of(question)``
reads the title, in its language (``pastcast.text.language``), into:

- its kind: ``event`` (it may happen any day up to a deadline), ``threshold`` (a figure
  crossing a value: "Will inflation exceed 5% by June?", "at least 1,800 employees") or ``state``
  (a state on a named day: "Will X still be CEO on 31 December?", "Will 2025 be the hottest year
  on record?", "Will the price be higher on D than on D0?", a deadline the title states as "on",
  see ``pastcast.questions.deadlines``);
- the event's words: its names (runs of capitalised words, acronyms; not in German, whose nouns
  are all capitalised), the stems of its other content words (Snowball stemmers; character pairs
  in scripts written without spaces) and its verb (``action``: "approve", "declared over"; in
  "announce plans to acquire X" the acquisition), the question's frame ("will", "wird", "ли",
  "吗"), its deadline and function words left out.

Which outcome settles a question early (``YesNoEvent.sought``): a report of the event for "Yes";
a report that it can no longer happen for "No" (the deadline stands otherwise); a crossing for a
threshold's "Yes"; nothing for a state's "Yes" (known only on its day) and an ending for its
"No". The leak checks look for any outcome in a question's own text and in other questions'
(``outcomes``): a text stating either gives it away. How a sentence is read as a report:
``pastcast.questions.revision.event_reports``.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from dataclasses import dataclass
from datetime import date

from pastcast.questions.deadlines import deadline_spans, without_deadlines
from pastcast.questions.revision import event_cues as cues
from pastcast.text.function_words import function_words
from pastcast.text.language import language_of, stems
from pastcast.text.normalise import normalise, written_without_spaces
from pastcast.text.vocabulary import BINARY_ANSWERS, MONTHS, WEEKDAYS

NAME_SHARE = 0.5  # of the event's names a report must hold (one of one or two, two of three or four)
TERM_SHARE = 0.5  # of the event's other content words a report must hold
KINDS = ("event", "threshold", "state")

_TAG = re.compile(r"^\s*(?:\[[^\]]*\]\s*)+")  # "[Single Market] Will ..."
YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_SPAN_YEAR = re.compile(r"\b(?:since|from|until|till|through|between|before|after|seit|depuis|desde|с)\s+"
                        r"(?:(?:early|late|mid)-?\s*)?(?:19|20)\d\d\b", re.I)
WORD = re.compile(r"[^\W_](?:[\w'’.-]*[^\W_])?")
_NAME_WORD = re.compile(r"[^\W_](?:[\w'’.-]*[^\W_])?|&")
NUMBER = re.compile(r"(?P<pre>[$€£¥])?\s?(?P<num>\d{1,3}(?:[,.]\d{3})+(?![\d])(?:[.,]\d+)?|\d+(?:[.,]\d+)?)\s?(?P<scale>bn|billion|million|mn|m|trillion|"
                     r"tn|k|thousand|milliard\w*|milliarden|millones|mil\s+millones|млрд|млн|亿|万)?\s?"
                     r"(?P<unit>%|percent|per\s+cent|pc|prozent|pour\s+cent|por\s+ciento|процент\w*|"
                     r"points?|punkte|bps|basis\s+points)?", re.I)
_ISO_DATE = re.compile(r"\b(?:19|20)\d\d-\d\d-\d\d\b")


@dataclass(frozen=True)
class Threshold:
    comparator: str  # ">", ">=", "<", "<="
    value: float
    unit: str  # "%", "$", "€", "£", "¥", "points" or ""
    scale: float  # 1, 1e3, 1e6, 1e9, 1e12

    def crossed_by(self, value: float) -> bool:
        return {">": value > self.value, ">=": value >= self.value,
                "<": value < self.value, "<=": value <= self.value}[self.comparator]


@dataclass(frozen=True)
class Found:
    """A sentence's report of an outcome: what it reports and the words that say so."""

    outcome: str  # event, impossible, crossing
    cue: str
    names: tuple[str, ...]


@dataclass(frozen=True)
class YesNoEvent:
    kind: str  # event, threshold, state
    answer: str  # "Yes" or "No" (normalised)
    language: str
    clause: str  # the title without its frame and deadline
    names: tuple[str, ...]
    terms: tuple[str, ...]  # stems of its other content words (character pairs without spaces)
    need_names: int
    need_terms: int
    years: frozenset[int]
    threshold: Threshold | None = None
    unspaced: bool = False
    action: str = ""  # the first content word after the subject, as written (usually the verb)
    opens: date | None = None  # the question's open date: what happened before it is background
    repeat: bool = False  # asks about a repeat ("again", "another"): earlier times report nothing

    @classmethod
    def of(cls, q: dict) -> YesNoEvent | None:
        """The event of a yes/no question (None for another kind, or a title naming no event).
        Read once per distinct question: the leak, temporal and revision steps each ask."""
        if not is_yes_no(q):
            return None
        title = q.get("title") if isinstance(q.get("title"), str) else ""
        criteria = q.get("resolution_criteria") if isinstance(q.get("resolution_criteria"), str) else ""
        return _event_of(title, criteria[:400], normalise(q.get("answer")), q.get("open_date"), q.get("resolution_date"))

    @classmethod
    def _read(cls, title: str, criteria: str, answer: str, opens: date | None, resolves: date | None
              ) -> YesNoEvent | None:
        q = {"title": title, "resolution_criteria": criteria, "answer": answer, "open_date": opens,
             "resolution_date": resolves}
        title = _TAG.sub("", title).strip()
        language = language_of(f"{title} {criteria}"[:400])
        unspaced = written_without_spaces(title)
        reference = q.get("open_date") or q.get("resolution_date") or date.today()
        clause = _ISO_DATE.sub(" ", without_deadlines(title, reference)).rstrip(" ?？")
        threshold = _threshold(clause, language)
        kind = "threshold" if threshold else ("state" if _is_state(title, clause, language, reference) else "event")
        if unspaced:
            names, terms, action = (), _char_pairs(clause), ""
        else:
            names, terms, action = _names_and_terms(clause, language)
        if not names and not terms:
            return None
        period = years(title)
        if not period and q.get("resolution_date"):
            first = (q.get("open_date") or q["resolution_date"]).year
            period = set(range(first, q["resolution_date"].year + 1))
        answer = "Yes" if normalise(q.get("answer")) in ("yes", "true") else "No"
        return cls(kind, answer, language, clause, tuple(names), tuple(terms),
                   math.ceil(NAME_SHARE * len(names)), math.ceil(TERM_SHARE * len(terms)) if terms else 0,
                   frozenset(period), threshold, unspaced, action, q.get("open_date"),
                   bool(cues.REPEAT.search(title)))

    @property
    def action_stems(self) -> tuple[str, ...]:
        return tuple(st for w in self.action.split() for st in stems(w, self.language)[:1]) if not self.unspaced else ()

    @property
    def need_other_terms(self) -> int:
        """Of the event's words other than its verb, how many a report calling it off holds."""
        others = [t for t in self.terms if t not in self.action_stems]
        return math.ceil(TERM_SHARE * len(others)) if others else 0

    @property
    def sought(self) -> str | None:
        """The report that settles this question's answer before its date (None: nothing can)."""
        if self.answer == "Yes":
            return {"event": "event", "threshold": "crossing", "state": None}[self.kind]
        return "impossible"

    @property
    def outcomes(self) -> tuple[str, ...]:
        """The reports that give either answer away when a question's text states them."""
        if self.kind == "state":
            return ("impossible",)
        return ("event", "crossing", "impossible") if self.kind == "threshold" else ("event", "impossible")

    @property
    def query(self) -> str:
        """Search text for reports of it: its names and content words as written."""
        return " ".join([*self.names, self.clause])

    def describe(self) -> str:
        return f"{self.kind} {self.clause!r} ({self.language})"


@lru_cache(maxsize=50_000)
def _event_of(title: str, criteria: str, answer: str, opens: date | None, resolves: date | None) -> YesNoEvent | None:
    return YesNoEvent._read(title, criteria, answer, opens, resolves)


def is_yes_no(q: dict) -> bool:
    """Answered with a yes/no word ("Yes", "no.", normalised as validation reads them; by the
    answer, never by its label: a name typed binary is checked as the name it is)."""
    answer = q.get("answer")
    return isinstance(answer, str) and normalise(answer) in BINARY_ANSWERS


# ---------------------------------------------------------------------------------------------
# Reading the title

def _is_state(title: str, clause: str, language: str, reference: date) -> bool:
    """A state on a day: a deadline stated as a day ("on 31 December", "as of") and none as a
    limit ("by", "before": "Will X sign Y before the window closes on 1 September?" is an event),
    or a word of lasting ("still", "remain")."""
    spans = deadline_spans(title, reference)
    if any(sp.kind == "by" for sp in spans):
        return False  # a limit: the event may happen any day before it
    if spans and any(sp.kind == "on" and not sp.loose for sp in spans):
        return True
    pattern = cues.STATE.get(language) or cues.STATE["en"]
    if re.search(pattern, title, re.I):
        return True
    return language == "en" and _copula(clause)


def _copula(clause: str) -> bool:
    """An English title whose verb is "be" with no participle after it: an attribute, a state
    ("Will 2024 be the hottest year on record?", "Will X be the richest person on ...?"), not an
    action ("Will the outbreak be declared over?")."""
    words = [w.lower() for w in WORD.findall(clause)]
    if "be" not in words[1:]:
        return False
    at = words.index("be", 1)
    if any(w in cues.EVENT_VERBS_EN for w in words[:at]):
        return False  # "Will X sign the deal and be ...": an action first
    nxt = words[at + 1] if at + 1 < len(words) else ""
    return not (nxt.endswith("ed") or nxt in cues.IRREGULAR_PAST)


THRESHOLD_GAP = 6  # words between a comparison and its figure ("dépassera-t-elle 5 %", "die Marke von 25.000 ... überschreiten")


def _threshold(clause: str, language: str) -> Threshold | None:
    """A comparison with a figure ("exceed 5%", "above $100", "über 3 Prozent"): the figure
    after the comparing words, within ``THRESHOLD_GAP`` words, or before them where the verb
    comes last (German, Dutch, Japanese). A bare number counts with the noun it counts ("at least 1,800
    employees") as its unit."""
    for pattern, comparator in cues.THRESHOLD.get(language, cues.THRESHOLD["en"]):
        bounded = rf"(?:{pattern})" if language in ("zh", "ja") else rf"(?<!\w)(?:{pattern})(?!\w)"
        for m in re.finditer(bounded, clause, re.I):
            after = clause[m.end():]
            window = " ".join(after.split()[:THRESHOLD_GAP + 1])
            figures = [f for f in NUMBER.finditer(window) if f.group("num") and not YEAR.fullmatch(f.group("num"))]
            if not figures and language in ("de", "nl", "ja"):  # the verb last
                before = " ".join(clause[:m.start()].split()[-THRESHOLD_GAP - 1:])
                figures = [f for f in NUMBER.finditer(before) if f.group("num") and not YEAR.fullmatch(f.group("num"))][-1:]
                window = before
            for found in figures[:1]:
                value = read_figure(found)
                if value is None:
                    continue
                unit = value[1] or unit_word(window, found.end(), language)
                if unit and unit not in cues.DURATION_UNITS:  # "stay there for over 4 weeks": a span, no figure
                    return Threshold(comparator, value[0], unit, value[2])
    return None


def _number(text: str) -> float | None:
    """"50,000", "1.234.567,5", "3,5", "3.5" as numbers: a separator followed by three digits
    groups thousands, else it is the decimal point."""
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", text):
        text = text.replace(",", "")
    elif re.fullmatch(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?", text):
        text = text.replace(".", "").replace(",", ".")
    else:
        text = text.replace(",", ".")
    try:
        return float(text)
    except ValueError:
        return None


def read_figure(m: re.Match) -> tuple[float, str, float] | None:
    value = _number(m.group("num"))
    if value is None:
        return None
    unit = m.group("pre") or ("%" if m.group("unit") and not re.match(r"(?i)points?|punkte|bps|basis", m.group("unit"))
                              else ("points" if m.group("unit") else ""))
    scale_word = (m.group("scale") or "").lower()
    scale = (1e12 if scale_word in ("trillion", "tn") else 1e9 if scale_word.startswith(("b", "milliard", "mil ", "млрд"))
             else 1e8 if scale_word == "亿" else 1e6 if scale_word in ("million", "mn", "m", "millones", "млн")
             else 1e4 if scale_word == "万" else 1e3 if scale_word in ("k", "thousand") else 1.0)
    return value, unit, scale


_CALENDAR = {w.lower() for w in (*MONTHS, *WEEKDAYS)}


def _names_and_terms(clause: str, language: str) -> tuple[list[str], list[str], str]:
    """Runs of capitalised words (not in German, where every noun is one; not the title's first
    word unless the question's frame came before it), the stems of the other content words, and
    the first of those as written (in "Will Apple finalize a contract?", "finalize": what a
    headline writes in the present, "Apple finalizes contract")."""
    frame = set(cues.QUESTION_FRAME.get(language, "").split()) | set(cues.QUESTION_FRAME["en"].split())
    skip = function_words(language) | frame | _CALENDAR
    words = [m.group(0) for m in _NAME_WORD.finditer(clause.lstrip("¿¡ "))]
    framed = False
    while words and words[0].lower() in frame:  # "Will", "Wird" ("¿Firmará" is the verb itself)
        words, framed = words[1:], True
    names, current, others = [], [], []
    capitalised_nouns = language in ("de", "lb")
    for i, w in enumerate(words):
        initial = (i == 0 and not framed and not (w.isupper() or any(c.isupper() for c in w[1:]))
                   and not (len(words) > 1 and words[1][:1].isupper() and words[1].lower() not in skip))
        is_name = (not capitalised_nouns and w[:1].isupper() and not initial and w.lower() not in skip
                   and not YEAR.fullmatch(w))
        connector = (current and not capitalised_nouns and i + 1 < len(words) and words[i + 1][:1].isupper()
                     and w.lower() in ("of", "de", "del", "des", "du", "la", "le", "von", "van", "der", "&"))
        if is_name or connector:
            current.append(w)
            continue
        if current:
            names.append(" ".join(current))
            current = []
        others.append(w)
    if current:
        names.append(" ".join(current))
    names = list(dict.fromkeys(names))
    terms, content = [], []
    for w in others:
        low = w.lower()
        if low in skip or YEAR.fullmatch(w) or len(low) < 2 or low.isdigit() or w == "&":
            continue
        content.append(low)
        for st in stems(w, language):
            if st not in terms and st not in skip:
                terms.append(st)
    return names, terms, _action(words, content, language)


_PASSIVE_EN = re.compile(r"\b(?:be|been|get|become)\s+([a-z]+)\b", re.I)


def _action(words: list[str], content: list[str], language: str) -> str:
    """The title's verb, as written, with its particle ("declared over", "lay off"): in English
    the participle of a passive ("be declared over"), else its first word of ``EVENT_VERBS_EN``;
    in German and Dutch the last content word ("Wird X ... billigen?"); elsewhere the first."""
    lower = [w.lower() for w in words]
    passive = _PASSIVE_EN.search(" ".join(lower)) if language == "en" else None
    if not content and not passive:
        return ""
    if language != "en":
        if language in ("de", "nl"):
            return content[-1]
        form = cues.VERB_FORM.get(language)
        if language == "ru" and "ли" in lower[1:]:  # "Подпишет ли Путин ...?"
            return lower[lower.index("ли") - 1]
        for i, w in enumerate(lower):  # "va-t-il dissoudre", "sera-t-il adopté", "vai superar": the word after
            if w.split("-")[0] in cues.AUXILIARY_VERBS and (not form or re.search(form, w) or i == 0):
                after = next((x for x in lower[i + 1:] if x in content), None)
                if after:
                    return after
        return next((w for w in content if form and re.search(form, w)), content[0])
    if passive and (passive.group(1).endswith("ed") or passive.group(1) in cues.IRREGULAR_PAST):
        verb = passive.group(1)
    else:
        verb = next((w for w in lower if w in cues.EVENT_VERBS_EN), None) or (content[0] if content else "")
        if not verb:
            return ""
    at = lower.index(verb) if verb in lower else -1
    # "announce plans to acquire X": the event is the acquisition (a report of it done, or of
    # the plan announced with it, settles the question); the announcing alone is not
    if verb in cues.ANNOUNCING and at >= 0:
        inner = next((w for w in lower[at + 1:at + 5] if w in cues.EVENT_VERBS_EN and w not in cues.ANNOUNCING), None)
        if inner:
            verb, at = inner, lower.index(inner, at + 1)
    if 0 <= at < len(lower) - 1 and lower[at + 1] in cues.PARTICLES_EN:
        return f"{verb} {lower[at + 1]}"
    return verb


_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


def _char_pairs(clause: str) -> list[str]:
    """Pairs of adjacent Han or kana characters of the clause as written (so each pair is one a
    report may write: "事会" of 董事会 stays, though 会 alone frames a question), those made of
    the question's frame alone left out."""
    pairs = []
    for a, b in zip(clause, clause[1:]):
        if not (_CJK_CHAR.match(a) and _CJK_CHAR.match(b)):
            continue
        if a in cues.QUESTION_FRAME_CJK and b in cues.QUESTION_FRAME_CJK or "吗" in a + b:
            continue
        if a + b not in pairs:
            pairs.append(a + b)
    return pairs


def years(text: str) -> set[int]:
    return {int(y) for y in YEAR.findall(_SPAN_YEAR.sub(" ", text or ""))}

def unit_word(text: str, at: int, language: str) -> str:
    """The noun counted by a bare number ("1,800 employees" -> its stem), "" when the next word
    is a function word or there is none."""
    m = WORD.match(text, at + len(text[at:]) - len(text[at:].lstrip()))
    if not m or m.group(0).lower() in function_words(language):
        return ""
    st = stems(m.group(0), language)
    return st[0] if st else ""
