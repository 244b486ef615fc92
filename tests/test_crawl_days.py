"""A WARC file's crawl day comes from its content records (response, resource, revisit), never
from its warcinfo record, which is dated when the file was written (issue 35); and a build whose
news questions all fall out of their window says so."""

from __future__ import annotations

from datetime import date, datetime, timezone
from io import BytesIO
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from pastcast.sources import crawl_days

from pastcast.cli import main as cli
from pastcast.sources.crawl_days import DayFiles, warc_day
from pastcast.stage_checks import news_questions_in_window
from warcs import SHARED, needs_shared

PAGES = datetime(2026, 1, 5, 23, 30, tzinfo=timezone.utc)  # when the pages were fetched
WRITTEN = datetime(2026, 11, 29, 21, 25, tzinfo=timezone.utc)  # when the file was (re)written


def crawl_warc(path: Path, records: list[tuple[str, datetime]]) -> Path:
    """A WARC of records of the given WARC-Type and WARC-Date, in order (warcio's writer)."""
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=path.name.endswith(".gz"))
        for n, (kind, when) in enumerate(records):
            dated = {"WARC-Date": when.strftime("%Y-%m-%dT%H:%M:%SZ")}
            url = f"https://news.example/{n}"
            if kind == "warcinfo":
                record = writer.create_warcinfo_record(path.name, {"software": "pastcast tests"})
                record.rec_headers.replace_header("WARC-Date", dated["WARC-Date"])
            elif kind == "response":
                body = b"<html><body><p>A page.</p></body></html>"
                http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
                record = writer.create_warc_record(url, "response", payload=BytesIO(body), http_headers=http,
                                                   warc_headers_dict=dated)
            elif kind == "request":
                http = StatusAndHeaders("GET / HTTP/1.1", [("Host", "news.example")], is_http_request=True)
                record = writer.create_warc_record(url, "request", http_headers=http, warc_headers_dict=dated)
            elif kind == "revisit":
                http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
                record = writer.create_revisit_record(url, "sha1:AAAA", url, dated["WARC-Date"], http_headers=http)
                record.rec_headers.replace_header("WARC-Date", dated["WARC-Date"])
            else:  # metadata, resource: the block's content does not matter here
                record = writer.create_warc_record(url, kind, payload=BytesIO(b"via: tests\r\n"),
                                                   warc_headers_dict=dated)
            writer.write_record(record)
    return path


# -- the day of a written WARC --------------------------------------------------------------

def test_a_warcinfo_written_months_later_does_not_date_the_crawl(tmp_path):
    path = crawl_warc(tmp_path / "repacked.warc.gz", [
        ("warcinfo", WRITTEN), ("request", PAGES), ("response", PAGES),
        ("metadata", WRITTEN), ("response", datetime(2026, 1, 9, tzinfo=timezone.utc))])
    assert warc_day(path) == PAGES.date()


@pytest.mark.parametrize("kind", ["resource", "revisit"])
def test_resource_and_revisit_records_date_the_crawl_too(tmp_path, kind):
    path = crawl_warc(tmp_path / f"{kind}.warc", [("warcinfo", WRITTEN), ("metadata", WRITTEN), (kind, PAGES)])
    assert warc_day(path) == PAGES.date()


def test_the_first_content_record_dates_the_file_not_the_earliest(tmp_path):
    """Records are written in crawl order: the first is when the crawl started, as a CC-NEWS
    name would say, and is found without reading the rest of the file."""
    later = datetime(2026, 1, 7, 8, tzinfo=timezone.utc)
    path = crawl_warc(tmp_path / "crawl.warc.gz", [("warcinfo", WRITTEN), ("response", later), ("response", PAGES)])
    assert warc_day(path) == later.date()


def test_a_file_of_warcinfo_alone_is_undated_with_its_reason(tmp_path):
    path = crawl_warc(tmp_path / "info-only.warc.gz", [("warcinfo", WRITTEN)])
    with pytest.raises(ValueError, match="info-only.warc.gz") as raised:
        warc_day(path)
    why = str(raised.value)
    assert "no response, resource or revisit record" in why and "warcinfo of 2026-11-29" in why
    grouped = DayFiles.of([path])
    assert grouped.by_day == {} and grouped.undated == {str(path): why}


