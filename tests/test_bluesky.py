"""Bluesky reader: real atproto records and views (the Python SDK's test data) and hand-made
answers of the other endpoints (author feed, search, thread, listRecords, Jetstream)."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

from pastcast.schemas import POSTS
from pastcast.sources.bluesky import read_bluesky
from pastcast.sources.social import read_posts
from warcs import SHARED, needs_shared

FIXTURES = Path(__file__).parent / "fixtures" / "social"
BSKY = SHARED / "social" / "bluesky"
SDK = "at://did:plc:kvwvcn5iqfooopmyzvb4qzba/app.bsky.feed.post/"
UTC = timezone.utc


def rows(imported) -> dict[str, dict]:
    return {r["post_id"]: r for r in imported.frame("posts", POSTS).iter_rows(named=True)}


def reasons(imported) -> Counter:
    return Counter(d.reason for d in imported.drops)


def quoted_views(view: dict) -> list[dict]:
    """Quoted posts a view carries in full, found here independently of the reader."""
    inner = (view.get("embed") or {}).get("record") or {}
    inner = inner if "value" in inner else inner.get("record") or {}
    return [inner] if (inner.get("value") or {}).get("$type") == "app.bsky.feed.post" else []


@needs_shared
def test_real_post_records_naive_and_offset_times():
    imported = read_bluesky([BSKY / "post_record.json", BSKY / "extended_post_record.json"])
    posts = rows(imported)
    assert imported.unaccounted() == {} and imported.drops == [] and imported.read == {"post": 2}
    plain, extended = posts[f"bluesky:{SDK}3k2yihcrp6f2c"], posts[f"bluesky:{SDK}3k2yinh52ne2x"]
    assert plain["text"] == "new text114" and plain["kind"] == "post" and plain["parent_id"] is None
    assert plain["created_at"] == datetime(2024, 2, 22, 19, 58, 13, 903293, tzinfo=UTC)
    assert plain["url"] == "https://bsky.app/profile/did:plc:kvwvcn5iqfooopmyzvb4qzba/post/3k2yihcrp6f2c"
    assert plain["score"] is None and plain["platform"] == "bluesky"
    # Unknown fields ("lol") are ignored; a naive createdAt is UTC.
    assert extended["text"] == "regress test"
    assert extended["created_at"] == datetime(2023, 7, 21, 1, 33, 51, 481951, tzinfo=UTC)
    assert plain["author_hash"] == extended["author_hash"] is not None


@needs_shared
def test_real_non_post_records_are_one_drop_each():
    follows = json.loads((BSKY / "get_follows.json").read_text())["follows"]
    imported = read_bluesky([BSKY / name for name in
                             ("like_record.json", "feed_record.json", "get_follows.json")])
    assert imported.unaccounted() == {} and "posts" not in imported.tables
    assert imported.read == {"record": 2 + len(follows)} and reasons(imported) == {"not_a_post": 8}
    by_id = {d.item_id: d for d in imported.drops}
    like = by_id["bluesky:at://did:plc:kvwvcn5iqfooopmyzvb4qzba/app.bsky.feed.like/3k5u7c7j7a52v"]
    assert like.item_kind == "record" and like.detail.endswith("app.bsky.feed.like")
    assert "like_record.json document" in like.detail
    feed = by_id["bluesky:at://did:plc:s6jnht6koorxz7trghirytmf/app.bsky.feed.generator/atproto"]
    assert feed.detail.endswith("app.bsky.feed.generator")
    assert {f"bluesky:{f['did']}" for f in follows} <= set(by_id)  # each profile, not the subject
    assert "bluesky:did:plc:kvwvcn5iqfooopmyzvb4qzba" not in by_id


@needs_shared
def test_real_thread_with_image_only_post_quoting_a_post():
    doc = json.loads((BSKY / "thread_view_post_with_embed_media.json").read_text())
    main = doc["thread"]["post"]
    expected = 1 + len(quoted_views(main)) + len(doc["thread"].get("replies") or [])
    imported = read_bluesky([BSKY / "thread_view_post_with_embed_media.json"])
    posts = rows(imported)
    assert imported.unaccounted() == {} and imported.read["post"] == expected == 2
    assert [(d.item_id, d.reason) for d in imported.drops] == [
        (f"bluesky:{SDK}3kaheyt6vpc22", "empty_body")]  # image only, quoting the other post
    quoted = posts[f"bluesky:{SDK}3kahesw26il2z"]
    assert quoted["text"] == "test" and quoted["score"] == 0 and quoted["kind"] == "post"
    assert quoted["created_at"] == datetime(2023, 9, 28, 12, 46, 18, 414000, tzinfo=UTC)


@needs_shared
def test_real_files_in_one_import_add_up():
    paths = sorted(BSKY.glob("*.json"))
    imported = read_posts("bluesky", paths)
    assert len(paths) == 6 and imported.unaccounted() == {}
    assert imported.counts() == {"post": {"read": 4, "kept": 3, "dropped": 1},
                                 "record": {"read": 8, "kept": 0, "dropped": 8}}
    assert imported.frame("posts", POSTS).height == 3


def test_author_feed_reply_repost_image_only_and_quote():
    imported = read_bluesky([FIXTURES / "bluesky_author_feed.json"])
    feed = json.loads((FIXTURES / "bluesky_author_feed.json").read_text())["feed"]
    expected = len(feed) + sum(len(quoted_views(item["post"])) for item in feed)
    posts = rows(imported)
    assert imported.unaccounted() == {} and imported.read["post"] == expected == 6
    alice = "at://did:plc:alice000000000000000000/app.bsky.feed.post/"
    bob = "at://did:plc:bob00000000000000000000/app.bsky.feed.post/"
    assert {(d.item_id, d.reason) for d in imported.drops} == {
        (f"bluesky:{alice}3aaa2", "empty_body"),  # image only
        (f"bluesky:{alice}3aaa1", "duplicate_post")}  # once reposted, once as itself
    reply = posts[f"bluesky:{bob}3bbb1"]
    assert reply["kind"] == "reply" and reply["score"] == 2
    assert reply["parent_id"] == f"bluesky:{alice}3aaa1"
    quoted = posts[f"bluesky:{bob}3bbb0"]  # createdAt with a +01:00 offset
    assert quoted["created_at"] == datetime(2025, 3, 17, 7, tzinfo=UTC) and quoted["score"] == 11
    assert posts[f"bluesky:{alice}3aaa3"]["text"] == "This is why they'll cut."
    assert reply["author_hash"] == quoted["author_hash"] != posts[f"bluesky:{alice}3aaa1"]["author_hash"]


def test_search_posts_and_thread_walk():
    imported = read_bluesky([FIXTURES / "bluesky_search_posts.json", FIXTURES / "bluesky_thread.json"])
    posts = rows(imported)
    assert imported.unaccounted() == {} and imported.read["post"] == 2 + 5
    alice = "at://did:plc:alice000000000000000000/app.bsky.feed.post/"
    bob = "at://did:plc:bob00000000000000000000/app.bsky.feed.post/"
    naive = posts[f"bluesky:{bob}3bbb2"]["created_at"]  # naive ISO with microseconds = UTC
    assert naive == datetime(2025, 3, 19, 14, 30, 0, 123456, tzinfo=UTC)
    answer = posts[f"bluesky:{alice}3aaa4"]  # -04:00 offset, a reply to the other search hit
    assert answer["created_at"] == datetime(2025, 3, 19, 19, tzinfo=UTC)
    assert answer["kind"] == "reply" and answer["parent_id"] == f"bluesky:{bob}3bbb2"
    # Thread: the anchor, its parent and a nested reply; placeholders are drops.
    assert {f"bluesky:{alice}3aaa1", f"bluesky:{bob}3bbb1", f"bluesky:{alice}3aaa5"} <= set(posts)
    assert posts[f"bluesky:{alice}3aaa5"]["parent_id"] == f"bluesky:{bob}3bbb1"
    assert {(d.item_id, d.reason) for d in imported.drops} == {
        (f"bluesky:{bob}3bbb9", "not_found_post"), (f"bluesky:{bob}3bbb8", "blocked_post")}


def test_list_records_reply_and_repost():
    imported = read_bluesky([FIXTURES / "bluesky_list_records.json"])
    assert imported.unaccounted() == {} and imported.read == {"post": 1, "record": 1}
    (reply,) = rows(imported).values()
    assert reply["kind"] == "reply" and reply["text"] == "Replying to myself"
    assert reply["parent_id"] == "bluesky:at://did:plc:alice000000000000000000/app.bsky.feed.post/3aaa1"
    (repost,) = imported.drops
    assert repost.reason == "not_a_post" and repost.detail.endswith("app.bsky.feed.repost")


def test_jetstream_create_reply_delete_and_other_events():
    path = FIXTURES / "bluesky_jetstream.jsonl"
    lines = path.read_text().splitlines()
    imported = read_bluesky([path])
    posts = rows(imported)
    assert imported.unaccounted() == {} and len(posts) + len(imported.drops) == len(lines) == 7
    carol = "at://did:plc:carol0000000000000000000/app.bsky.feed.post/"
    assert list(posts) == [f"bluesky:{carol}3ccc1", f"bluesky:{carol}3ccc2"]
    created, reply = posts[f"bluesky:{carol}3ccc1"], posts[f"bluesky:{carol}3ccc2"]
    assert created["text"] == "Polls close at 8pm" and created["score"] is None
    assert created["created_at"] == datetime(2025, 3, 20, 10, tzinfo=UTC)
    assert created["url"] == "https://bsky.app/profile/did:plc:carol0000000000000000000/post/3ccc1"
    assert reply["kind"] == "reply" and reply["parent_id"] == f"bluesky:{carol}3ccc1"
    assert [(d.item_kind, d.reason) for d in imported.drops] == [
        ("post", "deleted_post"), ("record", "not_a_post"), ("record", "not_a_post"),
        ("record", "not_a_post"), ("post", "malformed_post")]
    assert imported.drops[0].item_id == f"bluesky:{carol}3ccc0"
    assert imported.drops[-1].item_id == "bluesky_jetstream.jsonl:line 7"
    assert "line 7" in imported.drops[-1].detail


def test_odd_shapes_never_raise(tmp_path):
    docs = {"list.json": [{"uri": "at://did:plc:x/app.bsky.feed.post/1", "value": {
                "$type": "app.bsky.feed.post", "text": "ok", "createdAt": "2025-01-01T00:00:00Z"}},
                          None, {"thread": "not a node"}, {"feed": [{"post": {"uri": "x"}}]},
                          {"$type": "app.bsky.feed.post", "text": "no uri", "createdAt": "2025-01-01"},
                          {"uri": "at://did:plc:x/app.bsky.feed.post/2", "value": {
                              "$type": "app.bsky.feed.post", "text": "bad time", "createdAt": "soon"}},
                          {"hello": "world"}],
            "cut.json": '{"records": ['}
    for name, doc in docs.items():
        (tmp_path / name).write_text(doc if isinstance(doc, str) else json.dumps(doc))
    imported = read_bluesky([tmp_path / "list.json", tmp_path / "cut.json"])
    assert imported.unaccounted() == {} and len(imported.tables["posts"]) == 1
    assert reasons(imported) == {"malformed_post": 5, "not_a_post": 1, "truncated_file": 1}  # a cut document
    imported.frame("posts", POSTS)
