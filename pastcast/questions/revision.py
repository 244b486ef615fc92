"""Pre-resolution inference: was the answer public before the question resolved?

A question is worthless as a forecast when its answer was already reported before its
``resolution_date``. For each question this step searches the evaluator's date-gated index
(``pastcast.evaluate.index.ArticleIndex``) as of the day before it resolves, with the title's
key terms plus the answer, and looks in the hits for a sentence that already states the answer
as a settled outcome. When it finds one it searches again, gated before the earliest evidence
day, for still earlier reports (at most ``max_rounds`` searches per question). Then:

- the resolution date moves to the earliest evidence article's publication day (UTC);
  ``original_resolution_date`` keeps the old date, ``revision_evidence`` the evidence ids
  (earliest first);
- or, when less than ``min_window_days`` of forecasting window would be left (new resolution
  date minus open date), the question is dropped with reason ``answer_known_early``.

Every revision and drop carries an ``Evidence`` record (article ids, dates, sentences).

The lexical rule (the default, and what decides without a judge). A hit is evidence when ONE
sentence of it (its headline, or a sentence of a line of its body; link lines such as
"Read more: ..." are not the article's text and are skipped, see ``LINK_LINE``):

1. mentions the answer or an alias (``pastcast.text.contains_phrase``, in any script: case,
   accents and punctuation normalised, every character a word in Chinese, Japanese, Thai;
   "Yes"/"No" answers and names shorter than 2 characters are never
   used, and binary questions are skipped altogether);
2. contains at least ``min_key_terms`` distinct key terms of the question (``key_terms``: the
   title's content words as ``pastcast.evaluate.agents.keywords`` finds them, stemmed like the
   index, minus stop words and the answer's own words), or all of them when there are fewer;
3. is about the question's period: when it names a year (other than in "since 2019", "from
   2019", ...) one of them is a year of the title (or, for a title without a year, a year of
   the question's open..resolution span); when the title names a month and the sentence
   names months, one of them is the title's month. "The rate has stood at 3.50% since
   October" is no answer to a January decision, "X, who won the cup in 2019" none for 2026;
4. reads as a settled outcome: a past-tense (or headline-present) outcome cue, ``OUTCOME``
   below (won, elected, appointed, named, chosen, resigned, ruled, set/held ... at <number>,
   cut/raised ... to <number>, rose, fell, came in at, announced, confirmed, defeated, beat,
   clinched, crowned, ...);
5. and has no hedge or preview cue, ``HEDGE`` below (will, would, could, may, might,
   expected, likely, favourite, poll, candidate(s), shortlist, nominated, hopes, aims, bid to,
   running for, if, whether, not, interim, semi-final, reach the final, runner-up, ...), and
   is not a question. Previews that name the candidates are the common case and never count.

Also never counted: articles published on or after the resolution date (the search gate
excludes them), and the question's own source articles when published on/after it. Articles
published earlier do count, copies included: a syndicated copy out a day before the source is
real evidence.

The optional judge. ``judge`` is any callable ``(question row, answer, ArticleRef, span) ->
(confirmed, reason)`` (``confirmed`` may be None: no verdict), optionally with a
``judge_many(items)`` batch method; ``LLMJudge`` is one built on ``pastcast.llm.LLMClient``
with ``prompts/leak_judge.toml``. With a judge, the lexical rule only proposes candidates
(``RevisionConfig.judge_scope``: "outcome", the rule's positives, the default and cheap; or
"mention", every sentence passing 1-3, for recall at more calls) and only confirmed candidates
count. A candidate the judge gives no verdict on (invalid reply, LLM error, budget spent) falls
back to the lexical rule, so a leak check fails closed; the evidence detail says so.

Which decided is recorded twice: ``RevisionResult.decided_by`` ("lexical rule" or
"LLM judge (<model>)"; ``decided_by(judge)`` computes it up front for a report) and each
``Evidence.detail``.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import polars as pl
from pydantic import BaseModel

from pastcast.evaluate.agents import STOPWORDS, keywords
from pastcast.evaluate.index import ANALYZER, ArticleIndex, Hit
from pastcast.questions.steps import Evidence, StepResult
from pastcast.text import contains_phrase, normalise, phrase_tokens, searchable, sentences

STAGE = "revision"
DROP_REASON = "answer_known_early"
LEXICAL = "lexical rule"


@dataclass(frozen=True)
class RevisionConfig:
    k: int = 50  # hits per search
    min_key_terms: int = 2  # key terms of the title in the evidence sentence (all when fewer)
    min_window_days: int = 7  # forecasting window left after a revision, else drop
    max_rounds: int = 3  # searches per question: the first, then gated before the earliest evidence
    max_evidence: int = 5  # evidence article ids kept per question, earliest first
    judge_scope: str = "outcome"  # with a judge: "outcome" (the rule's positives) or "mention"


# -- the lexical rule ----------------------------------------------------------------------

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

OUTCOME = re.compile(
    r"\b(?:won|wins|beat|beats|defeated|defeats|defeating|ousted|ousts|unseated|"
    r"elected|re-elected|elects|appointed|appoints|named|chosen|chose|chooses|selected|selects|picked|"
    r"crowned|awarded|clinched|secured|declared|resigned|resigns|stepped\s+down|steps\s+down|quit|quits|"
    r"ruled|voted|approved|rejected|announced|confirmed|succeeded|opted\s+for|opts\s+for|settled\s+on|"
    r"claimed\s+(?:the|a|his|her|their|its)\s+(?:\S+\s+){0,3}?"
    r"(?:title|crown|prize|award|trophy|cup|victory|win|seat|medal|gold)|"
    r"took\s+(?:the\s+)?(?:\S+\s+){0,2}?(?:title|crown|prize|award|trophy|cup|gold|victory)|"
    r"(?:set|held|kept|left|fixed|put)\s+(?:\S+\s+){0,5}?(?:unchanged|steady|at\s+\S{0,3}\d)|"
    r"(?:cut|raised|lowered|reduced|increased|lifted|trimmed)\s+(?:\S+\s+){0,5}?to\s+\S{0,3}\d|"
    r"rose|fell|climbed|dropped|declined|grew|slowed|accelerated|eased|jumped|slipped|edged\s+(?:up|down)|"
    r"came\s+in\s+at)\b",
    re.I,
)
HEDGE = re.compile(
    r"\b(?:will|would|could|might|should|shall|can|cannot|won't|wouldn't|couldn't|not|never|"
    r"expects?|expected|expecting|expectations?|likely|unlikely|probably|probable|possible|possibly|"
    r"potential|potentially|perhaps|maybe|"
    r"favou?rites?|favou?red|front-?runners?|contenders?|candidates?|candidacy|challengers?|nominees?|"
    r"nominated|nominations?|shortlist|shortlists|shortlisted|short-listed|finalists?|"
    r"polls?|polled|polling|surveys?|surveyed|odds|bookmakers?|tipped|"
    r"predicts?|predicted|predictions?|forecasts?|forecasted|projected|projections?|"
    r"hopes?|hoped|hoping|aims?|aiming|bids?\s+(?:to|for)|bidding|seeks?|seeking|sought|vie|vies|vying|competing|"
    r"running\s+for|runs?\s+for|to\s+face|faces|facing|if|whether|unless|preview|previews|"
    r"set\s+to|poised|in\s+line\s+to|on\s+course|on\s+track|in\s+the\s+frame|in\s+contention|"
    r"in\s+the\s+running|rumou?rs?|rumou?red|reportedly|understood\s+to|thought\s+to|believed\s+to|"
    r"said\s+to\s+be|plans?\s+to|planned\s+to|intends?\s+to|considering|considered|"
    r"interviews?|interviewed|interim|caretaker|"
    r"acting\s+(?:chief|head|president|director|governor|chair\w*|leader|ceo|manager|coach)|"
    r"denied|denies|runner-?up|semi-?finals?|quarter-?finals?|qualif\w*|"
    r"(?:reach|reached|reaches|reaching)\s+the\s+(?:\S+\s+){0,3}?final|"
    r"(?:into|through\s+to)\s+the\s+(?:\S+\s+){0,3}?final)\b"
    r"|n['’]t\b",
    re.I,
)
_MAY = re.compile(r"\bmay\b")  # lower case only: "May" is usually the month
_MONTHS = ("January February March April May June July August September October November "
           "December").split()
_MONTH = re.compile(r"\b(" + "|".join(_MONTHS) + r")\b")  # capitalised: the month, not "may"
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_SPAN_YEAR = re.compile(r"\b(?:since|from|until|till|through|between|before|after)\s+(?:(?:early|late|mid)-?\s*)?"
                        r"(?:19|20)\d\d\b", re.I)
_BINARY = frozenset({"yes", "no", "true", "false"})


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
        if len(norm) < 2 or norm in _BINARY or n in names:
            continue
        names.append(n)
    if normalise(question.get("answer")) in _BINARY:  # a binary question by its answer word
        return []
    return names


def is_settled(sentence: str) -> bool:
    """An outcome cue and no hedge or preview cue (rules 4 and 5)."""
    s = sentence.strip()
    return (bool(OUTCOME.search(s)) and not HEDGE.search(s) and not _MAY.search(s)
            and not s.endswith("?"))


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
    def of(cls, q: dict, config: RevisionConfig) -> _Rule | None:
        names = answer_names(q)
        if not names:
            return None
        terms = key_terms(q["title"] or "", names)
        years = _years(q["title"] or "") or set(range(q["open_date"].year if q.get("open_date") else
                                                      q["resolution_date"].year, q["resolution_date"].year + 1))
        return cls(tuple(names), tuple(phrase_tokens(n) for n in names), frozenset(terms),
                   min(config.min_key_terms, len(terms)), frozenset(years),
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


# -- the judge -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ArticleRef:
    article_id: str
    day: date  # publication day, UTC
    title: str


class JudgeItem(NamedTuple):
    question: dict  # a QUESTIONS row
    answer: str
    article: ArticleRef
    span: str  # the candidate sentence


Verdict = tuple[bool | None, str]  # (confirmed; None = no verdict, the lexical rule decides), reason


class Judge(Protocol):
    """Confirms or rejects a candidate early report. May also offer
    ``judge_many(items: list[JudgeItem]) -> list[Verdict]`` to judge a batch concurrently, and
    a ``decided_by`` string for reports."""

    def __call__(self, question: dict, answer: str, article: ArticleRef, span: str) -> Verdict: ...


def decided_by(judge: Judge | Callable | None) -> str:
    """What decides which early reports count: "lexical rule", "LLM judge (<model>)", or
    "judge (<name>)" for another callable."""
    if judge is None:
        return LEXICAL
    label = getattr(judge, "decided_by", None)
    if label:
        return str(label)
    name = getattr(judge, "name", None) or getattr(judge, "__name__", None) or type(judge).__name__
    return f"judge ({name})"


def _judge_all(judge: Judge, items: list[JudgeItem]) -> list[Verdict]:
    many = getattr(judge, "judge_many", None)
    if many is not None:
        return list(many(items))
    return [judge(*item) for item in items]


class LeakVerdict(BaseModel):
    reveals: bool
    reason: str = ""


SCHEMAS = {"LeakVerdict": LeakVerdict}


class LLMJudge:
    """An LLM reads each candidate passage (``prompts/leak_judge.toml``): does it, published on
    day D, already state the answer as a settled outcome? Calls are cached, concurrent,
    retried and budgeted by ``pastcast.llm.LLMClient``; a failed call is no verdict."""

    def __init__(self, settings, prompt: str = "leak_judge", prompts_dir: str | Path | None = None,
                 background_chars: int = 800):
        from pastcast.llm import LLMClient, load_prompt

        self.settings = settings
        self.prompt = load_prompt(prompt, prompts_dir)
        self.client = LLMClient(settings, SCHEMAS)
        self.decided_by = f"LLM judge ({settings.model})"
        self.background_chars = background_chars
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def usage(self):
        return self.client.usage

    def ledger_frame(self) -> pl.DataFrame:
        return self.client.ledger_frame()

    def _inputs(self, item: JudgeItem) -> dict[str, Any]:
        q = item.question
        aliases = [a for a in (q.get("answer_aliases") or []) if a != item.answer]
        return {"question": q.get("title") or "", "background": (q.get("background") or "")[: self.background_chars],
                "resolution_criteria": q.get("resolution_criteria") or "", "answer": item.answer,
                "aliases": ", ".join(aliases) or "(none)", "article_date": item.article.day.isoformat(),
                "article_title": item.article.title or "", "passage": item.span}

    async def _one(self, item: JudgeItem) -> Verdict:
        result = await self.client.call(f"{item.question.get('question_id')}:{item.article.article_id}",
                                        self.prompt, self._inputs(item))
        if not result.ok:
            return None, f"{result.reason}: {result.detail}"[:300]
        return bool(result.value.reveals), result.value.reason

    def judge_many(self, items: list[JudgeItem]) -> list[Verdict]:
        if not items:
            return []
        if self._loop is None or self._loop.is_closed():
            # One loop for the judge's life: the client's semaphore stays bound to it.
            self._loop = asyncio.new_event_loop()

        async def run() -> list[Verdict]:
            return await asyncio.gather(*(self._one(i) for i in items))

        return self._loop.run_until_complete(run())

    def __call__(self, question: dict, answer: str, article: ArticleRef, span: str) -> Verdict:
        return self.judge_many([JudgeItem(question, answer, article, span)])[0]

    def close(self) -> None:
        self.client.close()
        loop, self._loop = self._loop, None
        if loop is None or loop.is_closed():
            return
        try:  # as asyncio.run does: cancel what litellm left running (its logging worker)
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()

    def __enter__(self) -> LLMJudge:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# -- the step --------------------------------------------------------------------------------


@dataclass
class RevisionResult(StepResult):
    """``StepResult`` plus what decided and how much work it took."""

    decided_by: str = LEXICAL
    checked: int = 0  # questions searched
    skipped: int = 0  # binary questions, or no answer usable as text
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
    rule: _Rule
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
    for s in article_sentences(hit.title, hit.text):
        if p.rule.mentions(s):
            mention.append(s)
            if is_settled(s):
                outcome.append(s)
    return _Candidate(p, hit, outcome, mention) if mention else None


def _source_days(questions: pl.DataFrame, articles: pl.DataFrame) -> dict[str, date]:
    ids = {i for ids in questions["source_ids"].to_list() for i in (ids or [])}
    if not ids or articles is None or articles.is_empty():
        return {}
    part = articles.filter(pl.col("article_id").is_in(list(ids)) & pl.col("published_at").is_not_null())
    return {a: _utc(t).date() for a, t in part.select("article_id", "published_at").iter_rows()}


def _days(n: int) -> str:
    return f"{n} day" if abs(n) == 1 else f"{n} days"


def _short(s: str, n: int = 300) -> str:
    s = " ".join((s or "").split())
    return s if len(s) <= n else s[: n - 1] + "…"


def revise_resolution_dates(questions: pl.DataFrame, index: ArticleIndex | None, articles: pl.DataFrame,
                            config: RevisionConfig = RevisionConfig(), judge: Judge | None = None
                            ) -> RevisionResult:
    """Move each question's resolution date to the earliest article that already reported its
    answer, or drop it (``answer_known_early``) when too little forecasting window is left.

    ``index`` is the date-gated search index of ``articles`` (built in a temporary folder when
    None). Returns the kept questions (revised ones with ``original_resolution_date`` and
    ``revision_evidence``), the drops, one ``Evidence`` per revision or drop, and
    ``decided_by``."""
    if config.judge_scope not in ("outcome", "mention"):
        raise ValueError(f"judge_scope must be 'outcome' or 'mention', not {config.judge_scope!r}")
    tmp = None
    try:
        if index is None:
            tmp = Path(tempfile.mkdtemp(prefix="pastcast-revision-index-"))
            index = ArticleIndex.build(articles, tmp / "index")
        return _revise(questions, index, articles, config, judge)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _revise(questions: pl.DataFrame, index: ArticleIndex, articles: pl.DataFrame, config: RevisionConfig,
            judge: Judge | None) -> RevisionResult:
    label = decided_by(judge)
    result = RevisionResult(kept=questions, decided_by=label)
    rows = questions.to_dicts()
    source_days = _source_days(questions, articles)
    probes: list[_Probe] = []
    for q in rows:
        if q.get("resolution_date") is None:
            result.skipped += 1
            continue
        rule = _Rule.of(q, config)
        if rule is None:
            result.skipped += 1
            continue
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
                        or published.date() >= p.row["resolution_date"] or published.date() > p.gate):
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
        where = (f"answer {q['answer']!r} reported by article {first.article_id} on {new_day.isoformat()}: "
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
        result.kept = pl.DataFrame(out, schema=questions.schema) if out else questions.clear()
    return result
