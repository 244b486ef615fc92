"""The Metaculus reader: posts, groups, legacy api2 questions and every drop reason.

The fixtures (tests/fixtures/markets/metaculus/) follow Metaculus' published API docs
(https://www.metaculus.com/api/, whose OpenAPI spec is docs/openapi.yml in Metaculus/metaculus):
- ``Post`` (GET /api/posts/, /api/posts/{id}/): id, title, short_title, slug, created_at,
  published_at, open_time, status, resolved, scheduled_close_time, actual_close_time,
  scheduled_resolve_time, question / group_of_questions (description, resolution_criteria,
  fine_print, questions) / conditional (condition, condition_child, question_yes, question_no);
  paginated lists as ``{"next", "previous", "results"}``;
- ``Question``: id, type (binary, multiple_choice, numeric, discrete, date), options, status,
  resolution ("yes", "no", an option, a number, a date, "annulled", "ambiguous",
  "above_upper_bound"), scaling (range_min, range_max, zero_point), post_id, label, and
  ``aggregations.recency_weighted.{history, latest}`` points with start_time/end_time in epoch
  seconds, centers, forecast_values, means, interval bounds; binary centers/means hold only
  P(Yes) while forecast_values is [P(No), P(Yes)] (questions/serializers/aggregate_forecasts.py).
  post_numeric.json is the spec's own numeric example (post 3530, log scaling, zero_point 0).
- legacy api2 questions (GET /api2/questions/): the fields of the api2 serializer as generated
  into benmanns/metaculus-rs (active_state, url, page_url, resolution, created_time,
  publish_time, close_time, resolve_time, possibilities {type, format, scale {min, max,
  deriv_ratio}}, description, resolution_criteria, fine_print, community_prediction), with
  ``community_prediction.history[{t, x1: {q1, q2, q3}}]`` and
  ``prediction_timeseries[{t, community_prediction}]`` as public api2 clients read them.
"""

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from pastcast.schemas import MARKET_PRICES, MARKETS
from pastcast.sources.markets import read_markets
from pastcast.sources.metaculus import read_metaculus

FIXTURES = Path(__file__).parent / "fixtures" / "markets" / "metaculus"
PARTIES = ["Civic Alliance", "Labour and Commons", "Green Veloria"]
RATE = "Will Veloria's unemployment rate exceed these levels in 2026?"


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)


def read(*names: str):
    imported = read_markets("metaculus", [FIXTURES / n for n in names])
    assert imported.unaccounted() == {}
    markets = imported.frame("markets", MARKETS)
    prices = imported.frame("market_prices", MARKET_PRICES)
    assert set(prices["market_id"]) <= set(markets["market_id"])
    return imported, {m["market_id"]: m for m in markets.iter_rows(named=True)}, prices


def reasons(imported) -> list[tuple[str, str]]:
    return sorted((d.item_id, d.reason) for d in imported.drops)


def series(prices, market_id: str) -> list[tuple]:
    return prices.filter(prices["market_id"] == market_id).select("ts", "outcome", "price").rows()


def test_posts_page_binary_multiple_choice_group_conditional_notebook():
    imported, by_id, prices = read("posts_page.json")
    assert sorted(by_id) == ["metaculus:1011", "metaculus:1021", "metaculus:1031", "metaculus:1032"]
    tram = by_id["metaculus:1011"]
    assert (tram["status"], tram["resolution"], tram["outcome_type"]) == ("resolved", "Yes", "binary")
    assert tram["resolved_at"] == utc("2026-03-01T12:00:00") and tram["created_at"] == utc("2026-01-01")
    assert tram["close_at"] == utc("2026-02-28")
    assert tram["url"] == "https://www.metaculus.com/questions/101/kestrel-bay-tram-line/"
    assert tram["resolution_criteria"] == "Resolution criteria of question 1011.\n\nTrial runs do not count."
    # binary: centers[0]; `latest` repeats the last history point and counts once
    assert series(prices, "metaculus:1011") == [(utc("2026-01-02"), "Yes", 0.3), (utc("2026-01-09"), "Yes", 0.65)]
    election = by_id["metaculus:1021"]
    assert (election["status"], election["outcomes"]) == ("open", PARTIES)
    assert election["created_at"] == utc("2026-01-05")  # open_time, not the draft's created_at
    # multiple choice: forecast_values, else centers; one price per option
    assert series(prices, "metaculus:1021") == [
        (utc("2026-01-06"), "Civic Alliance", 0.5), (utc("2026-01-06"), "Labour and Commons", 0.3),
        (utc("2026-01-06"), "Green Veloria", 0.2), (utc("2026-01-13"), "Civic Alliance", 0.4),
        (utc("2026-01-13"), "Labour and Commons", 0.4), (utc("2026-01-13"), "Green Veloria", 0.2)]
    # group of questions: one market per sub-question, group texts filling the gaps
    five, eight = by_id["metaculus:1031"], by_id["metaculus:1032"]
    assert (five["question"], five["status"], five["resolution"]) == (f"{RATE} (5%)", "resolved", "No")
    assert eight["question"] == f"{RATE} (8%)" and eight["status"] == "open"
    assert five["background"] == "Veloria's statistics office publishes a monthly rate."
    assert five["resolution_criteria"] == "Each sub-question resolves Yes if any monthly rate exceeds its level."
    assert five["url"] == eight["url"] == "https://www.metaculus.com/questions/103/veloria-unemployment-2026/"
    # binary fallbacks: forecast_values[1], then means[0]
    assert series(prices, "metaculus:1032") == [(utc("2026-01-08"), "Yes", 0.1), (utc("2026-01-09"), "Yes", 0.15)]
    assert reasons(imported) == [("metaculus:1021", "malformed_price"),  # 2 values for 3 options
                                 ("metaculus:post:104", "unsupported_post_type"),
                                 ("metaculus:post:105", "unsupported_post_type")]
    assert imported.counts() == {"market": {"read": 6, "kept": 4, "dropped": 2},
                                 "price": {"read": 9, "kept": 8, "dropped": 1}}


