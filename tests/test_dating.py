from datetime import datetime, timezone

from pastcast.curate.dating import date_page, parse_datetime, parse_html

CRAWL = datetime(2026, 2, 14, 6, 0, tzinfo=timezone.utc)


def page(head: str = "", body: str = "<p>text</p>"):
    return parse_html(f"<html><head>{head}</head><body>{body}</body></html>")


def test_jsonld_is_trusted_first_and_converted_to_utc():
    tree = page('<script type="application/ld+json">{"@context": "https://schema.org", "@graph": '
                '[{"@type": "NewsArticle", "datePublished": "2026-02-13T23:30:00+02:00"}]}</script>'
                '<meta property="article:published_time" content="2026-02-13T10:00:00Z">')
    got = date_page(tree, "https://a.example/x", CRAWL)
    assert got.source == "jsonld"
    assert got.published_at == datetime(2026, 2, 13, 21, 30, tzinfo=timezone.utc)
    assert got.confidence > 0.95  # several signals agree


def test_signals_that_agree_beat_a_more_trusted_one_alone():
    tree = page('<script type="application/ld+json">{"datePublished": "2025-06-01T08:00:00Z"}</script>',
                body='<time datetime="2026-02-09T08:00:00Z">9 Feb</time>')
    got = date_page(tree, "https://a.example/2026/02/09/story", CRAWL)
    assert got.local_date.isoformat() == "2026-02-09" and got.source == "time"


def test_meta_then_time_then_url():
    meta = page('<meta name="pubdate" content="2026-02-11">')
    assert date_page(meta, "https://a.example/x", CRAWL).source == "meta"
    timed = page(body='<time datetime="2026-02-12T08:00:00+01:00" class="published">12 Feb</time>')
    got = date_page(timed, "https://a.example/x", CRAWL)
    assert (got.source, got.published_at.hour) == ("time", 7)
    url = date_page(page(), "https://a.example/2026/02/09/story", CRAWL)
    assert (url.source, url.published_at.date().isoformat()) == ("url", "2026-02-09")


def test_crawl_time_bounds_the_date_with_one_day_of_slack():
    # A local date one day ahead of UTC (east of UTC) is allowed...
    ahead = page('<meta property="article:published_time" content="2026-02-15T01:00:00+05:00">')
    assert date_page(ahead, "https://a.example/x", CRAWL).source == "meta"
    # ...a date after crawl + 1 day is rejected and the next signal is used.
    future = page('<meta property="article:published_time" content="2026-03-20T10:00:00Z">')
    got = date_page(future, "https://a.example/2026/02/01/x", CRAWL)
    assert got.source == "url" and got.rejected == ("meta:2026-03-20T10:00:00Z",)


def test_only_implausible_dates_give_no_date_never_the_crawl_date():
    future = page('<meta property="article:published_time" content="2027-01-01T00:00:00Z">')
    got = date_page(future, "https://a.example/news/story", CRAWL)
    assert got.published_at is None and got.rejected


def test_dates_in_visible_text_are_found_by_htmldate():
    body = "<article><p class='dateline'>Published 3 February 2026</p>" + "<p>Words here.</p>" * 5 + "</article>"
    got = date_page(page(body=body), "https://a.example/news/story", CRAWL)
    assert got.source == "htmldate" and got.published_at.date().isoformat() == "2026-02-03"


def test_parse_datetime_forms():
    assert parse_datetime("2026-02-01T10:00:00+0100") == datetime(2026, 2, 1, 9, tzinfo=timezone.utc)
    assert parse_datetime("2026-02-01") == datetime(2026, 2, 1, tzinfo=timezone.utc)
    assert parse_datetime("yesterday") is None


def test_a_date_far_older_than_the_crawl_is_implausible():
    old = page('<meta property="article:published_time" content="2019-05-01T10:00:00Z">',
               body='<time datetime="2026-02-10T10:00:00Z" class="updated">updated</time>')
    got = date_page(old, "https://a.example/news/story", CRAWL)
    # an archive page: no date, and never the newer "updated" time instead
    assert got.published_at is None and got.rejected[-1].startswith("too_old:meta:2019-05-01")
    recent = page('<meta property="article:published_time" content="2025-05-01T10:00:00Z">')
    assert date_page(recent, "https://a.example/news/story", CRAWL).source == "meta"


def test_local_date_is_the_day_the_page_states():
    tree = page('<meta property="article:published_time" content="2026-02-14T00:30:00+02:00">')
    got = date_page(tree, "https://a.example/x", CRAWL)
    assert got.published_at.date().isoformat() == "2026-02-13"  # UTC
    assert got.local_date.isoformat() == "2026-02-14"  # as published, east of UTC
    headers = {"last-modified": "Fri, 13 Feb 2026 10:00:00 -0000"}
    assert date_page(page(), "https://a.example/x", CRAWL, headers).source == "last_modified"


def test_first_of_month_is_kept_when_the_page_writes_it_out():
    body = "<article><p>Veröffentlicht am 01. November 2025</p>" + "<p>Text hier.</p>" * 5 + "</article>"
    got = date_page(page(body=body), "https://a.example/news/story", CRAWL)
    assert got.local_date is not None and got.local_date.isoformat() == "2025-11-01"
    copyright_only = page(body="<p>Words.</p>" * 5 + "<footer>(c) 2026 Example Media</footer>")
    assert date_page(copyright_only, "https://a.example/news/story", CRAWL).published_at is None
