"""The Manifold reader: every input shape, resolution and drop reason, on hand-written fixtures.

The fixtures (tests/fixtures/markets/manifold/) follow Manifold's published API documentation,
https://docs.manifold.markets/api (the source is docs/docs/api.md in manifoldmarkets/manifold):
- ``LiteMarket`` (GET /v0/markets): id, creatorUsername, createdTime, closeTime, question, url,
  outcomeType, mechanism, probability, min/max/isLogScale (PSEUDO_NUMERIC), isResolved,
  resolution, resolutionTime, resolutionProbability (binary MKT);
- ``FullMarket`` (GET /v0/market/[id]): answers (id, text, probability, resolution),
  shouldAnswersSumToOne, description as TipTap JSON, textDescription; the dpm-2 free-response
  market resolved to an answer id mirrors the docs' example response;
- ``Bet`` (GET /v0/bets): contractId, answerId, createdTime, outcome, amount, orderAmount,
  probBefore, probAfter, limitProb, isFilled, isCancelled, fills, as in the docs' limit-order
  and normal-bet examples;
- the contract types of common/src/contract.ts: PseudoNumeric.resolutionValue,
  CPMMMulti.resolutions, NUMBER's min/max, POLL and BOUNTIED_QUESTION.
Times are epoch milliseconds, as the docs say. ``dumpTime`` on snapshot.json is this project's
convention (Manifold has no such field).
"""

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from pastcast.schemas import MARKET_PRICES, MARKETS
from pastcast.sources.manifold import read_manifold
from pastcast.sources.markets import read_markets
from warcs import SAMPLE

FIXTURES = Path(__file__).parent / "fixtures" / "markets" / "manifold"
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
DAY_MS = 86_400_000
T0_MS = 1_767_225_600_000


def at(days: float) -> datetime:
    return datetime.fromtimestamp((T0_MS + days * DAY_MS) / 1000, tz=timezone.utc)


def read(*names: str):
    imported = read_manifold([FIXTURES / n for n in names])
    assert imported.unaccounted() == {}
    markets = imported.frame("markets", MARKETS)
    prices = imported.frame("market_prices", MARKET_PRICES)
    assert set(prices["market_id"]) <= set(markets["market_id"])
    return imported, {m["market_id"]: m for m in markets.iter_rows(named=True)}, prices


def reasons(imported) -> dict[str, str]:
    return {d.item_id: d.reason for d in imported.drops}


def series(prices, market_id: str) -> list[tuple]:
    return prices.filter(prices["market_id"] == market_id).select("ts", "outcome", "price").rows()


def test_dump_binary_multiple_choice_cancel_and_bets():
    imported, by_id, prices = read("dump.json")
    b1 = by_id["manifold:b1"]
    assert (b1["status"], b1["resolution"], b1["outcomes"]) == ("resolved", "No", ["Yes", "No"])
    assert b1["resolved_at"].isoformat() == "2026-01-11T00:00:00+00:00"
    assert b1["close_at"] == at(9) and b1["created_at"] == T0
    assert b1["url"] == "https://manifold.markets/alice/will-it-rain"
    # TipTap description: paragraphs become lines
    assert b1["background"] == ("Resolves YES if any rain is recorded at the harbour station.\n"
                                "Source: the city weather office.")
    m1 = by_id["manifold:m1"]
    assert (m1["status"], m1["resolution"], m1["outcomes"]) == ("resolved", "Bo", ["Ana", "Bo"])
    c1 = by_id["manifold:c1"]
    assert (c1["status"], c1["resolution"], c1["resolved_at"]) == ("cancelled", None, at(1))
    assert prices.select("market_id", "ts", "outcome", "price").rows() == [
        ("manifold:b1", at(1), "Yes", 0.4),
        ("manifold:b1", at(2), "Yes", 0.45),  # partially filled limit order: a real price
        ("manifold:c1", at(0.5), "Yes", 0.5),
        ("manifold:m1", at(1), "Bo", 0.7),
    ]
    assert reasons(imported) == {"manifold:bad": "malformed_market", "x3": "unknown_market",
                                 "x4": "cancelled_bet", "x5": "unfilled_limit_order",
                                 "x7": "unknown_answer"}
    assert imported.counts() == {"market": {"read": 4, "kept": 3, "dropped": 1},
                                 "price": {"read": 8, "kept": 4, "dropped": 4}}


