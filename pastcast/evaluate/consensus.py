"""The market's consensus as the replay sees it: for a market question on day D, each
outcome's last price set at or before the end of D (UTC), never a later one.

The same rule as articles: something is visible on D when its time is before midnight after D.
A question is answerable only until the day before it resolves, so a price from the resolution
day itself is never used.
"""

from __future__ import annotations

import bisect
import os
from collections import defaultdict
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path

import polars as pl

from pastcast.evaluate.scoring import MAX_OUTCOMES
from pastcast.schemas import MARKET_PRICES, MARKETS, empty
from pastcast.store import has_table, read_table


def end_of_day(day: date) -> datetime:
    """The first instant after ``day`` (UTC): prices strictly before it are visible on ``day``."""
    return datetime.combine(day + timedelta(days=1), time(), tzinfo=timezone.utc)


class MarketConsensus:
    """Price histories of the markets behind market questions, queried by day."""

    def __init__(self, questions: pl.DataFrame, markets: pl.DataFrame, prices: pl.DataFrame):
        market_of = {q["question_id"]: q["source_ids"][0] for q in questions.iter_rows(named=True)
                     if q.get("source_kind") == "market" and q["source_ids"]}
        wanted = set(market_of.values())
        self._outcome_type = {m["market_id"]: m["outcome_type"] for m in markets.iter_rows(named=True)
                              if m["market_id"] in wanted}
        # market -> outcome -> (times, prices), times ascending
        series: dict[str, dict[str, tuple[list[datetime], list[float]]]] = defaultdict(dict)
        rows = prices.filter(pl.col("market_id").is_in(list(wanted))).sort("market_id", "outcome", "ts")
        for (market_id, outcome), part in rows.group_by(["market_id", "outcome"], maintain_order=True):
            series[market_id][outcome] = (part["ts"].to_list(), part["price"].to_list())
        self._series = dict(series)
        self._market_of = {q: m for q, m in market_of.items() if m in self._series}

    @classmethod
    def from_snapshot(cls, folder: str | os.PathLike, questions: pl.DataFrame) -> MarketConsensus:
        folder = Path(folder)
        if not (has_table(folder, "markets") and has_table(folder, "market_prices")):  # a snapshot without markets
            return cls(questions.clear(), empty(MARKETS), empty(MARKET_PRICES))
        return cls(questions, read_table(folder, "markets"), read_table(folder, "market_prices"))

    def __contains__(self, question_id: str) -> bool:
        return question_id in self._market_of

    def __len__(self) -> int:
        return len(self._market_of)

    def prices(self, question_id: str, day: date) -> dict[str, float]:
        """{outcome: last price before the end of ``day``}; outcomes not yet priced are absent."""
        market_id = self._market_of.get(question_id)
        if market_id is None:
            return {}
        cutoff = end_of_day(day)
        last = {}
        for outcome, (times, values) in self._series[market_id].items():
            i = bisect.bisect_left(times, cutoff)  # times[:i] are strictly before the cutoff
            if i:
                last[outcome] = values[i - 1]
        return last

    def forecast(self, question_id: str, day: date) -> dict[str, float] | None:
        """The consensus as a valid forecast: binary P(Yes) and P(No) = 1 - P(Yes);
        multiple choice the (at most five) highest-priced outcomes, scaled down to sum 1
        when the prices add up to more (overround, or prices set at different times)."""
        last = self.prices(question_id, day)
        if not last:
            return None
        if self._outcome_type.get(self._market_of[question_id]) == "binary":
            if "Yes" not in last:
                return None
            p = min(max(last["Yes"], 0.0), 1.0)
            return {"Yes": p, "No": 1.0 - p}
        top = sorted(last.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_OUTCOMES]
        total = sum(p for _, p in top)
        scale = 1.0 / total if total > 1.0 else 1.0
        return {outcome: p * scale for outcome, p in top}
