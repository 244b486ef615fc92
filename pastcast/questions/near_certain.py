"""Near-certain market questions: the market's own price all but settles them.

A question whose market stood at 0.97 or more (or 0.03 or less) for most of its forecasting
window asks what every forecaster already reads off the price: it separates no one and inflates
everyone's score. The share is measured from prices alone, never from the answer (dropping only
the questions the price got right would keep the surprises and bias the benchmark against
forecasters who follow the market).

A price is visible from the day it was set on (the replay's rule: ``ts`` before the midnight
after that day), and on day D a market's state is each outcome's last visible price. A day is
near-certain when some outcome's price is at least ``high`` or, for a binary market, its Yes
price is at most ``1 - high``. Days before the first price count as uncertain.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date

import polars as pl


@dataclass(frozen=True)
class NearCertainConfig:
    high: float = 0.97  # a price this high (or its complement this low) all but settles it
    share: float | None = 0.5  # of the window's days; None keeps every question


def _changes(prices: pl.DataFrame) -> dict[str, list[tuple[date, str, float]]]:
    """Per market, (day visible from, outcome, price) in time order."""
    out: dict[str, list[tuple[date, str, float]]] = defaultdict(list)
    if prices.is_empty():
        return out
    rows = prices.select("market_id", pl.col("ts").dt.date().alias("day"), "outcome", "price").sort(
        "market_id", "day")
    for market_id, day, outcome, price in rows.iter_rows():
        if price is not None:
            out[market_id].append((day, outcome, price))
    return out


def near_certain_days(changes: list[tuple[date, str, float]], open_date: date, resolution_date: date,
                      binary: bool, high: float) -> int:
    """Days of ``[open_date, resolution_date)`` on which the market's state is near-certain."""
    state: dict[str, float] = {}
    days, i, day = 0, 0, open_date
    while i < len(changes) and changes[i][0] <= day:  # the state at the open
        state[changes[i][1]] = changes[i][2]
        i += 1
    while day < resolution_date:
        until = min(changes[i][0] if i < len(changes) else resolution_date, resolution_date)
        if _certain(state, binary, high):
            days += (until - day).days
        day = until
        while i < len(changes) and changes[i][0] <= day:
            state[changes[i][1]] = changes[i][2]
            i += 1
    return days


def _certain(state: dict[str, float], binary: bool, high: float) -> bool:
    if not state:
        return False
    if binary:
        yes = state.get("Yes")
        return yes is not None and (yes >= high or yes <= 1 - high)
    return max(state.values()) >= high


def near_certain(questions: pl.DataFrame, prices: pl.DataFrame, config: NearCertainConfig = NearCertainConfig()
                 ) -> dict[str, str]:
    """{question_id: why} for the market questions near-certain for more than ``config.share``
    of their window."""
    if config.share is None or questions.is_empty():
        return {}
    changes = _changes(prices)
    out = {}
    for q in questions.iter_rows(named=True):
        market_id = (q["source_ids"] or [None])[0]
        window = (q["resolution_date"] - q["open_date"]).days
        if q["source_kind"] != "market" or market_id not in changes or window <= 0:
            continue
        days = near_certain_days(changes[market_id], q["open_date"], q["resolution_date"],
                                 q["answer_type"] == "binary", config.high)
        if days / window > config.share:
            out[q["question_id"]] = (f"the market's price was at least {config.high:g} (or at most "
                                     f"{1 - config.high:.2g}) on {days} of its {window} days")
    return out
