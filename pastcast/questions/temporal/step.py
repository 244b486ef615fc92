"""The temporal-leak step of the question filter: a question whose text names what was first
reported after it opens is opened later (on that first report, when ``min_window_days`` of
forecasting window remain before it resolves) or dropped (``named_before_reported``).

Every question it sees is examined or skipped with a reason:

- ``no_open_date``: nothing to compare a first appearance with;
- ``no_distinctive_phrase``: its texts name nothing datable (``phrases``);
- ``no_corpus_before_open_date``: the corpus has too few articles of its phrases' scripts in
  the days before it opens to say a phrase was new (a corpus starting after it opens);
- ``phrases_not_in_corpus``: the corpus holds none of its phrases while it is open.

A question is examined when at least one of its phrases could be judged (``rule``): known before
it opens, or first seen after with coverage before. Its own source articles are part of the
corpus: a question written from an article published after it opens, naming that article's
news, is the leak this step is for.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field
from datetime import date

import polars as pl

from pastcast.drops import drops_frame, fields_of
from pastcast.questions.steps import Evidence, StepResult, evidence_frame
from pastcast.questions.temporal.corpus import CorpusView
from pastcast.questions.temporal.memo import OUTCOME_COLUMNS, TemporalMemo, horizon, phrase_rows, phrases_from
from pastcast.questions.temporal.phrases import Phrase, distinctive_phrases
from pastcast.questions.temporal.rule import PhraseCheck, TemporalConfig, check_phrase, coverage_before
from pastcast.schemas import columns_frame
from pastcast.search.index import ArticleIndex, phrase_terms

STAGE = "temporal_leak"
DROP_REASON = "named_before_reported"
TEXT_COLUMNS = ("title", "background", "resolution_criteria", "candidate_outcomes")
SKIP_REASONS = ("no_open_date", "no_distinctive_phrase", "no_corpus_before_open_date", "phrases_not_in_corpus",
                "phrases_not_searchable")


@dataclass
class TemporalResult(StepResult):
    """``StepResult`` plus what the step looked at."""

    examined: int = 0  # questions judged (the others are in ``skipped``, with why)
    reopened: int = 0
    phrases: Counter = field(default_factory=Counter)  # phrase checks by outcome (``rule.OUTCOMES``)
    kinds: Counter = field(default_factory=Counter)  # phrase checks by (kind, outcome)
    searched: int = 0  # phrases searched in the whole index (the others were known from the build before)
    judged: int = 0  # questions judged this build (the others kept their stored outcome)
    checks: dict[str, list[PhraseCheck]] = field(default_factory=dict)  # by question id, for the bench


def phrases_of(q: dict, config: TemporalConfig) -> list[Phrase]:
    """The phrases of question ``q`` the step checks (the kinds ``config`` names)."""
    found = _phrases(q.get("title"), q.get("background"), q.get("resolution_criteria"),
                     tuple(q.get("candidate_outcomes") or ()), config.max_phrases)
    return [p for p in found if p.kind in config.kinds]


@functools.lru_cache(maxsize=1 << 16)
def _phrases(title, background, criteria, outcomes: tuple, max_phrases: int) -> tuple[Phrase, ...]:
    """``distinctive_phrases``, cached: the filter and its checks read the same questions."""
    return tuple(distinctive_phrases(title, background, criteria, outcomes, max_phrases))


def _days(n: int) -> str:
    return f"{n} day" if abs(n) == 1 else f"{n} days"


def judge(q: dict, phrases: list[Phrase], corpus: CorpusView, config: TemporalConfig) -> tuple[str, list[PhraseCheck]]:
    """(verdict, phrase checks) of one question: "kept", "leak", or a skip reason."""
    opens = q.get("open_date")
    if opens is None:
        return "no_open_date", []
    if not phrases:
        return "no_distinctive_phrase", []
    checks = [check_phrase(p, opens, q.get("resolution_date"), corpus, config) for p in phrases]
    outcomes = {c.outcome for c in checks}
    if "new" in outcomes:
        return "leak", checks
    if outcomes & {"known", "weak", "late"}:  # late: first seen after it resolved, no news before
        return "kept", checks
    if "uncovered" in outcomes or coverage_before({p.script for p in phrases}, opens, corpus, config) < config.min_coverage:
        return "no_corpus_before_open_date", checks
    return ("phrases_not_in_corpus" if "absent" in outcomes else "phrases_not_searchable"), checks


def _leak(q: dict, checks: list[PhraseCheck], config: TemporalConfig) -> tuple[date | None, Evidence, str]:
    """(new open date or None: dropped, evidence, drop detail) of a question with new phrases."""
    opens, resolves = q["open_date"], q.get("resolution_date")
    fired = sorted((c for c in checks if c.outcome == "new"), key=lambda c: (c.first.published_at, c.first.article_id))
    latest = fired[-1]  # every phrase must have been reported by the new open date
    new_open = latest.first.day
    stats = "; ".join(c.describe(opens, config) for c in reversed(fired))
    record = dict(question_id=q["question_id"], stage=STAGE, article_ids=tuple(c.first.article_id for c in fired),
                  dates=tuple(c.first.day.isoformat() for c in fired), spans=tuple(c.phrase.text for c in fired))
    window = (resolves - new_open).days if resolves is not None else None
    if window is not None and window < config.min_window_days:
        detail = (f"'{latest.phrase.text}' first reported by {latest.first.article_id} on {new_open.isoformat()}, "
                  f"after the open date {opens.isoformat()}; opened then, {_days(window)} of forecasting window "
                  f"would be left (resolution {resolves.isoformat()}), minimum {config.min_window_days}: {stats}")
        return None, Evidence(**record, action="drop", reason=DROP_REASON, detail=detail), detail
    detail = (f"open date {opens.isoformat()} -> {new_open.isoformat()}: '{latest.phrase.text}' first reported by "
              f"{latest.first.article_id} on {new_open.isoformat()}; {stats}")
    return new_open, Evidence(**record, action="reopen", reason="open_date", detail=detail), ""


@dataclass
class _Outcome:
    verdict: str  # kept, reopen, drop or a skip reason
    checked: list[str]  # "kind:outcome" of each phrase check
    opens: date | None = None  # the new open date of a reopened question
    evidence: Evidence | None = None
    detail: str = ""  # of a drop


def _judge_rows(rows: pl.DataFrame, phrases: list[list[Phrase]], corpus: CorpusView, config: TemporalConfig,
                result: TemporalResult, keep_checks: bool) -> list[_Outcome]:
    """Judge each row (with its phrases), counting into ``result``; the outcome of each."""
    out = []
    for q, found in zip(rows.iter_rows(named=True), phrases):
        verdict, checks = judge(q, found, corpus, config)
        result.phrases.update(c.outcome for c in checks)
        result.kinds.update((c.phrase.kind, c.outcome) for c in checks)
        if keep_checks:
            result.checks[q["question_id"]] = checks
        checked = [f"{c.phrase.kind}:{c.outcome}" for c in checks]
        if verdict != "leak":
            out.append(_Outcome(verdict, checked))
            continue
        new_open, evidence, detail = _leak(q, checks, config)
        out.append(_Outcome("drop" if new_open is None else "reopen", checked, new_open, evidence, detail))
    result.judged += rows.height
    return out


def _finish(result: TemporalResult, questions: pl.DataFrame, ids: list[str], outcomes: list[_Outcome]) -> None:
    """Skips, drops, evidence and kept rows of ``result`` from the outcomes of ``ids``."""
    reopened: dict[str, date] = {}
    dropped: set[str] = set()
    for qid, o in zip(ids, outcomes):
        if o.verdict in SKIP_REASONS:
            result.skip(qid, o.verdict)
            continue
        result.examined += 1
        if o.evidence is not None:
            result.evidence.append(o.evidence)
        if o.verdict == "drop":
            dropped.add(qid)
            result.drop(qid, STAGE, DROP_REASON, o.detail)
        elif o.verdict == "reopen":
            reopened[qid] = o.opens
    result.reopened += len(reopened)
    moved = pl.DataFrame({"question_id": list(reopened), "_opens": list(reopened.values())},
                         schema={"question_id": pl.String, "_opens": pl.Date})
    result.kept = _applied(questions, list(dropped), moved)


def _applied(kept: pl.DataFrame, dropped: list[str], moved: pl.DataFrame) -> pl.DataFrame:
    """``kept`` without the ``dropped`` ids, open dates moved to ``moved``'s (question_id, _opens)."""
    if dropped:
        kept = kept.filter(~pl.col("question_id").is_in(dropped))
    if moved.height:
        kept = (kept.join(moved, on="question_id", how="left", maintain_order="left")
                .with_columns(pl.coalesce("_opens", "open_date").alias("open_date")).drop("_opens"))
    return kept


