import random
from datetime import datetime, timedelta, timezone

import numpy as np
import polars as pl
import pytest

from pastcast.curate.dedup import DedupConfig, deduplicate
from pastcast.curate.dedup_index import DedupIndex
from pastcast.curate.minhash import MinHashConfig, jaccard, shingles, signatures
from pastcast.schemas import ARTICLES, frame

T0 = datetime(2026, 2, 1, tzinfo=timezone.utc)
VOCABULARY = [f"w{i}" for i in range(5000)]


def story(seed: int, words: int = 300) -> str:
    rng = random.Random(seed)
    sentences = []
    while sum(len(s.split()) for s in sentences) < words:
        sentences.append(" ".join(rng.choice(VOCABULARY) for _ in range(rng.randint(8, 20))) + ".")
    return " ".join(sentences)


def row(i, text, day, url=None, crawl_day=None, content_hash=None):
    url = url or f"https://site{i}.example/story-{i}"
    return {"article_id": f"a{i}", "url": url, "canonical_url": url, "domain": url.split("/")[2],
            "title": "t", "text": text, "published_at": T0 + timedelta(days=day),
            "crawled_at": T0 + timedelta(days=crawl_day if crawl_day is not None else day),
            "content_hash": content_hash or f"h{i}", "word_count": len(text.split())}


def drop_map(drops):
    return {r["item_id"]: r for r in drops.iter_rows(named=True)}


def test_earliest_copy_of_url_exact_and_near_duplicates_wins_and_every_copy_is_a_drop():
    base, other = story(1), story(2)
    edited = base.replace(base.split(".")[3] + ".", "A sentence the editor added here.")
    articles = frame([
        row(1, base, 3, content_hash="same"),                         # exact copy, later
        row(2, base, 1, content_hash="same"),                         # the original: earliest
        row(3, "Breaking: " + edited + " Subscribe to our newsletter.", 2),  # near copy
        row(4, base + " x", 5, url="https://site2.example/story-2"),  # the original's URL again
        row(5, other, 4),                                             # another story
    ], ARTICLES)
    kept, drops = deduplicate(articles)
    assert kept["article_id"].to_list() == ["a2", "a5"]
    original = kept.row(0, named=True)
    assert original["dup_count"] == 4 and original["dup_cluster"] == "a2"
    assert original["dup_domains"] == ["site1.example", "site2.example", "site3.example"]
    assert kept.row(1, named=True)["dup_count"] == 1
    reasons = {item: d["reason"] for item, d in drop_map(drops).items()}
    assert reasons == {"a1": "exact_duplicate", "a3": "near_duplicate", "a4": "duplicate_url"}
    assert all(d.startswith("kept=a2 cluster=a2") for d in drops["detail"])
    assert kept.height + drops.height == articles.height


def test_near_copies_merge_but_different_stories_on_the_same_event_do_not():
    base = story(10)
    sentences = base.split(". ")
    names = " ".join(VOCABULARY[:40])  # the same people and places, in other sentences
    articles = frame([
        row(1, base, 1),
        row(2, ". ".join(sentences[: int(len(sentences) * 0.7)]), 2),  # truncated to 70%
        row(3, "Headline changed. " + base.replace(sentences[5], "a reworded sentence"), 2),
        row(4, names + " " + story(11), 1),
        row(5, names + " " + story(12), 2),
    ], ARTICLES)
    kept, drops = deduplicate(articles)
    assert sorted(kept["article_id"]) == ["a1", "a4", "a5"]
    assert set(drops["item_id"]) == {"a2", "a3"}


def test_duplicates_cluster_transitively():
    words = story(20).split()[:300]
    a = " ".join(words)
    b = " ".join(words[:280] + VOCABULARY[-20:])  # Jaccard ~0.87 with a
    c = " ".join(b.split()[20:] + VOCABULARY[-40:-20])  # ~0.87 with b, ~0.76 with a
    articles = frame([row(1, a, 1), row(2, b, 2), row(3, c, 3)], ARTICLES)
    kept, drops = deduplicate(articles)
    assert kept["article_id"].to_list() == ["a1"] and kept["dup_count"].item() == 3
    assert sorted(drops["item_id"]) == ["a2", "a3"]


def test_ties_on_publication_go_to_the_earliest_crawl():
    text = story(30)
    articles = frame([row(1, text, 1, crawl_day=3), row(2, text, 1, crawl_day=2)], ARTICLES)
    kept, _ = deduplicate(articles)
    assert kept["article_id"].to_list() == ["a2"]


