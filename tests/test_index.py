import random
from datetime import date, datetime, timedelta, timezone

import polars as pl
import pytest

from evalkit import article, ts, write_snapshot
from pastcast.search import index as index_mod
from pastcast.search.index import ArticleIndex, end_of_day_exclusive, query_terms
from pastcast.search.index_store import open_or_build
from pastcast.schemas import ARTICLES, frame

VOCAB = ["harbor", "election", "copper", "satellite", "vaccine", "drought", "tariff", "summit", "orchestra", "glacier"]
FILLER = "report update local story people city today"
DAY0 = date(2024, 3, 1)
N_DAYS = 30


def _corpus(seed: int = 7) -> list[dict]:
    """Docs over 30 days; later docs repeat topic words more often, so they outrank earlier ones.

    An index that took a global top-k and then filtered by date would come up short on
    almost every early day: this corpus is built to catch exactly that.
    """
    rng = random.Random(seed)
    rows = []
    for day in range(N_DAYS):
        for j in range(6):
            topics = rng.sample(VOCAB, 2)
            reps = 1 + day // 3  # relevance grows with time
            text = " ".join([*(topics * reps), FILLER])
            rows.append(article(f"d{day:02d}-{j}", f"{topics[0]} news", text, ts(DAY0 + timedelta(days=day), hour=rng.randrange(24))))
    return rows


@pytest.fixture(scope="module")
def corpus():
    return _corpus()


@pytest.fixture(scope="module")
def index(corpus, tmp_path_factory):
    return ArticleIndex.build(frame(corpus, ARTICLES), tmp_path_factory.mktemp("ix"))


def _matching(rows, query):
    terms = set(query_terms(query))
    return [r for r in rows if terms & set(query_terms(f"{r['title']} {r['text']}"))]


def test_gate_is_applied_before_top_k(index, corpus):
    rng = random.Random(1234)
    published = {r["article_id"]: r["published_at"] for r in corpus}
    short_by_post_filter = 0
    for _ in range(60):
        day = DAY0 + timedelta(days=rng.randrange(-2, N_DAYS + 2))
        query = " ".join(rng.sample(VOCAB, rng.randint(1, 3)))
        k = rng.randint(1, 12)
        hits = index.search(query, day, k)
        visible = [r for r in _matching(corpus, query) if r["published_at"] < end_of_day_exclusive(day)]
        # k results whenever >= k visible docs match; never a doc from after day D
        assert len(hits) == min(k, len(visible)), (day, query, k)
        assert all(h.published_at.date() <= day for h in hits)
        assert all(published[h.article_id] < end_of_day_exclusive(day) for h in hits)
        # and they are the k best visible ones: same scores as filtering a full ranking
        everything = index.search(query, DAY0 + timedelta(days=400), 10_000)
        best_visible = [h.score for h in everything if h.published_at.date() <= day][:k]
        assert [h.score for h in hits] == pytest.approx(best_visible)
        post_filtered = [h for h in everything[:k] if h.published_at.date() <= day]
        short_by_post_filter += len(post_filtered) < len(hits)
    assert short_by_post_filter > 20  # the corpus really punishes filter-after-top-k


def test_day_boundaries_are_utc_end_of_day(tmp_path):
    d = date(2024, 5, 10)
    rows = [
        article("last-second", "kestrel", "kestrel sighting", datetime(2024, 5, 10, 23, 59, 59, 999999, tzinfo=timezone.utc)),
        article("next-midnight", "kestrel", "kestrel sighting", datetime(2024, 5, 11, 0, 0, 0, tzinfo=timezone.utc)),
        article("undated", "kestrel", "kestrel sighting", None),
    ]
    ix = ArticleIndex.build(frame(rows, ARTICLES), tmp_path / "ix")
    assert len(ix) == 2  # an undated article can never pass the gate, so it is not indexed
    assert [h.article_id for h in ix.search("kestrel", d, 10)] == ["last-second"]
    assert {h.article_id for h in ix.search("kestrel", d + timedelta(days=1), 10)} == {"last-second", "next-midnight"}
    assert ix.search("kestrel", d - timedelta(days=1), 10) == []
    # a datetime as_of gates on its UTC day
    assert [h.article_id for h in ix.search("kestrel", datetime(2024, 5, 10, 8, tzinfo=timezone.utc), 10)] == ["last-second"]


