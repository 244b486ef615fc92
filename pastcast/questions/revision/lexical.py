"""The lexical rule: does one sentence of an article already state a question's answer as a
settled outcome? Rules 1-5 of ``pastcast.questions.revision``: the answer, enough key terms of
the title, the question's period, an outcome cue (``OUTCOME``, or one settled ahead of its formal
date: ``cues.CUES``) with the answer in its place (``settled``) and no hedge (``HEDGE``) in what
the sentence reports, whoever it is attributed to (``settled.reported``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pastcast.questions.revision.cues import CONFIRMATION, CUES, OUTCOME
from pastcast.questions.revision.settled import blank, hedged, licensed, mention_spans, reported, settling_cues
from pastcast.search.index import ANALYZER
from pastcast.search.keywords import STOPWORDS, keywords
from pastcast.text import contains_phrase, normalise, phrase_tokens, searchable, sentences
from pastcast.text.vocabulary import BINARY_ANSWERS, HEDGES, MONTHS, phrases

LEXICAL = "lexical rule"

# The index's own analyzer (tantivy's en_stem): key terms and sentences compared as stems.
_ANALYZER = ANALYZER


def _stems(text: str) -> list[str]:
    return _ANALYZER.analyze(text or "")


# Words of a question title that say nothing about which article reports its outcome.
EXTRA_STOPWORDS = frozenset(
    """level much many according compared reported happen take place whom whose which who what
    where when how""".split()
)
_STOP_STEMS = frozenset(s for w in STOPWORDS | EXTRA_STOPWORDS for s in _stems(w))

# Hedge or preview cues (rule 5): the shared ``HEDGES``, any whitespace between their words,
# and the rule's own; in any case, as are the words of ``OUTCOME``. Only words about what is
# reported: who reports it ("sources said", "according to people familiar") is an attribution
# frame (``cues.ATTRIBUTION``), set aside first; negations, denials and rumours, forecasters
# ("analysts say") are ``cues.NEGATION``, ``cues.DOUBT`` and ``cues.FORECAST``, checked with these.
_OWN_HEDGES = (
    r"will|should|shall|can|cannot|expects?|expecting|expectations?|"
    r"unlikely|probably|probable|possible|possibly|potential|potentially|perhaps|maybe|favou?rites?|"
    r"favou?red|front-?runners?|contenders?|candidates?|candidacy|challengers?|nominees?|nominated|"
    r"nominations?|shortlist|shortlists|shortlisted|short-listed|finalists?|polled|polling|"
    r"surveyed|forecasted|hopes?|hoped|hoping|aims?|"
    r"aiming|bids?\s+(?:to|for)|seeks?|seeking|sought|vie|vies|vying|competing|running\s+for|"
    r"runs?\s+for|to\s+face|faces|facing|preview|previews|on\s+course|in\s+the\s+frame|"
    r"in\s+contention|in\s+the\s+running|thought\s+to|believed\s+to|"
    r"intends?\s+to|considered|interviews?|interviewed|interim|caretaker|"
    r"acting\s+(?:chief|head|president|director|governor|chair\w*|leader|ceo|manager|coach)|"
    r"runner-?up|semi-?finals?|quarter-?finals?|qualif\w*|"
    r"(?:reach|reached|reaches|reaching)\s+the\s+(?:\S+\s+){0,3}?final|"
    r"(?:into|through\s+to)\s+the\s+(?:\S+\s+){0,3}?final|"
    # previews of an appointment, a deal or a count: "is among the favourites", "is in talks to",
    # "leads with 60% of precincts reporting"
    r"among|talks|linked|keen|approached|"
    r"leads|leading|(?:is|are|narrowly|comfortably)\s+ahead|headed\s+for|close\s+to|emerged\s+as|weigh|weighs|"
    r"weighing|leaning|discuss\w*|deciding|unclear|yet\s+to|needs?|mentioned|preparing|appears?|seen\s+as|"
    r"asked|preliminary|provisional|partial|early\s+returns|quick\s+count|exit\s+polls?|precincts|bidders?|"
    r"preferred|wants?|"
    # market talk: "investors bet that", "talk in the market"
    r"talk\s+(?:in|is|of)|bets?\s+that|betting|speculat(?:e|es|ed|ing)|"
    # opinions and conditions (found by a review): "critics fear X will", "pending approval"
    r"fears?|feared|fearing|pending|subject\s+to|conditional|provided\s+that|"
    r"once\s+(?:\S+\s+){0,3}?(?:approve|approves|sign|signs|clear|clears|vote|votes|agree|agrees)"
)
_SHARED_HEDGES = phrases(HEDGES, gap=r"\s+")
HEDGE = re.compile(rf"\b(?:{_SHARED_HEDGES}|{_OWN_HEDGES})\b", re.I)
_MAY = re.compile(r"\bmay\b")  # lower case only: "May" is usually the month
_MONTH = re.compile(r"\b(" + "|".join(MONTHS) + r")\b")  # capitalised: the month, not "may"
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_SPAN_YEAR = re.compile(r"\b(?:since|from|until|till|through|between|before|after)\s+(?:(?:early|late|mid)-?\s*)?"
                        r"(?:19|20)\d\d\b", re.I)


def key_terms(title: str, names: Sequence[str] = ()) -> list[str]:
    """The stemmed content words of a question title, minus the answer's own words."""
    answer_stems = {s for n in names for s in _stems(n)}
    out: list[str] = []
    for w in keywords(title):
        for s in _stems(w):
            if len(s) > 1 and s not in _STOP_STEMS and s not in answer_stems and s not in out:
                out.append(s)
    return out