def test_sample_corpus_dump_imports_whole():
    imported = read_markets("manifold", [SAMPLE / "markets" / "manifold.json"])
    markets = imported.frame("markets", MARKETS)
    prices = imported.frame("market_prices", MARKET_PRICES)
    assert markets.height == 10 and prices.height > 100
    assert set(prices["market_id"]) <= set(markets["market_id"])
    assert imported.drops == [] and imported.unaccounted() == {}
    assert sorted(markets["status"].value_counts().rows()) == [
        ("cancelled", 1), ("open", 1), ("resolved", 8)]


def test_lite_and_full_copies_merge_and_the_full_object_wins():
    imported, by_id, _ = read("markets_lite.json", "market_full.json")
    fr1 = by_id["manifold:fr1"]
    assert fr1["question"] == "What is good?"  # the lite copy says "An older title?"
    assert fr1["outcomes"] == ["ANTE", "Utility", "Toyota Camry"]
    # an old free-response market names its winning answer by id
    assert (fr1["status"], fr1["resolution"]) == ("resolved", "Utility")
    assert fr1["background"] == "Resolves to the answer I find most compelling."
    assert imported.counts()["market"] == {"read": 13, "kept": 10, "dropped": 3}


def test_binary_mkt_pseudo_numeric_and_number_markets():
    _, by_id, _ = read("markets_lite.json")
    mkt1 = by_id["manifold:mkt1"]
    assert (mkt1["status"], mkt1["resolution"], mkt1["resolution_value"]) == ("ambiguous", None, 0.63)
    pick = ("outcome_type", "status", "resolution_value", "range_min", "range_max", "log_scale", "outcomes")
    assert [by_id["manifold:pn1"][k] for k in pick] == ["numeric", "resolved", 42.5, 0.0, 100.0, False, []]
    # MKT without resolutionValue: the docs' log mapping (max - min + 1) ** p + min - 1
    pn2 = by_id["manifold:pn2"]
    assert pn2["log_scale"] is True and pn2["resolution_value"] == pytest.approx(1000 ** 0.5)
    assert by_id["manifold:pn3"]["resolution_value"] == 17.0  # the resolution is the number itself
    assert [by_id["manifold:num1"][k] for k in pick] == ["numeric", "open", None, 0.0, 50.0, False, []]


def test_non_forecasts_and_unknown_types_are_dropped_with_reasons():
    imported, by_id, _ = read("markets_lite.json")
    assert reasons(imported) == {"manifold:poll1": "not_a_forecast", "manifold:bq1": "not_a_forecast",
                                 "manifold:weird1": "unsupported_market_type",
                                 "manifold:fr1": "missing_answers"}  # its full copy is not here
    assert "markets_lite.json: item 7" in imported.drops[0].detail


def test_open_or_closed_against_the_newest_time_in_the_data_not_the_clock(tmp_path):
    _, by_id, _ = read("markets_lite.json", "bets.json")
    assert by_id["manifold:o1"]["status"] == "closed"  # closeTime T0+3d, bets run to T0+30d
    assert by_id["manifold:o2"]["status"] == "open"  # no closeTime
    assert by_id["manifold:o3"]["status"] == "open"  # closeTime T0+400d
    # Alone, o1's closeTime is after every event in the data: still open.
    o1 = next(m for m in json.loads((FIXTURES / "markets_lite.json").read_text()) if m["id"] == "o1")
    (tmp_path / "o1.json").write_text(json.dumps(o1))
    alone = read_manifold([tmp_path / "o1.json"])
    assert alone.tables["markets"][0]["status"] == "open" and alone.unaccounted() == {}