@pytest.mark.parametrize(
    "query",
    [
        'title:harbor AND (election OR', '"unclosed phrase', "published_at:[2099-01-01T00:00:00Z TO *]",
        "*", "\\", "a OR OR NOT", "+harbor -", "harbor^3 ~2", "IN [harbor]", "", "   ", "🙂 ✓ ∑",
        "harbor " * 500, "{}[]()<>!:^~\"'", "election' OR 1=1 --",
    ],
)
def test_free_text_never_raises_and_never_bypasses_gate(index, query):
    day = DAY0 + timedelta(days=3)
    hits = index.search(query, day, 5)
    assert all(h.published_at.date() <= day for h in hits)


def test_hit_fields(index):
    (hit,) = index.search("glacier", DAY0 + timedelta(days=N_DAYS), 1)
    assert hit.article_id.startswith("d")
    assert hit.published_at.tzinfo is not None and hit.published_at.utcoffset() == timedelta(0)
    assert hit.score > 0 and "glacier" in hit.snippet and "glacier" in hit.text
    assert index.search("glacier", DAY0, 0) == []


def test_open_or_build_local_then_reuse_then_rebuild_when_stale(tmp_path):
    snap = write_snapshot(tmp_path / "snap", [article("a1", "heron", "heron nest", ts("2024-01-02"))], [], "2024-01-01", "2024-01-31")
    ix = open_or_build(snap, cache_dir=tmp_path / "cache")
    assert ix.path == snap / "index" and len(ix) == 1
    stamp = (snap / "index" / index_mod.META_FILE).stat().st_mtime_ns
    assert len(open_or_build(snap, cache_dir=tmp_path / "cache")) == 1
    assert (snap / "index" / index_mod.META_FILE).stat().st_mtime_ns == stamp  # reused, not rebuilt
    # new articles table -> new fingerprint -> rebuilt
    rows = [article("a1", "heron", "heron nest", ts("2024-01-02")), article("a2", "heron", "heron egg", ts("2024-01-03"))]
    frame(rows, ARTICLES).write_parquet(snap / "articles.parquet")
    assert len(open_or_build(snap, cache_dir=tmp_path / "cache")) == 2
    assert not any(p.name.startswith(".index-") for p in snap.iterdir())  # no temp build left behind


def test_open_or_build_uses_cache_dir_when_snapshot_is_read_only(tmp_path, monkeypatch):
    snap = write_snapshot(tmp_path / "snap", [article("a1", "heron", "heron nest", ts("2024-01-02"))], [], "2024-01-01", "2024-01-31")
    from pastcast.search import index_store
    monkeypatch.setattr(index_store, "_writable", lambda path: False)
    ix = open_or_build(snap, cache_dir=tmp_path / "cache")
    assert ix.path.parent == tmp_path / "cache" and not (snap / "index").exists()
    assert [h.article_id for h in ix.search("heron", date(2024, 1, 2), 3)] == ["a1"]
    assert open_or_build(snap, cache_dir=tmp_path / "cache").path == ix.path  # found again


def test_build_accepts_lazy_frames(tmp_path, corpus):
    path = tmp_path / "a.parquet"
    frame(corpus, ARTICLES).write_parquet(path)
    ix = ArticleIndex.build(pl.scan_parquet(path), tmp_path / "ix")
    assert len(ix) == len(corpus)
    assert len(ArticleIndex.open(tmp_path / "ix")) == len(corpus)
    with pytest.raises(FileNotFoundError):
        ArticleIndex.open(tmp_path / "nowhere")


def _news(n: int, start: int = 0, day: int = 1) -> pl.DataFrame:
    words = ["harbour", "election", "budget", "cup", "rail", "mayor", "strike", "festival", "bridge", "court"]
    rows = [{"article_id": f"a{i:04d}", "title": f"{words[i % 10]} {words[(i * 3) % 10]} news {i}",
             "text": " ".join(words[(i + j) % 10] for j in range(i % 7 + 5)) + f" story {i}",
             "published_at": datetime(2026, 1, day, 8, tzinfo=timezone.utc) + timedelta(hours=i % 24)}
            for i in range(start, start + n)]
    return pl.DataFrame(rows, schema={"article_id": pl.String, "title": pl.String, "text": pl.String,
                                      "published_at": pl.Datetime("us", "UTC")})


def _results(index: ArticleIndex) -> list:
    return [[(h.article_id, round(h.score, 5)) for h in index.search(q, date(2026, 1, d), k=8, snippets=False)]
            for q in ("harbour election", "budget court", "cup festival story", "rail strike") for d in (1, 2, 3)]


