"""Resolved prediction markets become questions with known options and ground truth.

Binary and multiple-choice markets keep their outcome labels as candidate answers. Numeric and
date markets are bucketed over their stated range (equal steps, or log steps for log-scale
markets; the two end buckets are open) so the answer is one label among a few; a numeric
market without a range or a value is dropped with a reason. Open, closed, cancelled and
ambiguous markets have no single true answer and are dropped, each with its own reason.
What a question shows of its market is the text as of its open date: creator updates appended
later are cut (``pastcast.questions.market_text``). Its title is the one a forecaster reads
(``pastcast.questions.titles``: no platform labels, a probability request asked as the yes/no
question it is), the market's own in ``original_title`` when that differs. A question's answer
is revealed no earlier than it is certain (``pastcast.questions.deadlines``): a state on a named
day, or an event that did not happen by a named deadline, resolves the day after it; a market
that closes before its event (a ForecastBench copy of a Metaculus question) with no deadline
reaching its close is dropped (``resolution_date_unknown``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

import polars as pl

from pastcast.drops import Drop, drops_frame
from pastcast.io import stable_id
from pastcast.questions.deadlines import known_from, named_deadline
from pastcast.questions.categories import category_of, market_source
from pastcast.questions.market_text import as_of
from pastcast.questions.near_certain import NearCertainConfig, near_certain
from pastcast.questions.titles import reader_title
from pastcast.schemas import QUESTIONS, frame

STAGE = "generate"
GENERATOR = "market/v2"
# Markets whose close is when forecasting stops, often before the event: ForecastBench gives a
# Metaculus question's close day as its resolution day ("Will USA top the Olympic Medal Table
# at Paris 2024?" closes the day before the Games). Their answer's day is known only when the
# title names a deadline the close reaches.
CLOSES_BEFORE_EVENT = ("forecastbench:metaculus:",)
UNRESOLVED = {"open": "unresolved", "closed": "unresolved", "cancelled": "cancelled",
              "ambiguous": "ambiguous_resolution"}


@dataclass(frozen=True)
class MarketQuestionConfig:
    horizon_days: int | None = None  # open this long before resolution; None: at creation
    min_window_days: int = 7
    numeric_buckets: int = 5  # 0 drops numeric and date markets instead of bucketing them
    near_certain: NearCertainConfig = NearCertainConfig()  # share None: keep near-certain questions


def _label(value: float, is_date: bool) -> str:
    if is_date:
        return datetime.fromtimestamp(value, tz=timezone.utc).date().isoformat()
    if value == 0:
        return "0"
    digits = 2 - int(math.floor(math.log10(abs(value))))  # three significant digits
    text = f"{round(value, digits):,.{max(digits, 0)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def numeric_buckets(lo: float, hi: float, n: int, log_scale: bool = False,
                    is_date: bool = False) -> tuple[list[float], list[str]]:
    """(inner edges, labels) of ``n`` buckets over [lo, hi]: "below a", "a to under b", ...,
    "z or more" (dates: "before a", "a to b-1 day", ..., "z or later").

    Edges are rounded to the labels' precision so a label and the edge it is compared with
    never disagree.
    """
    if n < 2 or not hi > lo or (log_scale and lo <= 0):
        raise ValueError(f"cannot bucket the range [{lo}, {hi}] into {n}{' log' if log_scale else ''} buckets")
    if log_scale:
        edges = [lo * (hi / lo) ** (i / n) for i in range(1, n)]
    else:
        edges = [lo + (hi - lo) * i / n for i in range(1, n)]
    labels_at = [_label(e, is_date) for e in edges]
    if len(set(labels_at)) < len(labels_at):
        raise ValueError(f"the range [{lo}, {hi}] is too narrow for {n} distinct buckets")
    if is_date:  # dates compare as whole days
        edges = [datetime.fromisoformat(t).replace(tzinfo=timezone.utc).timestamp() for t in labels_at]
    else:
        edges = [float(t.replace(",", "")) for t in labels_at]
    if is_date:  # whole days, both ends inclusive
        last_days = [(date.fromisoformat(t) - timedelta(days=1)).isoformat() for t in labels_at]
        labels = ([f"before {labels_at[0]}"] + [f"{a} to {b}" for a, b in zip(labels_at, last_days[1:])]
                  + [f"{labels_at[-1]} or later"])
    else:
        labels = ([f"below {labels_at[0]}"] + [f"{a} to under {b}" for a, b in zip(labels_at, labels_at[1:])]
                  + [f"{labels_at[-1]} or more"])
    return edges, labels


def bucket_of(value: float, edges: list[float]) -> int:
    """Index of the bucket holding ``value``: buckets are [edge_i, edge_i+1), ends open."""
    return sum(value >= e for e in edges)


def _options(m: dict, config: MarketQuestionConfig) -> tuple[list[str], str, str] | tuple[None, str, str]:
    """(candidate labels, answer, answer_type), or (None, drop reason, detail)."""
    kind = m["outcome_type"]
    if kind == "binary":
        return list(m["outcomes"]), m["resolution"], "binary"
    if kind == "multiple_choice":
        return list(m["outcomes"]), m["resolution"], "option"
    if config.numeric_buckets < 2:
        return None, "numeric_market", "numeric bucketing is off (numeric_buckets < 2)"
    if m["resolution_value"] is None or m["range_min"] is None or m["range_max"] is None:
        return None, "numeric_without_range", (f"value {m['resolution_value']}, range "
                                               f"[{m['range_min']}, {m['range_max']}]")
    try:
        edges, labels = numeric_buckets(m["range_min"], m["range_max"], config.numeric_buckets,
                                        bool(m["log_scale"]), is_date=kind == "date")
    except ValueError as exc:
        return None, "numeric_without_range", str(exc)
    return labels, labels[bucket_of(m["resolution_value"], edges)], "range"


def _criteria(m: dict, options: list[str]) -> str:
    stated = m["resolution_criteria"] or ""
    if m["outcome_type"] in ("numeric", "date"):
        rule = f"Answer with the range the resolved value falls in: {'; '.join(options)}."
        return f"{stated}\n\n{rule}".strip()
    return stated or f"Resolves to one of: {', '.join(options)}, as the market resolved."


def market_questions(markets: pl.DataFrame, config: MarketQuestionConfig = MarketQuestionConfig(),
                     prices: pl.DataFrame | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Questions from the resolved markets, and a drop for every other market. With the
    markets' ``prices``, questions the price all but settled for most of their window are
    dropped (``near_certain``, ``pastcast.questions.near_certain``)."""
    rows, drops = [], []
    for m in markets.sort("market_id").iter_rows(named=True):
        def drop(reason: str, detail: str = "") -> None:
            drops.append(Drop(m["market_id"], "market", STAGE, reason, f"{m['question']} {detail}".strip()))

        status = m["status"]
        if status != "resolved":
            drop(UNRESOLVED.get(status, "unresolved"), f"(status {status})")
            continue
        options, answer, answer_type = _options(m, config)
        if options is None:
            drop(answer, answer_type)
            continue
        resolution: date = m["resolved_at"].date()
        open_date: date = m["created_at"].date()
        deadline = named_deadline(m["question"], open_date)
        explicit = named_deadline(m["question"], open_date, strict=True)  # "in March 2024" may date another event
        if m["market_id"].startswith(CLOSES_BEFORE_EVENT) and m["close_at"] is not None \
                and resolution <= m["close_at"].date() \
                and not (explicit and explicit[1] <= m["close_at"].date() + timedelta(days=1)):
            drop("resolution_date_unknown",
                 f"(its resolution day {resolution} is the day forecasting closed; the event may come "
                 f"later{f' (the title names {deadline[1]})' if deadline else ', and the title names no deadline'})")
            continue
        if deadline and (known := known_from(*deadline, answer)) and known > resolution:
            resolution = known  # revealed when it is certain: the deadline passed
        if config.horizon_days is not None:
            open_date = max(open_date, resolution - timedelta(days=config.horizon_days))
        if (resolution - open_date).days < config.min_window_days:
            drop("short_window", f"opens {open_date}, resolves {resolution}")
            continue
        # creator updates appended after the open date would show the forecaster later news
        background, _ = as_of(m["background"], open_date)
        stated, _ = as_of(m["resolution_criteria"], open_date)
        # the title without the platform's labels; the market keeps its question as written
        read = reader_title(m["question"], answer_type)
        rows.append({
            "question_id": stable_id(m["market_id"]),
            "title": read.title,
            "original_title": m["question"] if read.changed else None,
            "background": background,
            "resolution_criteria": _criteria({**m, "resolution_criteria": stated}, options),
            "answer": answer,
            "answer_aliases": [],
            "answer_type": answer_type,
            "candidate_outcomes": options,
            "open_date": open_date,
            "resolution_date": resolution,
            "original_resolution_date": resolution,
            "revision_evidence": [],
            "source_kind": "market",
            "source_ids": [m["market_id"]],
            "generator": GENERATOR,
            "category": category_of(m["question"], tags=m.get("tags"), source=market_source(m["market_id"])),
        })
    questions = frame(rows, QUESTIONS)
    if prices is not None:
        settled = near_certain(questions, prices, config.near_certain)
        market_of = dict(zip(questions["question_id"], questions["source_ids"].list.first()))
        title_of = dict(zip(questions["question_id"], questions["title"]))
        drops += [Drop(market_of[qid], "market", STAGE, "near_certain", f"{title_of[qid]} ({why})")
                  for qid, why in sorted(settled.items())]
        questions = questions.filter(~pl.col("question_id").is_in(list(settled)))
    return questions, drops_frame(drops)


