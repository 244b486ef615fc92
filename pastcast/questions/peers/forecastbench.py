"""ForecastBench question and resolution sets as candidate questions, through the markets the
build already makes of them: ``pastcast.sources.forecastbench`` reads the sets into markets and
prices (market questions one market per platform id, dataset questions one binary market per
horizon), and ``pastcast.questions.markets.market_questions`` turns the resolved ones into
questions, exactly as ``pastcast build`` does with ``markets/forecastbench``.

So a question's id is the stable hash of its market, ``source_ids`` holds the market id
(``forecastbench:<source>:<id>[:<due date>:<resolution date>]``, ForecastBench's own id), and
the markets and their prices are written beside the questions (a snapshot of these questions
needs them: the ``market_questions_follow_their_markets`` check). Every input record is kept
or dropped by the reader (kinds ``question``, ``resolution``, ``price``); every market is a
question or a drop (``unresolved``, ``ambiguous_resolution``, ``short_window``, ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pastcast.questions.markets import MarketQuestionConfig, market_questions
from pastcast.schemas import MARKET_PRICES, MARKETS
from pastcast.sources.markets import read_markets

FORMAT = "forecastbench"


def read_forecastbench_questions(paths: Sequence[Path], horizon_days: int | None = None):
    """(questions, drops, markets, prices, record counts); a file that is not a question or
    resolution set is an error naming it."""
    imported = read_markets(FORMAT, paths)
    unreadable = [d.detail for d in imported.drops if d.item_kind == "file"]
    if unreadable:
        raise ValueError("; ".join(unreadable))
    markets = imported.frame("markets", MARKETS).sort("market_id")
    prices = imported.frame("market_prices", MARKET_PRICES).sort("market_id", "ts", "outcome")
    questions, market_drops = market_questions(markets, MarketQuestionConfig(horizon_days=horizon_days), prices)
    counts = imported.counts()
    counts["market"] = {"read": markets.height, "kept": questions.height, "dropped": market_drops.height}
    return questions, imported.drops_frame(), market_drops, markets, prices, counts
