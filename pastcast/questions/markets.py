"""Resolved prediction markets become questions with known options and ground truth."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

import polars as pl

from pastcast.drops import Drop, drops_frame
from pastcast.io import stable_id
from pastcast.questions.extractive import category_of
from pastcast.schemas import QUESTIONS, frame

STAGE = "generate"
GENERATOR = "market/v1"


@dataclass(frozen=True)
class MarketQuestionConfig:
    horizon_days: int | None = None  # open this long before resolution; None: at creation
    min_window_days: int = 7


def market_questions(markets: pl.DataFrame, config: MarketQuestionConfig = MarketQuestionConfig()
                     ) -> tuple[pl.DataFrame, pl.DataFrame]:
    rows, drops = [], []
    for m in markets.iter_rows(named=True):
        def drop(reason: str, detail: str = "") -> None:
            drops.append(Drop(m["market_id"], "market", STAGE, reason, f"{m['question']} {detail}".strip()))

        if m["outcome_type"] == "numeric":
            drop("numeric_market", "numeric markets are not bucketed yet")
            continue
        if m["resolved_at"] is None:
            drop("unresolved")
            continue
        if m["resolution"] is None:
            drop("cancelled_or_ambiguous", "resolved without a single winning outcome")
            continue
        resolution: date = m["resolved_at"].date()
        open_date: date = m["created_at"].date()
        if config.horizon_days is not None:
            open_date = max(open_date, resolution - timedelta(days=config.horizon_days))
        if (resolution - open_date).days < config.min_window_days:
            drop("short_window", f"opens {open_date}, resolves {resolution}")
            continue
        options = ", ".join(m["outcomes"])
        rows.append({
            "question_id": stable_id(m["market_id"]),
            "title": m["question"],
            "background": m["background"] or "",
            "resolution_criteria": (m["resolution_criteria"] or
                                    f"Resolves to one of: {options}, as the market resolved."),
            "answer": m["resolution"],
            "answer_aliases": [],
            "answer_type": "binary" if m["outcome_type"] == "binary" else "option",
            "candidate_outcomes": m["outcomes"],
            "open_date": open_date,
            "resolution_date": resolution,
            "original_resolution_date": resolution,
            "revision_evidence": [],
            "source_kind": "market",
            "source_ids": [m["market_id"]],
            "generator": GENERATOR,
            "category": category_of(m["question"]),
        })
    return frame(rows, QUESTIONS), drops_frame(drops)
