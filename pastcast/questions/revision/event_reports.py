"""Does a sentence report a yes/no question's outcome as settled? (``YesNoEvent``: what the
question asks about, ``pastcast.questions.revision.events``.)

``report(sentence, event)``:

- ``event``: most of the event's names and words (names count ``NAME_WEIGHT`` words; at least
  ``COVERAGE`` of them, and one of its names when it has any), and its verb written as done (a
  past tense or participle, a progressive, a headline's present or "X to ..."; or a verb that
  settles it the same way, ``event_cues.SETTLED_BY``: "appointed" for "become"), with its
  particle ("declared over", not "declared");
- ``impossible``: the event's names and words with a calling-off cue (cancelled, ruled out,
  conceded defeat; resigned for a state that ends: ``event_cues.CALLED_OFF``) that is not the
  event's own verb and not temporary ("temporarily blocked"): the answer No is known;
- ``crossing``: a threshold's words and a figure past its value, in the same unit and scale,
  not approximate ("near $50K") and not a duration ("for over 4 weeks").

Never a report: a hedge or a preview cue in the clause of its cue (the revision rule's, in every
language: ``settled.hedged``, so also a negation; attribution is no hedge), a question, or a
sentence naming a year that is not the question's. A question's own text (``question_text``) is
read more strictly: it is written to define its outcome, so a sentence in the language of
resolution ("resolves Yes if", "would not count", "must") reports nothing and a hedge anywhere in
it undoes it. ``reports_any`` is what the leak checks ask (either outcome), ``EventRule`` what the
revision step searches with (``lexical._Rule``'s interface).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from pastcast.questions.revision import event_cues as cues
from pastcast.questions.revision.events import NUMBER, WORD, YEAR, Found, YesNoEvent, read_figure, unit_word, years
from pastcast.text.language import stems
from pastcast.text.mentions import Doc, match, needle_for
from pastcast.text.vocabulary import MONTHS

_TITLE_QUESTION = re.compile(r",\s*(?:will|would|is|are|does|do|did|has|have|can|could|should|wird|est-ce|"
                             r"va|sera|¿)\b", re.I)
NAME_WEIGHT = 2  # a name found counts as much as this many of the event's other words
COVERAGE = 0.5  # of the event's names and words (names weighted) a report must hold


@lru_cache(maxsize=4096)
def name_needle(name: str):
    return needle_for(name, (), "person" if _looks_like_person(name) else "")


def _looks_like_person(name: str) -> bool:
    """Two or three capitalised words, none an institution's or a place's ("Kamala Harris", not
    "Federal Reserve" or "Central African Republic"): its surname alone names it too."""
    words = name.split()
    return 2 <= len(words) <= 3 and all(w[:1].isupper() for w in words) and not cues.INSTITUTION.search(name)


def _names_found(sentence: str, names: tuple[str, ...]) -> tuple[str, ...]:
    doc = Doc(sentence)
    return tuple(n for n in names if name_needle(n).entries and match(doc, name_needle(n)) is not None)


def _sentence_stems(sentence: str, language: str) -> set[str]:
    found = set(stems(sentence, language))
    if language in ("de", "nl"):  # participles: "gebilligt" is "billig..."
        found |= {s[2:] for s in found if s.startswith("ge") and len(s) > 5}
    return found


def _term_in(term: str, found: set[str]) -> bool:
    if term in found:
        return True
    # a longer derivation of the same stem ("presidenti" and "presid"): 6 letters in common at least
    return len(term) >= 6 and any(len(s) >= 6 and (s.startswith(term) or term.startswith(s)) for s in found)


def _terms_found(sentence: str, ev: YesNoEvent) -> list[str]:
    if ev.unspaced:
        return [t for t in ev.terms if t in sentence]
    found = _sentence_stems(sentence, ev.language)
    return [t for t in ev.terms if _term_in(t, found)]


@lru_cache(maxsize=64)
def _cue(table_name: str, language: str) -> re.Pattern | None:
    return cues.alternation(getattr(cues, table_name), language)


Span = tuple[int, int]
_AUXILIARY_EN = frozenset("has have had was were is are been be being get got gets".split())
_PERFECT_DE = re.compile(rf"(?<!\w)(?:{cues.PERFECT['de']}|{cues.PERFECT['nl']})(?!\w)", re.I)


def _completed_action(sentence: str, ev: YesNoEvent, headline: bool) -> tuple[str, Span] | None:
    """The event's action written as done, and where: a past tense or participle of the title's
    verb or of a verb that settles it the same way (``event_cues.SETTLED_BY``: "appointed" for
    "become"), its progressive ("is endorsing", "was laying off"), or in a headline its present
    or "to" ("UAW endorses Harris", "Intuit to lay off 1,800"); with the verb's particle after
    it when it has one ("declared over", not "declared")."""
    if ev.unspaced or not ev.action:
        return None
    verb, _, particle = ev.action.partition(" ")
    targets = [t for v in (verb, *cues.SETTLED_BY.get(verb, ())) for t in stems(v, ev.language)[:1]]
    if not targets:
        return None
    past = cues.PAST_ENDING.get(ev.language)
    for m in WORD.finditer(sentence):
        low = m.group(0).lower()
        if not any(_same_verb(low, t, ev.language) for t in targets):
            continue
        after = sentence[m.end():m.end() + 24].lower().split()
        if particle and particle not in after[:2]:
            continue
        before = sentence[:m.start()].lower().split()[-2:] or [""]
        before = [""] * (2 - len(before)) + before
        if ev.language == "en":
            if before[1] in ("will", "would", "could", "may", "might", "should", "not", "never") or (
                    before[1] == "to" and not headline):
                continue
            # a past that is also the base form ("cut", "set", "hit") is read as one only after an
            # auxiliary ("has cut", "was set"): "the first rate cut" is a noun
            same_as_base = cues.IRREGULAR_PAST.get(low) == low
            done = ((low in cues.IRREGULAR_PAST and (not same_as_base or before[1] in _AUXILIARY_EN))
                    or (low.endswith("ed") and (low != verb or before[1] in _AUXILIARY_EN or headline))
                    or (low.endswith("ing") and before[1] in ("is", "are", "was", "were"))
                    or (headline and (low in (verb + "s", verb + "es", verb[:-1] + "ies")
                                      # "Intuit to lay off 1,800": a headline's "X to do", not "chosen to do"
                                      or (before[1] == "to" and not before[0].endswith("ed")
                                          and before[0] not in cues.IRREGULAR_PAST))))
        elif ev.language in ("de", "nl"):  # a participle ("gebilligt", "verabschiedet") or a past ("billigte")
            done = ((low.startswith("ge") and not verb.startswith("ge")) or bool(past and re.search(rf"(?:{past})$", low))
                    or (low.endswith("t") and low != verb and bool(_PERFECT_DE.search(sentence))))
        else:
            perfect = cues.PERFECT.get(ev.language)
            done = ((bool(past and len(low) > 3 and re.search(rf"(?:{past})$", low)) and low != verb
                     and not re.search(cues.CONDITIONAL.get(ev.language, r"^$"), low))
                    # an irregular participle after a perfect's auxiliary ("a dissous", "ha hecho")
                    or (bool(perfect) and low != verb and re.fullmatch(perfect, before[1] or "-", re.I) is not None))
        if done:
            return m.group(0), m.span()
    return None


def _same_verb(word: str, verb_stem: str, language: str) -> bool:
    """``word`` is a form of the verb whose stem is ``verb_stem`` (its stem, or five letters in
    common: "подпишет"/"подписал"; a German participle's "ge-" set aside)."""
    if language == "en" and word in cues.IRREGULAR_PAST:
        word = cues.IRREGULAR_PAST[word]
    for form in (word, word[2:] if language in ("de", "nl") and word.startswith("ge") else None):
        if not form:
            continue
        st = stems(form, language)
        if st and (st[0] == verb_stem or _common_prefix(st[0], verb_stem) >= 5):
            return True
    return False


# Where a clause ends: punctuation, or a word starting another clause ("..., giving her union
# firepower for the likely contest": "likely" hedges another clause than "endorsed").
_CLAUSE_BREAK = re.compile(r"[,;:()\[\]—–]|\s-\s|(?<!\w)(?:but|while|although|though|whereas|after|before|because|"
                           r"since|which|who|when|giving|leaving|making|aber|während|nachdem|weil|mais|tandis|après|"
                           r"pero|mientras|después|но|пока|после|但|而)(?!\w)", re.I)


def _clause(sentence: str, span: Span) -> tuple[int, int]:
    """The clause of ``sentence`` holding ``span``: from the break before it to the one after."""
    start = 0
    for m in _CLAUSE_BREAK.finditer(sentence, 0, span[0]):
        start = m.end()
    after = _CLAUSE_BREAK.search(sentence, span[1])
    return start, after.start() if after else len(sentence)


def _hedged(sentence: str, span: Span, licensed: list[Span] = (), ev: YesNoEvent | None = None) -> bool:
    """A hedge or preview cue in the clause of ``span`` (its reporting frame included: "sources
    said X could"), ``licensed`` spans set aside (a calling-off cue holding "not"), and the
    event's own words (of ``ev``): a hedge of free-form answers ("qualified", "talks", "final",
    "interim", "nomination") is what a yes/no question may ask about."""
    from pastcast.questions.revision.lexical import HEDGE, _MAY
    from pastcast.questions.revision.settled import blank, hedged

    spans = list(licensed)
    if ev is not None and ev.terms and not ev.unspaced:
        own = set(ev.terms)
        spans += [m.span() for m in WORD.finditer(sentence)
                  if any(_term_in(t, own) for t in stems(m.group(0), ev.language)[:1])]
    lo, hi = _clause(sentence, span)
    return hedged(blank(sentence, spans)[lo:hi], HEDGE, _MAY)


def _about_period(sentence: str, ev: YesNoEvent) -> bool:
    named = years(sentence)
    return not named or bool(named & ev.years)


def _crossing(sentence: str, ev: YesNoEvent) -> tuple[str, Span] | None:
    """A figure of the sentence past the threshold, in its unit (and scale), and where."""
    t = ev.threshold
    if t is None:
        return None
    for m in NUMBER.finditer(sentence):
        if not m.group("num") or YEAR.fullmatch(m.group("num")):
            continue
        read = read_figure(m)
        if read is None:
            continue
        value, unit, scale = read
        if not unit and t.unit and t.unit not in ("%", "points") and t.unit[:1] not in "$€£¥":
            unit = unit_word(sentence, m.end(), ev.language)  # "1,800 employees": the noun counted
        if unit != t.unit:
            continue
        if _APPROXIMATE.search(sentence[max(0, m.start() - 24):m.start()]):
            continue  # "averaging near $50K": not a figure past the threshold
        figure, limit = value * scale, t.value * t.scale  # "$100K" and "$101,000" alike
        if unit not in ("%", "points") and limit and not MAGNITUDE_RANGE[0] <= figure / limit <= MAGNITUDE_RANGE[1]:
            continue  # "$1.9 trillion" for a "$100,000" price: another quantity
        if t.crossed_by(figure / t.scale if t.scale else figure):
            return m.group(0).strip(), m.span()
    return None


# A figure more than this far from a threshold measures something else (a market value for a price).
MAGNITUDE_RANGE = (0.01, 100.0)


_APPROXIMATE = re.compile(r"(?<!\w)(?:near|nearly|almost|about|around|roughly|approximately|close\s+to|just\s+"
                          r"(?:under|below|shy\s+of)|up\s+to|fast\s+approaching|fast\s+nähernd|fast|knapp|rund|"
                          r"etwa|presque|près\s+de|environ|casi|cerca\s+de|alrededor\s+de|почти|около|около|近|约)"
                          r"\W*(?:[$€£¥]\s?)?$", re.I)



# The language of a question's own terms, not of a report: conditions, definitions, what counts
# ("This market will resolve to Yes if X reaches $1b", "the sale of weapons would not count").
_RESOLUTION_LANGUAGE = re.compile(
    r"(?<!\w)(?:resol\w*|counts?|counted|count\s+towards|qualif\w*|must|needs?\s+to|shall|should|would|"
    r"sufficient|necessary|considered|in\s+the\s+event|for\s+(?:this|the)\s+(?:question|market)|"
    r"this\s+(?:question|market)|if|unless|provided|whether|yes|no)(?!\w)", re.I)


@lru_cache(maxsize=200_000)
def _may_report_in_question(sentence: str) -> bool:
    """A sentence of a question's text that can state a fact at all: not in the language of
    resolution, no hedge anywhere. Whatever the event, so kept per sentence: the cross-leak step
    reads each question's sentences for every question that may pair with it."""
    return not _RESOLUTION_LANGUAGE.search(sentence) and not _hedged(sentence, (0, len(sentence)))


def report(sentence: str, ev: YesNoEvent, outcomes: tuple[str, ...] | None = None,
           headline: bool = False, question_text: bool = False) -> Found | None:
    """The first of ``outcomes`` (default: the one the answer makes early, ``ev.sought``) that
    ``sentence`` reports as settled, or None (see the module doc). ``headline``: the sentence is
    an article's title (its present tense reports the past). ``question_text``: the sentence is
    of a question's own title, background or criteria, written to define its outcome: one in
    the language of resolution ("resolves Yes if", "would not count", "must") reports nothing,
    and a hedge anywhere in it undoes it (not only in the clause of its cue)."""
    wanted = outcomes if outcomes is not None else ((ev.sought,) if ev.sought else ())
    s = sentence.strip()
    if not wanted or not s or s.endswith(("?", "？")) or (not ev.names and not ev.terms):
        return None
    if question_text and (ev.repeat or not _may_report_in_question(s) or _before_opening(s, ev)):
        return None  # a question's own terms, or background: what happened before it was asked
    names = _names_found(s, ev.names)
    if (ev.names and not names) or not _about_period(s, ev):
        return None
    found_terms = set(_terms_found(s, ev))
    for outcome in wanted:
        # a report of the event writes its verb; one calling it off writes another in its place
        skip = set(ev.action_stems) if outcome == "impossible" else set()
        if not _covered(ev, names, found_terms - skip, [t for t in ev.terms if t not in skip]):
            continue
        found = _settled(s, ev, outcome, headline)
        if found:
            return Found(outcome, found, names)
    return None


def _covered(ev: YesNoEvent, names: tuple[str, ...], found: set[str], terms: list[str]) -> bool:
    """Enough of the event in a sentence: its names (each worth ``NAME_WEIGHT`` words) and words
    found, over all of them, at least ``COVERAGE``."""
    total = NAME_WEIGHT * len(ev.names) + len(terms)
    return total > 0 and (NAME_WEIGHT * len(names) + len(found)) >= COVERAGE * total


def _settled(s: str, ev: YesNoEvent, outcome: str, headline: bool) -> str | None:
    if outcome == "crossing":
        crossed = _crossing(s, ev)
        return crossed[0] if crossed and not _hedged(s, crossed[1], ev=ev) else None
    done = _done(s, ev, headline)
    off = _called_off(s, ev)
    if off and done and _clause(s, off.span()) == _clause(s, done[1]):
        done = None  # "the vote was called off": the verb is there, the event is not done
    if outcome == "impossible":
        if not off or done or _TEMPORARY.search(s[slice(*_clause(s, off.span()))]):
            return None
        return off.group(0) if not _hedged(s, off.span(), [off.span()], ev) else None
    return done[0] if done and not _hedged(s, done[1], ev=ev) else None


# A calling-off that is not final ("temporarily blocked", "for now"): the event may still happen.
_TEMPORARY = re.compile(r"(?<!\w)(?:temporarily|for\s+now|pending|until\s+further|vorläufig|vorerst|"
                        r"provisoirement|temporalmente|temporaneamente|временно|暂时|暂停)(?!\w)", re.I)


def _done(s: str, ev: YesNoEvent, headline: bool) -> tuple[str, Span] | None:
    """The event's action written as done, or in scripts without spaces a completion marker
    ("已", "正式", "签署": no verb forms to read) next to the event's words."""
    if ev.unspaced:
        pattern = _cue("COMPLETED", ev.language)
        m = next((m for m in pattern.finditer(s) if _near_event(s, m.span(), ev)), None) if pattern else None
        return (m.group(0), m.span()) if m else None
    return _completed_action(s, ev, headline)


CJK_REACH = 4  # characters after a completion or calling-off marker where the event's own words start


def _near_event(s: str, span: Span, ev: YesNoEvent) -> bool:
    """A marker of a script without spaces is about the event when it is one of the title's own
    words ("批准") or one of those starts right after it ("已正式批准", within ``CJK_REACH``
    characters): "合并计划已经提交审议" does not settle "批准合并"."""
    marker = s[span[0]:span[1]]
    if marker in ev.clause:
        return True
    after = s[span[1]:span[1] + CJK_REACH + 1]
    return any(t in after for t in ev.terms)


_MONTH_NAMES = {m.lower(): i + 1 for i, m in enumerate(MONTHS)}
_DATED = re.compile(r"(?<!\w)(" + "|".join(MONTHS) + r")(?:\s+\d{1,2}(?:st|nd|rd|th)?)?(?:,?\s+((?:19|20)\d\d))?(?!\w)"
                    r"|(?<!\d)((?:19|20)\d\d)(?!\d)")


def _before_opening(s: str, ev: YesNoEvent) -> bool:
    """The sentence dates what it reports before the question opened ("The Fed raised rates in
    March 2025", "in January": background the question was written knowing)."""
    if ev.opens is None:
        return False
    for m in _DATED.finditer(s):
        if m.group(3):
            if int(m.group(3)) < ev.opens.year:
                return True
            continue
        year = int(m.group(2)) if m.group(2) else ev.opens.year
        if (year, _MONTH_NAMES[m.group(1).lower()]) < (ev.opens.year, ev.opens.month):
            return True
    return False


def _called_off(s: str, ev: YesNoEvent) -> re.Match | None:
    """A calling-off cue of the sentence that is not part of the event itself ("Will the
    struck-down part of the law be reinstated?": "struck down" reports nothing new)."""
    pattern = _cue("CALLED_OFF", ev.language)
    if pattern is None:
        return None
    own = {m.group(0).lower() for m in pattern.finditer(ev.clause.replace("-", " "))}
    verb = stems(ev.action.split()[0], ev.language)[:1] if ev.action and not ev.unspaced else []
    for m in pattern.finditer(s.replace("-", " ")):
        words = m.group(0).lower().split()
        if m.group(0).lower() in own or (verb and any(_same_verb(w, verb[0], ev.language) for w in words)):
            continue  # "Will X resign?": "X resigned" is the event itself, not its calling off
        if ev.kind == "threshold" and _FORECAST_REFUSAL.match(m.group(0)):
            continue  # "inflation will not exceed 5%": a forecast, not a figure
        if ev.unspaced and not _near_event(s, m.span(), ev):
            continue  # "不会反对…批准合并": the marker is about another verb
        return m
    return None


_FORECAST_REFUSAL = re.compile(r"(?:will|would)\s+not|won['’]t|wird\s+nicht|werden\s+nicht|не\s+будет|不会", re.I)


def called_off(language: str) -> re.Pattern:
    """The calling-off cues of ``language`` (English where it has none)."""
    return _cue("CALLED_OFF", language) or _cue("CALLED_OFF", "en")


@lru_cache(maxsize=10_000)
def verb_prefixes(ev: YesNoEvent) -> tuple[str, ...]:
    """Lower-case beginnings every done form of the event's verb starts with (its first letters,
    and those of the verbs settling it the same way and of their irregular pasts): what a text
    reporting the event must hold."""
    verb = ev.action.split()[0] if ev.action else ""
    if not verb:
        return ("",)  # no verb known: anything may
    verbs = {verb, *cues.SETTLED_BY.get(verb, ())}
    verbs |= {past for past, base in cues.IRREGULAR_PAST.items() if base in verbs}
    # the first four letters as written and of the stem ("eröffnen" is stemmed "eroffn"; "firmará"
    # and "firmó" share "firm", "подпишет" and "подписал" "подп")
    forms = {f for v in verbs for f in (v.lower(), *(stems(v, ev.language)[:1]))}
    return tuple(sorted({f[:4] for f in forms if f}))


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def reports_any(sentence: str, ev: YesNoEvent, headline: bool = False, question_text: bool = True) -> Found | None:
    """Any outcome of the event reported as settled (the leak checks: either answer given away),
    by default in a question's own text (``report``'s ``question_text``)."""
    return report(sentence, ev, ev.outcomes, headline, question_text)


@lru_cache(maxsize=50_000)
def statements(text: str, is_title: bool = False) -> tuple[str, ...]:
    """The sentences of a question's text that can state a fact: for a title, the premise before
    its question ("After X signed the deal, will Y ...?" states "After X signed the deal")."""
    from pastcast.text import sentences

    if is_title:
        m = _TITLE_QUESTION.search(text or "")
        return (text[:m.start()].strip(),) if m and m.start() > 0 else ()
    return tuple(sentences(text or ""))


# ---------------------------------------------------------------------------------------------
# The revision step's rule for a yes/no question

def mentions(sentence: str, ev: YesNoEvent) -> bool:
    """The event's names and words, about its period: the sentence is about the event (whether
    or not it settles it)."""
    return (len(_names_found(sentence, ev.names)) >= ev.need_names and len(_terms_found(sentence, ev)) >= ev.need_terms
            and _about_period(sentence, ev))


def _may_name(name: str, text: str, low: str) -> bool:
    """Some word of ``name`` (3+ letters), or its initials, is in the text (a cheap superset of
    the mention rules: exact, surname, abbreviation)."""
    words = name.split()
    initials = "".join(w[0] for w in words if w[:1].isupper())
    return (any(w.lower() in low for w in words if len(w) >= 3) or (len(initials) >= 2 and initials in text)
            or (name.isupper() and name in text))


@dataclass(frozen=True)
class EventRule:
    """``lexical._Rule``'s interface for a yes/no question: what the revision step searches for
    (``names``), a cheap test of a whole article (``in_text``), then each sentence (``mentions``,
    ``settles``)."""

    event: YesNoEvent

    @property
    def names(self) -> tuple[str, ...]:
        return self.event.names

    def in_text(self, text: str) -> bool:
        """May report the event: one of its names (some word, or its initials), or for an event
        without names one of its words' stems, in the whole text. A superset of ``mentions``,
        which needs a name when the event has names and half its words: the same stems."""
        text = text or ""
        ev = self.event
        if ev.names:
            return any(_may_name(n, text, text.lower()) for n in ev.names)
        if ev.unspaced:
            return any(t in text for t in ev.terms)
        found = _sentence_stems(text, ev.language)
        return any(_term_in(t, found) for t in ev.terms)

    def mentions(self, sentence: str) -> bool:
        return mentions(sentence, self.event)

    def settles(self, sentence: str, headline: bool = False) -> bool:
        return report(sentence, self.event, headline=headline) is not None
