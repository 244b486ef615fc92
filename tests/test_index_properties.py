"""Property test of the date-gated search, over random days, queries and k.

A seeded random corpus (Zipf-distributed vocabulary, random publication times, a share of
them exactly at midnight UTC and at 23:59:59) and ~200 random (day, query, k) cases. For each
case the visible matching set is computed here in Python, independently of tantivy, with the
index's own analyzer, and the search must:

(a) return no article published at or after the midnight UTC that ends the day;
(b) return exactly min(k, number of visible articles matching at least one query term);
(c) return the k best: sorted by score descending, and no visible matching article it left
    out scores higher than the lowest one it returned (checked against a second search that
    asks for every visible match, which must return exactly the visible matching set).
"""

from __future__ import annotations

import random
from datetime import date, datetime, time, timedelta, timezone

import pytest

from evalkit import article
from pastcast.search.index import ANALYZER, ArticleIndex, end_of_day_exclusive, query_terms
from pastcast.schemas import ARTICLES, frame

SEED = 20261130
N_ARTICLES = 3000
N_WORDS = 2500
N_DAYS = 40
DAY0 = date(2025, 1, 1)
N_CASES = 200
EPS = 1e-4  # BM25 scores are f32

_ONSETS = ["b", "c", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "st", "tr", "pl"]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ou"]
_CODAS = ["", "", "n", "r", "s", "t", "ng", "ing", "ed", "es", "ly"]  # some stem together


def _vocabulary(rng: random.Random) -> list[str]:
    words: dict[str, None] = {}
    while len(words) < N_WORDS:
        word = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(rng.randint(1, 3)))
        words[word + rng.choice(_CODAS)] = None
    return list(words)


def _zipf_weights(n: int, s: float = 1.1) -> list[float]:
    return [1.0 / (rank ** s) for rank in range(1, n + 1)]


def _published(rng: random.Random, day: date) -> datetime:
    kind = rng.random()
    if kind < 0.15:
        return datetime.combine(day, time(0, 0, 0), tzinfo=timezone.utc)  # exactly midnight
    if kind < 0.30:
        return datetime.combine(day, time(23, 59, 59), tzinfo=timezone.utc)  # last second of the day
    if kind < 0.35:
        return datetime.combine(day, time(23, 59, 59, 999_999), tzinfo=timezone.utc)
    return datetime.combine(day, time(0), tzinfo=timezone.utc) + timedelta(
        seconds=rng.randrange(86_400), microseconds=rng.choice([0, rng.randrange(1_000_000)]))


def _corpus(seed: int = SEED) -> tuple[list[str], list[dict]]:
    rng = random.Random(seed)
    vocab = _vocabulary(rng)
    weights = _zipf_weights(len(vocab))
    rows = []
    for i in range(N_ARTICLES):
        title = " ".join(rng.choices(vocab, weights, k=rng.randint(4, 10))).capitalize()
        text = " ".join(rng.choices(vocab, weights, k=rng.randint(20, 80)))
        day = DAY0 + timedelta(days=rng.randrange(N_DAYS))
        rows.append(article(f"a{i:05d}", title, text + ".", _published(rng, day)))
    return vocab, rows


@pytest.fixture(scope="module")
def corpus():
    vocab, rows = _corpus()
    # the independent side: each article's analyzed terms (title and body, like the indexed fields)
    terms = {r["article_id"]: set(ANALYZER.analyze(r["title"])) | set(ANALYZER.analyze(r["text"])) for r in rows}
    return vocab, rows, terms


@pytest.fixture(scope="module")
def index(corpus, tmp_path_factory):
    _, rows, _ = corpus
    return ArticleIndex.build(frame(rows, ARTICLES), tmp_path_factory.mktemp("ix-props"))