def test_equally_scored_articles_are_cut_and_ordered_by_id_whatever_the_index_layout(tmp_path):
    ids = [f"t{n:03d}" for n in range(60)]
    random.Random(7).shuffle(ids)
    same = pl.DataFrame({"article_id": ids, "title": ["Harbour strike"] * 60, "text": ["Dockers strike at the harbour."] * 60,
                         "published_at": [datetime(2026, 1, 1, tzinfo=timezone.utc)] * 60},
                        schema={"article_id": pl.String, "title": pl.String, "text": pl.String,
                                "published_at": pl.Datetime("us", "UTC")})
    a = ArticleIndex.build(same, tmp_path / "a")
    b = ArticleIndex.build(same.reverse(), tmp_path / "b")  # another order, another layout
    for index in (a, b):
        hits = index.search("harbour strike", date(2026, 1, 2), k=5, snippets=False)
        assert [h.article_id for h in hits] == ["t000", "t001", "t002", "t003", "t004"]
        assert len({h.score for h in hits}) == 1


class _CountingSearcher:
    """A real searcher that counts the stored documents fetched through it."""

    def __init__(self, searcher):
        self._searcher, self.fetched = searcher, 0

    def __getattr__(self, name):
        return getattr(self._searcher, name)

    def doc(self, address):
        self.fetched += 1
        return self._searcher.doc(address)


@pytest.mark.parametrize("id_format", ["{:016x}", "story-0000{:04d}", "{:03d}é"])
def test_a_tie_among_hundreds_fetches_only_the_documents_it_returns(tmp_path, id_format):
    """Equally scored documents are cut in id order from the index's fast field, fetching only
    the k returned; ids sharing their first 8 bytes (the second format) are ordered by fetching
    those at the cut, and the result is the same either way and in either index layout."""
    n, k = 400, 7
    ids = [id_format.format(i * 7919 % 100_003) for i in range(n)]
    random.Random(3).shuffle(ids)
    same = pl.DataFrame({"article_id": ids, "title": ["Harbour strike"] * n, "text": ["Dockers strike at the harbour."] * n,
                         "published_at": [datetime(2026, 1, 1, tzinfo=timezone.utc)] * n},
                        schema={"article_id": pl.String, "title": pl.String, "text": pl.String,
                                "published_at": pl.Datetime("us", "UTC")})
    for name, rows in (("a", same), ("b", same.reverse())):
        index = ArticleIndex.build(rows, tmp_path / name)
        searcher = _CountingSearcher(index._index.searcher())
        query = index._gated_query(query_terms("harbour strike"), date(2026, 1, 2))
        top = index_mod._top(searcher, query, k)
        assert [d[2].get_first("article_id") for d in top] == sorted(ids)[:k]
        shared_prefix = len({i.encode()[:8] for i in ids}) < n
        assert searcher.fetched == k if not shared_prefix else k < searcher.fetched <= n


def _day_part(frame: pl.DataFrame, folder, key: str):
    from pastcast.io import sha256_file
    from pastcast.store import Part

    path = folder / f"{key}.parquet"
    frame.write_parquet(path)
    return Part(key, path, sha256_file(path), frame.height)


def test_a_working_index_adds_a_new_days_articles_and_scores_like_a_fresh_one(tmp_path):
    from pastcast.search.index_store import update_or_build

    day1, day2 = _news(40, 0, day=1), _news(25, 40, day=2)
    parts = tmp_path / "parts"
    parts.mkdir()
    first = update_or_build(tmp_path, [_day_part(day1, parts, "day=1")])
    assert len(first) == 40 and first.meta["updated"] is None  # built whole
    two_days = [_day_part(day1, parts, "day=1"), _day_part(day2, parts, "day=2")]
    second = update_or_build(tmp_path, two_days)
    assert len(second) == 65 and second.meta["updated"] == {"added": 25, "parts_read": 1}  # day 1 not read
    fresh = ArticleIndex.build(pl.concat([day1, day2]), tmp_path / "fresh")
    assert _results(second) == _results(fresh) and any(_results(fresh))
    assert update_or_build(tmp_path, two_days).meta == second.meta  # current: nothing to do
    # an article that went (or changed) makes it rebuild whole, to score like a fresh index
    changed = [_day_part(day1.slice(1), parts, "day=1"), two_days[1]]
    third = update_or_build(tmp_path, changed)
    assert len(third) == 64 and third.meta["updated"] is None
    assert _results(third) == _results(ArticleIndex.build(pl.concat([day1.slice(1), day2]), tmp_path / "fresh2"))
    # an update interrupted before its commit leaves no meta: the next call rebuilds
    (tmp_path / "index" / "pastcast_index.json").unlink()
    assert len(update_or_build(tmp_path, changed)) == 64
    assert len(update_or_build(tmp_path / "none", [])) == 0  # no day yet: an empty index, not an error
