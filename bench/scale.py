"""A year of news at scale: what the nightly tail costs when a day is added to N articles.

For each N (default 10k, 100k, 1M), writes a working folder as the per-day stages leave it
after 365 crawl days of N deduplicated articles in all: each day's ``news/day=D/dedup/
articles.parquet`` (the articles table's columns, ~2.5 KB of English-like text an article, the
size of a CC-NEWS article after extraction), the dedup index's ``docs`` and ``clusters`` rows
(one cluster an article; the tail reads nothing else of it) and each day's candidate questions
(``questions/news/day=D``, one an outcome report, ~1% of articles, shaped like the extractive
generator's). Generated as tables, not through WARC ingest, so a million articles fit this
machine. Then:

1. **first version**: ``pipeline.tail`` (gather, filter, a version, the full blocking checks,
   LATEST) on the 365 days: the setup, timed but not the figure;
2. **+1 day**, five nights in a row: a new day of 2,740 articles (a million a year's daily
   share) and its questions, then ``pipeline.tail`` again in a fresh process, as the nightly
   build runs it: wall and CPU time of the tail, peak RSS of the process, bytes written to the
   working folder and the snapshot store (files new or changed, from a listing before and
   after), the store's growth; the median night is the figure (this VM is shared: its speed
   drifts by 2x within minutes); every version verified in full (``snapshot verify``).

Goal (issue 20): at 1M the +1-day tail costs within 2x of 10k, and writes under 5% of the
corpus's bytes. Prints a table; results in ``.bench-cache/scale.json``.

    .venv/bin/python bench/scale.py [--sizes 10000,100000,1000000] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import CACHE, environment, table, write_json  # noqa: E402
from incremental_days import EVENTS, FIRST, LAST, PUBLISHERS, TOWNS, _sentence  # noqa: E402

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from pastcast.schemas import ARTICLES, QUESTIONS, conform  # noqa: E402

HERE = CACHE / "scale"
RESULTS = CACHE / "scale.json"
FIRST_DAY = date(2025, 1, 1)
DAYS = 365
NEW_DAY_ARTICLES = 2_740  # 1M a year, a day's share
NIGHTS = 5  # nightly builds measured in a row (a noisy shared machine: the median is reported)
PARAGRAPHS = 40_000  # the pool texts are drawn from: large enough that a page rarely repeats one
PER_ARTICLE = 6  # paragraphs an article (~2.5 KB)
QUESTION_SHARE = 0.01
NAME = "scale"


def paragraph_pool(rng: random.Random) -> pl.Series:
    return pl.Series([" ".join(_sentence(rng) for _ in range(3)) for _ in range(PARAGRAPHS)])


def day_tables(day: date, count: int, start: int, pool: pl.Series, seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``count`` articles crawled on ``day`` (ids from ``start``) and the questions of the ~1%
    that report an outcome (resolving that day, opened two weeks before)."""
    rs = np.random.default_rng(seed)
    ids = pl.Series([f"a{start + i:010d}" for i in range(count)])
    picks = [pool.gather(rs.integers(0, len(pool), count)) for _ in range(PER_ARTICLE)]
    outcome = rs.random(count) < QUESTION_SHARE
    who = [f"{FIRST[a]} {LAST[b]}" for a, b in zip(rs.integers(0, len(FIRST), count), rs.integers(0, len(LAST), count))]
    event = [f"{day.year} {TOWNS[a]} {EVENTS[b]}"
             for a, b in zip(rs.integers(0, len(TOWNS), count), rs.integers(0, len(EVENTS), count))]
    publisher = [PUBLISHERS[i] for i in rs.integers(0, len(PUBLISHERS), count)]
    midnight = datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
    seconds = rs.integers(0, 23 * 3600, count)
    frame = pl.DataFrame({"article_id": ids, "who": who, "event": event, "outcome": outcome,
                          "domain": publisher, **{f"p{i}": p for i, p in enumerate(picks)},
                          "published_at": [midnight + timedelta(seconds=int(s)) for s in seconds]})
    lead = (pl.when(pl.col("outcome")).then(pl.format("{} won the {}, officials said.\n", "who", "event"))
            .otherwise(pl.lit("")))
    title = pl.when(pl.col("outcome")).then(pl.format("{} wins the {}", "who", "event")).otherwise(
        pl.col("p0").str.slice(0, 60).str.replace(r"\s+\S*$", ""))
    url = pl.format("https://www.{}/news/{}/story-{}", "domain", pl.lit(day.isoformat()), "article_id")
    text = pl.concat_str([lead, pl.concat_str([pl.col(f"p{i}") for i in range(PER_ARTICLE)], separator="\n")])
    articles = frame.select(
        "article_id", url.alias("url"), url.alias("canonical_url"), "domain", title.alias("title"),
        text.alias("text"), pl.lit("en").alias("language"), pl.col("published_at").dt.cast_time_unit("us"),
        pl.col("published_at").dt.date().alias("published_local_date"),
        pl.lit(0, pl.Int32).alias("published_utc_offset_minutes"), pl.lit("meta").alias("date_source"),
        pl.lit(0.9).alias("date_confidence"),
        (pl.col("published_at").dt.cast_time_unit("us") + pl.duration(minutes=30)).alias("crawled_at"),
        pl.lit(f"CC-NEWS-{day:%Y%m%d}000000-00000.warc.gz").alias("warc_file"),
        pl.format("<urn:uuid:{}>", "article_id").alias("warc_record_id"),
        text.hash(7).cast(pl.String).alias("content_hash"), pl.col("article_id").alias("dup_cluster"),
        (text.str.count_matches(" ") + 1).cast(pl.Int64).alias("word_count"),
        pl.lit(1, pl.Int64).alias("dup_count"), pl.concat_list("domain").alias("dup_domains"))
    asks = frame.filter("outcome").select(
        pl.format("q{}", "article_id").alias("question_id"), pl.format("Who will win the {}?", "event").alias("title"),
        pl.format("This question is about the {}. Forecast the outcome from the news available on each day.",
                  "event").alias("background"),
        pl.format("Resolves to the winner of the {}, as reported by news outlets. As reported in the news; the "
                  "question resolves on {}.", "event", pl.lit(day.isoformat())).alias("resolution_criteria"),
        pl.col("who").alias("answer"), pl.lit([], pl.List(pl.String)).alias("answer_aliases"),
        pl.lit("person").alias("answer_type"), pl.lit(None, pl.String).alias("answer_type_original"),
        pl.lit([], pl.List(pl.String)).alias("candidate_outcomes"),
        pl.lit(day - timedelta(days=14)).alias("open_date"), pl.lit(day).alias("resolution_date"),
        pl.lit(day).alias("original_resolution_date"), pl.lit([], pl.List(pl.String)).alias("revision_evidence"),
        pl.lit("news").alias("source_kind"), pl.concat_list("article_id").alias("source_ids"),
        pl.lit("synthetic/won").alias("generator"), pl.lit("sports").alias("category"))
    return conform(articles, ARTICLES, "articles"), conform(asks, QUESTIONS, "questions")


