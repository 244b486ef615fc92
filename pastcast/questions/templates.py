"""Market and dataset questions worth forecasting: no template whose answer is fixed, no series
asked at every horizon, no template flooding the set.

Dataset-built sets write one template over hundreds of series ("Will X's market close price
on D be higher than on D0?", "will a vaccine have been developed for X by D?") and ask each
series at several horizons. Three steps, in order, over market-sourced questions only
(``source_kind`` market: prediction markets and data series; masking names would merge
distinct news questions, "Who will win the Super Bowl?" and "... the World Cup?"):

1. ``fixed_answer_families``: a question whose template family (by structure,
   ``pastcast.text.families.template_families``: whatever the wording of the part that varies)
   had at least ``base_rate_min_resolved`` members resolved by the day it opens, one answer at
   least ``max_base_rate`` of the time, is dropped (``fixed_answer_family``, naming the family
   and its answer share): the template answers it. A family's first round, with nothing to
   count yet, is judged by the family's other rounds (other days, other series). Never from the
   question's own answer, its series' or its round's (keeping only the surprises, or only the
   rest, would bias the benchmark).
2. ``cap_series_horizons``: one data series (a market id without its round and horizon dates,
   ``forecastbench:fred:SP500`` of ``forecastbench:fred:SP500:2024-07-21:2024-08-20``) is kept
   at most ``max_horizons`` times, whichever question set asked it, its horizons spread (the
   shortest and the longest for 2) rather than the first few (``series_horizon_cap``).
3. ``cap_families``: at most ``max_share`` of the kept questions from one family (never fewer
   than ``min_per_family``, so a small snapshot keeps its few look-alike questions), the kept
   ones chosen by a stable hash of their id (the same choice on every run, spread over the
   family); the rest are ``template_family_cap`` drops.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass

import polars as pl

from pastcast.questions.steps import StepResult
from pastcast.text.families import template_families
from pastcast.text.families import template_family  # noqa: F401  (re-exported: the families' per-title mask)
from pastcast.schemas import QUESTIONS, frame

STAGE = "template_cap"
# a round's and a horizon's dates at the end of a market id: the series is what comes before
_ROUND_DATES = re.compile(r"(?::\d{4}-\d{2}-\d{2})+$")


@dataclass(frozen=True)
class TemplateCapConfig:
    max_share: float | None = 0.1  # of the kept questions, per family; None: no cap
    min_per_family: int = 10
    # a family whose questions resolved before this one opens gave one answer this often
    # answers it (fixed_answer_family); None: no such drop. Chosen on the tuning half of the
    # real ForecastBench sources (bench/template_families.py)
    max_base_rate: float | None = 0.95
    base_rate_min_resolved: int = 10  # resolved members needed before a share counts
    # a family's first round (too few resolved by its open date): judged by its other rounds
    # (other days, other series), of at least this many; judged_at_open_only keeps first rounds
    first_round_min_members: int = 10
    judged_at_open_only: bool = False
    max_horizons: int | None = 2  # questions per data series; None: every horizon kept


def _market(questions: pl.DataFrame) -> pl.DataFrame:
    """The market questions (news questions are never grouped)."""
    return questions.filter(pl.col("source_kind") == "market")


def families_of(questions: pl.DataFrame) -> dict[str, str]:
    """question_id -> template family, over the market questions of ``questions``."""
    market = _market(questions)
    return dict(zip(market["question_id"].to_list(), template_families(market["title"].to_list())))


def _share(answers: Counter) -> tuple[str, int, int]:
    """(the commonest answer, how often, of how many)."""
    answer, n = max(answers.items(), key=lambda an: (an[1], str(an[0])))
    return answer, n, sum(answers.values())


def fixed_answer_families(questions: pl.DataFrame, config: TemplateCapConfig = TemplateCapConfig(),
                          families: dict[str, str] | None = None) -> StepResult:
    """Drop a market or dataset question whose template fixes its answer (``fixed_answer_family``).

    Judged from what a forecaster could count: the family's questions resolved by the day it
    opens, one answer at least ``max_base_rate`` of the time over at least
    ``base_rate_min_resolved`` of them. A family's first round has nothing to count yet; unless
    ``judged_at_open_only``, it is judged by the family's other rounds (questions opened on
    another day, of other series: at least ``first_round_min_members``, resolved), later ones
    included. Neither the question's own answer nor its series' nor its round's ever counts, so
    whether a question stays never depends on how it came out."""
    if config.max_base_rate is None or questions.is_empty():
        return StepResult(questions)
    families = families if families is not None else families_of(questions)
    rows = [{**q, "series": series_of(q["source_id"]) or q["source_id"] or q["question_id"]}
            for q in _market(questions).select("question_id", "answer", "open_date", "resolution_date",
                                               pl.col("source_ids").list.first().alias("source_id"))
            .iter_rows(named=True)]
    resolved: dict[str, list[dict]] = defaultdict(list)
    for q in rows:
        if q["resolution_date"] is not None and q["answer"] is not None:
            resolved[families[q["question_id"]]].append(q)
    result = StepResult(frame([], QUESTIONS))
    dropped = set()
    for q in rows:
        family = families[q["question_id"]]
        if q["open_date"] is None:
            continue
        earlier = Counter(m["answer"] for m in resolved[family] if m["resolution_date"] <= q["open_date"])
        other_rounds = Counter(m["answer"] for m in resolved[family]
                               if m["open_date"] != q["open_date"] and m["series"] != q["series"])
        if sum(earlier.values()) >= config.base_rate_min_resolved:
            answer, n, total = _share(earlier)
            why = f"{n} of the {total} questions of the family {family!r} resolved by {q['open_date']} were {answer!r}"
        elif not config.judged_at_open_only and sum(other_rounds.values()) >= config.first_round_min_members:
            answer, n, total = _share(other_rounds)
            why = (f"a first round (fewer than {config.base_rate_min_resolved} resolved by {q['open_date']}): "
                   f"{n} of the {total} questions of the family {family!r} opened on other days, of other "
                   f"series, were {answer!r}")
        else:
            continue
        if n / total >= config.max_base_rate:
            dropped.add(q["question_id"])
            result.drop(q["question_id"], STAGE, "fixed_answer_family", f"{why} ({n / total:.0%})")
    result.kept = questions.filter(~pl.col("question_id").is_in(list(dropped)))
    return result


def series_of(source_id: str | None) -> str | None:
    """The data series a market id asks about: the id without its round and horizon dates;
    None when the id carries no such dates (a market is its own series)."""
    if not source_id:
        return None
    series = _ROUND_DATES.sub("", source_id)
    return series if series != source_id else None


def _spread(n: int, k: int) -> list[int]:
    """``k`` indices of ``n`` sorted items, spread from the first to the last."""
    if n <= k:
        return list(range(n))
    if k == 1:
        return [(n - 1) // 2]
    return sorted({round(i * (n - 1) / (k - 1)) for i in range(k)})


def cap_series_horizons(questions: pl.DataFrame, config: TemplateCapConfig = TemplateCapConfig()) -> StepResult:
    """At most ``max_horizons`` questions per data series, horizons spread
    (``series_horizon_cap``)."""
    if config.max_horizons is None or questions.is_empty():
        return StepResult(questions)
    by_series: dict[str, list[dict]] = defaultdict(list)
    for q in _market(questions).select("question_id", "source_ids", "open_date", "resolution_date").iter_rows(named=True):
        series = series_of((q["source_ids"] or [None])[0])
        if series is not None and q["open_date"] is not None and q["resolution_date"] is not None:
            by_series[series].append(q)
    result = StepResult(frame([], QUESTIONS))
    dropped = set()
    for series, members in by_series.items():
        if len(members) <= config.max_horizons:
            continue
        ranked = sorted(members, key=lambda q: ((q["resolution_date"] - q["open_date"]).days, q["open_date"],
                                                q["question_id"]))
        keep = {ranked[i]["question_id"] for i in _spread(len(ranked), config.max_horizons)}
        horizons = ", ".join(f"{(q['resolution_date'] - q['open_date']).days}" for q in ranked)
        kept = ", ".join(f"{(q['resolution_date'] - q['open_date']).days}" for q in ranked if q["question_id"] in keep)
        for q in ranked:
            if q["question_id"] not in keep:
                dropped.add(q["question_id"])
                result.drop(q["question_id"], STAGE, "series_horizon_cap",
                            f"the series {series} is asked {len(ranked)} times (horizons {horizons} days); "
                            f"at most {config.max_horizons} kept, spread: {kept} days")
    result.kept = questions.filter(~pl.col("question_id").is_in(list(dropped)))
    return result


def _order(question_id: str) -> str:
    return hashlib.sha256(question_id.encode()).hexdigest()


def family_cap(sizes: list[int], max_share: float, min_per_family: int) -> int:
    """The largest per-family cap under which every family is at most ``max_share`` of what is
    kept (or ``min_per_family``, whichever is more)."""
    cap = max(sizes, default=0)
    while cap > min_per_family:
        kept = sum(min(s, cap) for s in sizes)
        if cap <= max_share * kept:
            break
        cap = max(min_per_family, math.floor(max_share * kept))
        if sum(min(s, cap) for s in sizes) == kept:
            break
    return cap


def cap_families(questions: pl.DataFrame, config: TemplateCapConfig = TemplateCapConfig(),
                 families: dict[str, str] | None = None) -> StepResult:
    if config.max_share is None or questions.is_empty():
        return StepResult(questions)
    family_of = families if families is not None else families_of(questions)
    members_of: dict[str, list[dict]] = defaultdict(list)
    for q in _market(questions).select("question_id").iter_rows(named=True):  # news: never grouped (module doc)
        members_of[family_of[q["question_id"]]].append(q)
    kept_ids = set(questions.filter(pl.col("source_kind").fill_null("") != "market")["question_id"].to_list())
    cap = family_cap([len(m) for m in members_of.values()], config.max_share, config.min_per_family)
    result = StepResult(frame([], QUESTIONS))
    for family, members in members_of.items():
        ranked = sorted(members, key=lambda q: _order(q["question_id"]))
        kept_ids.update(q["question_id"] for q in ranked[:cap])
        for q in ranked[cap:]:
            result.drop(q["question_id"], STAGE, "template_family_cap",
                        f"{len(members)} questions of the template {family!r}, at most {cap} kept")
    result.kept = questions.filter(pl.col("question_id").is_in(list(kept_ids)))
    return result


def template_steps(questions: pl.DataFrame, config: TemplateCapConfig = TemplateCapConfig()) -> StepResult:
    """The filter's template stage: ``fixed_answer_families``, ``cap_series_horizons``, then
    ``cap_families``; families are found once, over every market question reaching the stage."""
    families = families_of(questions)
    answered = fixed_answer_families(questions, config, families)
    spread = cap_series_horizons(answered.kept, config)
    capped = cap_families(spread.kept, config, families)
    steps = (answered, spread, capped)
    result = StepResult(capped.kept, [d for s in steps for d in s.drops], [e for s in steps for e in s.evidence])
    # what the stage does not judge, said (the audit counts it): news and imported questions are
    # written one by one, never from a template; with every check off, nothing is judged
    off = config.max_share is None and config.max_base_rate is None and config.max_horizons is None
    judged = pl.lit(False) if off else pl.col("source_kind").fill_null("") == "market"
    result.skipped = dict.fromkeys(questions.filter(~judged)["question_id"].to_list(),
                                   "template_checks_off" if off else "not_a_market_question")
    return result
