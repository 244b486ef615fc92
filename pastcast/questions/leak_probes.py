"""What the leak checks look for in a text, whatever the question's kind.

A free-form question leaks when its answer (or an alias) is singled out in a text
(``pastcast.text.mentions``, with candidate lists excused: ``leakage``). A yes/no question's
answer is not a word: it leaks when a text reports its outcome, the event as having happened,
been decided or been called off (``pastcast.questions.revision.events``). ``probe_of`` gives a
question's ``Probe``, or the reason no text can be checked for it (``skip_reason``): an answer
that cannot be located (one character, a bare one- or two-digit number), a yes/no title naming
no event. The self-leak, cross-leak and revision steps share it, so the audit's counts of what
each examined agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from pastcast.questions.revision.event_reports import reports_any, statements
from pastcast.questions.revision.events import YesNoEvent, is_yes_no
from pastcast.questions.steps import ANSWER_NOT_LOCATABLE, NO_EVENT_IN_TITLE
from pastcast.text.answer_types import NUMERIC_TYPES
from pastcast.text.mentions import Doc, Mention, Needle, needle_for, raw_tokens, token_forms
from pastcast.text.normalise import written_without_spaces

PROBE_COLUMNS = ("title", "resolution_criteria", "answer", "answer_aliases", "answer_type", "open_date",
                 "resolution_date")


@dataclass(frozen=True)
class Probe:
    needle: Needle | None = None  # a free-form answer
    event: YesNoEvent | None = None  # a yes/no question's event

    @property
    def is_outcome(self) -> bool:
        return self.event is not None


def probe_of(q: dict) -> Probe | str:
    """A question's ``Probe``, or why none can be made (a skip reason)."""
    if is_yes_no(q):
        event = YesNoEvent.of(q)
        return Probe(event=event) if event is not None else NO_EVENT_IN_TITLE
    needle = needle_for(q.get("answer") or "", tuple(a for a in (q.get("answer_aliases") or []) if a),
                        q.get("answer_type") or "")
    return Probe(needle=needle) if needle.entries else ANSWER_NOT_LOCATABLE


def skip_reason(q: dict) -> str | None:
    probe = probe_of(q)
    return probe if isinstance(probe, str) else None


def outcome_mentions(event: YesNoEvent, texts: list[tuple[str, str]]) -> list[tuple[str, Mention]]:
    """(field, mention) of every sentence of ``texts`` ((field, text) pairs; a "title" is read for
    its premise only) reporting an outcome of ``event``; the mention's span is the sentence, its
    rule what it reports ("reports event: signed")."""
    out = []
    for field, text in texts:
        for sentence in statements(text, is_title=field == "title"):
            found = reports_any(sentence, event)
            if found:
                start = max(0, text.find(sentence))
                out.append((field, Mention(found.cue, sentence, start, start + len(sentence),
                                           f"reports {found.outcome}: {found.cue}")))
                break  # one sentence a field is evidence enough
    return out


def anchor_tokens(event: YesNoEvent) -> list[tuple[str, ...]]:
    """Token sequences (mention tokens, as the cross-leak index holds them) of the event's
    content words a host text is likely to hold as written: its names first, then the words of
    its clause (for a candidate search; the report rule decides)."""
    words = [*event.names, *(w for w in raw_tokens(event.clause) if not w[:1].isupper())] \
        if not event.unspaced else [c for c in event.clause if written_without_spaces(c)]
    out = []
    for w in words:
        toks = tuple(t for raw in raw_tokens(w) for t in token_forms(raw))
        if toks and toks not in out and len("".join(toks)) > (0 if event.unspaced else 3):
            out.append(toks)
    return out


OWN_FIELDS = ("title", "background", "resolution_criteria")
VISIBLE_FIELDS = (*OWN_FIELDS, "candidate_outcomes")  # what another question shows of a question


def field_docs(q: dict, fields: Sequence[str]) -> list[tuple[str, Doc]]:
    """(field name, doc) of a question's fields; each candidate outcome is its own doc."""
    out = []
    for f in fields:
        if f == "candidate_outcomes":
            out.extend((f, Doc(o)) for o in (q.get(f) or []) if o)
        elif q.get(f):
            out.append((f, Doc(q[f])))
    return out


KINDS = ("binary", "numeric", "multiple_choice", "free_form")
SOURCE_KINDS = ("news", "market", "imported")


def kind_expr() -> pl.Expr:
    """A question's kind, for the audit's counts: ``binary`` (answered yes or no), ``numeric`` (an answer type
    of ``NUMERIC_TYPES``: a number, range or date), ``multiple_choice`` (options given),
    ``free_form``."""
    answer = pl.col("answer").fill_null("").str.to_lowercase().str.replace_all(r"[^\p{L}\p{N}]", "")
    kind = pl.col("answer_type").fill_null("").str.to_lowercase()
    options = pl.col("candidate_outcomes").list.len().fill_null(0)
    return (pl.when(answer.is_in(["yes", "no", "true", "false"])).then(pl.lit("binary"))
            .when(kind.is_in(sorted(NUMERIC_TYPES))).then(pl.lit("numeric"))
            .when(options > 0).then(pl.lit("multiple_choice"))
            .otherwise(pl.lit("free_form")))


def source_kind_expr() -> pl.Expr:
    """Where a question came from: news (generated from articles), market, imported (a peer set)."""
    generator = pl.col("generator").fill_null("")
    return (pl.when(generator.str.starts_with("import")).then(pl.lit("imported"))
            .when(pl.col("source_kind") == "market").then(pl.lit("market"))
            .otherwise(pl.lit("news")))