def write_day(work: Path, day: date, articles: pl.DataFrame, questions: pl.DataFrame, db: sqlite3.Connection) -> None:
    folder = work / "news" / f"day={day.isoformat()}" / "dedup"
    folder.mkdir(parents=True, exist_ok=True)
    articles.write_parquet(folder / "articles.parquet", compression="zstd")
    qdir = work / "questions" / "news" / f"day={day.isoformat()}"
    qdir.mkdir(parents=True, exist_ok=True)
    questions.write_parquet(qdir / "questions.parquet")
    (qdir / "generate.json").write_text(json.dumps({"articles": articles.height, "generator": "synthetic"}))
    micros = articles.select("article_id", "domain", "canonical_url", "content_hash",
                             pl.col("published_at").dt.epoch("us"), pl.col("crawled_at").dt.epoch("us"))
    db.executemany("INSERT INTO docs (article_id, cluster_id, published_at, crawled_at, domain, canonical_url, "
                   "content_hash, shingles, signature, crawl_dated, batch) VALUES (?, ?, ?, ?, ?, ?, ?, 0, x'', 0, ?)",
                   [(a, a, p, c, d, u, h, day.isoformat()) for a, d, u, h, p, c in micros.iter_rows()])
    db.executemany("INSERT INTO clusters VALUES (?, ?, 1, ?)",
                   [(a, a, json.dumps([d])) for a, d in articles.select("article_id", "domain").iter_rows()])
    db.commit()


