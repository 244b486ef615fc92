"""Near-duplicate questions: the same event asked twice (across days or sources: a news
question and a market question, two syndicated reports), merged into one.

Two questions are duplicates when all of these hold:

1. the same answer: equal after normalisation, an alias of one is the answer or an alias of the
   other, or ``pastcast.matching.matches`` holds both ways (equal, a typo, or one
   written in Latin letters and the other's transliteration: "Moskva" and "Москва");
2. resolution dates at most ``max_days_apart`` days apart;
3. compatible titles: the names in them (capitalised words that are not question words) of one
   title are a subset of the other's ("the 2026 Labour and Commons Party leadership contest"
   and "the next leader of the Labour and Commons Party (Veloria)"), and so are their numbers,
   years and months ("January 2026" is not "March 2026"); a title written in Title Case has no
   names to compare;
4. similar titles: rapidfuzz ``token_set_ratio`` of the normalised titles >=
   ``title_similarity`` (85), or a Jaccard index of their content words (question words
   and fillers removed, crudely stemmed: "mayoral"/"mayor", "election"/"elected") >=
   ``title_jaccard`` (0.6).

Answers that say little about the event (Yes/No, numbers, dates: "3.50%" is the answer of many
rate decisions) need near-identical titles instead of 3 and 4: the same names, the same
numbers, and the same content words up to one-letter typos ("above" is not "below").

Whatever the answers and words, two titles never ask the same event (``distinct_events``) when
5. their roles are swapped: two names both titles hold are written in one order in one and in
   the other order in the other ("Will Israel carry out a deadly attack within Iran ...?" and
   "Will Iran carry out a deadly attack within Israel ...?", both answered No; "Нападёт ли
   Израиль на Иран?" and "Нападёт ли Иран на Израиль?"). Names joined only by "and", "or", "vs"
   and the like are one group, unordered ("Trump and Biden" is "Biden and Trump"); a passive
   rewording that swaps the names ("Will Apple buy Twitter?", "Will Twitter be bought by
   Apple?") is kept apart too, a duplicate left rather than a question lost. Only names are
   compared, so titles in Title Case or in scripts without capitals (Chinese, Japanese, Arabic)
   are not read for roles, nor is a role swap around one name ("Who will Israel attack?");
6. their polarity differs: the kinds of negation in them differ (``vocabulary.NEGATIONS``, read by ``event_roles``, in
   English, German, French, Spanish, Italian, Portuguese, Dutch, Russian and Chinese: "not",
   "n't", "no", "never", "fail to", "nicht", "jamais", "no", "не", "没有", ...): "Will X win?" is
   not "Will X not win?" nor "Will X fail to win?". An antonym without a negation ("win" and
   "lose") is left to the word rules.

Each group keeps the question with the earliest ``open_date`` (ties: the earliest
``resolution_date``, then a market question before a news one, since it brings its options and
the crowd's prices, then the smaller id). The kept question keeps its own text and dates and
gains the others' ``source_ids`` and their answers and aliases as ``answer_aliases``; the others
are dropped (``duplicate_question``, detail ``kept=<id>``) with a "merge" evidence record.
A question joins the first kept question it duplicates; duplicates are not chained through
questions that were merged away.

To scale, only questions sharing a block are compared: the normalised answer or an alias (or
its transliteration), the first and last four letters of each answer word of 5+ letters that
is not common among answers (typos: "Okafour" meets "Okafor"), and for weak answers (answer,
title numbers, title names).
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import date

import polars as pl
from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from pastcast.matching import matches
from pastcast.questions.leakage import _frame
from pastcast.questions.row_memo import RowMemo, row_keys, rows_at
from pastcast.schemas import QUESTIONS
from pastcast.questions.steps import Evidence, StepResult
from pastcast.text import normalise, transliteration
from pastcast.text.mentions import mention_tokens as tokens
from pastcast.questions.event_roles import name_order, negation_kinds, swapped_names
from pastcast.text.vocabulary import BINARY_ANSWERS, MONTH_ABBREVIATIONS, MONTHS, STOPWORDS, WEEKDAYS


@dataclass(frozen=True)
class QuestionDedupConfig:
    title_similarity: float = 85.0  # rapidfuzz token_set_ratio of the normalised titles
    title_jaccard: float = 0.6  # or the Jaccard index of their stemmed content words
    max_days_apart: int = 14  # between resolution dates


# The shared stop words and the words of question titles that name no event: modals, kinds of
# answer, report verbs, units of time.
_STOPWORDS = STOPWORDS | frozenset("""
may might shall whether winner winners take takes took
team person city place country company film novel book player candidate side
reported report reports announces names set sets level year years month day date
""".split())
# Month names, their abbreviations and weekdays: a title's time, not its event.
_MONTHS = frozenset(w.lower() for w in (*MONTHS, *MONTH_ABBREVIATIONS, *WEEKDAYS))
_SUFFIXES = ("ations", "ation", "ments", "ment", "ships", "ship", "ions", "ion", "ings", "ing",
             "ally", "al", "ed", "s")
_WORD = re.compile(r"[^\W_][\w'\u2019.-]*")
_KIND_RANK = {"market": 0, "news": 1}
# what the rules read of a question (its row's other columns pass through untouched)
READ_COLUMNS = ("question_id", "title", "answer", "answer_aliases", "answer_type", "open_date", "resolution_date",
                "source_kind", "source_ids")


def _stem(t: str) -> str:
    if len(t) > 4:
        for suf in _SUFFIXES:
            if t.endswith(suf) and len(t) - len(suf) >= 3 and not (suf == "s" and t.endswith("ss")):
                return t[:-len(suf)]
    return t


@dataclass(frozen=True)
class _Title:
    norm: str  # normalised title
    content: frozenset[str]  # stemmed content words (no numbers, no months)
    words: frozenset[str]  # the same, not stemmed (for typos)
    numbers: frozenset[str]  # numbers, years, months, weekdays
    names: frozenset[str] | None  # capitalised words that are not question words; None: Title Case
    order: tuple[frozenset[str], ...] = ()  # the names in the order written, joined ones a group
    negations: frozenset[str] = frozenset()  # the kinds of negation in it (vocabulary.NEGATIONS)


def _title(title: str | None) -> _Title:
    toks = tokens(title)
    numbers = frozenset(t for t in toks if t.isdigit() or t in _MONTHS)
    words = frozenset(t for t in toks if t not in _STOPWORDS and t not in numbers and not t.isdigit())
    content = frozenset(_stem(t) for t in words)
    written = [w for w in _WORD.findall(title or "") if w[0].isalpha()]
    capitalised = [w for w in written if w[0].isupper()]
    names: frozenset[str] | None
    if len(written) >= 4 and len(capitalised) > 0.6 * len(written):
        names = None
    else:
        names = frozenset(t for w in capitalised for t in tokens(w)
                          if t not in _STOPWORDS and t not in _MONTHS and not t.isdigit())
    order = name_order(written, lambda w: {t for t in tokens(w) if t not in _STOPWORDS and t not in _MONTHS
                                           and not t.isdigit()})
    return _Title(" ".join(toks), content, words, numbers, names, order, negation_kinds(title))


def _nested(a: frozenset, b: frozenset) -> bool:
    return a <= b or b <= a


def _typo_equal(a: frozenset[str], b: frozenset[str]) -> bool:
    """Equal sets up to one-edit typos in words of 5+ letters."""
    only_a, only_b = a - b, b - a
    if len(only_a) != len(only_b):
        return False
    for x in only_a:
        if len(x) < 5 or not any(len(y) >= 5 and Levenshtein.distance(x, y) <= 1 for y in only_b):
            return False
    return True


def _weak(q: dict) -> bool:
    """An answer that says little about which event was asked: Yes/No, a number, a date."""
    answer = normalise(q["answer"])
    return ((q.get("answer_type") or "") in ("binary", "number", "date", "range")
            or answer in BINARY_ANSWERS or any(c.isdigit() for c in answer))


def _forms(q: dict) -> set[str]:
    return {f for f in (normalise(x) for x in [q["answer"], *(q.get("answer_aliases") or [])]) if f}


def _same_answer(a: dict, b: dict, forms_a: set[str], forms_b: set[str]) -> bool:
    if forms_a & forms_b:
        return True
    # ``matches`` both ways holds only for the same words, a typo (similarity >= 0.9) or a
    # transliteration: a cheap test first, ``matches`` only on the few that pass it
    if not any(set(x.split()) == set(y.split()) or x.isascii() != y.isascii()
               or Levenshtein.normalized_similarity(x, y) >= 0.85 for x in forms_a for y in forms_b):
        return False
    return (matches(a["answer"], b["answer"], b.get("answer_aliases") or [])
            and matches(b["answer"], a["answer"], a.get("answer_aliases") or []))


def _similarity(ta: _Title, tb: _Title) -> tuple[float, float]:
    union = ta.content | tb.content
    jaccard = len(ta.content & tb.content) / len(union) if union else 1.0
    return fuzz.token_set_ratio(ta.norm, tb.norm), jaccard


def distinct_events(ta: _Title, tb: _Title) -> str | None:
    """Why two titles ask different events however alike their words, or None: their roles are
    swapped (two shared names in the other order: who attacks whom, who beats whom) or their
    polarity differs (negations of another kind: "Will X win?" and "Will X not win?")."""
    if ta.negations != tb.negations:
        return f"polarity: {sorted(ta.negations)} vs {sorted(tb.negations)}"
    shared = ta.names & tb.names if ta.names is not None and tb.names is not None else frozenset()
    swapped = swapped_names(shared, ta.order, tb.order, ta.norm.split(), tb.norm.split())
    return f"roles swapped: {swapped[0]} and {swapped[1]}" if swapped else None


def _duplicates(a: dict, b: dict, ta: _Title, tb: _Title, weak: bool,
                config: QuestionDedupConfig) -> tuple[float, float] | None:
    """(title score, Jaccard) when ``a`` and ``b`` ask the same event, else None (answers and
    dates are checked by the caller)."""
    if distinct_events(ta, tb):
        return None
    score, jaccard = _similarity(ta, tb)
    if weak:
        if ta.numbers == tb.numbers and ta.names == tb.names and _typo_equal(ta.words, tb.words):
            return score, jaccard
        return None
    if not _nested(ta.numbers, tb.numbers):
        return None
    if ta.names is not None and tb.names is not None and not _nested(ta.names, tb.names):
        return None
    if score >= config.title_similarity or jaccard >= config.title_jaccard:
        return score, jaccard
    return None


COMMON_ANSWER_WORD = 50  # answers holding a word: above this, it blocks nothing ("united")


def _blocks(q: dict, t: _Title, weak: bool, common: set[str]) -> set[tuple]:
    answer = normalise(q["answer"])
    if weak:
        return {("weak", answer, tuple(sorted(t.numbers)),
                 tuple(sorted(t.names)) if t.names is not None else None)}
    forms = _forms(q)
    keys: set[tuple] = {("answer", f) for f in forms}
    # "Moskva" meets "Москва": a block only, ``matches`` decides (native forms first)
    keys |= {("answer", latin) for latin in map(transliteration, forms) if latin}
    for w in answer.split():  # typos: the first or the last four letters of a distinctive word
        if len(w) >= 5 and w.isalpha() and w not in common:
            keys |= {("prefix", w[:4]), ("suffix", w[-4:])}
    return keys


def _first_duplicate(i: int, rows: Mapping[int, dict], blocks: set[tuple], members: dict[tuple, list[int]],
                     features: _Features, rank: list[int], config: QuestionDedupConfig
                     ) -> tuple[int, tuple[float, float]] | None:
    """The first kept question (in priority order) sharing a block with question ``i`` that
    it duplicates, with the title scores; None when there is none."""
    q = rows[i]
    due = q["resolution_date"]
    weak = features.weak(i)
    candidates = sorted(
        {k for b in blocks for k in members.get(b, ())
         if features.weak(k) == weak and not (due and rows[k]["resolution_date"] and abs(
             (due - rows[k]["resolution_date"]).days) > config.max_days_apart)},
        key=rank.__getitem__)  # the question's place in priority order
    for k in candidates:
        if not _same_answer(rows[k], q, features.forms(k), features.forms(i)):
            continue
        scores = _duplicates(rows[k], q, features.title(k), features.title(i), weak, config)
        if scores:
            return k, scores
    return None


def _union(first: list, *more: list, key=lambda x: x) -> list:
    seen = {key(x) for x in first}
    out = list(first)
    for items in more:
        for x in items:
            k = key(x)
            if x and k not in seen:
                seen.add(k)
                out.append(x)
    return out


def _title_fields(title: str | None) -> list:
    t = _title(title)
    return [t.norm, sorted(t.content), sorted(t.words), sorted(t.numbers), None if t.names is None else sorted(t.names),
            [sorted(g) for g in t.order], sorted(t.negations)]


def _title_of(fields: list) -> _Title:
    norm, content, words, numbers, names, order, negations = fields
    return _Title(norm, frozenset(content), frozenset(words), frozenset(numbers),
                  None if names is None else frozenset(names), tuple(frozenset(g) for g in order), frozenset(negations))


def _block_of(stored: list) -> tuple:
    return tuple(tuple(x) if isinstance(x, list) else x for x in stored)


class _Features:
    """Each question's parsed title, weak flag, answer forms and blocks, worked out when first
    asked for (a replayed build asks for few of the old questions')."""

    def __init__(self, rows: Mapping[int, dict], common: set[str], titles: Callable[[int], _Title]):
        self.rows, self.common, self._titles = rows, common, titles
        self._weak: dict[int, bool] = {}
        self._forms: dict[int, set[str]] = {}
        self._title: dict[int, _Title] = {}

    def title(self, i: int) -> _Title:
        if i not in self._title:
            self._title[i] = self._titles(i)
        return self._title[i]

    def weak(self, i: int) -> bool:
        if i not in self._weak:
            self._weak[i] = _weak(self.rows[i])
        return self._weak[i]

    def forms(self, i: int) -> set[str]:
        if i not in self._forms:
            self._forms[i] = _forms(self.rows[i])
        return self._forms[i]

    def blocks(self, i: int) -> set[tuple]:
        return _blocks(self.rows[i], self.title(i), self.weak(i), self.common)


def _common_words(df: pl.DataFrame) -> set[str]:
    """Answer words held by more than ``COMMON_ANSWER_WORD`` questions' answers: they block
    nothing. Only the words a block can be made of (see _blocks) count: "yes" growing common
    changes nothing. Counted per distinct answer (answers repeat)."""
    counts: Counter = Counter()
    for answer, n in df.group_by("answer").len().iter_rows():
        for w in set(normalise(answer).split()):
            counts[w] += n
    return {w for w, n in counts.items() if n > COMMON_ANSWER_WORD and len(w) >= 5 and w.isalpha()}


def _priority_order(df: pl.DataFrame) -> list[int]:
    """Positions of the questions in priority order: the earliest open date, then resolution
    date (a missing one last), a market question before a news one (another kind last), then
    the smaller id."""
    far = date.max
    return (df.select(pl.col("open_date").fill_null(far), pl.col("resolution_date").fill_null(far),
                      pl.col("source_kind").replace_strict(_KIND_RANK, default=2, return_dtype=pl.Int8),
                      "question_id")
            .with_row_index("_at").sort("open_date", "resolution_date", "source_kind", "question_id")
            ["_at"].to_list())


_KEPT, _MERGED = "kept", "merged"  # a question's memo entry: its blocks, or the question it joined


@dataclass
class _Replay:
    """What a build replays of the last one's grouping: the positions it grouped (``stored``:
    position -> _KEPT or _MERGED, all of them ahead of the new questions in priority order) and
    the entries it needs of them: every merged one, and the kept ones a new question may be
    compared with (resolving within ``max_days_apart`` of one, or undated)."""

    stored: dict[int, str]
    entries: dict[int, dict]


def _replay(memo: RowMemo, step: str, keys: list[int], order: list[int], common: set[str],
            dues: list, config: QuestionDedupConfig) -> _Replay | None:
    """The last build's grouping, when this build's questions are those and new ones that all
    come after them in priority order, with the same common answer words: the greedy pass over
    them then goes exactly as it went, and only the new ones need comparing. None otherwise (a
    full pass)."""
    state = memo.get(f"{step}:state", 0)
    if not state or state["common"] != sorted(common) or len(set(keys)) != len(keys):
        return None
    in_order = [keys[i] for i in order]
    kinds = [_KEPT if kept else _MERGED if merged else None for kept, merged in
             zip(memo.has_all(f"{step}:{_KEPT}", in_order), memo.has_all(f"{step}:{_MERGED}", in_order))]
    n_old = next((r for r, kind in enumerate(kinds) if kind is None), len(kinds))
    if n_old != state["rows"] or any(kind is not None for kind in kinds[n_old:]):
        return None
    stored = {order[r]: kinds[r] for r in range(n_old)}
    entries = {i: memo.get(f"{step}:{_MERGED}", keys[i]) for i, kind in stored.items() if kind == _MERGED}
    present = set(keys)
    if any(e["into"] not in present for e in entries.values()):
        return None
    new_dues = [dues[i] for i in order[n_old:]]
    if any(d is None for d in new_dues):
        near = None  # an undated new question may meet any kept one
    else:
        near = (min(new_dues, default=date.max).toordinal() - config.max_days_apart,
                max(new_dues, default=date.min).toordinal() + config.max_days_apart)
    for i, kind in stored.items():
        if kind == _KEPT and (near is None or dues[i] is None or near[0] <= dues[i].toordinal() <= near[1]):
            entries[i] = memo.get(f"{step}:{_KEPT}", keys[i])
    return _Replay(stored, entries)


def merge_duplicates(questions: pl.DataFrame, config: QuestionDedupConfig = QuestionDedupConfig(),
                     stage: str = "dedup", memo: RowMemo | None = None) -> StepResult:
    """Merge near-duplicate questions (rules in the module doc) into the earliest-opened one.
    ``memo``: the last build's grouping and parsed titles (``_replay``: a nightly build
    compares only its new questions, and reads as rows only those, the questions they may meet
    and the merged ones)."""
    df = _frame(questions)
    order = _priority_order(df)
    rank = [0] * len(order)
    for r, i in enumerate(order):
        rank[i] = r
    common = _common_words(df)
    step = "dedup2:" + json.dumps(asdict(config), sort_keys=True)
    keys = row_keys(df, list(QUESTIONS)) if memo is not None else []
    replay = (_replay(memo, step, keys, order, common, df["resolution_date"].to_list(), config)
              if memo is not None else None)
    position = {k: i for i, k in enumerate(keys)}
    aliased = set(df.select(pl.arg_where(pl.col("answer_aliases").list.len().fill_null(0) > 0)).to_series().to_list())
    if replay is None:
        stored, entries = {}, {}
        rows = dict(enumerate(df.select(READ_COLUMNS).iter_rows(named=True)))  # not the long texts
    else:
        stored, entries = replay.stored, replay.entries
        targets = {position[e["into"]] for e in entries.values() if "into" in e}
        rows = rows_at(df.select(READ_COLUMNS), {i for i in order if i not in stored} | set(entries) | targets | aliased)

    def parse(i: int) -> _Title:
        if memo is None:
            return _title(rows[i]["title"])
        return _title_of(memo.outcomes("dedup_title", [keys_title[i]], lambda _: _title_fields(rows[i]["title"]))[0])

    keys_title = row_keys(df, ["title"]) if memo is not None else []
    features = _Features(rows, common, parse)
    members: dict[tuple, list[int]] = defaultdict(list)  # block -> kept questions so far
    kept_into: dict[int, int] = {}  # merged question -> the kept one
    merged: dict[int, list[int]] = defaultdict(list)
    outcome: dict[int, tuple[str, dict]] = {}  # what the memo keeps of the questions worked out now
    result = StepResult(df)
    for i in order:
        if i in stored:
            entry = entries.get(i)
            if entry is None:
                continue  # kept, and no new question can meet it
            if "into" not in entry:
                for b in entry["blocks"]:
                    members[_block_of(b)].append(i)
                continue
            match = (position[entry["into"]], (entry["score"], entry["jaccard"]))
        else:
            blocks = features.blocks(i)
            match = _first_duplicate(i, rows, blocks, members, features, rank, config)
            if match is None:
                for b in blocks:
                    members[b].append(i)
                outcome[i] = (_KEPT, {"blocks": sorted(blocks, key=repr)})
                continue
            k, (score, jaccard) = match
            outcome[i] = (_MERGED, {"into": keys[k] if keys else None, "score": score, "jaccard": jaccard})
        k, (score, jaccard) = match
        kept_into[i] = k
        merged[k].append(i)
        q, p = rows[i], rows[k]
        result.drop(q["question_id"], stage, "duplicate_question", f"kept={p['question_id']}")
        later = ("" if not (q["resolution_date"] and p["resolution_date"]
                            and q["resolution_date"] < p["resolution_date"])
                 else f"; this one resolves earlier ({q['resolution_date']} < {p['resolution_date']})")
        result.evidence.append(Evidence(
            q["question_id"], stage, "merge", "duplicate_question",
            spans=(q["title"] or "", p["title"] or ""), other_question_id=p["question_id"],
            detail=(f"answer {q['answer']!r} ~ {p['answer']!r}; title token_set_ratio {score:.0f}, "
                    f"content Jaccard {jaccard:.2f}; opens {q['open_date']} vs {p['open_date']}, "
                    f"resolves {q['resolution_date']} vs {p['resolution_date']}{later}")))
    if memo is not None:
        for kind in (_KEPT, _MERGED):
            memo.keep_all(f"{step}:{kind}", [keys[i] for i, k in stored.items() if k == kind])
        for i, (kind, entry) in outcome.items():
            memo.put(f"{step}:{kind}", keys[i], entry)
        memo.put(f"{step}:state", 0, {"rows": len(keys), "common": sorted(common)})
        memo.replayed += replay is not None
    if not kept_into:
        return result
    keep_mask = [i not in kept_into for i in range(df.height)]
    # the kept rows' merged source ids and aliases (each list without repeats, no alias equal
    # to the answer); only the rows this changes are built as new values
    changed_at, source_ids, aliases = [], [], []
    for i in sorted(set(merged) | aliased):  # the others have nothing to merge and no alias to clean
        if not keep_mask[i]:
            continue
        q = rows[i]
        others = [rows[j] for j in merged.get(i, [])]
        ids = _union(list(q["source_ids"] or []), *[o["source_ids"] or [] for o in others])
        own = normalise(q["answer"])
        extra = [[o["answer"], *(o.get("answer_aliases") or [])] for o in others]
        alias_list = [a for a in _union(list(q.get("answer_aliases") or []), *extra, key=normalise)
                      if normalise(a) != own]
        if others or ids != list(q["source_ids"] or []) or alias_list != list(q.get("answer_aliases") or []):
            changed_at.append(i)
            source_ids.append(ids)
            aliases.append(alias_list)
    kept = df.with_row_index("_at").filter(pl.Series(keep_mask, dtype=pl.Boolean))
    if changed_at:
        merged_lists = pl.DataFrame({"_at": changed_at, "_ids": source_ids, "_aliases": aliases},
                                    schema={"_at": pl.UInt32, "_ids": df.schema["source_ids"],
                                            "_aliases": df.schema["answer_aliases"]})
        changed = pl.col("_new").is_not_null()
        kept = (kept.join(merged_lists.with_columns(pl.lit(True).alias("_new")), on="_at", how="left",
                          maintain_order="left")
                .with_columns(pl.when(changed).then("_ids").otherwise("source_ids").alias("source_ids"),
                              pl.when(changed).then("_aliases").otherwise("answer_aliases").alias("answer_aliases"))
                .drop("_ids", "_aliases", "_new"))
    result.kept = kept.drop("_at")
    return result