def answer_names(question: dict) -> list[str]:
    """The answer and aliases usable as evidence text: not yes/no, at least 2 characters."""
    if (question.get("answer_type") or "").lower() == "binary":
        return []
    names: list[str] = []
    for n in [question.get("answer"), *(question.get("answer_aliases") or [])]:
        norm = normalise(n)
        if len(norm) < 2 or norm in BINARY_ANSWERS or n in names:
            continue
        names.append(n)
    if normalise(question.get("answer")) in BINARY_ANSWERS:  # a binary question by its answer word
        return []
    return names


def is_settled(sentence: str) -> bool:
    """An outcome cue (past tense, or settled in advance: ``cues.CUES``) in the sentence's reported
    content and no hedge or preview cue in it (rules 4 and 5), whoever the outcome is about and
    whoever reports it; ``settles`` also places the answer."""
    s = sentence.strip()
    text = reported(s)
    confirmed = bool(CONFIRMATION.search(s))
    if not OUTCOME.search(text) and not any(c.pattern.search(text) and (not c.confirmed or confirmed) for c in CUES):
        return False
    return not hedged(blank(s, licensed(s)), HEDGE, _MAY)


def settles(sentence: str, names: Sequence[str]) -> bool:
    """Rules 4 and 5 with the answer in its place: in the sentence's reported content (attribution
    frames set aside: ``settled.reported``), a cue whose slot holds the answer or an alias
    (``names``), and no hedge once the cues' licensed words, formalities and the answer itself are
    set aside (``pastcast.questions.revision.settled``)."""
    s = sentence.strip()
    if not settling_cues(s, names, OUTCOME):
        return False
    return not hedged(blank(s, [*licensed(s), *mention_spans(s, names)]), HEDGE, _MAY)


def _years(text: str) -> set[int]:
    return {int(y) for y in _YEAR.findall(_SPAN_YEAR.sub(" ", text))}


@dataclass(frozen=True)
class _Rule:
    """The lexical rule for one question."""

    names: tuple[str, ...]
    name_words: tuple[tuple[str, ...], ...]  # the tokens of each name, as contains_phrase has them
    terms: frozenset[str]
    need: int
    years: frozenset[int]  # the question's years (its title's, else its open..resolution span)
    months: frozenset[str]  # months named in the title

    @classmethod
    def of(cls, q: dict, min_key_terms: int) -> _Rule | None:
        names = answer_names(q)
        if not names:
            return None
        terms = key_terms(q["title"] or "", names)
        years = _years(q["title"] or "") or set(range(q["open_date"].year if q.get("open_date") else
                                                      q["resolution_date"].year, q["resolution_date"].year + 1))
        return cls(tuple(names), tuple(phrase_tokens(n) for n in names), frozenset(terms),
                   min(min_key_terms, len(terms)), frozenset(years),
                   frozenset(_MONTH.findall(q["title"] or "")))

    def _may_name(self, text: str) -> bool:
        folded = searchable(text)  # a name whose tokens are not all substrings of it is not in text
        return any(all(w in folded for w in words) for words in self.name_words)

    def mentions(self, sentence: str) -> bool:
        """Rules 1-3: the answer, enough key terms, the question's period."""
        if not self._may_name(sentence) or not any(contains_phrase(sentence, n) for n in self.names):
            return False
        if len(self.terms.intersection(_stems(sentence))) < self.need:
            return False
        years = _years(sentence)
        if years and not years & self.years:
            return False
        if self.months:
            months = set(_MONTH.findall(sentence))
            if months and not months & self.months:
                return False
        return True

    def settles(self, sentence: str, headline: bool = False) -> bool:
        """Rules 4 and 5 for this answer (``settles``; a headline is read as any sentence)."""
        return settles(sentence, self.names)

    def in_text(self, text: str) -> bool:
        """Maybe names the answer (no false negatives; cheap on long texts)."""
        return self._may_name(text)


# A line of links to other stories ("Read more: ...", "Related: ..."): not the article's own
# text, and a page crawled days after it was published may list headlines from those days.
LINK_LINE = re.compile(r"^\W*(?:read\s+more|see\s+also|also\s+read|read\s+also|more\s+on\s+this|related|"
                       r"recommended|most\s+read|trending|you\s+may\s+also\s+like)\b", re.I)


def article_sentences(title: str, text: str) -> list[str]:
    """The headline, then the sentences of each line of the body (a headline line on top of
    the body, common in extracted text, is not glued to the first sentence); link lines
    (``LINK_LINE``) are left out."""
    title = (title or "").strip()
    out = [title] if title else []
    for line in (text or "").splitlines():
        if LINK_LINE.match(line):
            continue
        for s in sentences(line):
            if s and s != title:
                out.append(s)
    return out
