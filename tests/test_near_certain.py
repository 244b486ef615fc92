"""Market questions the market's own price all but settled for most of their window are
dropped as near-certain, decided from prices alone (issue 17, item 5)."""

from datetime import date, datetime, timezone

import polars as pl

from evalkit import question
from pastcast.questions.near_certain import NearCertainConfig, near_certain, near_certain_days
from pastcast.schemas import MARKET_PRICES, QUESTIONS, frame
from warcs import SHARED, needs_shared


def price(market_id: str, day: str, p: float, outcome: str = "Yes") -> dict:
    return {"market_id": market_id, "ts": datetime.fromisoformat(day).replace(hour=15, tzinfo=timezone.utc),
            "outcome": outcome, "price": p}


def test_days_are_counted_from_when_each_price_is_visible():
    changes = [(date(2026, 1, 1), "Yes", 0.5), (date(2026, 1, 11), "Yes", 0.99), (date(2026, 1, 21), "Yes", 0.6)]
    assert near_certain_days(changes, date(2026, 1, 1), date(2026, 1, 31), True, 0.97) == 10
    assert near_certain_days(changes, date(2026, 1, 15), date(2026, 1, 31), True, 0.97) == 6
    assert near_certain_days([], date(2026, 1, 1), date(2026, 1, 31), True, 0.97) == 0  # no price: uncertain
    low = [(date(2025, 12, 1), "Yes", 0.01)]  # a low Yes price settles a binary market too
    assert near_certain_days(low, date(2026, 1, 1), date(2026, 1, 31), True, 0.97) == 30
    options = [(date(2026, 1, 1), "A", 0.98), (date(2026, 1, 1), "B", 0.02)]
    assert near_certain_days(options, date(2026, 1, 1), date(2026, 1, 31), False, 0.97) == 30


def test_only_prices_decide_never_the_answer():
    qs = frame([question("settled", "Will X happen by 2026-02-01?", "No", "2026-01-01", "2026-02-01",
                         answer_type="binary", source_kind="market", source_ids=["m1"]),
                question("surprise", "Will Y happen by 2026-02-01?", "No", "2026-01-01", "2026-02-01",
                         answer_type="binary", source_kind="market", source_ids=["m2"]),
                question("open", "Will Z happen by 2026-02-01?", "Yes", "2026-01-01", "2026-02-01",
                         answer_type="binary", source_kind="market", source_ids=["m3"])], QUESTIONS)
    prices = frame([price("m1", "2025-12-20", 0.01), price("m2", "2025-12-20", 0.99),
                    price("m3", "2025-12-20", 0.6), price("m3", "2026-01-25", 0.99)], MARKET_PRICES)
    found = near_certain(qs, prices)
    assert set(found) == {"settled", "surprise"}  # the market that was wrong too: prices alone
    assert "31 of its 31 days" in found["settled"]
    assert near_certain(qs, prices, NearCertainConfig(share=None)) == {}


@needs_shared
def test_real_forecastbench_market_questions_near_certain_are_dropped():
    from pastcast.questions.markets import market_questions
    from pastcast.schemas import MARKETS
    from pastcast.sources.forecastbench import read_forecastbench

    imported = read_forecastbench(sorted((SHARED / "markets" / "forecastbench").glob("*.json")))
    markets, prices = imported.frame("markets", MARKETS), imported.frame("market_prices", MARKET_PRICES)
    kept, drops = market_questions(markets, prices=prices)
    settled = drops.filter(pl.col("reason") == "near_certain")
    assert settled.height >= 5 and settled["detail"].str.contains("days").all()
    without, _ = market_questions(markets)
    assert kept.height + settled.height == without.height  # nothing else changes
    assert not set(settled["item_id"]) & set(kept["source_ids"].list.first())