def test_numeric_post_from_the_api_docs():
    imported, by_id, prices = read("post_numeric.json")
    deaths = by_id["metaculus:3530"]
    pick = ("outcome_type", "status", "resolution", "resolution_value", "range_min", "range_max",
            "log_scale", "outcomes")
    assert [deaths[k] for k in pick] == ["numeric", "resolved", None, 77289125.94957079, 200.0,
                                         100000000.0, True, []]
    assert deaths["resolved_at"] == utc("2022-05-06T16:00:00") and deaths["created_at"] == utc("2020-01-27")
    assert prices.is_empty()  # numeric markets have no outcome labels to price
    assert reasons(imported) == [("metaculus:3530", "numeric_market")] * 2  # history[0] and latest


def test_list_of_posts_with_epoch_second_times():
    imported, by_id, prices = read("posts_list.json")
    bridge = by_id["metaculus:2011"]  # a date question: epoch seconds throughout
    assert bridge["outcome_type"] == "date"
    assert (bridge["status"], bridge["resolution_value"]) == ("resolved", utc("2026-05-04").timestamp())
    assert (bridge["range_min"], bridge["range_max"]) == (utc("2026-01-01").timestamp(),
                                                          utc("2027-01-01").timestamp())
    assert bridge["created_at"] == utc("2026-01-01") and bridge["resolved_at"] == utc("2026-05-05")
    ferries = by_id["metaculus:2021"]  # discrete, resolved above its range: the bound itself
    assert (ferries["outcome_type"], ferries["resolution_value"], ferries["log_scale"]) == ("numeric", 10.5, False)
    assert (by_id["metaculus:2031"]["status"], by_id["metaculus:2031"]["resolution"]) == ("cancelled", None)
    assert by_id["metaculus:2031"]["resolved_at"] == utc("2026-02-01")
    assert (by_id["metaculus:2041"]["status"], by_id["metaculus:2041"]["resolution"]) == ("ambiguous", None)
    council = by_id["metaculus:2051"]
    assert (council["status"], council["resolution"]) == ("resolved", "Green Veloria")
    assert council["outcomes"] == PARTIES
    assert series(prices, "metaculus:2051") == [(utc("2026-01-04"), o, p)
                                                for o, p in zip(PARTIES, (0.2, 0.3, 0.5))]
    # no status given: closed when the close time is at or before the newest time in the data
    assert by_id["metaculus:2071"]["status"] == "closed"  # closes 2026-01-15, posts edited 2026-03-02
    assert by_id["metaculus:2081"]["status"] == "open"  # closes 2027-01-01
    assert reasons(imported) == [("metaculus:2011", "numeric_market"),
                                 ("metaculus:2061", "unsupported_market_type"),
                                 ("metaculus:2101", "malformed_market"),  # "Purple Party" is no option
                                 ("metaculus:post:209", "malformed_market")]  # no question at all


def test_copies_of_a_question_merge_and_their_histories_unite():
    imported, by_id, prices = read("posts_page.json", "question_bare.json")
    assert len(by_id) == 4
    assert series(prices, "metaculus:1011") == [(utc("2026-01-02"), "Yes", 0.3), (utc("2026-01-05"), "Yes", 0.4),
                                                (utc("2026-01-09"), "Yes", 0.65)]
    assert by_id["metaculus:1011"]["url"] == "https://www.metaculus.com/questions/101/kestrel-bay-tram-line/"
    assert imported.counts()["market"] == {"read": 7, "kept": 5, "dropped": 2}