def test_bookkeeping_records_alone_do_not_date_a_file(tmp_path):
    path = crawl_warc(tmp_path / "log.warc", [("warcinfo", WRITTEN), ("request", PAGES), ("metadata", PAGES)])
    with pytest.raises(ValueError, match="no response, resource or revisit record in it"):
        warc_day(path)


def test_the_search_for_a_content_record_stops_early(tmp_path, monkeypatch):
    """A file with no content record near its start (a WAT file, a log) is not read whole."""
    monkeypatch.setattr(crawl_days, "RECORDS_BEFORE_CONTENT", 3)
    path = crawl_warc(tmp_path / "wat-like.warc.gz", [("warcinfo", WRITTEN), *[("metadata", PAGES)] * 4,
                                                      ("response", PAGES)])
    with pytest.raises(ValueError, match="in its first 3 records"):
        warc_day(path)


def test_a_cc_news_name_still_reads_nothing(tmp_path):
    path = crawl_warc(tmp_path / "CC-NEWS-20260103000000-00000.warc.gz", [("warcinfo", WRITTEN), ("response", PAGES)])
    assert warc_day(path) == date(2026, 1, 3)
    assert warc_day(tmp_path / "CC-NEWS-20260103000000-00001.warc.gz") == date(2026, 1, 3)  # absent


# -- the real CC-NEWS-like file under a name without a time stamp -------------------------

FUNDUS = SHARED / "warc" / "derived" / "CC-NEWS-like-fundus-256.warc.gz"
FUNDUS_CRAWL = date(2023, 4, 28)  # its first response record; its warcinfo is dated 2026-11-29


def _fundus() -> Path:
    if not FUNDUS.is_file():
        pytest.skip(f"{FUNDUS} is absent")
    return FUNDUS


@needs_shared
def test_the_real_file_is_dated_by_its_responses_not_its_warcinfo(tmp_path):
    renamed = tmp_path / "fundus-256.warc.gz"
    renamed.symlink_to(_fundus())
    lead = crawl_days.leading_records(renamed)
    assert [kind for kind, _ in lead.before] == ["warcinfo", "request"]
    assert lead.before[0][1].startswith("2026-11-29")  # the date the build took
    assert warc_day(renamed) == FUNDUS_CRAWL


def _build(tmp_path: Path, warc_name: str):
    corpus = tmp_path / "corpus" / "warc"
    corpus.mkdir(parents=True)
    (corpus / warc_name).symlink_to(_fundus())  # a new name, no copy
    work = tmp_path / "work"
    result = CliRunner().invoke(cli, ["build", "--corpus", str(tmp_path / "corpus"), "--work", str(work),
                                      "--snapshots", str(tmp_path / "snapshots"), "--name", "fundus"])
    assert result.exit_code == 0, result.output + repr(result.exception)
    return work, result.output


@pytest.mark.slow  # over 10 s: `make test-slow` and CI
@needs_shared
def test_a_build_of_the_real_file_without_a_time_stamp_gives_news_questions(tmp_path):
    work, output = _build(tmp_path, "fundus-256.warc.gz")
    assert [d.name for d in (work / "questions" / "news").iterdir()] == [f"day={FUNDUS_CRAWL}"]
    news = pl.read_parquet(work / "questions.parquet").filter(pl.col("source_kind") == "news")
    assert news.height >= 1
    assert (news["open_date"] < news["resolution_date"]).all()
    assert news_questions_in_window(work).passed and "warning:" not in output


@pytest.mark.slow  # over 10 s: `make test-slow` and CI
@needs_shared
def test_a_build_whose_crawl_days_are_after_its_pages_warns(tmp_path):
    """The same file named as if crawled when its warcinfo was written: every news candidate
    opens after it resolves, and the build says so instead of dropping them silently."""
    work, output = _build(tmp_path, "CC-NEWS-20261129212528-00000.warc.gz")
    assert pl.read_parquet(work / "questions.parquet").filter(pl.col("source_kind") == "news").height == 0
    check = news_questions_in_window(work)
    assert not check.passed and len(check.problems) == 1
    assert "none kept" in check.problems[0] and "short_window" in check.problems[0]
    assert check.per_day and set(check.per_day) == {"2026-11-29"}
    assert "warning:" in output and "are the crawl days right?" in output
    assert "snapshot written" in output  # a warning, not a failure
