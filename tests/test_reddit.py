"""Reddit reader: real Pushshift / Arctic Shift dumps, the sample corpus and hand-made edge cases."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import zstandard

from pastcast.schemas import POSTS
from pastcast.sources.imported import Imported
from pastcast.sources.reddit import read_reddit
from pastcast.sources.social import read_posts
from warcs import SAMPLE, SHARED, needs_shared

FIXTURES = Path(__file__).parent / "fixtures" / "social"
REDDIT = SHARED / "social"
TOMBSTONES = {"[deleted]": "deleted_body", "[removed]": "removed_body"}


def raw_records(path: Path) -> list[dict]:
    """The file's records, decoded here without the reader's code."""
    data = path.read_bytes()
    if path.suffix == ".zst":
        data = zstandard.ZstdDecompressor(max_window_size=2**31).stream_reader(data).read()
    return [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]


def expected_drops(records: list[dict]) -> Counter:
    """Drop reasons the rules predict: a tombstone comment body or self text."""
    body = lambda r: r.get("body", r.get("selftext", ""))  # noqa: E731
    return Counter(TOMBSTONES[body(r).strip()] for r in records if body(r).strip() in TOMBSTONES)


def check_books(imported: Imported, records: list[dict]) -> None:
    posts = imported.frame("posts", POSTS)
    assert imported.unaccounted() == {}
    assert posts.height + len(imported.drops) == len(records) == imported.read["post"]
    assert Counter(d.reason for d in imported.drops) == expected_drops(records)
    assert posts["post_id"].n_unique() == posts.height
    assert posts["created_at"].null_count() == 0 and (posts["text"].str.strip_chars() != "").all()


def by_id(imported: Imported) -> dict[str, dict]:
    return {r["post_id"]: r for r in imported.frame("posts", POSTS).iter_rows(named=True)}


@needs_shared
def test_real_pushshift_comments_zst():
    path = REDDIT / "reddit_pushshift" / "reddit_data.zst"
    records = raw_records(path)
    imported = read_reddit([path])
    check_books(imported, records)
    assert len(records) == 1007 and len(imported.tables["posts"]) == 933
    assert Counter(d.reason for d in imported.drops) == {"deleted_body": 46, "removed_body": 28}
    posts = by_id(imported)
    first = imported.drops[0]  # line 1 is a deleted comment
    assert (first.item_id, first.reason) == ("reddit:t1_evn2i3l", "deleted_body")
    assert "reddit_data.zst line 1" in first.detail
    kept = posts["reddit:t1_evn2i3s"]
    assert kept["text"] == "no items codes = No thanks" and kept["score"] == 3
    assert kept["created_at"] == datetime(2019, 8, 1, tzinfo=timezone.utc)
    assert kept["url"] == ("https://www.reddit.com/r/DotA2/comments/ckg04g/"
                           "looks_like_we_didnt_purchase_enough_bp_levels_so/evn2i3s/")
    assert kept["parent_id"] == "t3_ckg04g" and kept["community"] == "DotA2"
    # Entities are decoded: no row keeps &gt; / &amp; although 30 raw lines carry them.
    assert not any("&gt;" in r["text"] or "&amp;" in r["text"] for r in posts.values())
    assert any(r["text"].startswith(">") for r in posts.values())


@needs_shared
def test_real_arctic_shift_comments_and_submissions_named_json():
    folder = REDDIT / "reddit_pushshift_importer"
    comments = raw_records(folder / "test_comments.json")
    submissions = raw_records(folder / "test_submissions.json")
    imported = read_reddit([folder / "test_comments.json", folder / "test_submissions.json"])
    check_books(imported, comments + submissions)
    frame = imported.frame("posts", POSTS)
    assert Counter(frame["kind"]) == {"comment": 23, "submission": 30}
    assert Counter(d.reason for d in imported.drops) == {"removed_body": 3, "deleted_body": 2}
    posts = by_id(imported)
    c = posts["reddit:t1_kod0bkd"]  # created_utc is a float here
    assert c["created_at"] == datetime(2024, 2, 1, tzinfo=timezone.utc) and c["parent_id"] == "t3_1afjd7n"
    assert c["text"] == "Absolutely stunning. Really love this, perfect finish IMO as well."
    s = posts["reddit:t3_1afwvv8"]
    assert s["kind"] == "submission" and s["community"] == "kickbasemanager" and s["parent_id"] is None
    assert s["text"] == ("Spielt Guerreiro bei Bayern von Anfang an?\n\n"
                         "[View Poll](https://www.reddit.com/poll/1afwvv8)")
    # Link posts (empty selftext) keep their title alone.
    links = [r for r in submissions if not r["selftext"].strip()]
    assert links and all(posts[f"reddit:t3_{r['id']}"]["text"] == r["title"].replace("&amp;", "&").strip()
                         for r in links)
    # created_utc as int, float and numeric string all parse to the same instant.
    for r in comments + submissions:
        row = posts.get(f"reddit:t{'3' if 'title' in r else '1'}_{r['id']}")
        if row:
            assert row["created_at"].timestamp() == float(r["created_utc"])


def test_sample_corpus_reddit_imports():
    path = SAMPLE / "social" / "reddit_sample.ndjson.zst"
    records = raw_records(path)
    imported = read_posts("reddit", [path])
    check_books(imported, records)
    assert len(records) == 80 and len(imported.tables["posts"]) == 75
    assert {d.reason for d in imported.drops} == {"deleted_body", "removed_body"}
    assert Counter(imported.frame("posts", POSTS)["kind"]) == {"submission": 20, "comment": 55}


def test_edge_cases_fixture():
    imported = read_reddit([FIXTURES / "reddit_edge.ndjson"])
    assert imported.unaccounted() == {} and imported.read == {"post": 12}
    drops = {(d.item_id, d.reason) for d in imported.drops}
    assert drops == {("reddit:t3_s3", "removed_body"), ("reddit:t3_s4", "deleted_body"),
                     ("reddit:t1_c2", "deleted_body"), ("reddit:t1_c1", "duplicate_post"),
                     ("reddit_edge.ndjson:line 9", "malformed_post"),
                     ("reddit:t1_x1", "malformed_post"), ("reddit:t1_c4", "malformed_post"),
                     ("reddit:t1_c5", "empty_body")}
    assert all("reddit_edge.ndjson line" in d.detail for d in imported.drops)
    posts = by_id(imported)
    assert list(posts) == ["reddit:t3_s1", "reddit:t3_s2", "reddit:t1_c1", "reddit:t1_c3"]
    link, self_post = posts["reddit:t3_s1"], posts["reddit:t3_s2"]
    assert link["text"] == "Cup final thread" and link["score"] == 12  # score given as a string
    assert link["url"] == "https://www.reddit.com/r/veloria/comments/s1/cup_final_thread/"
    assert link["created_at"] == datetime(2025, 12, 31, 23, 58, 20, tzinfo=timezone.utc)  # "1767225500"
    assert self_post["text"] == "Rates & prices\n\nIs 5% > 4%? Quote:\n\n> it is"
    assert self_post["created_at"] == datetime(2026, 1, 1, 0, 0, 0, 500000, tzinfo=timezone.utc)  # float
    first = posts["reddit:t1_c1"]  # the first copy wins over the later duplicate
    assert first["text"] == "Rovers will win & that's that" and first["score"] == 3
    assert first["parent_id"] == "t3_s1" and first["community"] == "veloria"
    assert first["author_hash"] and posts["reddit:t1_c3"]["author_hash"] is None  # [deleted] author
    assert posts["reddit:t1_c3"]["created_at"] == datetime(2026, 1, 1, 0, 8, 20, tzinfo=timezone.utc)


def test_ported_pushshift_zst_with_string_times_and_deleted_bodies(tmp_path):
    lines = [
        {"id": "c1", "author": "a", "body": "Rovers will win", "created_utc": 1767225600, "score": 3,
         "parent_id": "t3_s1", "permalink": "/r/veloria/comments/s1/x/c1/"},
        {"id": "c2", "author": "[deleted]", "body": "[deleted]", "created_utc": "1767225700"},
        {"id": "s1", "author": "b", "title": "Cup final thread", "selftext": "",
         "created_utc": "1767225500"},
    ]
    raw = "\n".join(json.dumps(x) for x in lines).encode() + b"\n{not json\n"
    path = tmp_path / "rs.ndjson.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(raw))
    imported = read_reddit([path])
    posts = imported.frame("posts", POSTS).sort("created_at")
    assert posts["post_id"].to_list() == ["reddit:t3_s1", "reddit:t1_c1"]
    assert posts["text"].to_list() == ["Cup final thread", "Rovers will win"]
    assert {d.item_id: d.reason for d in imported.drops} == {"reddit:t1_c2": "deleted_body",
                                                            "rs.ndjson.zst:line 4": "malformed_post"}
    assert imported.unaccounted() == {}


def test_unreadable_files_are_drops_and_the_rest_still_imports(tmp_path):
    good = tmp_path / "good.ndjson.gz"
    good.write_bytes(gzip.compress(b'{"id": "c9", "body": "fine", "created_utc": 1767225600}\n'))
    corrupt = tmp_path / "corrupt.zst"
    corrupt.write_bytes(b"\x28\xb5\x2f\xfd not really zstd")
    truncated = tmp_path / "cut.ndjson.gz"
    lines = "".join(f'{{"id": "t{i}", "body": "{i * 7919}", "created_utc": {i}}}\n'
                    for i in range(1, 2000))
    whole = gzip.compress(lines.encode())
    truncated.write_bytes(whole[: len(whole) // 2])  # cut mid-stream: the first lines still read
    not_json = tmp_path / "garbage.json"
    not_json.write_bytes(b"\x00\x01binary")
    missing = tmp_path / "missing.ndjson"
    imported = read_reddit([good, corrupt, truncated, not_json, missing])
    assert imported.unaccounted() == {}
    ids = [r["post_id"] for r in imported.tables["posts"]]
    assert ids[:2] == ["reddit:t1_c9", "reddit:t1_t1"] and 2 < len(ids) < 2000
    files = {d.item_id: d for d in imported.drops if d.item_kind == "file"}
    assert set(files) == {"corrupt.zst", "cut.ndjson.gz", "garbage.json", "missing.ndjson"}
    assert all(d.reason == ("truncated_file" if name == "cut.ndjson.gz" else "unreadable_file")
               and d.item_id in d.detail for name, d in files.items())
    assert f"after line {len(ids) - 1}" in files["cut.ndjson.gz"].detail
    assert imported.read["file"] == 4


def test_empty_import_builds_an_empty_frame():
    imported = read_reddit([])
    assert imported.frame("posts", POSTS).columns == list(POSTS) and imported.unaccounted() == {}