def test_a_new_day_is_deduplicated_against_the_index_and_an_earlier_late_copy_takes_over(tmp_path):
    config = DedupConfig()
    day1 = frame([row(1, story(40), 5), row(2, story(41), 5)], ARTICLES)
    index = DedupIndex(tmp_path, config.minhash)
    kept1, drops1 = deduplicate(day1, config, index)
    assert kept1.height == 2 and drops1.height == 0
    index.close()

    index = DedupIndex(tmp_path, config.minhash)  # a later run, reopened from disk
    day2 = frame([row(3, story(40) + " Updated.", 6),   # later copy of a1: dropped
                  row(4, story(41), 3),                  # earlier copy of a2, crawled late
                  row(5, story(42), 6)], ARTICLES)
    kept2, drops2 = deduplicate(day2, config, index)
    assert sorted(kept2["article_id"]) == ["a4", "a5"]
    drops = drop_map(drops2)
    assert drops["a3"]["reason"] == "near_duplicate" and "kept=a1 cluster=a1" in drops["a3"]["detail"]
    assert drops["a2"]["reason"] == "superseded" and "kept=a4 cluster=a4" in drops["a2"]["detail"]
    taken_over = kept2.filter(pl.col("article_id") == "a4").row(0, named=True)
    assert taken_over["dup_cluster"] == "a4" and taken_over["dup_count"] == 2
    assert index.count() == 5
    index.close()

    index = DedupIndex(tmp_path, config.minhash)  # the same day again: the same answer
    again, drops_again = deduplicate(day2, config, index)
    assert sorted(again["article_id"]) == ["a4", "a5"]
    assert drop_map(drops_again)["a3"]["reason"] == "near_duplicate"
    assert index.count() == 5


def _crawl_dated(i, text, day):
    return {**row(i, text, day), "date_source": "crawl"}


def test_a_copy_stating_its_date_within_a_day_of_a_crawl_dated_copy_is_kept(tmp_path):
    text = story(50)
    # the undated copy was crawled half a day before the dated copy's stated time: the dated
    # one is kept (it can source a question; the crawl time is a bound to about a day)
    articles = frame([_crawl_dated(1, text, 1), {**row(2, text, 1.5), "date_source": "meta"}], ARTICLES)
    kept, drops = deduplicate(articles)
    assert kept["article_id"].to_list() == ["a2"] and drop_map(drops)["a1"]["reason"] == "near_duplicate"
    # stated three days after the crawl: the story was public by the crawl, the undated copy stays
    later = frame([_crawl_dated(1, text, 1), {**row(2, text, 4), "date_source": "meta"}], ARTICLES)
    kept, drops = deduplicate(later)
    assert kept["article_id"].to_list() == ["a1"] and drop_map(drops)["a2"]["reason"] == "near_duplicate"
    # alone, a crawl-dated page is kept; a dated copy from another day within the day displaces it
    config = DedupConfig()
    index = DedupIndex(tmp_path, config.minhash)
    first, _ = deduplicate(frame([_crawl_dated(3, story(51), 1)], ARTICLES), config, index)
    assert first["article_id"].to_list() == ["a3"]
    index.close()
    index = DedupIndex(tmp_path, config.minhash)
    dated = {**row(4, story(51), 1.5, crawl_day=2), "date_source": "jsonld"}
    later, later_drops = deduplicate(frame([dated], ARTICLES), config, index)
    assert later["article_id"].to_list() == ["a4"]
    assert drop_map(later_drops)["a3"]["reason"] == "superseded"
    index.close()


def test_an_index_written_before_crawl_dated_copies_is_read_as_page_dated(tmp_path):
    import sqlite3

    config = DedupConfig()
    index = DedupIndex(tmp_path, config.minhash)
    deduplicate(frame([row(1, story(60), 1)], ARTICLES), config, index)
    index.close()
    db = sqlite3.connect(tmp_path / "dedup-index.sqlite")  # the former schema: no crawl_dated
    db.execute("ALTER TABLE docs DROP COLUMN crawl_dated")
    db.commit()
    db.close()
    index = DedupIndex(tmp_path, config.minhash)
    kept, drops = deduplicate(frame([_crawl_dated(2, story(60), 0)], ARTICLES), config, index)
    assert kept.height == 0 and drop_map(drops)["a2"]["reason"] == "near_duplicate"
    assert not index.doc_by_article(["a1"])["a1"].crawl_dated
    assert index.doc_by_article(["a2"])["a2"].crawl_dated
    index.close()


