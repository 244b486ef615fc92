from datetime import datetime, timedelta, timezone

from pastcast.curate.dedup import exact_dedup
from pastcast.schemas import ARTICLES, frame

T0 = datetime(2026, 2, 1, tzinfo=timezone.utc)


def row(i, url, text_hash, day, crawl_day=None):
    return {"article_id": f"a{i}", "url": url, "canonical_url": url, "domain": url.split("/")[2],
            "title": "t", "text": "x", "published_at": T0 + timedelta(days=day),
            "crawled_at": T0 + timedelta(days=crawl_day if crawl_day is not None else day),
            "content_hash": text_hash, "word_count": 1}


def test_earliest_copy_wins_and_every_removed_copy_is_a_drop():
    articles = frame([
        row(1, "https://b.example/s", "h1", 3),   # syndicated later
        row(2, "https://a.example/s", "h1", 1),   # original, earliest
        row(3, "https://c.example/s", "h1", 2),
        row(4, "https://a.example/s", "h2", 5),   # same URL as a2, crawled again later
        row(5, "https://d.example/other", "h3", 4),
    ], ARTICLES)
    kept, drops = exact_dedup(articles)
    assert kept["article_id"].to_list() == ["a2", "a5"]
    assert kept["dup_cluster"].to_list() == ["a2", "a5"]
    reasons = dict(zip(drops["item_id"], drops["reason"]))
    assert reasons == {"a4": "duplicate_url", "a3": "exact_duplicate", "a1": "exact_duplicate"}
    assert all("kept a2" in d for d in drops["detail"])
    assert kept.height + drops.height == articles.height


def test_ties_on_publication_go_to_the_earliest_crawl():
    articles = frame([row(1, "https://b.example/s", "h", 1, crawl_day=3),
                      row(2, "https://a.example/s", "h", 1, crawl_day=2)], ARTICLES)
    kept, _ = exact_dedup(articles)
    assert kept["article_id"].to_list() == ["a2"]