def test_legacy_api2_questions():
    imported, by_id, prices = read("api2_questions.json")
    freeze = by_id["metaculus:301"]
    assert (freeze["status"], freeze["resolution"]) == ("resolved", "Yes")
    assert freeze["url"] == "https://www.metaculus.com/questions/301/will-the-harbour-freeze-over-this-winter/"
    assert (freeze["created_at"], freeze["resolved_at"]) == (utc("2025-11-02"), utc("2026-02-02"))
    assert freeze["background"] == "Background of api2 question 301."
    assert series(prices, "metaculus:301") == [(utc("2025-11-03"), "Yes", 0.4), (utc("2025-12-01"), "Yes", 0.7)]
    assert by_id["metaculus:302"]["status"] == "cancelled"  # -2: annulled
    assert by_id["metaculus:303"]["status"] == "ambiguous"  # -1
    # continuous resolutions sit on the normalised 0..1 scale
    assert (by_id["metaculus:304"]["resolution_value"], by_id["metaculus:304"]["log_scale"]) == (50.0, False)
    assert by_id["metaculus:305"]["resolution_value"] == pytest.approx(1000 ** 0.5)
    assert by_id["metaculus:305"]["log_scale"] is True
    bridge = by_id["metaculus:306"]  # a date range: epoch seconds
    assert bridge["outcome_type"] == "date" and by_id["metaculus:304"]["outcome_type"] == "numeric"
    assert bridge["range_min"] == utc("2026-01-01").timestamp()
    assert bridge["resolution_value"] == (utc("2026-01-01").timestamp() + utc("2027-01-01").timestamp()) / 2
    assert by_id["metaculus:307"]["status"] == "open"  # active_state OPEN
    assert series(prices, "metaculus:307") == [(utc("2026-01-10"), "Yes", 0.42)]  # prediction_timeseries
    assert by_id["metaculus:308"]["status"] == "closed"  # no active_state; closed 2026-01-10
    assert reasons(imported) == [("metaculus:304", "numeric_market")]


def test_open_or_closed_against_the_newest_time_in_the_data_not_the_clock(tmp_path):
    page = json.loads((FIXTURES / "api2_questions.json").read_text())
    council = next(q for q in page["results"] if q["id"] == 308)
    council["last_activity_time"] = "2026-01-05T00:00:00Z"  # nothing after its close time
    (tmp_path / "q.json").write_text(json.dumps(council))
    imported = read_metaculus([tmp_path / "q.json"])
    assert imported.tables["markets"][0]["status"] == "open" and imported.unaccounted() == {}


def test_file_shapes_unknown_unreadable_and_mixed_ndjson():
    imported, by_id, prices = read("mixed.ndjson", "unknown.json", "broken.json")
    assert by_id["metaculus:310"]["resolution"] == "No"  # api2 0.0
    assert series(prices, "metaculus:4011") == [(utc("2026-01-11"), "Yes", 0.55)]
    assert reasons(imported) == [("broken.json", "truncated_file"), ("mixed.ndjson:line 3", "malformed_record"),
                                 ("mixed.ndjson:line 4", "unknown_record"), ("unknown.json", "unknown_file_shape")]
    details = {d.item_id: d.detail for d in imported.drops}
    assert str(FIXTURES / "unknown.json") in details["unknown.json"]
    assert str(FIXTURES / "broken.json") in details["broken.json"]


def test_every_fixture_in_one_import():
    imported, by_id, prices = read(*sorted(p.name for p in FIXTURES.iterdir()))
    assert len(by_id) == 22 and prices.height == 19
    assert imported.counts() == {"file": {"read": 2, "kept": 0, "dropped": 2},
                                 "market": {"read": 28, "kept": 23, "dropped": 5},
                                 "price": {"read": 20, "kept": 15, "dropped": 5},
                                 "record": {"read": 2, "kept": 0, "dropped": 2}}


def test_garbage_never_raises(tmp_path):
    files = {
        "ints.json": "[1, 2, 3]",
        "page.json": json.dumps({"results": [
            {"id": 1, "title": "No type", "published_at": "2026-01-01", "question": {"id": 11, "title": "?"}},
            {"id": 2, "title": "Bad history", "published_at": "2026-01-01", "question": {
                "id": 21, "title": "Bad history?", "type": "binary", "status": "open", "open_time": "2026-01-01",
                "aggregations": {"recency_weighted": {"history": [None, {"start_time": "x"}, {"centers": [2.0]}],
                                                      "latest": "odd"}}}},
            {"id": 3, "title": "Group", "published_at": "2026-01-01",
             "group_of_questions": {"questions": [5, {"title": "no id"}]}},
            {"possibilities": [], "created_time": "2026-01-01", "id": 4, "title": "odd api2"},
        ]}),
        "bin.json.zst": "not zstd at all",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    imported = read_metaculus(sorted(tmp_path.iterdir()))
    assert imported.unaccounted() == {}
    assert [m["market_id"] for m in imported.tables["markets"]] == ["metaculus:21"]
    assert {d.reason for d in imported.drops} == {"unknown_file_shape", "unreadable_file",
                                                  "malformed_market", "malformed_price"}
