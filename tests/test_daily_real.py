"""Crawl days of the real WARC/ARC files in ../shared/data (skipped without them), and one real
day built through the daily stages."""

from __future__ import annotations

from datetime import date

import polars as pl
import pytest

from pastcast import pipeline
from pastcast.daily import day_dir, scan_gathered
from pastcast.sources.crawl_days import DayFiles
from warcs import SHARED, needs_shared

pytestmark = [needs_shared, pytest.mark.slow]


def _archives() -> list:
    return sorted(p for p in (SHARED / "warc").rglob("*") if p.is_file() and (".warc" in p.name or ".arc" in p.name))


def test_every_real_archive_gets_its_day_or_a_reason():
    files = _archives()
    days = DayFiles.of(files)
    assert sum(len(v) for v in days.by_day.values()) + len(days.undated) == len(files) >= 15
    names = {f.name: d for d, fs in days.by_day.items() for f in fs}
    assert names["example.arc.gz"] == date(2014, 2, 16)  # ARC: through warcio
    assert names["warcfile.warc.lz4"] == names["warcfile.warc.gz"] == date(2020, 8, 8)  # lz4: through FastWARC
    # its warcinfo was written 2024-05-17 23:31, its first response fetched 2024-05-18 01:58
    assert names["whirlwind.warc.gz"] == date(2024, 5, 18)
    assert names["CC-NEWS-like-fundus-256.warc.gz"] == date(2023, 4, 28)  # not its warcinfo's 2026-11-29
    # no response, resource or revisit record: a WAT (metadata) and a WET (conversion) file
    for name in ("whirlwind.warc.wat.gz", "whirlwind.warc.wet.gz"):
        (why,) = [r for f, r in days.undated.items() if f.endswith(name)]
        assert "no response, resource or revisit record" in why
    # a WARC-Date of day 294 is no date: named, left out, the others go on
    (quirk,) = [r for f, r in days.undated.items() if f.endswith("clueweb-quirk.warc.gz")]
    assert "clueweb-quirk.warc.gz" in quirk and "2008-10-294" in quirk


def test_a_real_day_of_news_goes_through_the_daily_stages(tmp_path):
    """The CC-NEWS-like file of real news pages, renamed as CC-NEWS names a file of its day."""
    source = SHARED / "warc" / "derived" / "CC-NEWS-like-fundus-256.warc.gz"
    if not source.is_file():
        pytest.skip(f"{source} is absent")
    day = date(2024, 5, 1)
    target = tmp_path / "warc" / "CC-NEWS-20240501000000-00000.warc.gz"
    target.parent.mkdir()
    target.symlink_to(source)  # a new name, no copy: the data stays in ../shared
    work = tmp_path / "work"
    ingest = pipeline.ingest_news_days([target], work, [day], workers=2)
    dedup = pipeline.dedup_news_days(work, [day])
    gathered = pipeline.gather_news(work)
    assert ingest.rows_in >= 256 and ingest.rows_out >= 200  # records read, articles kept
    assert ingest.rows_in == ingest.rows_out + sum(ingest.drops.values())  # every record accounted for
    assert dedup.rows_in == ingest.rows_out and dedup.rows_in == dedup.rows_out + sum(dedup.drops.values())
    articles = scan_gathered(work).collect()
    assert articles.height == gathered.rows_out == dedup.rows_out
    assert articles["article_id"].is_unique().all()
    assert pl.read_parquet(day_dir(work, day) / "ingest" / "articles.parquet").height == ingest.rows_out