def market_question_problems(questions: pl.DataFrame, markets: pl.DataFrame) -> list[str]:
    """What breaks the time rules between market questions and their markets (a snapshot
    check): each must come from a resolved market, open no earlier than the market's creation
    day, reveal its answer no earlier than the market's resolution day (unless the filter moved
    it earlier on the evidence of articles that reported the outcome first), and answer with
    one of its candidates."""
    by_id = {m["market_id"]: m for m in markets.iter_rows(named=True)}
    problems = []
    for q in questions.filter(pl.col("source_kind") == "market").iter_rows(named=True):
        m = by_id.get((q["source_ids"] or [None])[0])
        qid = q["question_id"]
        if m is None:
            problems.append(f"{qid}: its market {q['source_ids']} is not in the snapshot")
        elif m["status"] != "resolved" or m["resolved_at"] is None:
            problems.append(f"{qid}: market {m['market_id']} is {m['status']}, not resolved")
        elif (q["original_resolution_date"] or q["resolution_date"]) < m["resolved_at"].date():
            # an earlier date is fine only as a revision backed by articles (checked apart)
            problems.append(f"{qid}: answer revealed {q['original_resolution_date'] or q['resolution_date']}, "
                            f"before the market resolved on {m['resolved_at'].date()}")
        elif q["resolution_date"] < m["resolved_at"].date() and not q["revision_evidence"]:
            problems.append(f"{qid}: resolves {q['resolution_date']}, before the market resolved on "
                            f"{m['resolved_at'].date()}, with no evidence")
        elif q["open_date"] < m["created_at"].date():
            problems.append(f"{qid}: opens {q['open_date']}, before the market existed ({m['created_at'].date()})")
        elif q["answer"] not in (q["candidate_outcomes"] or []):
            problems.append(f"{qid}: answer {q['answer']!r} is not one of its candidates")
    return problems
