"""The revision step: search the date-gated index for each question's answer reported before
it resolves, then move its resolution date to the earliest report or drop it
(``answer_known_early``)."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import polars as pl

from pastcast.drops import drops_frame
from pastcast.questions.revision.judge import ArticleRef, Judge, JudgeItem, _judge_all, decided_by
from pastcast.questions.revision.event_reports import EventRule
from pastcast.questions.revision.events import YesNoEvent, is_yes_no
from pastcast.questions.revision.lexical import LEXICAL, _Rule, article_sentences
from pastcast.questions.revision.memo import RevisionMemo
from pastcast.questions.steps import (ANSWER_NOT_LOCATABLE, NO_EVENT_IN_TITLE, Evidence, StepResult, by_question,
                                     evidence_frame)
from pastcast.schemas import columns_frame
from pastcast.search.index import ArticleIndex, Hit
from pastcast.search.keywords import keywords

STAGE = "revision"
DROP_REASON = "answer_known_early"


@dataclass(frozen=True)
class RevisionConfig:
    k: int = 50  # hits per search
    min_key_terms: int = 2  # key terms of the title in the evidence sentence (all when fewer)
    min_window_days: int = 7  # forecasting window left after a revision, else drop
    max_rounds: int = 3  # searches per question: the first, then gated before the earliest evidence
    max_evidence: int = 5  # evidence article ids kept per question, earliest first
    judge_scope: str = "outcome"  # with a judge: "outcome" (the rule's positives) or "mention"


@dataclass
class RevisionResult(StepResult):
    """``StepResult`` plus what decided and how much work it took."""

    decided_by: str = LEXICAL
    checked: int = 0  # questions searched (the skipped ones, with why: ``StepResult.skipped``)
    on_their_day: int = 0  # yes/no questions about a state on a day: known only then, not searched
    searches: int = 0
    judged: int = 0  # candidates sent to the judge
    judge_rejected: int = 0
    judge_no_verdict: int = 0  # fell back to the lexical rule


@dataclass
class _Found:
    article_id: str
    published_at: datetime
    title: str
    span: str
    note: str  # how it was decided

    @property
    def day(self) -> date:
        return self.published_at.astimezone(timezone.utc).date()


@dataclass
class _Probe:
    row: dict
    rule: _Rule | EventRule
    query: str
    gate: date  # search as of this day (inclusive)
    excluded: frozenset[str]  # own source articles published on/after the resolution date
    seen: set[str] = field(default_factory=set)
    found: list[_Found] = field(default_factory=list)
    rounds: int = 0
    done: bool = False

    @property
    def earliest(self) -> date | None:
        return min((f.day for f in self.found), default=None)


@dataclass
class _Candidate:
    probe: _Probe
    hit: Hit
    outcome: list[str]  # sentences passing the whole lexical rule
    mention: list[str]  # sentences passing rules 1-3


def _utc(ts: datetime) -> datetime:
    return ts.replace(tzinfo=timezone.utc) if ts.tzinfo is None else ts.astimezone(timezone.utc)


def _candidate(p: _Probe, hit: Hit) -> _Candidate | None:
    if not p.rule.in_text(f"{hit.title}\n{hit.text}"):  # cheap: most hits never name the answer
        return None
    outcome, mention = [], []
    headline = (hit.title or "").strip()
    for s in article_sentences(hit.title, hit.text):
        if p.rule.mentions(s):
            mention.append(s)
            if p.rule.settles(s, headline=bool(headline) and s == headline):
                outcome.append(s)
    return _Candidate(p, hit, outcome, mention) if mention else None


def _source_days(questions: pl.DataFrame, articles: pl.DataFrame | pl.LazyFrame | None) -> dict[str, date]:
    """The publication day of the questions' source articles (``articles`` may be lazy: only
    those rows are read)."""
    ids = {i for ids in questions["source_ids"].to_list() for i in (ids or [])}
    if not ids or articles is None:
        return {}
    part = (articles.lazy().filter(pl.col("article_id").is_in(list(ids)) & pl.col("published_at").is_not_null())
            .select("article_id", "published_at").collect())
    return {a: _utc(t).date() for a, t in part.iter_rows()}


EARLIER_OCCURRENCE_SLACK = timedelta(days=1)  # a report of the day before opening is news the question missed


def _before_its_event(p: _Probe, day: date) -> bool:
    """A yes/no question's event reported before the question opened (beyond a day of slack) is
    an earlier occurrence the question was written knowing about ("Will the Fed raise rates
    again?"), not its outcome; a free-form answer reported then is a leak like any other."""
    opens = p.row.get("open_date")
    return isinstance(p.rule, EventRule) and opens is not None and day < opens - EARLIER_OCCURRENCE_SLACK


def _days(n: int) -> str:
    return f"{n} day" if abs(n) == 1 else f"{n} days"


def _short(s: str, n: int = 300) -> str:
    s = " ".join((s or "").split())
    return s if len(s) <= n else s[: n - 1] + "…"


def revise_resolution_dates(questions: pl.DataFrame, index: ArticleIndex | None,
                            articles: pl.DataFrame | pl.LazyFrame,
                            config: RevisionConfig = RevisionConfig(), judge: Judge | None = None,
                            memo: RevisionMemo | None = None) -> RevisionResult:
    """Move each question's resolution date to the earliest article that already reported its
    answer, or drop it (``answer_known_early``) when too little forecasting window is left.

    ``index`` is the date-gated search index of ``articles`` (built in a temporary folder when
    None). Returns the kept questions (revised ones with ``original_resolution_date`` and
    ``revision_evidence``), the drops, one ``Evidence`` per revision or drop, and
    ``decided_by``. With a ``memo`` (``pastcast.questions.revision.memo``) a question searched
    by the build before is searched only in the articles added since."""
    if config.judge_scope not in ("outcome", "mention"):
        raise ValueError(f"judge_scope must be 'outcome' or 'mention', not {config.judge_scope!r}")
    tmp = None
    try:
        if index is None:
            tmp = Path(tempfile.mkdtemp(prefix="pastcast-revision-index-"))
            index = ArticleIndex.build(articles, tmp / "index")
        if memo is not None:
            return _revise_remembering(questions, index, articles, config, judge, memo)
        return _revise(questions, index, articles, config, judge)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _by_question(result: RevisionResult) -> tuple[dict, dict, dict]:
    """A result's kept rows, drops and evidence by question id."""
    kept = {q["question_id"]: q for q in result.kept.to_dicts()}
    return kept, by_question(result.drops), by_question(result.evidence)


def _revise_remembering(questions: pl.DataFrame, index: ArticleIndex, articles: pl.DataFrame,
                        config: RevisionConfig, judge: Judge | None, memo: RevisionMemo) -> RevisionResult:
    """``_revise`` over the questions the memo does not know; the others keep their outcome,
    searched again only in the articles added since (their parts' own index). The known rows
    stay frames: only the new and the searched-again ones pass through Python."""
    keys = memo.keys(questions)
    entries, added = memo.recall(keys)
    keyed = questions.with_columns(pl.Series("_key", keys, pl.String))
    known_keys = entries.select("_key")
    fresh = keyed.join(known_keys, on="_key", how="anti", maintain_order="left")
    known = keyed.join(entries.select("_key", "_kept", pl.col("resolution_date").alias("_resolves")),
                       on="_key", how="inner", maintain_order="left")
    earliest = memo.earliest_new_day(added) if added else None
    may_find = pl.col("_kept") & pl.col("_resolves").is_not_null() & (pl.col("_resolves") > earliest) \
        if earliest is not None else pl.lit(False)
    again_keys = set(known.filter(may_find)["_key"].to_list())
    if added:
        memo.resolved_before_new += known.filter(pl.col("_kept")).height - len(again_keys)
    standing = entries.filter(~pl.col("_key").is_in(list(again_keys)))

    again = entries.filter(pl.col("_key").is_in(list(again_keys)))
    prior = memo.outcome_rows(again)
    source_days = _source_days(pl.concat([fresh.select("source_ids"), prior.select("source_ids")]), articles)
    result = _revise(fresh.drop("_key"), index, articles, config, judge, source_days)
    kept, drops, evidence = _by_question(result)
    fresh_rows = dict(zip(fresh["question_id"].to_list(), fresh.drop("_key").to_dicts()))
    key_of = dict(zip(keyed["question_id"].to_list(), keys))
    searched_again = set()
    if again_keys:
        drops.update(memo.drops(again))  # records of their own: the new search may add to them
        evidence.update(memo.evidence(again))
        searched = _revise(prior, memo.new_articles_index(list(added)), articles, config, judge, source_days)
        memo.searched_new += prior.height
        result.searches += searched.searches
        now, new_drops, new_evidence = _by_question(searched)
        entered = keyed.filter(pl.col("_key").is_in(list(again_keys))).drop("_key")
        for q in entered.to_dicts():
            qid = q["question_id"]
            searched_again.add(qid)
            fresh_rows[qid] = q  # remembered as it entered the step
            if qid in now:
                kept[qid] = now[qid]
            drops[qid] = [*drops.get(qid, []), *new_drops.get(qid, [])]
            evidence[qid] = [*evidence.get(qid, []), *new_evidence.get(qid, [])]
    memo.reused += entries.height
    for qid, q in fresh_rows.items():  # worked out this build: remembered for the next
        memo.remember(key_of[qid], kept.get(qid, q), qid in kept, evidence.get(qid, []), drops.get(qid, []))
    memo.keep(standing["_key"].to_list())

    # the kept rows in the questions' order: the standing entries' stored outcomes as frames,
    # the rest from the rows worked out now
    order = keyed.select("question_id").with_row_index("_pos")
    worked = [kept[qid] for qid in fresh_rows if qid in kept]
    parts = [memo.outcome_rows(standing.filter(pl.col("_kept"))),
             columns_frame({c: [q.get(c) for q in worked] for c in questions.columns}, questions.schema)]
    result.kept = (pl.concat([p.select([pl.col(c) if c in p.columns else pl.lit(None).alias(c)
                                        for c in questions.columns]).cast(questions.schema) for p in parts])
                   .join(order, on="question_id", how="inner").sort("_pos").drop("_pos"))
    # the drops and evidence in the questions' order: the standing entries' as stored, kept as
    # frames (a year of questions' records is never turned into objects), the rest as worked out
    ids = order["question_id"].to_list()
    result.drops = [d for qid in ids for d in drops.get(qid, [])]
    result.evidence = [e for qid in ids for e in evidence.get(qid, [])]
    result.drop_table = _in_order(pl.concat([drops_frame(result.drops), memo.drops_table(standing)]), "item_id", order)
    result.evidence_table = _in_order(pl.concat([evidence_frame(result.evidence), memo.evidence_table(standing)]),
                                      "question_id", order)
    result.checked += entries.height
    return result


def _in_order(records: pl.DataFrame, column: str, order: pl.DataFrame) -> pl.DataFrame:
    """``records`` sorted by the position of their question (``column``) in ``order``
    (question_id, _pos); a question's own records keep their order."""
    return (records.join(order, left_on=column, right_on="question_id", how="left", maintain_order="left")
            .sort("_pos", maintain_order=True, nulls_last=True).drop("_pos"))


NO_RESOLUTION_DATE = "no_resolution_date"
ON_ITS_DAY = "on_its_day"  # a yes/no question about a state on a day whose answer is Yes: known only then


def revision_status(q: dict, config: RevisionConfig = RevisionConfig()) -> _Rule | EventRule | str:
    """The rule a question is searched with, ``ON_ITS_DAY`` for one nothing can settle before its
    date (examined, not searched: "Will X still be CEO on 31 December?" resolved Yes), or why it
    cannot be searched (a skip reason)."""
    if q.get("resolution_date") is None:
        return NO_RESOLUTION_DATE
    if is_yes_no(q):
        event = YesNoEvent.of(q)
        if event is None:
            return NO_EVENT_IN_TITLE
        return EventRule(event) if event.sought else ON_ITS_DAY
    return _Rule.of(q, config.min_key_terms) or ANSWER_NOT_LOCATABLE


def _revise(questions: pl.DataFrame, index: ArticleIndex, articles: pl.DataFrame | pl.LazyFrame,
            config: RevisionConfig, judge: Judge | None, source_days: dict[str, date] | None = None) -> RevisionResult:
    label = decided_by(judge)
    result = RevisionResult(kept=questions, decided_by=label)
    rows = questions.to_dicts()
    if source_days is None:
        source_days = _source_days(questions, articles)
    probes: list[_Probe] = []
    for q in rows:
        status = revision_status(q, config)
        if status == ON_ITS_DAY:
            result.on_their_day += 1
            continue
        if isinstance(status, str):
            result.skip(q["question_id"], status)
            continue
        rule = status
        query = " ".join([*keywords(q["title"] or ""), *rule.names])
        excluded = frozenset(a for a in (q.get("source_ids") or [])
                             if a in source_days and source_days[a] >= q["resolution_date"])
        probes.append(_Probe(q, rule, query, q["resolution_date"] - timedelta(days=1), excluded))
    result.checked = len(probes)

    for _ in range(max(1, config.max_rounds)):
        active = [p for p in probes if not p.done]
        if not active:
            break
        pending: list[_Candidate] = []
        progress: dict[int, int] = {id(p): len(p.found) for p in active}
        for p in active:
            hits = index.search(p.query, p.gate, config.k, snippets=False)
            p.rounds += 1
            result.searches += 1
            for hit in hits:
                published = _utc(hit.published_at)
                if (hit.article_id in p.seen or hit.article_id in p.excluded
                        or published.date() >= p.row["resolution_date"] or published.date() > p.gate
                        or _before_its_event(p, published.date())):
                    continue
                p.seen.add(hit.article_id)
                c = _candidate(p, hit)
                if c is None:
                    continue
                if judge is None:
                    if c.outcome:
                        p.found.append(_Found(hit.article_id, published, hit.title, c.outcome[0], label))
                elif c.outcome or (config.judge_scope == "mention" and c.mention):
                    pending.append(c)
        if pending:
            items = [JudgeItem(c.probe.row, c.probe.row["answer"], ArticleRef(
                c.hit.article_id, _utc(c.hit.published_at).date(), c.hit.title), (c.outcome or c.mention)[0])
                for c in pending]
            verdicts = _judge_all(judge, items)
            result.judged += len(items)
            for c, item, (confirmed, reason) in zip(pending, items, verdicts):
                reason = _short(reason or "", 200)
                if confirmed is None:
                    result.judge_no_verdict += 1
                    if c.outcome:
                        c.probe.found.append(_Found(item.article.article_id, _utc(c.hit.published_at), c.hit.title,
                                                    item.span, f"{label} gave no verdict ({reason}); "
                                                               f"{LEXICAL} decided"))
                elif confirmed:
                    c.probe.found.append(_Found(item.article.article_id, _utc(c.hit.published_at), c.hit.title,
                                                item.span, f"{label}: {reason}" if reason else label))
                else:
                    result.judge_rejected += 1
        for p in active:
            if len(p.found) == progress[id(p)]:  # nothing new (earlier): done
                p.done = True
                continue
            earliest = p.earliest
            if p.row.get("open_date") and (earliest - p.row["open_date"]).days < config.min_window_days:
                p.done = True  # dropped whatever earlier evidence there is
                continue
            p.gate = earliest - timedelta(days=1)

    changes: dict[str, dict | None] = {}  # question_id -> revised row, or None: dropped
    for p in probes:
        if not p.found:
            continue
        q = p.row
        ev = sorted(p.found, key=lambda f: (f.published_at, f.article_id))[: max(1, config.max_evidence)]
        first = ev[0]
        new_day = first.day
        old_day = q["resolution_date"]
        window = (new_day - q["open_date"]).days if q.get("open_date") else None
        rounds = f"{p.rounds} search round{'s' if p.rounds != 1 else ''}"
        evidence = dict(question_id=q["question_id"], stage=STAGE, article_ids=tuple(f.article_id for f in ev),
                        dates=tuple(f.day.isoformat() for f in ev), spans=tuple(_short(f.span, 500) for f in ev))
        what = (f"answer {q['answer']!r}" if not isinstance(p.rule, EventRule) else
                f"outcome {q['answer']!r} ({p.rule.event.sought} of a yes/no question)")
        where = (f"{what} reported by article {first.article_id} on {new_day.isoformat()}: "
                 f"\"{_short(first.span)}\"")
        if window is not None and window < config.min_window_days:
            detail = (f"{where}; {_days(window)} of forecasting window left (open {q['open_date']}, "
                      f"resolution {old_day}), minimum {config.min_window_days}")
            result.drop(q["question_id"], STAGE, DROP_REASON, detail)
            result.evidence.append(Evidence(**evidence, action="drop", reason=DROP_REASON,
                                            detail=f"{detail}; decided by {first.note}; {rounds}"))
            changes[q["question_id"]] = None
            continue
        ids = list(dict.fromkeys([*(f.article_id for f in ev), *(q.get("revision_evidence") or [])]))
        revised = {**q, "resolution_date": new_day,
                   "original_resolution_date": q.get("original_resolution_date") or old_day,
                   "revision_evidence": ids[: max(1, config.max_evidence)]}
        changes[q["question_id"]] = revised
        result.evidence.append(Evidence(
            **evidence, action="revise", reason="resolution_date",
            detail=(f"resolution date {old_day} -> {new_day} ({_days((old_day - new_day).days)} earlier, "
                    f"{_days(window) + ' of window left' if window is not None else 'no open date'}); {where}; "
                    f"decided by {first.note}; {rounds}")))

    if changes:
        out = []
        for q in rows:
            if q["question_id"] in changes:
                if changes[q["question_id"]] is not None:
                    out.append(changes[q["question_id"]])
            else:
                out.append(q)
        result.kept = columns_frame({c: [q.get(c) for q in out] for c in questions.columns}, questions.schema)
    return result
