"""`pastcast ingest` on 256 real news pages of many languages (../shared/data; skipped without):
every page is a real article, so none may be dropped for its length or its age, none is dated
after its crawl, and the publisher's day is right on nearly all."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import polars as pl
import pytest
from click.testing import CliRunner

from pastcast.cli import main as cli
from warcs import SHARED, needs_shared

pytestmark = [needs_shared, pytest.mark.slow]
WARC = SHARED / "warc" / "derived" / "CC-NEWS-like-fundus-256.warc.gz"
MANIFEST = WARC.with_name("CC-NEWS-like-fundus-256.manifest.jsonl")
# Every page of this set is a real article dated by its publisher: a drop for its length, its
# age or its date is a miss; only trafilatura finding no main text at all may drop one.
ALLOWED_DROPS = {"no_text"}


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    if not WARC.is_file():
        pytest.skip(f"{WARC} is absent")
    out = tmp_path_factory.mktemp("fundus") / "out"
    result = CliRunner().invoke(cli, ["ingest", str(WARC), "--out", str(out), "--workers", "2"])
    assert result.exit_code == 0, result.output
    gold = {json.loads(line)["warc_record_id"]: json.loads(line)
            for line in MANIFEST.read_text(encoding="utf-8").splitlines() if line.strip()}
    return pl.read_parquet(out / "articles.parquet"), pl.read_parquet(out / "drops.parquet"), gold


def test_real_pages_are_dropped_only_when_they_are_not_usable_articles(ingested):
    articles, drops, gold = ingested
    page_drops = drops.filter(pl.col("stage") != "read")
    assert set(page_drops["reason"]) <= ALLOWED_DROPS, page_drops.rows()
    assert articles.height + page_drops.height == len(gold)
    assert articles.height >= 0.99 * len(gold)


def test_no_article_is_dated_after_its_crawl_and_the_publishers_day_is_kept(ingested):
    articles, _drops, gold = ingested
    assert articles.filter(pl.col("published_at") > pl.col("crawled_at") + timedelta(days=1)).height == 0
    right = sum(row["published_local_date"] == datetime.fromisoformat(
        gold[row["warc_record_id"]]["gold_publishing_date"]).date() for row in articles.iter_rows(named=True))
    assert right >= 0.95 * len(gold)  # a missing page counts as a miss; about 1% of the gold is wrong
    offsets = articles["published_utc_offset_minutes"].drop_nulls()
    assert offsets.len() >= 0.3 * articles.height and offsets.is_between(-12 * 60, 14 * 60).all()


def test_chinese_and_japanese_articles_are_counted_by_character(ingested):
    articles, _drops, _gold = ingested
    cjk = articles.filter(pl.col("language").is_in(["ja", "zh"]))
    assert cjk.height >= 2
    for row in cjk.iter_rows(named=True):
        assert row["word_count"] >= 0.3 * len(row["text"].replace(" ", "")), row["url"]
