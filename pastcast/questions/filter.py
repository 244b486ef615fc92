"""The question filter: candidate questions in, benchmark questions out, every decision explained.

Steps, in order (each a function over the questions, returning kept rows, drops and evidence):
1. ``validate``: structural rules (required fields, short answer of an allowed type, the
   snapshot window, the minimum horizon, a question about the future).
2. ``self_leak``: the answer or an alias (normalised, abbreviated, surname, fuzzy) in the
   question's own title, background or resolution criteria; for a yes/no question, its outcome
   (the event, or its calling off) reported there.
2b. ``temporal_leak``: a distinctive phrase of the question's text first reported in the
   date-gated corpus after the question opens: the open date moves to that report, or the
   question is dropped (``pastcast.questions.temporal``).
3. ``dedup``: the same event asked twice (across days or sources) merged, the earliest open
   date kept.
4. ``revision``: articles published before the resolution date that already report the
   answer (date-gated search, a lexical rule, optionally confirmed by an LLM judge) move the
   resolution date to the earliest of them, or drop the question when too little forecasting
   window is left.
5. ``cross_leak``: the answer of a question in the visible text of another question open at
   the same time; the fewest questions that clear every pair are dropped.
6. ``difficulty`` (optional, LLM, off by default): too easy from the news before the question
   opens; not answerable even with the news up to its resolution.

``write_filter_run`` writes ``questions.parquet``, ``drops.parquet`` (question_id, stage,
reason, detail), ``evidence.parquet`` and ``audit.md``.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import polars as pl

from pastcast.drops import Drop, drops_frame
from pastcast.search.index import ArticleIndex
from pastcast.io import sha256_file, write_json, write_parquet, write_text
from pastcast.questions.difficulty import DifficultyConfig, difficulty_filter
from pastcast.questions.coverage import step_coverage
from pastcast.questions.leakage import cross_leaks, find_pairs, self_leaks
from pastcast.questions.question_dedup import QuestionDedupConfig, merge_duplicates
from pastcast.questions.revision import RevisionConfig, revise_resolution_dates
from pastcast.questions.revision.memo import RevisionMemo
from pastcast.questions.temporal import TemporalConfig, TemporalMemo, temporal_leaks
from pastcast.questions.revision.step import ON_ITS_DAY, revision_status
from pastcast.questions.row_memo import RowMemo, outcomes_of, row_reader
from pastcast.questions.steps import Evidence, StepResult, drop_records, evidence_frame, evidence_records
from pastcast.questions.quality import quality_flags
from pastcast.questions.templates import TemplateCapConfig, template_steps
from pastcast.questions.validate import ValidateConfig, validate
from pastcast.schemas import QUESTIONS, complete

FILTER_DROPS = {"question_id": pl.String, "stage": pl.String, "reason": pl.String, "detail": pl.String}


@dataclass(frozen=True)
class FilterConfig:
    validate: ValidateConfig = ValidateConfig()
    dedup: QuestionDedupConfig = QuestionDedupConfig()
    revision: RevisionConfig = RevisionConfig()
    difficulty: DifficultyConfig = DifficultyConfig()
    templates: TemplateCapConfig = TemplateCapConfig()
    temporal: TemporalConfig = TemporalConfig()
    quality_llm: bool = False  # the quality audit's optional LLM pass (flags, never drops)


@dataclass
class FilterRun:
    questions: pl.DataFrame
    drop_table: pl.DataFrame  # every drop (the DROPS schema), in step order
    evidence_table: pl.DataFrame  # every evidence record (QUESTION_EVIDENCE), in step order
    stages: list[dict]  # {"stage", "in", "out", "dropped", "revised"}
    decided_by: str  # what decided the revision evidence: the lexical rule or an LLM judge
    candidates: pl.DataFrame  # the input, for the audit report's question texts
    config: dict = field(default_factory=dict)
    quality: pl.DataFrame | None = None  # flags on the kept questions (pastcast.questions.quality)
    # per step: what it examined and skipped, by question kind and source (pastcast.questions.coverage)
    coverage: dict = field(default_factory=dict)

    def quality_frame(self) -> pl.DataFrame:
        if self.quality is None:
            self.quality = quality_flags(self.questions)
        return self.quality

    def drops_frame(self) -> pl.DataFrame:
        return self.drop_table

    def evidence_frame(self) -> pl.DataFrame:
        return self.evidence_table

    @functools.cached_property
    def drops(self) -> list[Drop]:
        """Every drop as a record (read from the table: a nightly build never needs them all)."""
        return drop_records(self.drop_table)

    @functools.cached_property
    def evidence(self) -> list[Evidence]:
        """Every evidence record as a record (read from the table)."""
        return evidence_records(self.evidence_table)


Step = Callable[[pl.DataFrame], StepResult]


def filter_questions(candidates: pl.DataFrame, articles: pl.DataFrame | pl.LazyFrame, config: FilterConfig = FilterConfig(),
                     *, index: ArticleIndex | None = None, judge=None, llm_settings=None,
                     memo: RevisionMemo | None = None, row_memo: RowMemo | None = None,
                   temporal_memo: TemporalMemo | None = None) -> FilterRun:
    """Run every step over ``candidates``; ``articles`` (may be lazy) is the corpus searched for
    early reports (its date-gated index is built in a temporary folder unless ``index`` is given).
    ``judge`` confirms revision evidence (None: the lexical rule decides); ``llm_settings`` is
    needed only when a difficulty filter or the quality audit's LLM pass is on. ``memo``: the
    revision work of the build before (``pastcast.questions.revision.memo``); ``row_memo``: the
    outcomes of its row-local rules, validation and self leaks, and the titles dedup parsed
    (``pastcast.questions.row_memo``); ``temporal_memo``: the temporal-leak step's outcomes and
    first appearances (``pastcast.questions.temporal.memo``)."""
    if config.difficulty.enabled and llm_settings is None:
        raise ValueError("the difficulty filters need an LLM: pass a model (--difficulty-model)")
    if config.quality_llm and llm_settings is None:
        raise ValueError("the quality audit's LLM pass needs an LLM: pass a model (--model)")
    questions = complete(candidates, QUESTIONS)
    tmp = None
    try:
        if index is None:
            tmp = Path(tempfile.mkdtemp(prefix="pastcast-filter-index-"))
            index = ArticleIndex.build(articles, tmp / "index")
        revision_box: dict = {}

        def revise(qs: pl.DataFrame) -> StepResult:
            outcome = revise_resolution_dates(qs, index, articles, config.revision, judge, memo)
            if isinstance(outcome, tuple):  # (StepResult, decided_by)
                outcome, revision_box["decided_by"] = outcome
            else:
                revision_box["decided_by"] = getattr(outcome, "decided_by", None)
            # what the step could not search, worked out for every row (the memo's rows too)
            statuses = revision_statuses(qs, config.revision, row_memo)
            outcome.skipped = {qid: s for qid, s in statuses.items() if s != ON_ITS_DAY}
            revision_box["on_their_day"] = sum(s == ON_ITS_DAY for s in statuses.values())
            return outcome

        steps: list[tuple[str, Step]] = [
            ("validate", lambda qs: validate(qs, config.validate, row_memo)),
            ("self_leak", lambda qs: self_leaks(qs, memo=row_memo)),
            # before dedup (which keeps the earliest open date) and the revision (whose window is
            # measured from the open date): an open date set too early is moved first
            ("temporal_leak", lambda qs: temporal_leaks(qs, index, config.temporal, temporal_memo)),
            ("dedup", lambda qs: merge_duplicates(qs, config.dedup, memo=row_memo)),
            ("revision", revise),
            ("cross_leak", lambda qs: cross_leaks(qs, memo=row_memo)),
            ("template_cap", lambda qs: template_steps(qs, config.templates)),
        ]
        if config.difficulty.enabled:
            steps.append(("difficulty", lambda qs: difficulty_filter(qs, index, llm_settings, config.difficulty)))
        drops: list[pl.DataFrame] = []
        evidence: list[pl.DataFrame] = []
        stages = []
        coverage: dict[str, dict] = {}
        for name, step in steps:
            result = step(questions)
            dropped, found = result.drops_frame(), result.evidence_frame()
            coverage[name] = step_coverage(questions, result.skipped)
            stages.append({"stage": name, "in": questions.height, "out": result.kept.height, "dropped": dropped.height,
                           "revised": found.filter(pl.col("action").is_in(["revise", "reopen"])).height})
            drops.append(dropped)
            evidence.append(found)
            questions = complete(result.kept, QUESTIONS)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    decided_by = revision_box.get("decided_by") or ("LLM judge" if judge else "lexical rule")
    quality = quality_flags(questions, row_memo)
    if config.quality_llm:
        from pastcast.questions.quality_llm import llm_quality_flags

        quality = pl.concat([quality, llm_quality_flags(questions, llm_settings)])
    if "revision" in coverage:  # examined without a search: a state on a day, known only then
        coverage["revision"]["on_their_day"] = revision_box.get("on_their_day", 0)
    return FilterRun(questions, pl.concat([drops_frame([]), *drops]), pl.concat([evidence_frame([]), *evidence]),
                     stages, decided_by, complete(candidates, QUESTIONS), {
        "validate": {k: (sorted(v) if isinstance(v, frozenset) else str(v) if v is not None else None)
                     for k, v in asdict(config.validate).items()},
        "dedup": asdict(config.dedup), "revision": asdict(config.revision), "temporal": asdict(config.temporal),
        "difficulty": asdict(config.difficulty), "templates": asdict(config.templates),
        "quality_llm": config.quality_llm}, quality, coverage)


REVISION_STATUS_STEP = "revision_status"  # the row memo's entries: what the revision can search, by row
_STATUS_COLUMNS = ("title", "resolution_criteria", "answer", "answer_aliases", "answer_type", "open_date",
                   "resolution_date")


def revision_statuses(questions: pl.DataFrame, config: RevisionConfig, memo: RowMemo | None = None) -> dict[str, str]:
    """{question id: why the revision step could not search it, or ``ON_ITS_DAY``} for the
    questions it did not search (``revision.step.revision_status``), through ``memo`` by row."""
    row = row_reader(questions.select("question_id", *_STATUS_COLUMNS), memo)

    def status(i: int) -> str | None:
        found = revision_status(row(i), config)
        return found if isinstance(found, str) else None

    found = outcomes_of(memo, f"{REVISION_STATUS_STEP}:{config.min_key_terms}", questions, _STATUS_COLUMNS, status)
    return {qid: s for qid, s in zip(questions["question_id"].to_list(), found) if s}


def write_filter_run(run: FilterRun, out_dir: str | Path, title: str = "Question filter audit") -> dict[str, Path]:
    from pastcast.questions.audit import render_audit

    out_dir = Path(out_dir)
    drops = run.drops_frame().select(pl.col("item_id").alias("question_id"), "stage", "reason", "detail")
    questions = write_parquet(run.questions, out_dir / "questions.parquet")
    return {
        "questions": questions,
        # what `pastcast snapshot create` checks: these questions are the ones this run kept
        "filter": write_json({"questions_sha256": sha256_file(questions), "questions": run.questions.height,
                              "decided_by": run.decided_by, "config": run.config,
                              **coverage_record(run.coverage)}, out_dir / "filter.json"),
        "drops": write_parquet(drops.cast(FILTER_DROPS), out_dir / "drops.parquet"),
        "evidence": write_parquet(run.evidence_frame(), out_dir / "evidence.parquet"),
        "quality": write_parquet(run.quality_frame(), out_dir / "quality.parquet"),
        "audit": write_text(render_audit(run, title), out_dir / "audit.md"),
    }


def coverage_record(coverage: dict) -> dict:
    """``coverage`` (step -> kind -> counts) and ``coverage_by_source`` (step -> source -> counts)
    as ``filter.json`` and the filter stage's report in the manifest hold them."""
    record = {"coverage": {step: c["by_kind"] for step, c in coverage.items()},
              "coverage_by_source": {step: c["by_source"] for step, c in coverage.items()}}
    if "revision" in coverage:
        record["revision_on_their_day"] = coverage["revision"].get("on_their_day", 0)
    return record