def temporal_leaks(questions: pl.DataFrame, index: ArticleIndex, config: TemporalConfig = TemporalConfig(),
                   memo: TemporalMemo | None = None, corpus: CorpusView | None = None,
                   keep_checks: bool = False) -> TemporalResult:
    """Open later or drop every question whose title, background or resolution criteria name
    something the date-gated corpus (``index``) first reports after the question opens (see the
    module doc and ``rule``). ``memo``: the outcomes and first appearances of the build before,
    so a nightly build judges only what the new articles can change (``memo`` module).
    ``corpus``: the index's answers to reuse across calls (its ``window_days`` the config's);
    ``keep_checks``: every judged question's phrase checks in the result, for the benchmark."""
    if memo is not None:
        return _remembering(questions, index, config, memo, keep_checks)
    result = TemporalResult(questions)
    corpus = corpus or CorpusView(index, config.window_days)
    rows = questions.select("question_id", *TEXT_COLUMNS, "open_date", "resolution_date")
    phrases = [phrases_of(q, config) for q in rows.iter_rows(named=True)]
    outcomes = _judge_rows(rows, phrases, corpus, config, result, keep_checks)
    result.searched = corpus.searched
    _finish(result, questions, rows["question_id"].to_list(), outcomes)
    return result


def _remembering(questions: pl.DataFrame, index: ArticleIndex, config: TemporalConfig, memo: TemporalMemo,
                 keep_checks: bool) -> TemporalResult:
    """``temporal_leaks`` with a memo: the stored outcome of every unchanged question no new
    article can change stands (read as frames, never as rows), the others are judged from their
    stored phrases and the stored first appearances the new articles cannot have moved."""
    result = TemporalResult(questions)
    keys = memo.keys(questions, config)
    keyed = questions.select("question_id", *TEXT_COLUMNS, "open_date", "resolution_date").with_columns(
        pl.Series("_key", keys, pl.String))
    entries = memo.recall(keys)
    earliest = memo.earliest_new_day()
    stands = pl.lit(True) if earliest is None else (pl.col("horizon").is_not_null() & (pl.col("horizon") < earliest))
    standing = keyed.select("question_id", "_key").join(entries.filter(stands), on="_key", how="inner",
                                                        maintain_order="left")
    work = keyed.join(standing.select("_key"), on="_key", how="anti", maintain_order="left")
    live = entries.join(work.select("_key"), on="_key", how="semi")
    stored = dict(zip(live["_key"].to_list(), live["phrases"].to_list()))
    work_rows = work.drop("_key")
    phrases = [[p for p in phrases_from(stored[k]) if p.kind in config.kinds] if k in stored else phrases_of(q, config)
               for k, q in zip(work["_key"].to_list(), work_rows.iter_rows(named=True))]
    wanted = {t for found in phrases for p in found if (t := phrase_terms(p.text)) is not None}
    corpus = CorpusView(index, config.window_days, memo.first_appearances(wanted), earliest)
    outcomes = _judge_rows(work_rows, phrases, corpus, config, result, keep_checks)
    result.searched = corpus.searched
    memo.rechecked += corpus.rechecked
    memo.learn(corpus.fresh())
    memo.remember(_outcome_frame(work, phrases, outcomes, config))
    memo.keep(standing["_key"].to_list())
    memo.reused += standing.height
    memo.judged += work.height

    _finish(result, questions, work["question_id"].to_list(), outcomes)
    _add_standing(result, standing, questions)  # as frames: a year of stored outcomes is never rows
    return result