def test_an_index_refuses_other_minhash_settings(tmp_path):
    DedupIndex(tmp_path, MinHashConfig()).close()
    with pytest.raises(ValueError, match="MinHash settings"):
        DedupIndex(tmp_path, MinHashConfig(num_perm=64))


def test_signature_agreement_estimates_jaccard():
    rng = random.Random(5)
    pairs = []
    for shared in (0.2, 0.5, 0.8, 0.95):
        words = [rng.choice(VOCABULARY) for _ in range(2000)]
        cut = int(len(words) * shared)
        a = words
        b = words[:cut] + [rng.choice(VOCABULARY) for _ in range(len(words) - cut)]
        pairs.append((" ".join(a), " ".join(b)))
    config = MinHashConfig(num_perm=256, bands=64)
    sigs, sizes = signatures([t for pair in pairs for t in pair], config)
    for i, (a, b) in enumerate(pairs):
        sh_a, _ = shingles(pl.Series([a]), config.shingle_words)
        sh_b, _ = shingles(pl.Series([b]), config.shingle_words)
        true = len(set(sh_a) & set(sh_b)) / len(set(sh_a) | set(sh_b))
        estimate = jaccard(sigs[2 * i], sigs[2 * i + 1])
        assert abs(estimate - true) < 0.08, (true, estimate)
        assert sizes[2 * i] == len(set(sh_a))


def test_signatures_are_stable_and_handle_empty_and_short_texts():
    texts = ["", "two words", story(50)]
    first, sizes = signatures(texts)
    again, _ = signatures(list(reversed(texts)))
    assert np.array_equal(first, again[::-1])  # a document's signature ignores its batch
    assert sizes.tolist()[:2] == [0, 1] and sizes[2] > 250
    assert jaccard(first[0], first[0]) == 0  # an empty text matches nothing, not even itself
    assert jaccard(first[1], signatures(["Two words!"])[0][0]) == 1.0


def test_texts_without_words_are_not_near_copies_of_each_other():
    articles = frame([row(1, "", 1), row(2, "", 2), row(3, "!!!", 3)], ARTICLES)
    kept, drops = deduplicate(articles)
    assert kept.height == 3 and drops.height == 0


def test_signatures_do_not_depend_on_how_texts_are_batched():
    texts = [story(60 + i, 80) for i in range(50)]
    whole, sizes = signatures(texts, batch=1_000)
    batched, batched_sizes = signatures(texts, batch=7)  # several batches, in threads
    assert np.array_equal(whole, batched) and np.array_equal(sizes, batched_sizes)


def _doc_rows(index: DedupIndex, start: int, count: int, batch: str) -> None:
    index.db.executemany(
        "INSERT INTO docs (idx, article_id, cluster_id, shingles, signature, batch) VALUES (?, ?, ?, 0, x'', ?)",
        [(i, f"a{i}", f"a{i}", batch) for i in range(start, start + count)])
    index.db.executemany("INSERT INTO clusters VALUES (?, ?, 1, '[]')",
                         [(f"a{i}", f"a{i}") for i in range(start, start + count)])
    index.commit()


def test_the_index_mark_tells_the_batches_added_since_and_sees_docs_removed(tmp_path):
    """What the nightly gather asks of the dedup index: which batches (crawl days) added docs
    since a mark, or None when docs went too; answered without counting every doc."""
    from pastcast.curate.dedup_index import batches_touched_since, index_mark

    index = DedupIndex(tmp_path, MinHashConfig())
    _doc_rows(index, 0, 5, "2026-02-01")
    mark = index_mark(tmp_path)
    assert mark == {"max_idx": 4, "removed": 0}
    assert batches_touched_since(tmp_path, mark) == (set(), set())
    _doc_rows(index, 5, 3, "2026-02-02")
    assert batches_touched_since(tmp_path, mark) == ({"2026-02-02"}, {"2026-02-02"})
    # a mark of an index that counted no deletions (written before the counter) still works
    assert batches_touched_since(tmp_path, {"docs": 5, "max_idx": 4}) == ({"2026-02-02"}, {"2026-02-02"})
    later = index_mark(tmp_path)
    index.remove_docs([1])  # a day built again retires its docs: no short list is sure then
    index.commit()
    assert batches_touched_since(tmp_path, later) is None
    assert batches_touched_since(tmp_path, {"docs": 8, "max_idx": 7}) is None
    assert index_mark(tmp_path)["removed"] == 1
    index.close()
    reopened = DedupIndex(tmp_path, MinHashConfig())  # opening again keeps the count
    assert index_mark(tmp_path) == {"max_idx": 7, "removed": 1}
    reopened.close()
