"""Evaluator at corpus scale: a synthetic 1M-article snapshot replayed with the retrieval baseline.

Builds (vectorised with numpy) an article table of ``--articles`` articles spread over ``--days``
days, with a Zipf-distributed vocabulary (50k word types, s=1.1, 150-400 words per article,
titles of 6-12 words), ``--questions`` questions open and resolving across the window whose
answers are planted in some articles, and a snapshot folder laid out like the tests' (articles,
questions, empty markets/prices/posts/drops, manifest.json with the window). Then it builds the
BM25 index (``ArticleIndex.build(pl.scan_parquet(...))``) and replays the snapshot with
``run_eval(snapshot, "retrieval", out, index=...)``, timing every search.

Prints: generation time, index build time and size on disk, replay time, number of searches,
search latency p50/p99, peak RSS, and whether the targets hold (search p99 < 10 ms, replay
< 5 minutes).

    .venv/bin/python bench/eval_replay.py --articles 50000          # ~1 min
    .venv/bin/python bench/eval_replay.py                           # 1M articles
    .venv/bin/python bench/eval_replay.py --workdir .bench-cache/eval --keep   # re-run the replay only
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import sys
import tempfile
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pastcast.search.index import ArticleIndex  # noqa: E402
from pastcast.evaluate.runner import run_eval  # noqa: E402
from pastcast.schemas import ARTICLES, DROPS, MARKET_PRICES, MARKETS, POSTS, QUESTIONS, empty, frame  # noqa: E402

DAY0 = date(2026, 6, 1)
VOCAB = 50_000
ZIPF_S = 1.1
BODY_WORDS = (150, 400)
TITLE_WORDS = (6, 12)
CHUNK = 25_000
PLANTED_PER_QUESTION = 40  # articles that mention a question's topic; most name its answer
SEARCH_P99_MS = 10.0
REPLAY_SECONDS = 300.0

_ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
           "br", "ch", "cl", "dr", "fl", "gr", "pl", "pr", "sh", "st", "th", "tr"]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "oo", "ou", "y"]
_CODAS = ["", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ng", "ck", "ing", "ed", "er", "ly", "tion"]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def vocabulary(rng: np.random.Generator, n: int) -> list[str]:
    """n distinct pseudo-words, shortest first: frequent words are short, as in English."""
    words: set[str] = set()
    while len(words) < n:
        m = n - len(words) + 1000
        syl = rng.integers(1, 5, size=m)
        on = rng.integers(0, len(_ONSETS), size=(m, 4))
        vo = rng.integers(0, len(_VOWELS), size=(m, 4))
        co = rng.integers(0, len(_CODAS), size=m)
        for i in range(m):
            words.add("".join(_ONSETS[on[i, j]] + _VOWELS[vo[i, j]] for j in range(syl[i])) + _CODAS[co[i]])
    pool = sorted(words)
    noise = rng.random(len(pool))  # random order within a length, not alphabetical
    order = sorted(range(len(pool)), key=lambda i: (len(pool[i]), noise[i]))
    return [pool[i] for i in order[:n]]


class Texts:
    """Turns word-id arrays into strings without a Python loop per word."""

    def __init__(self, vocab: list[str]):
        encoded = [(w + " ").encode() for w in vocab]
        self.lengths = np.array([len(b) for b in encoded], dtype=np.int64)
        self.starts = np.concatenate([[0], np.cumsum(self.lengths)[:-1]])
        self.buffer = np.frombuffer(b"".join(encoded), dtype=np.uint8)

    def join(self, ids: np.ndarray, counts: np.ndarray) -> list[str]:
        """``ids`` holds the words of consecutive documents, ``counts`` words per document."""
        tok_len = self.lengths[ids]
        tok_start = np.cumsum(tok_len) - tok_len
        src = np.repeat(self.starts[ids] - tok_start, tok_len) + np.arange(int(tok_len.sum()), dtype=np.int64)
        data = self.buffer[src].tobytes()
        ends = np.cumsum(np.add.reduceat(tok_len, np.concatenate([[0], np.cumsum(counts)[:-1]])))
        begins = np.concatenate([[0], ends[:-1]])
        return [data[b:e - 1].decode() for b, e in zip(begins.tolist(), ends.tolist())]


def zipf_sampler(n: int, s: float):
    cdf = np.cumsum(1.0 / np.arange(1, n + 1) ** s)
    cdf /= cdf[-1]
    return lambda rng, size: np.minimum(np.searchsorted(cdf, rng.random(size)), n - 1)


def make_questions(rng: np.random.Generator, vocab: list[str], n_questions: int, days: int):
    """Questions with a topic (a frequent word and two mid-frequency ones) and a person answer."""
    names = [w.capitalize() for w in vocab[2000:6000]]
    questions, plants = [], []
    for i in range(n_questions):
        open_day = int(rng.integers(0, max(1, days - 10)))
        resolve_day = min(days - 1, open_day + int(rng.integers(5, 31)))
        common = vocab[int(rng.integers(30, 600))]
        topic = [vocab[int(x)] for x in rng.integers(3000, 30000, size=2)]
        answer = f"{names[(2 * i) % len(names)]} {names[(2 * i + 1) % len(names)]}"
        rivals = [f"{names[int(a)]} {names[int(b)]}" for a, b in rng.integers(0, len(names), size=(3, 2))]
        title = f"Who will win the {common} {topic[0]} {topic[1]} race?"
        questions.append({
            "question_id": f"q{i:04d}", "title": title, "background": "", "resolution_criteria": "",
            "answer": answer, "answer_aliases": [], "answer_type": "person", "candidate_outcomes": [],
            "open_date": DAY0 + timedelta(days=open_day), "resolution_date": DAY0 + timedelta(days=resolve_day),
            "original_resolution_date": DAY0 + timedelta(days=resolve_day), "revision_evidence": [],
            "source_kind": "news", "source_ids": [], "generator": "synthetic/bench", "category": "politics",
        })
        # planted articles from 20 days before opening to resolution: most name the answer
        first = max(0, open_day - 20)
        for _ in range(PLANTED_PER_QUESTION):
            day = int(rng.integers(first, resolve_day + 1))
            who = answer if rng.random() < 0.6 else rivals[int(rng.integers(0, 3))]
            plants.append((day, f"In the {common} {topic[0]} {topic[1]} race, front runner {who} leads the field. "))
    return questions, plants


def generate(snapshot: Path, n_articles: int, days: int, n_questions: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    vocab = vocabulary(rng, VOCAB)
    texts = Texts(vocab)
    sample = zipf_sampler(VOCAB, ZIPF_S)
    questions, plants = make_questions(rng, vocab, n_questions, days)
    # planted sentences go to random articles published on the plant's day
    plant_at = rng.integers(0, n_articles, size=len(plants))
    by_article: dict[int, list[int]] = {}
    for p, a in enumerate(plant_at.tolist()):
        by_article.setdefault(a, []).append(p)
    snapshot.mkdir(parents=True, exist_ok=True)
    parts = snapshot / ".parts"
    parts.mkdir(exist_ok=True)
    base = int(datetime.combine(DAY0, datetime.min.time(), tzinfo=timezone.utc).timestamp() * 1_000_000)
    day_us = 86_400 * 1_000_000
    words = 0
    for c, lo in enumerate(range(0, n_articles, CHUNK)):
        n = min(CHUNK, n_articles - lo)
        body_counts = rng.integers(BODY_WORDS[0], BODY_WORDS[1] + 1, size=n)
        title_counts = rng.integers(TITLE_WORDS[0], TITLE_WORDS[1] + 1, size=n)
        bodies = texts.join(sample(rng, int(body_counts.sum())), body_counts)
        titles = texts.join(sample(rng, int(title_counts.sum())), title_counts)
        words += int(body_counts.sum() + title_counts.sum())
        # random times; 5% exactly at midnight, 5% at 23:59:59
        day = rng.integers(0, days, size=n)
        offset = rng.integers(0, day_us, size=n)
        kind = rng.random(n)
        offset = np.where(kind < 0.05, 0, np.where(kind < 0.10, day_us - 1_000_000, offset))
        for j in range(n):  # plants: the article moves to the plant's day, the sentence leads
            for p in by_article.get(lo + j, ()):
                day[j] = plants[p][0]
                bodies[j] = plants[p][1] + bodies[j]
        published = base + day * day_us + offset
        ids = [f"a{i:07d}" for i in range(lo, lo + n)]
        df = pl.DataFrame({
            "article_id": ids,
            "url": [f"https://news{i % 97}.example/{i}" for i in range(lo, lo + n)],
            "domain": [f"news{i % 97}.example" for i in range(lo, lo + n)],
            "title": [t.capitalize() for t in titles],
            "text": bodies,
            "language": "en",
            "published_at": pl.Series(published, dtype=pl.Int64).cast(pl.Datetime("us", "UTC")),
            "date_source": "meta",
            "date_confidence": 1.0,
            "warc_file": "synthetic.warc.gz",
            "word_count": body_counts,
        }).with_columns(pl.col("published_at").alias("crawled_at"), pl.col("article_id").alias("warc_record_id"),
                        pl.col("article_id").alias("dup_cluster"))
        df = df.select([pl.col(k).cast(v) if k in df.columns else pl.lit(None, dtype=v).alias(k)
                        for k, v in ARTICLES.items()])
        df.write_parquet(parts / f"part-{c:04d}.parquet")
    pl.scan_parquet(parts / "*.parquet").sink_parquet(snapshot / "articles.parquet")
    shutil.rmtree(parts)
    frame(questions, QUESTIONS).write_parquet(snapshot / "questions.parquet")
    empty(MARKETS).write_parquet(snapshot / "markets.parquet")
    empty(MARKET_PRICES).write_parquet(snapshot / "market_prices.parquet")
    empty(POSTS).write_parquet(snapshot / "posts.parquet")
    empty(DROPS).write_parquet(snapshot / "drops.parquet")
    end = DAY0 + timedelta(days=days - 1)
    manifest = {"name": "bench-eval", "version": "v1", "window": {"start": DAY0.isoformat(), "end": end.isoformat()}}
    (snapshot / "manifest.json").write_text(json.dumps(manifest))
    return {"seconds": time.perf_counter() - t0, "words": words,
            "parquet_mb": (snapshot / "articles.parquet").stat().st_size / 1e6}


class TimedIndex(ArticleIndex):
    """The index with every search timed (milliseconds)."""

    latencies: list[float]

    def search(self, *args, **kwargs):
        t0 = time.perf_counter()
        try:
            return super().search(*args, **kwargs)
        finally:
            self.latencies.append((time.perf_counter() - t0) * 1000)


def dir_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))] if ordered else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--articles", type=int, default=1_000_000)
    ap.add_argument("--days", type=int, default=90)
    ap.add_argument("--questions", type=int, default=330)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--workdir", type=Path, default=None, help="default: a temporary folder, removed at the end")
    ap.add_argument("--keep", action="store_true", help="keep the snapshot and index; reuse them when they match")
    args = ap.parse_args()

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="pastcast-bench-eval-"))
    workdir.mkdir(parents=True, exist_ok=True)
    snapshot, index_dir, out = workdir / "snapshot", workdir / "index", workdir / "run"
    params = {"articles": args.articles, "days": args.days, "questions": args.questions, "seed": args.seed}
    params_file = workdir / "params.json"
    reuse = (args.keep and params_file.is_file() and json.loads(params_file.read_text()) == params
             and (snapshot / "articles.parquet").is_file() and (index_dir / "meta.json").is_file())
    results: dict = {"params": params, "reused": bool(reuse)}
    print(f"workdir {workdir}  {params}", flush=True)
    try:
        if not reuse:
            for p in (snapshot, index_dir, params_file):
                shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
            gen = generate(snapshot, args.articles, args.days, args.questions, args.seed)
            results["generation"] = gen
            print(f"generated {args.articles:,} articles ({gen['words']:,} words, articles.parquet "
                  f"{gen['parquet_mb']:,.0f} MB) in {gen['seconds']:.1f} s; peak RSS {peak_rss_mb():,.0f} MB", flush=True)
            t0 = time.perf_counter()
            ArticleIndex.build(pl.scan_parquet(snapshot / "articles.parquet"), index_dir)
            results["index_build_seconds"] = time.perf_counter() - t0
            print(f"index built in {results['index_build_seconds']:.1f} s; peak RSS {peak_rss_mb():,.0f} MB", flush=True)
            params_file.write_text(json.dumps(params))
        results["index_mb"] = dir_mb(index_dir)
        rss_before_replay = peak_rss_mb()

        index = TimedIndex.open(index_dir)
        index.latencies = []
        shutil.rmtree(out, ignore_errors=True)
        t0 = time.perf_counter()
        run = run_eval(snapshot, "retrieval", out, index=index)
        replay = time.perf_counter() - t0
        lat = index.latencies
        results.update({
            "documents": len(index), "replay_seconds": replay, "searches": len(lat),
            "search_ms_total": sum(lat), "search_p50_ms": percentile(lat, 50), "search_p99_ms": percentile(lat, 99),
            "search_max_ms": max(lat, default=float("nan")), "search_mean_ms": statistics.fmean(lat) if lat else float("nan"),
            "forecasts": run.run["forecasts_submitted"], "summary": run.summary,
            "peak_rss_mb": peak_rss_mb(), "peak_rss_before_replay_mb": rss_before_replay,
        })
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)

    r = results
    print()
    print(f"{'articles':<28}{r['documents']:>14,}")
    if "generation" in r:
        print(f"{'generation':<28}{r['generation']['seconds']:>12.1f} s")
        print(f"{'index build':<28}{r['index_build_seconds']:>12.1f} s")
    print(f"{'index size on disk':<28}{r['index_mb']:>11,.0f} MB")
    print(f"{'replay total':<28}{r['replay_seconds']:>12.1f} s")
    print(f"{'  of which in search':<28}{r['search_ms_total'] / 1000:>12.1f} s")
    print(f"{'searches':<28}{r['searches']:>14,}")
    print(f"{'search p50 / p99 / max':<28}{r['search_p50_ms']:>8.2f} / {r['search_p99_ms']:.2f} / {r['search_max_ms']:.1f} ms")
    print(f"{'forecasts submitted':<28}{r['forecasts']:>14,}")
    summary = r["summary"]
    print(f"{'mean BSS / accuracy':<28}{str(summary.get('mean_bss')):>14} / {summary.get('accuracy')}")
    print(f"{'peak RSS (before replay)':<28}{r['peak_rss_mb']:>11,.0f} MB ({r['peak_rss_before_replay_mb']:,.0f} MB)")
    ok_p99, ok_replay = r["search_p99_ms"] < SEARCH_P99_MS, r["replay_seconds"] < REPLAY_SECONDS
    print(f"target search p99 < {SEARCH_P99_MS:.0f} ms: {'met' if ok_p99 else 'MISSED'}; "
          f"replay < {REPLAY_SECONDS / 60:.0f} min: {'met' if ok_replay else 'MISSED'}")
    print(json.dumps({k: v for k, v in r.items() if k != "summary"}, default=str))


if __name__ == "__main__":
    main()