def _random_query(rng: random.Random, vocab: list[str]) -> str:
    n = rng.randint(1, 4)
    kind = rng.random()
    if kind < 0.4:  # rare words: small matching sets, often fewer than k
        words = rng.sample(vocab[len(vocab) // 2:], n)
    elif kind < 0.8:  # Zipf-drawn: frequent words match most of the corpus
        words = rng.choices(vocab, _zipf_weights(len(vocab)), k=n)
    else:  # a mix with words no article has, odd case and punctuation
        words = [rng.choice(vocab).upper(), "qqxyzzy", rng.choice(vocab) + "!", "(" + rng.choice(vocab)]
        words = rng.sample(words, n)
    return " ".join(words)


def test_search_properties(index, corpus):
    vocab, rows, doc_terms = corpus
    rng = random.Random(SEED + 1)
    published = {r["article_id"]: r["published_at"] for r in rows}
    n_cases = short_cases = empty_cases = 0
    for _ in range(N_CASES):
        day = DAY0 + timedelta(days=rng.randrange(-2, N_DAYS + 2))
        query = _random_query(rng, vocab)
        k = rng.choice([1, 2, 5, 10, 20, rng.randint(1, 60)])
        cutoff = end_of_day_exclusive(day)
        terms = set(query_terms(query))
        expected = {aid for aid, t in doc_terms.items() if published[aid] < cutoff and terms & t}

        hits = index.search(query, day, k)
        ids = [h.article_id for h in hits]
        case = f"day={day} query={query!r} k={k}"
        # (a) nothing from after the day (checked on the corpus's own times, not the stored ones)
        assert all(published[a] < cutoff for a in ids), case
        assert all(h.published_at.astimezone(timezone.utc) < cutoff for h in hits), case
        # (b) exactly min(k, visible matches), each a visible match, no duplicates
        assert len(ids) == min(k, len(expected)), (case, len(ids), len(expected))
        assert len(set(ids)) == len(ids), case
        assert set(ids) <= expected, case
        # (c) the k best: sorted, and nothing left out scores higher than the lowest returned
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True), case
        if expected:
            everything = index.search(query, day, len(expected) + 5, snippets=False)
            assert {h.article_id for h in everything} == expected, case  # gate and match agree
            by_id = {h.article_id: h.score for h in everything}
            for h in hits:
                assert abs(by_id[h.article_id] - h.score) <= EPS, case
            left_out = [s for a, s in by_id.items() if a not in set(ids)]
            if left_out:
                assert max(left_out) <= min(scores) + EPS, case
            # and the returned scores are the top-k scores of the full ranking
            top = sorted(by_id.values(), reverse=True)[:k]
            assert all(abs(a - b) <= EPS for a, b in zip(scores, top)), case
        n_cases += 1
        short_cases += len(expected) < k
        empty_cases += not expected
    assert n_cases == N_CASES
    # the generator must exercise both regimes: fewer matches than k, and more
    assert 0 < short_cases < N_CASES, short_cases
    assert empty_cases < N_CASES // 2, empty_cases


@pytest.mark.slow  # over 10 s: `make test-slow` and CI
def test_boundary_articles_flip_exactly_at_midnight(index, corpus):
    """Articles at 00:00:00 of D+1 are invisible on D and visible on D+1; 23:59:59 of D is visible on D."""
    _, rows, doc_terms = corpus
    at_midnight = [r for r in rows if r["published_at"].time() == time(0)]
    last_second = [r for r in rows if r["published_at"].time() >= time(23, 59, 59)]
    assert len(at_midnight) > 100 and len(last_second) > 100
    rng = random.Random(SEED + 2)
    for r in rng.sample(at_midnight, 20) + rng.sample(last_second, 20):
        # a query made of the article's rarest word (as written: a stem stemmed again may change)
        words = sorted({w for w in f"{r['title']} {r['text']}".replace(".", " ").split()})
        rare = min(words, key=lambda w: (sum(ANALYZER.analyze(w)[0] in s for s in doc_terms.values()), w))
        pub_day = r["published_at"].date()
        before = {h.article_id for h in index.search(rare, pub_day - timedelta(days=1), 10_000, snippets=False)}
        on = {h.article_id for h in index.search(rare, pub_day, 10_000, snippets=False)}
        assert r["article_id"] not in before
        assert r["article_id"] in on


def test_frequent_terms_are_left_out_only_while_k_results_still_come_back(tmp_path, monkeypatch):
    import pastcast.search.index as index_module
    from evalkit import article, ts
    from pastcast.schemas import ARTICLES, frame

    # "common" is in every article; "rare" in 3 of them; all published by 2024-01-05
    rows = [article(f"d{i}", f"doc {i}", f"common words here {'rare' if i < 3 else 'plain'} text {i}",
                    ts(f"2024-01-0{1 + i % 5}")) for i in range(40)]
    idx = ArticleIndex.build(frame(rows, ARTICLES), tmp_path / "idx")
    monkeypatch.setattr(index_module, "PRUNE_FROM_DOCS", 10)  # treat this index as large
    # enough rare matches for k=3: the frequent term is left out, only rare documents come back
    assert {h.article_id for h in idx.search("common rare", date(2024, 1, 5), 3)} == {"d0", "d1", "d2"}
    # k=10 > 3 rare matches: every term counts again, so 10 results (rare ones first)
    hits = idx.search("common rare", date(2024, 1, 5), 10)
    assert len(hits) == 10 and {h.article_id for h in hits[:3]} == {"d0", "d1", "d2"}
    # the gate holds on both paths
    early = idx.search("common rare", date(2024, 1, 1), 10)
    assert early and all(h.published_at.date() <= date(2024, 1, 1) for h in early)
