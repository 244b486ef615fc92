"""Hacker News reader: the API README's real items and hand-made edge cases."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

from pastcast.schemas import POSTS
from pastcast.sources.hackernews import read_hackernews
from pastcast.sources.social import read_posts
from warcs import SHARED, needs_shared

FIXTURES = Path(__file__).parent / "fixtures" / "social"
README_ITEMS = SHARED / "social" / "hn" / "hn_api_readme_items.jsonl"


def rows(imported) -> dict[str, dict]:
    return {r["post_id"]: r for r in imported.frame("posts", POSTS).iter_rows(named=True)}


@needs_shared
def test_real_readme_items_one_of_each_type():
    items = [json.loads(line) for line in README_ITEMS.read_text().splitlines() if line.strip()]
    imported = read_posts("hn", [README_ITEMS])
    posts = rows(imported)
    assert imported.unaccounted() == {} and imported.drops == []
    assert len(posts) == len(items) == imported.read["post"] == 6
    assert {p["post_id"]: p["kind"] for p in posts.values()} == {
        f"hn:{i['id']}": i["type"] for i in items}
    assert all(p["created_at"].timestamp() == i["time"] for p, i in zip(posts.values(), items))

    story = posts["hn:8863"]  # a link story: the title alone, its url kept
    assert story["text"] == "My YC app: Dropbox - Throw away your USB drive"
    assert story["url"] == "http://www.getdropbox.com/u/2/screencast.html" and story["score"] == 111
    assert story["created_at"] == datetime(2007, 4, 4, 19, 16, 40, tzinfo=timezone.utc)
    assert story["parent_id"] is None and story["community"] is None and story["author_hash"]

    comment = posts["hn:2921983"]
    assert comment["parent_id"] == "hn:2921506" and comment["score"] is None
    assert comment["text"] == (  # <p> starts a new line
        "Aw shucks, guys ... you make me blush with your compliments.\n"
        "Tell you what, Ill make a deal: I'll keep writing if you keep reading. K?")
    assert comment["url"] == "https://news.ycombinator.com/item?id=2921983"

    ask = posts["hn:121003"]  # a text story: title, blank line, then the HTML text as plain text
    assert ask["text"].startswith(
        "Ask HN: The Arc Effect\n\nor HN: the Next Iteration\nI get the impression")
    assert "<" not in ask["text"] and ask["url"] == "https://news.ycombinator.com/item?id=121003"

    job = posts["hn:192327"]  # url "" falls back to the item page; the link's text survives
    assert job["url"] == "https://news.ycombinator.com/item?id=192327"
    assert "at http://www.justin.tv/problems/bml will go" in job["text"] and "<a" not in job["text"]

    poll, option = posts["hn:126809"], posts["hn:160705"]
    assert poll["text"] == "Poll: What would happen if News.YC had explicit support for polls?"
    assert option["parent_id"] == "hn:160704" and option["score"] == 335
    assert poll["author_hash"] == option["author_hash"]  # both by pg


def test_edge_items_deleted_dead_entities_and_bad_lines():
    files = [FIXTURES / name for name in
             ("hn_edge_items.jsonl", "hn_items_list.json", "hn_single_item.json")]
    lines = FIXTURES.joinpath("hn_edge_items.jsonl").read_text().splitlines()
    listed = json.loads(FIXTURES.joinpath("hn_items_list.json").read_text())
    imported = read_hackernews(files)
    posts = rows(imported)
    assert imported.unaccounted() == {}
    assert len(posts) + len(imported.drops) == len(lines) + len(listed) + 1 == 15
    assert imported.read == {"post": 14, "record": 1}
    assert {(d.item_id, d.reason) for d in imported.drops} == {
        ("hn:9002", "deleted_item"), ("hn:9003", "dead_item"), ("hn:9005", "deleted_body"),
        ("hn:9006", "empty_body"), ("hn_edge_items.jsonl:line 7", "malformed_post"),  # null
        ("hn_edge_items.jsonl:line 8", "malformed_post"), ("hn:9001", "duplicate_post"),
        ("hn:user:alice", "not_a_post"), ("hn:9008", "malformed_post"),  # unknown type
        ("hn:9009", "duplicate_post")}  # also in the list file: the first file's copy wins
    dup = next(d for d in imported.drops if d.item_id == "hn:9009")
    assert "hn_items_list.json item 0" in dup.detail

    entities = posts["hn:9001"]
    assert entities["text"] == ('I\'d say "yes" & more: see https://example.com/a?b=1&c=2\n'
                                "Second paragraph > first.")
    ask = posts["hn:9004"]  # time as a string; entities in the title decoded too
    assert ask["text"] == "Ask HN: Is 2 < 3?\n\nAsking for a friend & colleague."
    assert ask["created_at"] == datetime(2023, 11, 14, 22, 18, 20, tzinfo=timezone.utc)
    assert posts["hn:9009"]["url"] == "https://example.org/tool"
    assert posts["hn:9010"]["parent_id"] == "hn:9009"
    assert posts["hn:9011"]["kind"] == "pollopt" and posts["hn:9011"]["parent_id"] == "hn:126809"
    assert Counter(posts[p]["kind"] for p in posts) == {"comment": 2, "story": 2, "pollopt": 1}
    assert imported.frame("posts", POSTS).schema == POSTS


def test_unreadable_file_is_a_drop(tmp_path):
    broken = tmp_path / "items.json"
    broken.write_text('[{"id": 1, "type": "story", "title": "x", "time": 1}')  # cut short
    imported = read_hackernews([broken, FIXTURES / "hn_single_item.json"])
    assert imported.unaccounted() == {} and list(rows(imported)) == ["hn:9011"]
    assert [(d.item_id, d.item_kind, d.reason) for d in imported.drops] == [
        ("items.json", "file", "truncated_file")]
