"""Kalshi reader: trade-api v2 markets, events and candlesticks into markets/market_prices.

The fixtures (tests/fixtures/markets/kalshi/) are hand-written from Kalshi's published API
documentation (docs.kalshi.com, trade-api v2), no real dumps being at hand:
- ``GET /markets`` (``{"markets": [...], "cursor"}``) and ``GET /markets/{ticker}``
  (``{"market": {...}}``), Market fields ``ticker, event_ticker, market_type, title, subtitle,
  yes_sub_title, no_sub_title, created_time, open_time, close_time, expected_expiration_time,
  expiration_time, latest_expiration_time, status, result, yes_bid/yes_ask/last_price`` (cents)
  and ``*_dollars`` ("0.5600"), ``settlement_value(_dollars), settlement_ts, expiration_value,
  strike_type, floor_strike, cap_strike, rules_primary, rules_secondary``; older markets carry
  cents only and no ``created_time``/``settlement_ts``.
- Statuses from "Market Lifecycle" (initialized, active, inactive, closed, determined,
  disputed, amended, finalized) plus the older open/settled.
- ``GET /events`` (``{"events": [...], "cursor"}``, ``with_nested_markets=true``) and
  ``GET /events/{event_ticker}`` (``{"event": {...}, "markets": [...]}``): ``event_ticker,
  series_ticker, sub_title, title, mutually_exclusive, category, collateral_return_type``.
- ``GET /series/{series_ticker}/markets/{ticker}/candlesticks`` (``{"ticker", "candlesticks":
  [{"end_period_ts", "yes_bid", "yes_ask", "price": {open, low, high, close, mean, previous}
  (+ ``_dollars``), "volume", "open_interest"}]}``; saved once without ``ticker`` as
  ``<ticker>.json``, once in dollars with the time re-exported in milliseconds) and
  ``GET /markets/candlesticks`` (batch: ``{"markets": [{"market_ticker", "candlesticks"}]}``).
- ``GET /exchange/status`` stands in for a file of no market shape.
Tickers follow the real series' form (``KXFEDDECISION-25DEC-C25``, ``KXHIGHNY-25AUG14-T87``).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from pastcast.schemas import MARKET_PRICES, MARKETS
from pastcast.sources.kalshi import read_kalshi
from pastcast.sources.markets import read_markets

FIXTURES = Path(__file__).parent / "fixtures" / "markets" / "kalshi"


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def imported():
    return read_kalshi(sorted(FIXTURES.iterdir()))


@pytest.fixture(scope="module")
def markets(imported) -> dict[str, dict]:
    return {row["market_id"]: row for row in imported.tables["markets"]}


def test_every_record_is_kept_or_dropped(imported):
    assert imported.unaccounted() == {}
    assert imported.counts() == {
        "event": {"read": 4, "kept": 3, "dropped": 1},
        "file": {"read": 1, "kept": 0, "dropped": 1},
        "market": {"read": 18, "kept": 16, "dropped": 2},
        "price": {"read": 7, "kept": 4, "dropped": 3},
    }


def test_frames_match_the_schemas(imported):
    assert imported.frame("markets", MARKETS).height == 12
    assert imported.frame("market_prices", MARKET_PRICES).height == 4


def test_registry_calls_the_reader():
    assert read_markets("kalshi", sorted(FIXTURES.iterdir())).unaccounted() == {}


@pytest.mark.parametrize("ticker, status, resolution, value, resolved_at", [
    ("FED-23DEC-T5.25", "resolved", "No", None, utc(2023, 12, 13, 19)),  # settled; expiration_time
    ("KXGDP-25Q3-T2.0", "resolved", "Yes", None, utc(2025, 10, 30, 13, 5, 11, 123456)),  # settlement_ts
    ("KXGOVSHUT-25OCT01", "resolved", "Yes", None, utc(2025, 10, 1, 15)),  # {"market": ...}, cents
    ("KXBTCMAXY-25-DEC31-149999.99", "open", None, None, None),  # active
    ("KXCPI-25SEP-T0.3", "closed", None, None, None),  # closed, awaiting determination
    ("KXSTARSHIP-25JUN30", "cancelled", None, None, utc(2025, 7, 2, 14)),  # result void
    ("KXTIKTOKBAN-25APR05", "ambiguous", None, 0.5, utc(2025, 4, 5, 15)),  # paid $0.50 a contract
    ("KXTRUMPSAY-25NOV17-TARI", "resolved", "Yes", None, utc(2025, 11, 18, 2, 14)),
    ("KXTRUMPSAY-25NOV17-CRYP", "open", None, None, None),
])
def test_binary_status_and_resolution(markets, ticker, status, resolution, value, resolved_at):
    row = markets[f"kalshi:{ticker}"]
    assert row["outcome_type"] == "binary" and row["outcomes"] == ["Yes", "No"]
    assert (row["status"], row["resolution"], row["resolution_value"], row["resolved_at"]) == (
        status, resolution, value, resolved_at)


def test_binary_market_fields(markets):
    row = markets["kalshi:FED-23DEC-T5.25"]
    assert row["question"].startswith("Will the upper bound of the federal funds rate be above 5.25%")
    assert row["background"] == "Above 5.25%"
    assert row["resolution_criteria"] == (
        "If the upper bound of the federal funds rate is above 5.25% following the Federal Reserve's "
        "December 13, 2023 meeting, then the market resolves to Yes.\n\n"
        "The market is resolved using the target range announced in the FOMC statement.")
    assert row["created_at"] == utc(2023, 11, 1, 14)  # no created_time: open_time
    assert row["close_at"] == utc(2023, 12, 13, 18, 59)
    assert row["url"] == "https://kalshi.com/markets/FED-23DEC-T5.25"
    assert markets["kalshi:KXGOVSHUT-25OCT01"]["background"] == "On Oct 1, 2025"  # subtitle fallback


def test_mutually_exclusive_event_is_one_multiple_choice_market(markets):
    row = markets["kalshi:event:KXFEDDECISION-25DEC"]
    assert row["question"] == "Fed decision in Dec 2025?" and row["background"] == "On Dec 10, 2025"
    assert row["outcome_type"] == "multiple_choice"
    assert row["outcomes"] == ["Hold", "Cut 25bps", "Cut >25bps"]
    assert (row["status"], row["resolution"]) == ("resolved", "Cut 25bps")
    assert row["resolved_at"] == utc(2025, 12, 10, 19, 32, 4)  # the winner's settlement_ts
    assert row["created_at"] == utc(2025, 10, 29, 18, 31, 2, 100000)
    assert row["close_at"] == utc(2025, 12, 10, 18, 59)
    assert row["url"] == "https://kalshi.com/markets/KXFEDDECISION-25DEC"
    assert row["resolution_criteria"].count("resolves to Yes") == 3
    # its markets, one of them also in the /markets page, are merged, not separate rows
    assert not any(m.startswith("kalshi:KXFEDDECISION-25DEC-") for m in markets)


def test_open_mutually_exclusive_event_from_the_events_page(markets):
    row = markets["kalshi:event:KXHIGHNY-25AUG14"]
    assert row["outcomes"] == ["85° to 86°", "87° or above"]
    assert (row["status"], row["resolution"], row["resolved_at"]) == ("open", None, None)


def test_scalar_market_is_numeric(markets):
    row = markets["kalshi:KXEGGS-25JUL"]
    assert (row["outcome_type"], row["outcomes"], row["status"]) == ("numeric", [], "resolved")
    assert (row["resolution_value"], row["range_min"], row["range_max"]) == (3.778, 2.5, 5.0)
    assert row["resolution"] is None and row["resolved_at"] == utc(2025, 8, 12, 13, 10)


def test_candlestick_prices(imported):
    prices = {(p["market_id"], p["outcome"], p["ts"]): p["price"]
              for p in imported.tables["market_prices"]}
    assert prices == {
        # <ticker>.json in cents: last trade, then the bid/ask midpoint of a candle with no trade
        ("kalshi:event:KXFEDDECISION-25DEC", "Cut 25bps", utc(2025, 12, 4)): 0.88,
        ("kalshi:event:KXFEDDECISION-25DEC", "Cut 25bps", utc(2025, 12, 5)): 0.92,
        # {"ticker": ...} in dollars, end_period_ts in milliseconds
        ("kalshi:KXGDP-25Q3-T2.0", "Yes", utc(2025, 10, 1)): 0.71,
        # batch candlesticks, dollars beat cents
        ("kalshi:event:KXHIGHNY-25AUG14", "87° or above", utc(2025, 8, 13)): 0.31,
    }


def test_drop_reasons(imported):
    drops = sorted((d.item_kind, d.reason, d.item_id) for d in imported.drops)
    assert drops == [
        ("event", "no_markets", "kalshi:event:KXSNOWNYC-25DEC"),
        ("file", "unknown_shape", "exchange_status.json"),
        ("market", "malformed_market", "kalshi:KXRAIN-25OCT-NYC"),  # status "frozen"
        ("market", "malformed_market", "markets_page.json document markets[7]"),  # no ticker
        ("price", "no_price", "kalshi:KXFEDDECISION-25DEC-C25"),
        ("price", "numeric_market", "kalshi:KXEGGS-25JUL"),
        ("price", "unknown_market", "kalshi:KXHIGHCHI-25AUG14-T90"),
    ]
    by_reason = {d.reason: d.detail for d in imported.drops}
    assert "exchange_status.json" in by_reason["unknown_shape"]
    assert "candlesticks[2]" in by_reason["no_price"]
    assert "candles_batch.json" in by_reason["unknown_market"]


def test_event_candlesticks_and_scalar_payout(tmp_path):
    eggs = json.loads((FIXTURES / "markets_page.json").read_text())["markets"][6]
    del eggs["expiration_value"]  # only the payout: 2.5 + 0.5112 * (5.0 - 2.5)
    event = json.loads((FIXTURES / "event_fed_dec.json").read_text())
    (tmp_path / "eggs.json").write_text(json.dumps({"market": eggs}))
    (tmp_path / "event.json").write_text(json.dumps(event))
    (tmp_path / "event_candles.json").write_text(json.dumps({
        "market_tickers": ["KXFEDDECISION-25DEC-H0", "KXFEDDECISION-25DEC-C25"],
        "market_candlesticks": [
            [{"end_period_ts": 1764806400, "price": {"close_dollars": "0.0900"}}],
            [{"end_period_ts": 1764806400, "price": {"close": 88}}, "not a candle"]],
        "adjusted_end_ts": 1764806400}))
    got = read_kalshi(sorted(tmp_path.iterdir()))
    rows = {row["market_id"]: row for row in got.tables["markets"]}
    assert rows["kalshi:KXEGGS-25JUL"]["resolution_value"] == pytest.approx(3.778)
    assert sorted((p["outcome"], p["price"]) for p in got.tables["market_prices"]) == [
        ("Cut 25bps", 0.88), ("Hold", 0.09)]
    assert [(d.item_kind, d.reason) for d in got.drops] == [("price", "malformed_price")]
    assert got.unaccounted() == {}


def test_unreadable_file_is_a_drop(tmp_path):
    (tmp_path / "page.json").write_text('{"markets": [')
    got = read_kalshi([tmp_path / "page.json", tmp_path / "missing.json"])
    assert [(d.item_kind, d.reason, d.item_id) for d in got.drops] == [
        ("file", "truncated_file", "page.json"), ("file", "unreadable_file", "missing.json")]
    assert got.unaccounted() == {} and got.tables == {}


def test_a_corrupt_compressed_file_is_a_drop_not_a_crash(tmp_path):
    # zstandard raises its own error type (not OSError/ValueError): it must still be a drop
    bad = tmp_path / "markets.json.zst"
    bad.write_bytes(b"\x28\xb5\x2f\xfd" + b"not really zstd" * 10)
    imported = read_kalshi([bad])
    assert [(d.item_kind, d.reason, d.item_id) for d in imported.drops] == [("file", "unreadable_file", bad.name)]
    assert str(bad) in imported.drops[0].detail and imported.unaccounted() == {}
