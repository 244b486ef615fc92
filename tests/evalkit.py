"""Tiny synthetic snapshots for the evaluator tests, built with the declared schemas."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, timezone
from pathlib import Path

from pastcast.schemas import ARTICLES, DROPS, MARKET_PRICES, MARKETS, POSTS, QUESTIONS, empty, frame


def ts(day: date | str, hour: int = 12, minute: int = 0, second: int = 0) -> datetime:
    day = date.fromisoformat(day) if isinstance(day, str) else day
    return datetime(day.year, day.month, day.day, hour, minute, second, tzinfo=timezone.utc)


def article(article_id: str, title: str, text: str, published_at: datetime) -> dict:
    return {
        "article_id": article_id, "url": f"https://news.example/{article_id}", "canonical_url": None,
        "domain": "news.example", "title": title, "text": text, "language": "en",
        "published_at": published_at, "date_source": "meta", "date_confidence": 1.0,
        "crawled_at": published_at, "warc_file": "synthetic.warc.gz", "warc_record_id": article_id,
        "content_hash": hashlib.sha1(text.encode()).hexdigest(), "dup_cluster": article_id,
        "word_count": len(text.split()),
    }


def question(question_id: str, title: str, answer: str, open_date: str, resolution_date: str, **kw) -> dict:
    row = {
        "question_id": question_id, "title": title, "background": "", "resolution_criteria": "",
        "answer": answer, "answer_aliases": [], "answer_type": "person", "candidate_outcomes": [],
        "open_date": date.fromisoformat(open_date), "resolution_date": date.fromisoformat(resolution_date),
        "original_resolution_date": date.fromisoformat(resolution_date), "revision_evidence": [],
        "source_kind": "news", "source_ids": [], "generator": "synthetic", "category": "politics",
    }
    row.update(kw)
    return row


def write_snapshot(root: Path, articles: list[dict], questions: list[dict], start: str, end: str,
                   name: str = "synthetic", version: str = "v1", markets: list[dict] = (),
                   prices: list[dict] = (), posts: list[dict] = ()) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    frame(articles, ARTICLES).write_parquet(root / "articles.parquet")
    frame(questions, QUESTIONS).write_parquet(root / "questions.parquet")
    frame(markets, MARKETS).write_parquet(root / "markets.parquet")
    frame(prices, MARKET_PRICES).write_parquet(root / "market_prices.parquet")
    frame(posts, POSTS).write_parquet(root / "posts.parquet")
    empty(DROPS).write_parquet(root / "drops.parquet")
    manifest = {"name": name, "version": version, "window": {"start": start, "end": end}}
    (root / "manifest.json").write_text(json.dumps(manifest))
    return root


@contextmanager
def last_day_held(work: Path, held: Path) -> Iterator[date]:
    """A build's working folder without its last crawl day inside the block (the day's news and
    news questions moved to ``held``), with it back after: a version, then the nightly one."""
    from pastcast import pipeline
    from pastcast.daily import NEWS, built_days

    last = built_days(work)[-1]
    day = f"day={last.isoformat()}"
    for sub in (NEWS, pipeline.NEWS_QUESTIONS):
        (held / sub).mkdir(parents=True)
        shutil.move(work / sub / day, held / sub / day)
    yield last
    for sub in (NEWS, pipeline.NEWS_QUESTIONS):
        shutil.move(held / sub / day, work / sub / day)


def cut_to_days(snapshot: Path, root: Path, days: int) -> tuple[Path, date]:
    """A copy of ``snapshot`` under ``root`` whose manifest's window is its first ``days`` days,
    its search index built: a short replay of the demo snapshot."""
    from datetime import timedelta

    from pastcast.evaluate.environment import ReplayEnvironment
    from pastcast.io import write_json
    from pastcast.snapshot import MANIFEST, copy_version, read_manifest

    copy = copy_version(snapshot, root / "snapshots" / "sample")
    manifest = read_manifest(copy)
    start = date.fromisoformat(manifest["window"]["start"])
    manifest["window"]["end"] = (start + timedelta(days=days - 1)).isoformat()
    write_json(manifest, copy / MANIFEST)
    ReplayEnvironment(copy).search("warm the index")
    return copy, start
