from datetime import datetime, timezone

import pytest

from pastcast.sources.warc import HtmlPage, clean_target_uri, iter_html_pages, parse_warc_date
from warcs import LOREM, SHARED, article_html, needs_shared, write_warc


def _records(n):
    return [{"url": f"https://news.example/story-{i}", "html": article_html(f"Story {i}", LOREM * 2)}
            for i in range(n)]


def test_reads_html_responses_and_drops_the_rest(tmp_path):
    path = write_warc(tmp_path / "a.warc.gz", _records(3) + [
        {"url": "https://news.example/missing", "html": "<p>gone</p>", "status": "404 Not Found"},
        {"url": "https://news.example/logo.png", "body": b"\x89PNG....", "content_type": "image/png"},
    ])
    items = list(iter_html_pages(path))
    pages = [i for i in items if isinstance(i, HtmlPage)]
    drops = {i.reason: i for i in items if not isinstance(i, HtmlPage)}
    assert [p.url for p in pages] == [f"https://news.example/story-{i}" for i in range(3)]
    assert pages[0].crawled_at == datetime(2026, 2, 1, 12, tzinfo=timezone.utc)
    assert drops["http_status"].detail == "404"
    assert drops["not_html"].detail == "image/png"
    assert all(d.item_id.startswith("a.warc.gz#") for d in drops.values())


@pytest.mark.parametrize("cut", [0.45, 0.8])  # both fall inside a record
def test_truncated_file_keeps_records_before_the_damage(tmp_path, cut):
    full = write_warc(tmp_path / "full.warc.gz", _records(6))
    data = full.read_bytes()
    damaged = tmp_path / "damaged.warc.gz"
    damaged.write_bytes(data[: int(len(data) * cut)])
    items = list(iter_html_pages(damaged))
    pages = [i for i in items if isinstance(i, HtmlPage)]
    corrupt = [i for i in items if not isinstance(i, HtmlPage) and i.reason == "truncated_file"]
    assert 1 <= len(pages) < 6
    assert [p.url for p in pages] == [f"https://news.example/story-{i}" for i in range(len(pages))]
    assert len(corrupt) == 1 and "damaged.warc.gz" in corrupt[0].detail


def test_garbage_file_is_a_clear_drop_not_a_traceback(tmp_path):
    path = tmp_path / "garbage.warc.gz"
    path.write_bytes(b"this is not a warc file at all\n" * 10)
    (drop,) = list(iter_html_pages(path))
    assert drop.reason == "corrupt_record" and str(path) in drop.detail


def test_missing_file_is_a_drop(tmp_path):
    (drop,) = list(iter_html_pages(tmp_path / "nope.warc.gz"))
    assert drop.reason == "unreadable_file"


def test_header_helpers():
    assert clean_target_uri("<https://a.example/x>") == "https://a.example/x"
    assert parse_warc_date("2026-02-01T23:30:00+02:00") == datetime(2026, 2, 1, 21, 30, tzinfo=timezone.utc)


@needs_shared
def test_every_shared_warc_file_reads_without_an_unhandled_exception():
    files = [p for p in (SHARED / "warc").rglob("*") if p.is_file() and ".warc" in p.name or p.suffix == ".gz" and "arc" in p.name]
    assert len(files) >= 10
    pages = 0
    for path in files:
        for item in iter_html_pages(path):
            pages += isinstance(item, HtmlPage)
    assert pages >= 256  # the fundus-derived WARC alone holds 256 news pages


def test_any_cut_point_keeps_a_prefix_and_reports_the_damage(tmp_path):
    """Cut a WARC anywhere: the records before the cut are kept, and a record that lost
    content is reported (a cut inside a gzip trailer loses no content and may pass)."""
    from warcio.archiveiterator import ArchiveIterator

    full = write_warc(tmp_path / "full.warc.gz", _records(8))
    data = full.read_bytes()
    with open(full, "rb") as fh:
        records = ArchiveIterator(fh)
        starts = [records.offset for _ in records]
    urls = [p.url for p in iter_html_pages(full)]
    for cut in range(100, len(data), 97):
        path = tmp_path / f"cut-{cut}.warc.gz"
        path.write_bytes(data[:cut])
        items = list(iter_html_pages(path))
        pages = [i.url for i in items if isinstance(i, HtmlPage)]
        assert pages == urls[: len(pages)], cut
        damaged = any(getattr(i, "reason", "") in ("corrupt_record", "truncated_file") for i in items)
        started = sum(s < cut for s in starts)  # records the cut file begins
        if cut in starts:
            assert not damaged and len(pages) == started, cut
        else:
            assert damaged or len(pages) == started, cut
            assert len(pages) >= started - 1, cut


def _signature(items):
    return [(type(i).__name__, getattr(i, "reason", None), getattr(i, "url", None),
             getattr(i, "body", None), getattr(i, "crawled_at", None)) for i in items]


@needs_shared
def test_fastwarc_and_warcio_readers_agree_on_every_real_file():
    """FastWARC is the fast path; warcio is the reference. Same records, same bodies
    (chunked bodies decoded, <...> stripped from target URIs), same drops."""
    files = [p for p in sorted((SHARED / "warc").rglob("*")) if p.is_file()
             and p.name not in ("LICENSE",) and not p.name.endswith((".jsonl", ".lz4"))]
    assert len(files) >= 15
    for path in files:
        assert _signature(iter_html_pages(path, "auto")) == _signature(iter_html_pages(path, "warcio")), path
    chunked = [i for i in iter_html_pages(SHARED / "warc/warcio/example-iana.org-chunked.warc")
               if isinstance(i, HtmlPage)]
    assert chunked[0].body.rstrip().endswith(b"</html>")
    bad_uri = [i for i in iter_html_pages(SHARED / "warc/warcio/example-wget-bad-target-uri.warc.gz")
               if isinstance(i, HtmlPage)]
    assert not bad_uri[0].url.startswith("<")


@needs_shared
def test_lz4_warc_is_read_by_fastwarc():
    pages = [i for i in iter_html_pages(SHARED / "warc/resiliparse/warcfile.warc.lz4")
             if isinstance(i, HtmlPage)]
    gz = [i for i in iter_html_pages(SHARED / "warc/resiliparse/warcfile.warc.gz") if isinstance(i, HtmlPage)]
    assert len(pages) == len(gz) == 16 and [p.url for p in pages] == [p.url for p in gz]
