"""Answer leaks: a question's answer (or an alias) written in its own text, or in the visible
text of another question open at the same time.

A peer benchmark had a quarter of its answers verbatim in the titles of sibling questions, and
agents exploited it. Two steps guard against that here, both over the QUESTIONS schema:

- ``self_leaks``: the answer in the question's own title, background or resolution criteria
  (reason ``answer_in_own_text``), or a yes/no question's outcome reported there
  (``outcome_in_own_text``);
- ``cross_leaks``: the answer of question A (or, for a yes/no question, a report of its outcome)
  in the visible text (title, background, resolution criteria, candidate outcomes) of another
  question B while both are open (``[open_date, resolution_date)`` overlap); the fewest
  questions are dropped so that no such pair remains (reason ``answer_in_other_question``), and
  every pair is kept as evidence.

What each looks for is a question's probe (``pastcast.questions.leak_probes``): its answer's
mentions, or for a yes/no question the sentences reporting its outcome, the event as having
happened, been decided or been called off (``pastcast.questions.revision.events``; a title is
read for its premise: "After X signed the deal, will ...?"). A question no text can be checked
for is skipped with its reason, which the audit counts.

``find_mention`` is the one rule both use; it lives in ``pastcast.text.mentions`` (shared with
question dedup, revision and answer grounding, and re-exported here), whose docstring gives the
rules: exact / alias (after ``pastcast.text.normalise``, in any script; every character a word
in scripts written without spaces), transliteration, abbreviation, surname, fuzzy, tried in
that order, the first that fires reported. Answers that cannot be located meaningfully (one
character, a bare one- or two-digit integer) are skipped.

Candidate lists are not leaks (``pastcast.questions.candidate_lists``): every mention of an
answer is looked at by position, and one that is a bare item of a list of candidates its
sentence presents as such ("Bids were submitted by Korsholm, Estvale and Tarnby"), none singled
out, is not counted; one singled out anywhere ("Estvale, the clear favourite") is a leak. The
same rule runs in the filter and in the blocking snapshot checks (``self_leaks`` and
``find_pairs``, through ``pastcast.questions.filter.own_text_leaks`` and ``other_question_leaks``).
Each candidate outcome of another question is a text of its own, so an option naming the answer
always counts. A list excuses nothing when a sentence of the same question's background or
criteria reports an outcome about its other options ("Korsholm and Tarnby withdrew"). A question's own ``candidate_outcomes`` excuse
nothing by themselves: its text must list the options as candidates like any other.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import polars as pl

from pastcast.questions.candidate_lists import list_items, outcome_about
from pastcast.questions.leak_index import QuestionIndex
from pastcast.questions.leak_probes import (OWN_FIELDS, PROBE_COLUMNS, VISIBLE_FIELDS, Probe, field_docs,
                                            outcome_mentions, probe_of, skip_reason)
from pastcast.questions.revision.events import is_yes_no
from pastcast.questions.row_memo import RowMemo, outcomes_of, row_keys, row_reader, rows_at
from pastcast.questions.steps import Evidence, StepResult
from pastcast.schemas import QUESTIONS, complete
from pastcast.text.mentions import (ACRONYM_MAX_LETTERS, ACRONYM_MIN_LETTERS, ACRONYMS,
                                    BINARY_ANSWERS, FUZZY_MIN_CHARS, FUZZY_SCORE, RULES,
                                    SURNAME_MIN_LETTERS, TRANSLITERATION_MIN_CHARS, Doc, Mention,
                                    Needle, all_mentions, find_mention, match, needle_for, phrase_tokens)
from pastcast.text.mentions import mention_tokens as tokens

__all__ = [  # the mention finder's names are re-exported: this module's API from before it moved
    "ACRONYMS", "ACRONYM_MAX_LETTERS", "ACRONYM_MIN_LETTERS", "BINARY_ANSWERS", "FUZZY_MIN_CHARS",
    "FUZZY_SCORE", "OWN_FIELDS", "RULES", "SURNAME_MIN_LETTERS", "TRANSLITERATION_MIN_CHARS",
    "VISIBLE_FIELDS", "Mention", "Pair", "cross_leaks", "find_mention", "find_pairs",
    "leaks_in_snapshot", "self_leak_mentions", "self_leaks", "tokens"]


# The finder's building blocks under the names this module always had (tests use them).
_doc = Doc
_match = match
_needle = needle_for
_phrase = phrase_tokens


# ---------------------------------------------------------------------------------------------
# Questions

def _frame(questions) -> pl.DataFrame:
    df = questions if isinstance(questions, pl.DataFrame) else pl.DataFrame(list(questions))
    if not set(QUESTIONS) <= set(df.columns):
        df = df.hstack(complete(df, QUESTIONS).drop(df.columns)).select(
            [*QUESTIONS, *(c for c in df.columns if c not in QUESTIONS)])
    return df


def _rows(questions) -> tuple[pl.DataFrame, list[dict]]:
    df = _frame(questions)
    return df, list(df.iter_rows(named=True))


def _needle_of(q: dict) -> Needle:
    return _needle(q["answer"] or "", tuple(a for a in (q.get("answer_aliases") or []) if a),
                   q.get("answer_type") or "")


_field_docs = field_docs  # the name this module always had (tests use it)


def _singled_out(doc: Doc, needle: Needle, context: tuple[str, ...] = ()) -> Mention | None:
    """The first mention of the answer in ``doc``, by position, that is not one item of a list
    of candidates (``pastcast.questions.candidate_lists``); None when every one is. A list
    excuses nothing when a sentence of ``doc`` or of ``context`` (the question's other texts)
    reports an outcome about its other options ("Korsholm and Tarnby withdrew")."""
    first = _match(doc, needle)  # the cheap test first: most texts never name the answer
    if first is None:
        return None
    mentions = all_mentions(doc, needle)
    spans = tuple((m.start, m.end) for m in mentions)
    for m in mentions:
        others = list_items(doc.text, m.start, m.end, spans)
        if others is None or outcome_about((doc.text, *context), others):
            return m
    return None


def _context(docs: list[tuple[str, Doc]]) -> tuple[str, ...]:
    """The texts of a question read for outcomes about a list's other options: its background
    and resolution criteria (a title asks about the outcome by design)."""
    return tuple(doc.text for f, doc in docs if f in ("background", "resolution_criteria"))


def self_leak_mentions(q: dict) -> list[tuple[str, Mention]]:
    """(field, mention) of ``q``'s answer in its own title, background, resolution criteria,
    where it is singled out (not one item of a candidate list); for a yes/no question, the
    sentences of its own text that report its outcome (``leak_probes``)."""
    found = _own_text_leak(q)
    return [] if isinstance(found, str) else found


def _own_text_leak(q: dict) -> list[tuple[str, Mention]] | str:
    """``self_leak_mentions``, or why the question's text cannot be checked (a skip reason)."""
    probe = probe_of(q)
    if isinstance(probe, str):
        return probe
    return _probe_mentions(probe, q, OWN_FIELDS)


def _probe_mentions(probe: Probe, q: dict, fields: Sequence[str],
                    docs: list[tuple[str, Doc]] | None = None) -> list[tuple[str, Mention]]:
    """(field, mention) of what ``probe`` looks for in ``q``'s ``fields`` (``docs``: those
    fields as docs already made)."""
    docs = docs if docs is not None else _field_docs(q, fields)
    if probe.is_outcome:
        return outcome_mentions(probe.event, [(f, doc.text) for f, doc in docs])
    return _host_mentions(docs, probe.needle)


def _describe(m: Mention) -> str:
    if m.rule.startswith("reports "):
        return f"{m.span!r} ({m.rule})"
    how = m.rule if m.rule != "fuzzy" else f"fuzzy {m.score:g}"
    return f"{m.span!r} ({how}: {m.form!r})"


def _what(q: dict) -> str:
    """What leaks of a question: its answer, or a yes/no question's outcome."""
    return _leaking(q.get("answer"), is_yes_no(q))


def _leaking(answer: str | None, yes_no: bool) -> str:
    return f"outcome (answer {answer!r})" if yes_no else f"answer {answer!r}"


def _pair_leak(p: Pair) -> str:
    return _leaking(p.answer, any(m.rule.startswith("reports ") for _, m in p.mentions))


PROBE_STEP = "probe"  # the row memo's entries: why no text can be checked for a question, by row


def probe_skips(df: pl.DataFrame, memo: RowMemo | None = None) -> dict[str, str]:
    """{question id: skip reason} of the questions no text can be checked for (``leak_probes``),
    through ``memo`` by row when given."""
    row = row_reader(df.select("question_id", *PROBE_COLUMNS), memo)
    reasons = outcomes_of(memo, PROBE_STEP, df, PROBE_COLUMNS, lambda i: skip_reason(row(i)))
    return {qid: r for qid, r in zip(df["question_id"].to_list(), reasons) if r}


SELF_LEAK_COLUMNS = (*PROBE_COLUMNS, "background")  # what the rule reads
SELF_LEAK_STEP = "self_leak/2"  # the row memo's entries (2: yes/no questions checked, skips kept)


def _self_leak_found(q: dict) -> dict | None:
    found = _own_text_leak(q)
    if isinstance(found, str):
        return {"skip": found}
    if not found:
        return None
    return {"detail": "; ".join(f"{f}: {_describe(m)}" for f, m in found), "spans": [m.span for _, m in found],
            "reason": "outcome_in_own_text" if found[0][1].rule.startswith("reports ") else "answer_in_own_text"}


def self_leaks(questions: pl.DataFrame, stage: str = "self_leak", memo: RowMemo | None = None) -> StepResult:
    """Drop every question whose answer (or an alias) is mentioned in its own title, background
    or resolution criteria (reason ``answer_in_own_text``; options of its own candidate outcomes
    are not looked at, see the module doc), and every yes/no question whose own text reports its
    outcome (``outcome_in_own_text``). A question no text can be checked for is skipped with the
    reason (``leak_probes``). ``memo``: outcomes of the build before, by row."""
    df = _frame(questions)
    row = row_reader(df, memo)  # with a memo, only the rows it lacks and the leaks are read as rows
    result = StepResult(df)
    dropped = set()
    ids = df["question_id"].to_list()
    found = outcomes_of(memo, SELF_LEAK_STEP, df, SELF_LEAK_COLUMNS, lambda i: _self_leak_found(row(i)))
    for i, leak in enumerate(found):
        if not leak:
            continue
        if "skip" in leak:
            result.skip(ids[i], leak["skip"])
            continue
        q = row(i)
        qid = q["question_id"]
        reason = leak.get("reason", "answer_in_own_text")
        dropped.add(qid)
        result.drop(qid, stage, reason, f"{_what(q)} in {leak['detail']}")
        result.evidence.append(Evidence(qid, stage, "drop", reason, spans=tuple(leak["spans"]), detail=leak["detail"]))
    result.kept = df.filter(~pl.col("question_id").is_in(list(dropped)))
    return result


def _host_mentions(docs: list[tuple[str, Doc]], needle: Needle) -> list[tuple[str, Mention]]:
    """(field, mention) of an answer singled out in a question's texts (its own for a self
    leak, another's visible text for a cross leak). Each candidate outcome is a text of its
    own: an option naming the answer names it alone (a market's options are the candidates of
    its own contest, which need not be this one)."""
    context = _context(docs)
    return [(f, m) for f, doc in docs if (m := _singled_out(doc, needle, context))]


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


def find_pairs(questions: pl.DataFrame, among: set[str] | None = None) -> list[Pair]:
    """Every (A, B), A != B, open at the same time, with A's answer in B's visible text
    (``among``: only pairs with a question of these ids on one side at least).

    Candidates come from an inverted index (texts holding every token of a form; acronyms
    spelt by capitalised runs; for fuzzy forms, texts holding each token or a word within one
    edit of it) and are verified with the same rules as ``find_mention``. The fuzzy rule is
    thereby limited to typos of at most one edit per word (one letter added, dropped or
    changed; tokens under 4 characters exact), which covers a score of 90 for names up to
    about 20 characters.
    """
    return _find_pairs(_rows(questions)[1], among)


def _open_beside(rows: list[dict], among: set[str]) -> list[dict]:
    """The rows of ``among`` and those open at some time within their span (from the earliest
    open date to the latest resolution date of ``among``), in order: only these can pair with
    one of ``among``, so a nightly build's new questions are compared with the questions of
    their weeks, not of the year."""
    focus = [q for q in rows if q["question_id"] in among]
    if not focus:
        return []
    unbounded = 10 ** 9
    lo = min(_ordinal(q["open_date"], -unbounded) for q in focus)
    hi = max(_ordinal(q["resolution_date"], unbounded) for q in focus)
    return [q for q in rows if q["question_id"] in among
            or (_ordinal(q["open_date"], -unbounded) < hi and lo < _ordinal(q["resolution_date"], unbounded))]


def _probes(rows: list[dict]) -> list[Probe | None]:
    """Each row's probe (None: nothing to look for, skipped)."""
    out = []
    for q in rows:
        probe = probe_of(q)
        out.append(None if isinstance(probe, str) else probe)
    return out


def _find_pairs(rows: list[dict], among: set[str] | None = None) -> list[Pair]:
    if among is not None:
        rows = _open_beside(rows, among)
    index = QuestionIndex(rows)
    focus = None if among is None else {i for i, q in enumerate(rows) if q["question_id"] in among}
    if focus is not None and not focus:
        return []
    # a question outside the focus can only pair with one inside it: its candidates come from an
    # index of the focus alone (the same rows the full index would give, less the others)
    hosts = None if focus is None else sorted(focus)
    focus_index = None if hosts is None else QuestionIndex([rows[i] for i in hosts])
    pairs = []
    for a, (qa, probe) in enumerate(zip(rows, _probes(rows))):
        if probe is None:
            continue
        inside = focus is None or a in focus
        found_in = (sorted(index.probe_candidates(probe)) if inside else
                    sorted(hosts[j] for j in focus_index.probe_candidates(probe)))
        for b in found_in:
            if b == a or not _overlap(qa, rows[b]):
                continue
            found = _probe_mentions(probe, rows[b], VISIBLE_FIELDS, index.docs(b))
            if found:
                pairs.append(Pair(qa["question_id"], rows[b]["question_id"], qa["answer"], tuple(found)))
    return pairs


def _period(q: dict) -> str:
    return f"open {q['open_date']}..{q['resolution_date']}"


def _pair_detail(p: Pair, rows: dict[str, dict], dropped: str) -> str:
    where = ", ".join(f"{f} {_describe(m)}" for f, m in p.mentions)
    a, b = rows[p.leaker], rows[p.host]
    if dropped == p.leaker:
        return (f"its {_pair_leak(p)} shows in {p.host}'s {where} ({_period(b)}; this one "
                f"{_period(a)})")
    return (f"shows {p.leaker}'s {_pair_leak(p)} in its {where} ({p.leaker} {_period(a)}; "
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


CROSS_LEAK_STEP = "cross_leak/2"  # the row memo's entries: each question's hosts, by row key (2: yes/no)


def _beside(df: pl.DataFrame, changed: list[int]) -> set[int]:
    """Positions of the rows open at some time within the span of the rows at ``changed``
    (``_open_beside`` on the frame: the other rows are never read)."""
    focus = df[changed].select("open_date", "resolution_date")
    lo = None if focus["open_date"].null_count() else focus["open_date"].min()
    hi = None if focus["resolution_date"].null_count() else focus["resolution_date"].max()
    within = pl.lit(True)
    if hi is not None:
        within = within & (pl.col("open_date").is_null() | (pl.col("open_date") < hi))
    if lo is not None:
        within = within & (pl.col("resolution_date").is_null() | (pl.col("resolution_date") > lo))
    return set(df.select(pl.arg_where(within)).to_series().to_list())


def _remembered_pairs(df: pl.DataFrame, memo: RowMemo) -> tuple[list[Pair], list[dict]]:
    """``_find_pairs`` over every row, with the pairs of the build before reused: whether A's
    answer shows in B's text while both are open depends on the two rows alone, so the pairs
    of two questions that reach this step exactly as they did then are looked up (their
    mentions found again, for the evidence) and only pairs with a new or changed question are
    searched, among the questions open beside it. Every row's hosts are remembered for the next
    build. Returns the pairs and the rows it read (the others are never read as rows)."""
    keys = row_keys(df)  # every column: a pair is a function of its two rows
    at = {k: i for i, k in enumerate(keys)}
    hosts = memo.get_all(CROSS_LEAK_STEP, keys)  # None: not in the build before as it is
    changed = [i for i, h in enumerate(hosts) if h is None]
    known = [(a, b) for a, stored in enumerate(hosts) for b in (at.get(k) for k in stored or ())
             if b is not None and hosts[b] is not None]  # a gone or changed host: searched below
    wanted = (_beside(df, changed) if changed else set()) | set(changed) | {i for pair in known for i in pair}
    read = rows_at(df, wanted)
    rows = [read[i] for i in sorted(read)]
    pairs = _find_pairs(rows, among={read[i]["question_id"] for i in changed}) if changed else []
    for a, b in known:
        probe = probe_of(read[a])
        found = [] if isinstance(probe, str) else _probe_mentions(probe, read[b], VISIBLE_FIELDS)
        if found:
            pairs.append(Pair(read[a]["question_id"], read[b]["question_id"], read[a]["answer"], tuple(found)))
    position = {q["question_id"]: i for i, q in read.items()}
    pairs.sort(key=lambda p: (position[p.leaker], position[p.host]))  # the order a full search gives
    hosts_of: dict[int, list[int]] = defaultdict(list)
    for p in pairs:
        hosts_of[position[p.leaker]].append(keys[position[p.host]])
    unchanged = []
    for i, (key, stored) in enumerate(zip(keys, hosts)):
        found = hosts_of.get(i, [])
        if stored is not None and found == stored:
            unchanged.append(key)  # kept as stored: nothing to encode
        else:
            memo.put(CROSS_LEAK_STEP, key, found)
    memo.keep_all(CROSS_LEAK_STEP, unchanged)
    return pairs, rows


def cross_leaks(questions: pl.DataFrame, stage: str = "cross_leak", memo: RowMemo | None = None) -> StepResult:
    """Drop the fewest questions (greedily) so that no question's answer (or alias) shows in
    the visible text of another question open at the same time; every pair is evidence.
    ``memo``: the pairs of the build before, by row (see ``_remembered_pairs``)."""
    if memo is None:
        df, rows = _rows(questions)
        pairs = _find_pairs(rows)
    else:
        df = _frame(questions)
        pairs, rows = _remembered_pairs(df, memo)
    by_id = {q["question_id"]: q for q in rows}
    result = StepResult(df)
    result.skipped.update(probe_skips(df, memo))  # the questions whose answer nothing can show
    for p in pairs:
        result.evidence.append(Evidence(
            p.leaker, stage, "pair", "answer_in_other_question",
            spans=tuple(m.span for _, m in p.mentions), other_question_id=p.host,
            detail=f"{_pair_leak(p)} in {p.host}'s " + ", ".join(
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
            out[q["question_id"]].append(f"{_what(q)} in its own {f}: {_describe(m)}")
    for p in _find_pairs(rows):
        where = ", ".join(f"{f} {_describe(m)}" for f, m in p.mentions)
        out[p.leaker].append(f"{_pair_leak(p)} in {p.host}'s {where} while both are open")
    return dict(out)