def test_bets_from_every_file_attach_and_each_drop_has_its_reason():
    imported, _, prices = read("dump.json", "markets_lite.json", "market_full.json", "bets.json")
    assert series(prices, "manifold:fr1") == [(at(1), "Utility", 0.55)]  # dpm-2: answer id in outcome
    assert series(prices, "manifold:o1") == [(at(30), "Yes", 0.33)]
    assert series(prices, "manifold:b1") == [(at(1), "Yes", 0.4), (at(2), "Yes", 0.45)]  # x1 twice: one row
    dropped = reasons(imported)
    assert {k: dropped[k] for k in ("y1", "y3", "y5")} == {
        "y1": "numeric_market", "y3": "dropped_market", "y5": "malformed_price"}
    assert "x1" not in dropped
    assert imported.counts()["price"] == {"read": 14, "kept": 7, "dropped": 7}


def test_file_shapes_unknown_unreadable_and_mixed_ndjson():
    imported, by_id, prices = read("mixed.ndjson", "users.json", "broken.json")
    assert by_id["manifold:nd1"]["status"] == "open"  # closes T0+2d; the newest data is T0+1d
    assert series(prices, "manifold:nd1") == [(at(1), "Yes", 0.61)]
    assert reasons(imported) == {"users.json": "unknown_file_shape", "broken.json": "truncated_file",
                                 "mixed.ndjson:line 3": "malformed_record",
                                 "mixed.ndjson:line 4": "unknown_record"}
    details = {d.item_id: d.detail for d in imported.drops}
    assert str(FIXTURES / "users.json") in details["users.json"]
    assert str(FIXTURES / "broken.json") in details["broken.json"]


def test_snapshot_prices_only_when_the_dump_says_when_it_was_taken():
    _, by_id, prices = read("snapshot.json")
    taken = at(31)
    assert series(prices, "manifold:s1") == [(taken, "Harbour FC", 0.75), (taken, "Rovers", 0.25)]
    assert series(prices, "manifold:s2") == [(taken, "Yes", 0.8)]
    s3 = by_id["manifold:s3"]  # CHOOSE_MULTIPLE, two winners
    assert (s3["status"], s3["resolution"]) == ("ambiguous", None)
    s4 = by_id["manifold:s4"]  # the winner given by `resolutions` weights
    assert (s4["status"], s4["resolution"]) == ("resolved", "Okafor")
    assert series(prices, "manifold:s3") == [] and series(prices, "manifold:s4") == []
    # API responses carry no dump time: current probabilities are ignored
    assert read("markets_lite.json")[2].is_empty()


def test_every_fixture_in_one_import():
    imported, by_id, prices = read(*sorted(p.name for p in FIXTURES.iterdir()))
    assert len(by_id) == 17 and prices.height == 10
    assert by_id["manifold:nd1"]["status"] == "closed"  # with the others, the data runs to T0+31d
    assert imported.counts() == {"file": {"read": 2, "kept": 0, "dropped": 2},
                                 "market": {"read": 22, "kept": 18, "dropped": 4},
                                 "price": {"read": 18, "kept": 11, "dropped": 7},
                                 "record": {"read": 2, "kept": 0, "dropped": 2}}


def test_garbage_never_raises(tmp_path):
    files = {
        "ints.json": "[1, 2, 3]",
        "string.json": '"just a string"',
        "empty.json": "[]",
        "odd.json": json.dumps({"markets": [5, {"id": "q", "question": "Q?", "outcomeType": "BINARY",
                                                "createdTime": "soon"},
                                            {"id": "mc", "question": "Which?", "outcomeType": "MULTIPLE_CHOICE",
                                             "createdTime": T0_MS, "answers": ["a", "b"]}],
                                "bets": ["x", {"contractId": None}, {"id": "b", "contractId": "q"}]}),
        "bin.json.gz": "not gzip at all",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    imported = read_manifold(sorted(tmp_path.iterdir()))
    assert imported.unaccounted() == {}
    assert imported.tables.get("markets", []) == []
    assert set(reasons(imported).values()) == {"unknown_file_shape", "unreadable_file",
                                               "malformed_market", "malformed_price",
                                               "unknown_market", "dropped_market"}
