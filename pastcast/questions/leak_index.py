"""Which questions' texts may hold what a leak probe looks for: the cross-leak step's candidate
search (``pastcast.questions.leakage``), verified afterwards by the same rules as ``find_mention``
and the yes/no report rule (``leak_probes``)."""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Sequence

from pastcast.questions.leak_probes import VISIBLE_FIELDS, Probe, anchor_tokens, field_docs
from pastcast.questions.revision.event_reports import called_off, name_needle, verb_prefixes
from pastcast.text.mentions import Doc, Needle, raw_tokens, token_forms


@functools.lru_cache(maxsize=100_000)
def _visible_tokens(texts: tuple[str | None, ...]) -> frozenset[str]:
    """Every token form of a question's visible texts (a superset of each field's tokens is
    enough for the index). Cached: the filter's cross-leak step and the snapshot's check index
    the same questions in one build."""
    raw = set()
    for v in texts:
        if v:
            raw.update(raw_tokens(v))
    toks = {t for r in raw for t in token_forms(r)}
    if "cent" in toks:
        toks.add("percent")
    return frozenset(toks)


class QuestionIndex:
    """Visible texts of every question, and where each normalised token occurs (and, built on
    first use, each acronym spelt by a run of capitalised words, key "I:<letters>")."""

    def __init__(self, rows: list[dict]):
        self.rows = rows
        self._docs: dict[int, list[tuple[str, Doc]]] = {}
        postings: dict[str, set[int]] = defaultdict(set)
        for i, q in enumerate(rows):
            texts = tuple(v if v is None or isinstance(v, str) else "\n".join(x for x in v if x)
                          for v in (q.get(f) for f in VISIBLE_FIELDS))
            for t in _visible_tokens(texts):
                postings[t].add(i)
        self.postings = postings
        self._texts: dict[int, str] = {}  # each question's visible texts joined, lower case
        self._calling_off: dict[tuple[int, str], bool] = {}  # (question, language): a calling-off cue in its texts
        self._deletions: dict[str, set[str]] | None = None
        self._neighbours: dict[str, set[str]] = {}
        self._initials: dict[str, set[int]] | None = None

    def docs(self, i: int) -> list[tuple[str, Doc]]:
        if i not in self._docs:
            self._docs[i] = field_docs(self.rows[i], VISIBLE_FIELDS)
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

    def probe_candidates(self, probe: Probe) -> set[int]:
        """Texts that may hold what ``probe`` looks for: an answer's forms, or for a yes/no
        question's event enough of its names (or, without names, its two rarest words)."""
        if not probe.is_outcome:
            return self.candidates(probe.needle)
        event = probe.event
        if event.names:  # a report names one of them at least
            named: set[int] = set()
            for name in event.names:
                named |= self.candidates(name_needle(name))
        else:
            anchors = sorted(anchor_tokens(event), key=lambda toks: len(self.holding_all(toks)))
            found = [self.holding_all(toks) for toks in anchors if self.holding_all(toks)]
            if len(found) < min(2, len(anchors)) or not found:
                return set()
            named = set.intersection(*found[:2])
        return {i for i in named if self._may_settle(i, event)}

    def _text(self, i: int) -> str:
        if i not in self._texts:
            self._texts[i] = "\n".join(doc.text for _f, doc in self.docs(i)).lower()
        return self._texts[i]

    def _may_settle(self, i: int, event) -> bool:
        """Question ``i``'s texts hold something that can settle ``event``: a word starting like
        its verb (or a verb settling it the same way, or their irregular pasts), a calling-off
        cue, or a figure for a threshold. A cheap test before the sentences are read: many
        questions share a name ("Trump"), few a report of each other's outcome."""
        if event.unspaced:
            return True
        text = self._text(i)
        if event.threshold is not None and any(c.isdigit() for c in text):
            return True
        key = (i, event.language)
        if key not in self._calling_off:
            self._calling_off[key] = called_off(event.language).search(text) is not None
        return self._calling_off[key] or any(p in text for p in verb_prefixes(event))

    def candidates(self, needle: Needle) -> set[int]:
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