def open_state(work: Path) -> sqlite3.Connection:
    from pastcast.curate.dedup_index import _LATER_SCHEMA, _SCHEMA, INDEX_FILE  # the index's own tables

    folder = work / "dedup_state"
    folder.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(folder / INDEX_FILE)
    db.executescript(_SCHEMA + _LATER_SCHEMA)  # every index a real one has (DedupIndex adds the later ones)
    return db


def listing(*folders: Path) -> dict[str, tuple[int, int, int]]:
    out = {}
    for folder in folders:
        for root, _dirs, files in os.walk(folder):
            for f in files:
                p = os.path.join(root, f)
                st = os.stat(p)
                out[p] = (st.st_size, st.st_mtime_ns, st.st_ino)
    return out


def folder_bytes(folder: Path) -> int:
    return sum(s for s, _m, _i in listing(folder).values())


TAIL_SCRIPT = """
import json, resource, sys, time
t0 = time.perf_counter()
from pastcast import pipeline
imported = time.perf_counter() - t0
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
t, c = time.perf_counter(), cpu()
folder = pipeline.tail(sys.argv[1], sys.argv[2], sys.argv[3])
print(json.dumps({"tail_s": time.perf_counter() - t, "cpu_s": cpu() - c, "import_s": imported,
                  "version": folder.name, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_tail(work: Path, snaps: Path) -> dict:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    out = subprocess.run([sys.executable, "-c", TAIL_SCRIPT, str(work), str(snaps), NAME], env=env,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"tail failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(n: int, pool: pl.Series) -> dict:
    from pastcast import snapshot as snapshots

    base = HERE / f"n{n}"
    shutil.rmtree(base, ignore_errors=True)
    work, snaps = base / "work", base / "snapshots"
    work.mkdir(parents=True)
    db = open_state(work)
    t = time.perf_counter()
    per_day = [n // DAYS + (1 if i < n % DAYS else 0) for i in range(DAYS)]
    start = 0
    for i, count in enumerate(per_day):
        day = FIRST_DAY + timedelta(days=i)
        write_day(work, day, *day_tables(day, count, start, pool, seed=i), db)
        start += count
    generated_s = time.perf_counter() - t
    corpus = sum(f.stat().st_size for f in (work / "news").glob("day=*/dedup/articles.parquet"))
    print(f"N={n}: {DAYS} days written in {generated_s:.0f} s ({corpus / 1e6:.0f} MB of article tables); "
          "first version ...", flush=True)
    first = run_tail(work, snaps)
    store_first = folder_bytes(snaps / NAME)
    print(f"  first version {first['version']} in {first['tail_s']:.1f} s; adding a day ...", flush=True)

    nights = []
    for night in range(NIGHTS):  # nightly builds in a row, each adding one day: the median is the figure
        day = FIRST_DAY + timedelta(days=DAYS + night)
        articles, questions = day_tables(day, NEW_DAY_ARTICLES, start, pool, seed=DAYS + night)
        start += NEW_DAY_ARTICLES
        write_day(work, day, articles, questions, db)
        new_day_bytes = (work / "news" / f"day={day.isoformat()}" / "dedup" / "articles.parquet").stat().st_size
        store_before = folder_bytes(snaps / NAME)
        before = listing(work, snaps)
        run = run_tail(work, snaps)
        after = listing(work, snaps)
        changed = {p: v[0] for p, v in after.items() if before.get(p) != v}
        by_place: dict[str, int] = {}
        for p, size in changed.items():
            rel = Path(p).relative_to(base).parts
            key = "/".join(rel[:3] if rel[0] == "snapshots" else rel[:2])
            by_place[key] = by_place.get(key, 0) + size
        nights.append({**run, "new_day_bytes": new_day_bytes, "bytes_written": sum(changed.values()),
                       "written_by_place": dict(sorted(by_place.items(), key=lambda kv: -kv[1])),
                       "store_growth_bytes": folder_bytes(snaps / NAME) - store_before,
                       "store_written_bytes": snapshots.read_manifest(snaps / NAME / run["version"]).get("store"),
                       "published": snapshots.latest_version(snaps, NAME) == run["version"]})
        print(f"  night {night + 1}: {run['tail_s']:.1f} s wall, {run['cpu_s']:.1f} s CPU", flush=True)
    db.close()
    versions = snapshots.versions(snaps, NAME)
    problems = {v: snapshots.verify(snaps / NAME / v) for v in versions}
    mid = sorted(nights, key=lambda r: r["tail_s"])[len(nights) // 2]
    row = {
        "articles": n, "days": DAYS, "new_day_articles": NEW_DAY_ARTICLES, "nights": nights,
        "questions": pl.scan_parquet(str(work / "questions" / "news" / "day=*" / "questions.parquet"))
                     .select(pl.len()).collect().item(),
        "corpus_bytes": corpus, "generate_s": generated_s, "first_tail_s": first["tail_s"],
        "store_first_bytes": store_first,
        "tail_s": mid["tail_s"], "cpu_s": sorted(r["cpu_s"] for r in nights)[len(nights) // 2],
        "import_s": mid["import_s"], "peak_rss_mb": max(r["peak_rss_mb"] for r in nights),
        "bytes_written": mid["bytes_written"], "written_by_place": mid["written_by_place"],
        # the most a night wrote: a night on which tantivy merged the small segments of the nights before
        "most_bytes_written": max(r["bytes_written"] for r in nights),
        "written_share_of_corpus": mid["bytes_written"] / corpus,
        "store_growth_bytes": mid["store_growth_bytes"], "store_written_bytes": mid["store_written_bytes"],
        "published": all(r["published"] for r in nights), "verified": {v: not p for v, p in problems.items()},
    }
    bad = {v: p[:3] for v, p in problems.items() if p}
    if bad or not row["published"]:
        print(f"  PROBLEM: published={row['published']} verify={bad}", flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000", help="comma-separated article counts")
    parser.add_argument("--keep", action="store_true", help="keep the working folders in .bench-cache/scale")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    pool = paragraph_pool(random.Random(2026))
    rows = []
    for n in sizes:
        rows.append(measure(n, pool))
        if not args.keep:
            shutil.rmtree(HERE / f"n{n}", ignore_errors=True)
        write_json(RESULTS, {"environment": environment(), "rows": rows})
    smallest = rows[0]
    print(table(["N articles", "questions", "corpus MB", "first tail s", "+1 day tail s", "x smallest",
                 "CPU s", "x smallest", "peak RSS MB", "written MB", "% of corpus", "most MB a night", "store +MB",
                 "verified"],
                [[f"{r['articles']:,}", f"{r['questions']:,}", f"{r['corpus_bytes'] / 1e6:.0f}",
                  f"{r['first_tail_s']:.1f}", f"{r['tail_s']:.1f}", f"{r['tail_s'] / smallest['tail_s']:.2f}",
                  f"{r['cpu_s']:.1f}", f"{r['cpu_s'] / smallest['cpu_s']:.2f}",
                  f"{r['peak_rss_mb']:.0f}", f"{r['bytes_written'] / 1e6:.1f}",
                  f"{100 * r['written_share_of_corpus']:.2f}", f"{r['most_bytes_written'] / 1e6:.1f}",
                  f"{r['store_growth_bytes'] / 1e6:.1f}",
                  "yes" if all(r["verified"].values()) and r["published"] else "NO"] for r in rows],
                title=f"Adding a day of {NEW_DAY_ARTICLES:,} articles to {DAYS} days of N"))
    print(f"results: {RESULTS}")


if __name__ == "__main__":
    main()
