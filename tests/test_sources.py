import io
import json

import zstandard

from pastcast.sources.markets import read_manifold
from pastcast.sources.social import read_pushshift
from warcs import SAMPLE, SHARED, needs_shared

DAY_MS = 86_400_000
T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z in ms


def test_manifold_dump_binary_multiple_choice_cancel_and_bets(tmp_path):
    # Fields as in Manifold's public API (GET /v0/market/[id]) and bets (GET /v0/bets).
    dump = {"markets": [
        {"id": "b1", "question": "Will it rain?", "outcomeType": "BINARY", "createdTime": T0,
         "closeTime": T0 + 9 * DAY_MS, "isResolved": True, "resolution": "NO",
         "resolutionTime": T0 + 10 * DAY_MS, "url": "https://manifold.markets/x/rain"},
        {"id": "m1", "question": "Who wins?", "outcomeType": "MULTIPLE_CHOICE", "createdTime": T0,
         "isResolved": True, "resolution": "CHOOSE_ONE", "resolutionTime": T0 + 5 * DAY_MS,
         "answers": [{"id": "a1", "text": "Ana", "resolution": "NO"},
                     {"id": "a2", "text": "Bo", "resolution": "YES"}]},
        {"id": "c1", "question": "Cancelled?", "outcomeType": "BINARY", "createdTime": T0,
         "isResolved": True, "resolution": "CANCEL", "resolutionTime": T0 + DAY_MS},
        {"id": "bad", "question": "No type"},
    ], "bets": [
        {"id": "x1", "contractId": "b1", "createdTime": T0 + DAY_MS, "probAfter": 0.4},
        {"id": "x2", "contractId": "m1", "answerId": "a2", "createdTime": T0 + DAY_MS, "probAfter": 0.7},
        {"id": "x3", "contractId": "zzz", "createdTime": T0, "probAfter": 0.5},
    ]}
    path = tmp_path / "manifold.json"
    path.write_text(json.dumps(dump))
    markets, prices, drops = read_manifold(path)
    by_id = {m["market_id"]: m for m in markets.iter_rows(named=True)}
    assert by_id["manifold:b1"]["resolution"] == "No" and by_id["manifold:b1"]["outcomes"] == ["Yes", "No"]
    assert by_id["manifold:m1"]["resolution"] == "Bo"
    assert by_id["manifold:c1"]["resolution"] is None  # cancelled: no ground truth
    assert by_id["manifold:b1"]["resolved_at"].isoformat() == "2026-01-11T00:00:00+00:00"
    assert prices.select("market_id", "outcome", "price").rows() == [
        ("manifold:b1", "Yes", 0.4), ("manifold:m1", "Bo", 0.7)]
    assert dict(zip(drops["item_id"], drops["reason"])) == {"bad": "malformed_market", "x3": "unknown_market"}


def test_sample_market_dump_prices_all_attach():
    markets, prices, drops = read_manifold(SAMPLE / "markets" / "manifold.json")
    assert markets.height == 10 and prices.height > 100 and drops.is_empty()
    assert set(prices["market_id"]) <= set(markets["market_id"])


def test_pushshift_zst_with_string_times_and_deleted_bodies(tmp_path):
    lines = [
        {"id": "c1", "author": "a", "body": "Rovers will win", "created_utc": 1767225600, "score": 3,
         "parent_id": "t3_s1", "permalink": "/r/veloria/comments/s1/x/c1/"},
        {"id": "c2", "author": "[deleted]", "body": "[deleted]", "created_utc": "1767225700"},
        {"id": "s1", "author": "b", "title": "Cup final thread", "selftext": "", "created_utc": "1767225500"},
    ]
    raw = "\n".join(json.dumps(x) for x in lines).encode() + b"\n{not json\n"
    path = tmp_path / "rs.ndjson.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(raw))
    posts, drops = read_pushshift(path)
    assert posts["post_id"].to_list() == ["reddit:t3_s1", "reddit:t1_c1"]
    assert posts["text"].to_list() == ["Cup final thread", "Rovers will win"]
    assert dict(zip(drops["item_id"], drops["reason"])) == {"reddit:t1_c2": "deleted_body",
                                                            "rs.ndjson.zst:4": "malformed_post"}


@needs_shared
def test_real_pushshift_comments_all_accounted_for():
    posts, drops = read_pushshift(SHARED / "social" / "reddit_pushshift" / "reddit_data.zst")
    with open(SHARED / "social" / "reddit_pushshift" / "reddit_data.zst", "rb") as fh:
        text = zstandard.ZstdDecompressor(max_window_size=2**31).stream_reader(fh).read()
    lines = [l for l in io.BytesIO(text).read().splitlines() if l.strip()]
    assert posts.height + drops.height == len(lines) == 1007
    assert set(drops["reason"]) == {"deleted_body"}