def revision_problems(questions: pl.DataFrame, articles: pl.DataFrame | pl.LazyFrame) -> list[str]:
    """Revised resolution dates not backed by stored evidence (a snapshot check): every question
    whose resolution date moved must name evidence articles that exist, the earliest published
    on its new resolution day, before the original date. ``articles`` may be lazy: of it only
    the evidence articles' rows are read."""
    revised = questions.filter(pl.col("original_resolution_date").is_not_null()
                               & pl.col("original_resolution_date").ne_missing(pl.col("resolution_date")))
    if revised.is_empty():
        return []
    wanted = revised.get_column("revision_evidence").explode().drop_nulls().unique()
    published = dict(articles.lazy().filter(pl.col("article_id").is_in(wanted.implode()))
                     .select("article_id", pl.col("published_at").dt.date()).collect().iter_rows())
    problems = []
    for q in revised.iter_rows(named=True):
        original, resolves = q["original_resolution_date"], q["resolution_date"]
        qid, ids = q["question_id"], list(q["revision_evidence"] or [])
        missing = [a for a in ids if a not in published]
        if not ids:
            problems.append(f"{qid}: resolution moved {original} -> {resolves} with no evidence")
        elif missing:
            problems.append(f"{qid}: evidence articles {missing} are not in the snapshot")
        elif min(published[a] for a in ids) != resolves:
            problems.append(f"{qid}: resolves {resolves} but its earliest evidence is from {min(published[a] for a in ids)}")
        elif resolves > original:
            problems.append(f"{qid}: revised to {resolves}, after its original date {original}")
    return problems


def own_text_leaks(questions: pl.DataFrame, changed: set[str] | None = None) -> list[str]:
    """Questions (of ``changed`` when given) whose answer shows in their own text."""
    if changed is not None:
        questions = questions.filter(pl.col("question_id").is_in(list(changed)))
    return [f"{d.item_id}: {d.detail}" for d in self_leaks(questions).drops]


def other_question_leaks(questions: pl.DataFrame, changed: set[str] | None = None) -> list[str]:
    """Pairs of questions open at the same time, one's answer in the other's text (pairs with
    a question of ``changed`` on either side when given)."""
    return [f"{p.leaker}: answer {p.answer!r} in the text of {p.host}" for p in find_pairs(questions, changed)]
