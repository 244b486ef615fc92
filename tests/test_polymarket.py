"""Polymarket reader: Gamma events/markets and CLOB price histories into markets/market_prices.

The fixtures (tests/fixtures/markets/polymarket/) are hand-written from Polymarket's published
API documentation (docs.polymarket.com), no real dumps being at hand:
- Gamma ``GET /events`` and ``GET /markets`` (api-reference "List events" / "List markets",
  gamma-openapi.json): Event ``id, slug, title, description, startDate, endDate, createdAt,
  closed, negRisk, negRiskMarketID, closedTime, markets``; Market ``id, question, conditionId,
  slug, description, resolutionSource, startDate, endDate, createdAt, outcomes, outcomePrices,
  clobTokenIds`` (JSON strings inside JSON, as "Market data overview" shows), ``active, closed,
  groupItemTitle, groupItemThreshold, umaResolutionStatus, negRisk, closedTime, events``.
  ``closedTime`` is written the way Gamma sends it (``2024-11-06 10:02:09+00``).
- CLOB ``GET /prices-history`` (api-reference "Get price history for a traded token"): query
  ``market`` = CLOB token id, response ``{"history": [{"t": <unix seconds>, "p": <price>}]}``;
  saved once with the ``market`` parameter beside it, once as ``<token id>.json`` (one point in
  milliseconds, as re-exports write), once as a ``{token id: response}`` mapping.
IDs, slugs and token ids follow the real ones' form (numeric ids, 77-digit token ids).
"""

from __future__ import annotations

import gzip
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from pastcast.schemas import MARKET_PRICES, MARKETS
from pastcast.sources.markets import read_markets
from pastcast.sources.polymarket import read_polymarket

FIXTURES = Path(__file__).parent / "fixtures" / "markets" / "polymarket"
TRUMP_YES = "21742633143463906290569050155826241533067272736897614950488156847949938836455"
TRUMP_NO = "48331043336612883890938759509493159234755048973500640148014422747788308965732"
FED_CUT_YES = "10401928374650192837465019283746501928374650192837465019283746501928374650192"
UNKNOWN = "1" * 77


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def imported():
    return read_polymarket(sorted(FIXTURES.iterdir()))


@pytest.fixture(scope="module")
def markets(imported) -> dict[str, dict]:
    return {row["market_id"]: row for row in imported.tables["markets"]}


def test_every_record_is_kept_or_dropped(imported):
    assert imported.unaccounted() == {}
    assert imported.counts() == {
        "event": {"read": 2, "kept": 2, "dropped": 0},
        "file": {"read": 1, "kept": 0, "dropped": 1},
        "market": {"read": 14, "kept": 12, "dropped": 2},
        "price": {"read": 10, "kept": 6, "dropped": 4},
    }


def test_frames_match_the_schemas(imported):
    assert imported.frame("markets", MARKETS).height == 8
    assert imported.frame("market_prices", MARKET_PRICES).height == 6


def test_registry_calls_the_reader():
    assert read_markets("polymarket", sorted(FIXTURES.iterdir())).unaccounted() == {}


def test_neg_risk_event_is_one_multiple_choice_market(markets):
    row = markets["polymarket:event:903193"]
    assert row["question"] == "Presidential Election Winner 2024"
    assert row["outcome_type"] == "multiple_choice"
    assert row["outcomes"] == ["Donald Trump", "Kamala Harris", "Other"]
    assert (row["status"], row["resolution"]) == ("resolved", "Donald Trump")
    assert row["resolved_at"] == utc(2024, 11, 6, 10, 2, 9)  # the winner's closedTime
    assert row["created_at"] == utc(2024, 1, 4, 22, 57, 44, 71000)
    assert row["close_at"] == utc(2024, 11, 5, 12)
    assert row["url"] == "https://polymarket.com/event/presidential-election-winner-2024"
    assert "Associated Press" in row["resolution_criteria"]
    # its binary sub-markets (one also in the /markets dump) are merged, not separate rows
    assert not {"polymarket:253591", "polymarket:253597", "polymarket:253642"} & set(markets)


def test_markets_group_by_their_embedded_neg_risk_event(markets):
    row = markets["polymarket:event:16085"]
    assert row["question"] == "Fed decision in December?"
    assert row["outcomes"] == ["25 bps decrease", "No change"]
    assert (row["status"], row["resolution"], row["resolved_at"]) == ("open", None, None)
    assert row["created_at"] == utc(2024, 11, 8, 16, 50)


@pytest.mark.parametrize("market_id, status, resolution, value", [
    ("polymarket:239826", "resolved", "No", None),  # final prices ["0", "1"]
    ("polymarket:248417", "ambiguous", None, 0.5),  # 50/50 settlement
    ("polymarket:504210", "cancelled", None, None),  # closed with nothing paid out
    ("polymarket:517620", "open", None, None),  # closed: false
    ("polymarket:517621", "closed", None, None),  # umaResolutionStatus: proposed
    ("polymarket:512345", "resolved", "Celtics", None),  # two non-Yes/No outcomes
])
def test_status_and_resolution(markets, market_id, status, resolution, value):
    row = markets[market_id]
    assert (row["status"], row["resolution"], row["resolution_value"]) == (status, resolution, value)


