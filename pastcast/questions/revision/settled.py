"""Does a sentence settle a question's answer? Rules 4 and 5 of ``pastcast.questions.revision``
with the answer in its place.

A sentence is read for what it reports (``reported``): its attribution frames (``attribution``:
who says it, when and how, ``cues.ATTRIBUTION``: "Finance ministry sources confirmed on
Wednesday" before "that", ", sources said", "According to people familiar with the decision,",
", selon des sources", "nach Informationen aus ...", "，消息人士称", "reportedly") are set aside,
and in an attributed sentence reported speech reads as the indicative ("would take over" as
"will take over", "werde übernehmen", "succéderait", "sería"). Whoever a report is attributed
to, the reported clause alone decides. A frame with a negation, a denial or rumour, a forecaster
("analysts said") or a modal is no frame ("did not confirm that", "is expected to announce
that"): its words stay and are hedges.

The reported clause settles the answer when some cue reports an outcome as settled, with the
answer (or an alias, found by ``pastcast.text.mentions``, the shared mention finder) in the cue's
slot, and no hedge anywhere in it once the cue's own future-tense words, the answer and
formalities are set aside. Cues:

- the past-tense (or headline-present) outcome cues of ``cues.OUTCOME`` ("won", "was
  elected", "appointed", "held its rate at 3.5%"). Their slot depends on the verb: the subject of
  a winner's verb ("X won", "X beat Y"; "won by X"), the object of a decider's verb or its
  passive subject ("the board appointed X", "X was appointed"; never the board that appointed),
  the value of a number cue;
- the cues of ``cues.CUES``, in English, German, French, Spanish, Portuguese, Italian, Russian,
  Chinese and Japanese: "confirmed that X will take over as", "X is set to become", "agreed to
  appoint X", "X has been chosen to succeed", "X will be named", "Anna Weber wird ...
  übernehmen", "Claire Fontaine prendra la direction", "Lucía Herrera asumirá", "张伟将出任",
  "a relaxé", "bajó ... al 5,25 %", "признал ... виновным".

Hedged previews never count, whoever reports them: "is among the favourites", "could be named",
"is expected to contest", "is tipped to", "sources say X may", "is in talks to", "is one of three
candidates", and their equivalents (``lexical.HEDGE``, ``cues.HEDGE_OTHER``, ``cues.NEGATION``,
``cues.DOUBT``, ``cues.FORECAST``). Nor does a name in a loser's or predecessor's place
("defeating X", "succeeding X", "Nachfolge von X", ``cues.LOSER``), in a possessive ("X's
deputy"), in a frame ("X confirmed that Y will take over": X only announces; but "X said that it
had completed" is X), or in another clause than the cue's ("X said Y will take over")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from pastcast.questions.revision.cues import (BACKSHIFT, CONFIRMATION, CUES, DOUBT, FORECAST, FORMALITY, FRAMES,
                                              HEDGE_OTHER, LOSER, NEGATION, not_a_frame)
from pastcast.text.mentions import Doc, phrase_tokens
from pastcast.text.normalise import written_without_spaces
from pastcast.text.vocabulary import MONTHS, WEEKDAYS

Span = tuple[int, int]

_APPOSITION = re.compile(r",\s[^,;:]{1,100}?,\s|\s\([^)]{1,100}\)\s|\s[—–-]\s[^—–]{1,100}?\s[—–-]\s")
_PLACE = re.compile(r"\s(?:in|at|of)\s+(?:the\s+)?[^\W\d_][\w'’-]*(?:\s+[^\W\d_][\w'’-]*){0,2}\s")
# deal phrases between a decider's verb and its object: "approved the merger with X", "the sale of its unit to X"
_DEAL_PHRASE = re.compile(r"\b(?:merger|deal|tie-up|partnership|agreement)\s+with\b|"
                          r"\b(?:sale|transfer)\s+(?:of\s+(?:\S+\s+){0,4}?)?to\b", re.I)
_WORD = re.compile(r"[^\W_][\w'’.-]*")
# Between a subject and its verb: auxiliaries, adverbs, time phrases (any language's small words).
_FILLER = frozenset(
    """has have had was were is are been be being also now then formally officially duly finally already
    unanimously narrowly comfortably today yesterday tomorrow on in at last next this early late week month
    year weekend morning evening night hat ist wurde wird sind am im nun jetzt offiziell bereits a est été
    ha sido fue el la le""".split()) | {w.lower() for w in (*MONTHS, *WEEKDAYS)}
# Between a cue and its object: small words and titles, but no preposition that changes the role.
_OBJECT_BLOCK = frozenset("""by with for under alongside including like and or but that which who whom
    after before when while because said says told""".split())
# Before a subject: a preposition makes the name part of another phrase ("the deputy of X").
_PREPOSITION = frozenset("by with for under alongside including like or of to from than against over".split())
_PRONOUN = re.compile(r"\b(?:he|she|it|they)\s+(?:(?:has|have|had|would|will)\s+)?$", re.I)
_THAT = re.compile(r"\s*(?:,?\s*(?:that|dass|que|qu['’]|che|что)\s*)?", re.I)  # between a lead frame and its clause
_TOLD = re.compile(r"\b(?:informed|told|notified|assured)\s+$", re.I)
_CJK_GAP = re.compile(r"^[^，。；：、,;:!?！？\s]{0,16}$")
_CJK_SAYING = re.compile(r"表示|称|说|宣布|确认|透露|指出")
_CLAUSE_END = re.compile(r"[;:,，。；]|\b(?:and|but|while|after|which|who)\b", re.I)
_POSSESSIVE = ("'s", "’s", "' ", "’ ")

# Classes of ``lexical.OUTCOME`` words: a decider's verbs (the answer is the object, or the subject
# of a passive), number cues (the answer is the value), and the rest: a winner's verbs.
_DECIDER = re.compile(r"^(?:elected|re-elected|elects|appointed|appoints|named|chosen|chose|chooses|selected|"
                      r"selects|picked|crowned|awarded|declared|ruled|voted|approved|rejected|announced|"
                      r"confirmed|proclaimed|opted|opts|settled)\b", re.I)
_VERDICT = re.compile(r"^(?:found|acquitted|convicted)\b", re.I)
_NUMBER_CUE = re.compile(r"^(?:set|held|kept|left|fixed|put|cut|raised|lowered|reduced|increased|lifted|trimmed|"
                         r"rose|fell|climbed|dropped|declined|grew|slowed|accelerated|eased|jumped|slipped|edged|"
                         r"came)\b", re.I)
_PASSIVE = re.compile(r"\b(?:was|were|is|are|been|be|being|get|gets|got)\s+(?:(?:\w+ly|now|also)\s+)?$", re.I)


def mention_spans(sentence: str, names: Sequence[str]) -> list[Span]:
    """Where the answer or an alias is in the sentence (whole-word phrases of the shared mention
    tokens, any script), in text order."""
    doc = Doc(sentence)
    spans = set()
    for n in names:
        toks = phrase_tokens(n)
        if toks:
            spans.update(doc.span(p, p + len(toks)) for p in doc.find_all(toks))
    return sorted(spans)


def _cjk(text: str) -> bool:
    return written_without_spaces(text)


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _subject_gap(gap: str) -> bool:
    """Nothing between a subject and its verb but appositions, auxiliaries, adverbs, time phrases."""
    if _cjk(gap):
        return bool(_CJK_GAP.match(gap.strip())) and not _CJK_SAYING.search(gap)
    rest = _PLACE.sub(" ", _APPOSITION.sub(" ", f" {gap} "))
    if re.search(r"[,;:]", rest):
        return False
    return all(w.lower() in _FILLER or w.isdigit() for w in _words(rest))


def _object_gap(gap: str, lang: str) -> bool:
    """Up to 5 small words or titles between a cue and its object, none changing the role."""
    if _cjk(gap):
        return bool(_CJK_GAP.match(gap.strip())) and not _CJK_SAYING.search(gap)
    if re.search(r"[,;:]", gap):
        return False
    words = _words(_DEAL_PHRASE.sub(" ", gap))
    if len(words) > 5 or any(w.lower() in _OBJECT_BLOCK for w in words):
        return False
    return lang == "de" or not any(w[0].isupper() for w in words)


def _free(sentence: str, span: Span) -> bool:
    """Not a possessive, not in a loser's or predecessor's place."""
    s, e = span
    return not sentence[e:e + 2].startswith(_POSSESSIVE[:2]) and not LOSER.search(sentence[:s])


@dataclass(frozen=True)
class Frame:
    """An attribution frame of a sentence (``cues.FRAMES``): set aside, never judged."""

    lang: str
    span: Span
    verb: Span | None  # a lead frame's verb of saying: its source before it, its clause after


@dataclass(frozen=True)
class Reading:
    """A sentence as the rule reads it: ``text`` is the reported content (``reported``), the
    answer's places (``spans``) outside the frames; ``sentence`` and ``all_spans`` as written
    (a pronoun's antecedent is in a frame: "X said that it had completed ...")."""

    sentence: str
    text: str
    frames: tuple[Frame, ...]
    spans: list[Span]
    all_spans: list[Span]

    @classmethod
    def of(cls, sentence: str, names: Sequence[str]) -> Reading:
        frames = attribution(sentence)
        text = reported(sentence, frames)
        return cls(sentence, text, frames, mention_spans(text, names), mention_spans(sentence, names))


def _subject_before(sentence: str, spans: list[Span], at: int) -> bool:
    for s, e in spans:
        if e <= at and _subject_gap(sentence[e:at]) and _free(sentence, (s, e)):
            before = _words(sentence[:s])
            if not before or before[-1].lower() not in _PREPOSITION:
                return True
    return False


def _antecedent(r: Reading, at: int) -> bool:
    """A pronoun subject right after a lead frame ("X confirmed on Monday that it will ...")
    stands for the frame's source, or after "informed X that" for X."""
    pronoun = _PRONOUN.search(r.text[:at])
    if not pronoun:
        return False
    for f in r.frames:
        if f.verb is None or f.span[1] > pronoun.start() or not _THAT.fullmatch(r.text[f.span[1]:pronoun.start()]):
            continue
        if _subject_before(r.sentence, r.all_spans, f.verb[0]):
            return True
        if any(e == f.span[1] and _TOLD.search(r.sentence[:s]) for s, e in r.all_spans):
            return True
    return False


def _subject(r: Reading, at: int) -> bool:
    return _subject_before(r.text, r.spans, at) or _antecedent(r, at)


def _object(sentence: str, spans: list[Span], at: int, lang: str) -> bool:
    return any(s >= at and _object_gap(sentence[at:s], lang) and _free(sentence, (s, e)) for s, e in spans)


def _region(sentence: str, spans: list[Span], at: int) -> bool:
    """In the rest of the clause after ``at`` (a value), within 10 words."""
    for s, e in spans:
        gap = sentence[at:s]
        if s >= at and not _CLAUSE_END.search(gap) and len(_words(gap)) <= 10 and _free(sentence, (s, e)):
            return True
    return False


def _inside(spans: list[Span], start: int, end: int) -> bool:
    return any(s < end and e > start for s, e in spans)


def _slot_ok(r: Reading, m: re.Match, slots: str, lang: str) -> bool:
    text, spans, groups = r.text, r.spans, m.re.groupindex
    for slot in slots:
        if slot == "s" and _subject(r, m.start()):
            return True
        if slot == "o" and _object(text, spans, m.end(), lang):
            return True
        if slot == "r" and _region(text, spans, m.end()):
            return True
        if slot == "x" and _inside(spans, m.start(), m.end()):
            return True
        if slot == "a" and "a" in groups and any(s == m.start("a") for s, _ in spans):
            return True
        if slot == "l" and "lic" in groups and _object(text, spans, m.end("lic"), lang):
            return True
    return False


def _outcome_slots(sentence: str, m: re.Match, numeric: bool) -> str:
    word = m.group(0)
    if _NUMBER_CUE.match(word):
        return "xr" if numeric else ""
    if _VERDICT.match(word):
        return "x"
    if _DECIDER.match(word):
        return "os" if _PASSIVE.search(sentence[:m.start()]) else "o"
    return "sxb" if numeric else "sb"


def _by_agent(sentence: str, spans: list[Span], m: re.Match) -> bool:
    """"won by X", "defeated by X": the winner after the verb."""
    by = re.match(r"\s+by\s+", sentence[m.end():])
    return bool(by) and any(s == m.end() + by.end() for s, _ in spans)


def settling_cues(sentence: str, names: Sequence[str], outcome: re.Pattern) -> list[tuple[str, Span]]:
    """The cues of ``sentence``'s reported content whose slot holds the answer (``names``): (label,
    span) pairs, ``outcome`` being ``lexical.OUTCOME``. Hedges are not checked here (``hedged``)."""
    r = Reading.of(sentence, names)
    if not r.all_spans:
        return []
    numeric = any(c.isdigit() for n in names for c in n)
    found = []
    for m in outcome.finditer(r.text):
        slots = _outcome_slots(r.text, m, numeric)
        if _slot_ok(r, m, slots.replace("b", ""), "en") or ("b" in slots and _by_agent(r.text, r.spans, m)):
            found.append(("outcome", m.span()))
    for cue, m in _cue_matches(sentence, r.text):
        if _slot_ok(r, m, cue.slots, cue.lang):
            found.append((f"advance:{cue.lang}", m.span()))
    return found


def _cue_matches(sentence: str, text: str):
    """The matches of ``cues.CUES`` in ``text`` (the reported content of ``sentence``); a
    ``confirmed`` cue only when the sentence, its frame included, says it was confirmed."""
    confirmed = bool(CONFIRMATION.search(sentence))
    for cue in CUES:
        if not cue.confirmed or confirmed:
            for m in cue.pattern.finditer(text):
                yield cue, m


def licensed(sentence: str) -> list[Span]:
    """Spans no hedge check reads: the future-tense words of every cue (``lic``) and formalities,
    in the sentence's reported content."""
    text = reported(sentence)
    out = [m.span() for m in FORMALITY.finditer(text)]
    for _, m in _cue_matches(sentence, text):
        if "lic" in m.re.groupindex and m.group("lic"):
            out.append(m.span("lic"))
    return out


def blank(sentence: str, spans: Sequence[Span]) -> str:
    """``sentence`` with ``spans`` replaced by spaces (offsets kept)."""
    chars = list(sentence)
    for s, e in spans:
        chars[s:e] = " " * (e - s)
    return "".join(chars)


# -- attribution: who says it is set aside, what is said is judged ---------------------------

@lru_cache(maxsize=4096)
def attribution(sentence: str) -> tuple[Frame, ...]:
    """The attribution frames of a sentence (``cues.FRAMES``): "Finance ministry sources confirmed
    on Wednesday" (before "that"), ", sources said", "According to people familiar with the
    decision,", "reportedly". A would-be frame with a negation, a forecaster or a modal is none
    (``cues.not_a_frame``). A trailing frame takes the comma closing it ("X, sources said, will")."""
    frames = []
    shapes = [fp for fs in FRAMES if fs.trigger.search(sentence) for fp in fs.shapes]
    for fp in shapes:
        for m in fp.pattern.finditer(sentence):
            start = m.start("who") if fp.kind in ("lead", "source") else m.start()
            end = m.end()
            verb = m.span("verb") if "verb" in fp.pattern.groupindex else (start, start)
            if end <= start or not_a_frame(sentence[start:end], m.group("who") or "",
                                           (verb[0] - start, verb[1] - start)):
                continue
            if fp.kind == "trail" and sentence[end:end + 1] == ",":
                end += 1
            frames.append(Frame(fp.lang, (start, end), verb if fp.kind == "lead" else None))
    return tuple(frames)


def reported(sentence: str, frames: Sequence[Frame] | None = None) -> str:
    """The reported content of a sentence, offsets kept: its attribution frames blanked and, when
    it has one, its reported-speech forms read in the indicative ("would" -> "will", "werde" ->
    "wird", "succéderait" -> "succédera", ``cues.BACKSHIFT``). A sentence without one is unchanged."""
    frames = attribution(sentence) if frames is None else frames
    if not frames:
        return sentence
    text = blank(sentence, [f.span for f in frames])
    for lang in dict.fromkeys(f.lang for f in frames):
        for pattern, indicative in BACKSHIFT.get(lang, ()):
            text = pattern.sub(lambda m: _same_length(m, indicative), text)
    return text


def _same_length(m: re.Match, replacement: str) -> str:
    new = m.expand(replacement)
    return new.ljust(len(m.group(0))) if len(new) <= len(m.group(0)) else m.group(0)


def hedged(sentence: str, english_hedge: re.Pattern, may: re.Pattern) -> bool:
    """Any hedge or preview cue (English and the other languages; negations, denials and rumours,
    forecasters) in the reported content (``reported``: who says it is no hedge), or a question."""
    text = reported(sentence)
    return bool(english_hedge.search(text) or may.search(text) or HEDGE_OTHER.search(text) or NEGATION.search(text)
                or DOUBT.search(text) or FORECAST.search(text) or sentence.rstrip().endswith(("?", "？")))