def _outcome_frame(work: pl.DataFrame, phrases: list[list[Phrase]], outcomes: list[_Outcome],
                   config: TemporalConfig) -> pl.DataFrame:
    """The memo's rows for the questions judged this build."""
    rows = list(work.select("question_id", "open_date", "resolution_date").iter_rows())
    return columns_frame({
        "_key": work["_key"].to_list(),
        "verdict": [o.verdict for o in outcomes],
        "opens": [o.opens for o in outcomes],
        "phrases": [phrase_rows(p) for p in phrases],
        "outcomes": [o.checked for o in outcomes],
        "horizon": [horizon(resolves, o.verdict, config) for (_, _, resolves), o in zip(rows, outcomes)],
        "evidence": [[_plain(o.evidence)] if o.evidence else [] for o in outcomes],
        "drops": [[{"item_id": qid, "item_kind": "question", "stage": STAGE, "reason": DROP_REASON,
                    "detail": o.detail}] if o.verdict == "drop" else [] for (qid, _, _), o in zip(rows, outcomes)],
    }, OUTCOME_COLUMNS)


def _plain(e: Evidence) -> dict:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in fields_of(e).items()}


def _add_standing(result: TemporalResult, standing: pl.DataFrame, questions: pl.DataFrame) -> None:
    """The stored outcomes of ``standing`` (question_id, _key and ``OUTCOME_COLUMNS``) into ``result``."""
    if standing.is_empty():
        result.drop_table, result.evidence_table = drops_frame(result.drops), evidence_frame(result.evidence)
        return
    skipped = standing.filter(pl.col("verdict").is_in(list(SKIP_REASONS)))
    result.skipped.update(dict(zip(skipped["question_id"].to_list(), skipped["verdict"].to_list())))
    result.examined += standing.height - skipped.height
    counted = standing.select(pl.col("outcomes").explode().drop_nulls().alias("o")).group_by("o").len()
    for kind_outcome, n in counted.iter_rows():
        kind, outcome = kind_outcome.split(":", 1)
        result.phrases[outcome] += n
        result.kinds[(kind, outcome)] += n
    dropped = standing.filter(pl.col("verdict") == "drop")["question_id"].to_list()
    moved = standing.filter(pl.col("verdict") == "reopen").select("question_id", pl.col("opens").alias("_opens"))
    result.reopened += moved.height
    result.kept = _applied(result.kept, dropped, moved)
    order = questions.select("question_id").with_row_index("_pos")
    stored_drops = standing.select(pl.col("drops").explode()).drop_nulls().unnest("drops")
    stored_evidence = standing.select(pl.col("evidence").explode()).drop_nulls().unnest("evidence")
    result.drop_table = _in_order(pl.concat([drops_frame(result.drops), stored_drops.cast(drops_frame([]).schema)]),
                                  "item_id", order)
    result.evidence_table = _in_order(pl.concat([evidence_frame(result.evidence),
                                                 stored_evidence.cast(evidence_frame([]).schema)]), "question_id", order)


def _in_order(records: pl.DataFrame, column: str, order: pl.DataFrame) -> pl.DataFrame:
    return (records.join(order, left_on=column, right_on="question_id", how="left", maintain_order="left")
            .sort("_pos", maintain_order=True, nulls_last=True).drop("_pos"))