def test_binary_market_fields(markets):
    row = markets["polymarket:239826"]
    assert row["outcome_type"] == "binary" and row["outcomes"] == ["Yes", "No"]
    assert row["created_at"] == utc(2024, 1, 31, 19, 2, 14, 320000)  # ISO with Z and a fraction
    assert row["resolved_at"] == utc(2024, 3, 20, 18, 35, 27)  # closedTime "... 18:35:27+00"
    assert row["url"] == "https://polymarket.com/event/fed-decision-in-march"  # embedded event slug
    assert row["resolution_criteria"].endswith(
        "Resolution source: https://www.federalreserve.gov/monetarypolicy/fomccalendars.htm")
    assert markets["polymarket:517620"]["resolved_at"] is None


def test_two_outcome_market_keeps_its_labels(markets):
    row = markets["polymarket:512345"]
    assert row["outcome_type"] == "multiple_choice" and row["outcomes"] == ["Lakers", "Celtics"]


def test_events_without_neg_risk_keep_separate_markets(markets):
    for market_id in ("polymarket:517620", "polymarket:517621"):
        assert markets[market_id]["outcome_type"] == "binary"
        assert markets[market_id]["url"] == (
            "https://polymarket.com/event/russia-x-ukraine-ceasefire-in-2025")


def test_prices_from_every_token_form(imported):
    prices = {(p["market_id"], p["outcome"], p["ts"]): p["price"]
              for p in imported.tables["market_prices"]}
    assert prices == {
        # {"market": <token>, "history": [...]}: Trump's Yes token; his No token adds nothing
        ("polymarket:event:903193", "Donald Trump", utc(2024, 1, 5)): 0.445,
        ("polymarket:event:903193", "Donald Trump", utc(2024, 6, 1)): 0.53,
        ("polymarket:event:903193", "Donald Trump", utc(2024, 11, 6)): 0.985,
        # <token id>.json, first point in milliseconds
        ("polymarket:event:903193", "Kamala Harris", utc(2024, 7, 22)): 0.38,
        ("polymarket:event:903193", "Kamala Harris", utc(2024, 11, 6)): 0.02,
        # {"<token id>": {"history": [...]}}
        ("polymarket:event:16085", "25 bps decrease", utc(2024, 12, 1)): 0.66,
    }


def test_drop_reasons(imported):
    drops = sorted((d.item_kind, d.reason, d.item_id) for d in imported.drops)
    assert drops == [
        ("file", "unknown_shape", "export_notes.json"),
        ("market", "malformed_market", "gamma_markets.json item 8"),  # no question
        ("market", "malformed_market", "polymarket:600001"),  # outcomePrices is broken JSON
        ("price", "malformed_price", f"polymarket:{FED_CUT_YES}"),  # p = 1.7
        ("price", "no_price", f"polymarket:{FED_CUT_YES}"),  # p = null
        ("price", "no_token", f"polymarket:{TRUMP_NO}"),
        ("price", "unknown_market", f"polymarket:{UNKNOWN}"),
    ]
    by_reason = {d.reason: d.detail for d in imported.drops}
    assert "export_notes.json" in by_reason["unknown_shape"]
    assert "gamma_markets.json item 5" in by_reason["malformed_market"]
    assert "prices_by_token.json" in by_reason["unknown_market"]
    assert "history[0]" in by_reason["unknown_market"]
    assert "outside [0, 1]" in by_reason["malformed_price"]


def test_bad_files_and_lines_are_drops(tmp_path):
    market = json.loads((FIXTURES / "gamma_markets.json").read_text())[0]
    (tmp_path / "markets.jsonl.gz").write_bytes(
        gzip.compress(f"{json.dumps(market)}\n{{not json\n".encode()))
    (tmp_path / "broken.json").write_text("[{")
    (tmp_path / "numbers.json").write_text("[1, 2, 3]")
    got = read_polymarket(sorted(tmp_path.iterdir()))
    assert [row["market_id"] for row in got.tables["markets"]] == ["polymarket:239826"]
    assert sorted((d.item_kind, d.reason, d.item_id) for d in got.drops) == [
        ("file", "truncated_file", "broken.json"),
        ("file", "unknown_shape", "numbers.json"),
        ("market", "malformed_market", "markets.jsonl.gz line 2"),
    ]
    assert got.unaccounted() == {}


def test_a_broken_neg_risk_event_drops_with_its_markets(tmp_path):
    event = json.loads((FIXTURES / "gamma_events.json").read_text())[0]
    event["markets"][1]["outcomes"] = '["Up", "Down"]'
    (tmp_path / "events.json").write_text(json.dumps(event))
    (tmp_path / f"{TRUMP_YES}.json").write_text('{"history": [{"t": 1704412800, "p": 0.445}]}')
    got = read_polymarket(sorted(tmp_path.iterdir()))
    assert "markets" not in got.tables and "market_prices" not in got.tables
    assert sorted((d.item_kind, d.reason) for d in got.drops) == [
        ("event", "malformed_event"), *[("market", "malformed_event")] * 3, ("price", "unknown_market")]
    assert got.unaccounted() == {}
