from datetime import datetime, timedelta, timezone

from pastcast.curate.dating import date_page, parse_datetime
from pastcast.curate.htmltree import parse_html

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


def test_only_implausible_dates_give_no_page_date_never_the_crawl_date():
    future = page('<meta property="article:published_time" content="2027-01-01T00:00:00Z">')
    got = date_page(future, "https://a.example/news/story", CRAWL)
    assert got.published_at is None and got.rejected


def test_dates_in_visible_text_are_found_by_htmldate():
    # no headline to read a dateline under, no publication label: htmldate still finds it
    body = "<article><p class='dateline'>3 February 2026</p>" + "<p>Words here.</p>" * 5 + "</article>"
    got = date_page(page(body=body), "https://a.example/news/story", CRAWL)
    assert got.source == "htmldate" and got.published_at.date().isoformat() == "2026-02-03"


def test_parse_datetime_forms():
    assert parse_datetime("2026-02-01T10:00:00+0100") == datetime(2026, 2, 1, 9, tzinfo=timezone.utc)
    assert parse_datetime("2026-02-01") == datetime(2026, 2, 1, tzinfo=timezone.utc)
    assert parse_datetime("yesterday") is None


def test_an_archive_page_keeps_its_true_date_unless_an_age_limit_is_asked_for():
    old = page('<meta property="article:published_time" content="2019-05-01T10:00:00Z">',
               body='<time datetime="2026-02-10T10:00:00Z" class="updated">updated</time>')
    got = date_page(old, "https://a.example/news/story", CRAWL)
    # years before its crawl, and harmless under the date gate: its true date, not the update
    assert got.published_at == datetime(2019, 5, 1, 10, 0, tzinfo=timezone.utc)
    limited = date_page(old, "https://a.example/news/story", CRAWL, max_age=timedelta(days=730))
    # with a limit: no date, and never the newer "updated" time instead
    assert limited.published_at is None and limited.rejected[-1].startswith("too_old:meta:2019-05-01")
    recent = page('<meta property="article:published_time" content="2025-05-01T10:00:00Z">')
    assert date_page(recent, "https://a.example/news/story", CRAWL,
                     max_age=timedelta(days=730)).source == "meta"


def test_the_utc_offset_comes_from_the_signal_that_states_it():
    east = page('<meta property="article:published_time" content="2026-02-14T00:30:00+05:30">')
    got = date_page(east, "https://a.example/x", CRAWL)
    assert got.utc_offset == timedelta(hours=5, minutes=30) and got.local_date.isoformat() == "2026-02-14"
    # a time written in UTC takes the offset of another signal writing the same instant
    both = page('<script type="application/ld+json">{"datePublished": "2026-02-13T22:00:00Z"}</script>'
                '<meta property="article:published_time" content="2026-02-13T17:00:00-05:00">')
    got = date_page(both, "https://a.example/x", CRAWL)
    assert got.source == "jsonld" and got.utc_offset == timedelta(hours=-5)
    assert got.local_date.isoformat() == "2026-02-13"
    # a day alone, or a UTC time alone, states no offset
    day_only = page('<meta property="article:published_time" content="2026-02-12">')
    assert date_page(day_only, "https://a.example/x", CRAWL).utc_offset is None
    utc_only = page('<meta property="article:published_time" content="2026-02-12T08:00:00Z">')
    assert date_page(utc_only, "https://a.example/x", CRAWL).utc_offset is None


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


# ------------------------------------------------------------------ dates written in the text

def test_text_dates_reads_common_written_forms():
    from datetime import date

    from pastcast.curate.datelines import text_dates

    cases = {
        "Veröffentlicht am 16.08.2019, 14:30": date(2019, 8, 16),
        "Posted on March 12, 2019 by Jane": date(2019, 3, 12),
        "12 March 2019 | 14:30": date(2019, 3, 12),
        "Published: 2019-03-12": date(2019, 3, 12),
        "Mittwoch, 01. November 2023.": date(2023, 11, 1),
        "publié le 1er mars 2020": date(2020, 3, 1),
        "3 de mayo de 2022": date(2022, 5, 3),
        "(Pescasseroli, 14 Gennaio 2020)": date(2020, 1, 14),
        "07 Dezember, 2022": date(2022, 12, 7),
        "Sept. 5th, 2021": date(2021, 9, 5),
    }
    for text, day in cases.items():
        assert text_dates(text) == [day], text
    # no year, a version number, a word that starts like a month: no date
    assert text_dates("am 5. Februar") == [] and text_dates("v1.12.2020") == []
    assert text_dates("Omar 5, 2020") == []
    # slashes: day first unless the page is US English
    assert text_dates("08/04/2019") == [date(2019, 4, 8)]
    assert text_dates("08/04/2019", month_first=True) == [date(2019, 8, 4)]
    assert text_dates("08/24/2019") == [date(2019, 8, 24)]  # no 24th month


def article(headline: str, after: str):
    """An article page: the site's name is the first h1, the headline is in the <title>."""
    return page(f"<title>{headline} | Example News</title>",
                body=f"<header><h1>Example News</h1></header><article><h1>{headline}</h1>{after}"
                     + "<p>Body text of the article.</p>" * 5 + "</article>")


def test_the_date_under_the_headline_is_a_signal():
    tree = article("Council approves the new budget",
                   "<p class='byline'>By Jane Doe | 9 February 2026, 14:30</p>")
    got = date_page(tree, "https://a.example/news/story", CRAWL)
    assert (got.source, got.local_date.isoformat()) == ("text", "2026-02-09")
    # a dateline opening the first paragraph counts too
    tree = article("Council approves the new budget",
                   "<p>10.02.2026 – The council approved the budget on Monday after a long debate "
                   "that lasted well into the night.</p>")
    got = date_page(tree, "https://a.example/news/story", CRAWL)
    assert (got.source, got.local_date.isoformat()) == ("text", "2026-02-10")


def test_a_date_inside_a_sentence_under_the_headline_is_not_the_publication():
    tree = article("Council approves the new budget",
                   "<p>The council first met on 5 February 2026 in the town hall, the mayor said "
                   "on Tuesday.</p>")
    got = date_page(tree, "https://a.example/news/story", CRAWL)
    assert got.source != "text"


def test_the_headline_is_the_heading_that_matches_the_title():
    # The site's name is the first h1; the dateline follows the article's own heading.
    tree = page("<title>Council approves the new budget - Example News</title>",
                body="<h1>Example News</h1><nav><a>Sport</a> <span>12. Januar 2026</span></nav>"
                     "<div><h2>Council approves the new budget</h2><span>9 February 2026</span></div>")
    got = date_page(tree, "https://a.example/news/story", CRAWL)
    assert (got.source, got.local_date.isoformat()) == ("text", "2026-02-09")


def test_dates_labelled_as_something_else_are_skipped_under_the_headline():
    for label in ("Updated:", "Aktualisiert am", "Registriert:", "Release date:"):
        tree = article("Council approves the new budget",
                       f"<p>{label} 11.02.2026</p><p>9 February 2026</p>")
        got = date_page(tree, "https://a.example/news/story", CRAWL)
        assert got.local_date.isoformat() == "2026-02-09", label
    tree = article("Council approves the new budget", "<p>Datum: 11.02.2026</p>")
    assert date_page(tree, "https://a.example/news/story", CRAWL).local_date.isoformat() == "2026-02-11"


def test_hidden_and_modification_times_under_the_headline_are_skipped():
    tree = article("Council approves the new budget",
                   '<time itemprop="dateModified">2026-02-12 10:00</time>'
                   '<span class="hidden">2026-02-11</span><span class="date">09.02.2026</span>')
    assert date_page(tree, "https://a.example/news/story", CRAWL).local_date.isoformat() == "2026-02-09"


def test_a_date_labelled_as_the_publication_anywhere_in_the_page():
    body = ("<div><h1>Example News</h1></div>" + "<p>Long article text goes here.</p>" * 10
            + "<footer><p>Letzte Änderung: 31.01.2026<br>Erschienen am: 01.02.2026</p></footer>")
    got = date_page(page(body=body), "https://a.example/news/story", CRAWL)
    assert (got.source, got.local_date.isoformat()) == ("text", "2026-02-01")


def test_time_elements_without_a_datetime_are_read_as_text():
    tree = page(body="<article><time>29.01.2026, 12:01 Uhr</time><p>text</p></article>")
    got = date_page(tree, "https://a.example/news/story", CRAWL)
    assert (got.source, got.local_date.isoformat()) == ("time", "2026-01-29")
    tree = page(body='<time datetime="3 de febrero de 2026">3 de febrero</time>')
    assert date_page(tree, "https://a.example/x", CRAWL).local_date.isoformat() == "2026-02-03"


# ------------------------------------------------------------------ meta, parsing, htmldate, days

def test_generic_meta_date_loses_to_the_pages_own_time():
    # <meta name="date"> is often the last edit: a <time> that disagrees wins the tie.
    tree = page('<meta name="date" content="2026-02-12T09:00:00+01:00">',
                body='<time datetime="2026-02-10T08:00:00+01:00">10 Feb</time>')
    got = date_page(tree, "https://a.example/x", CRAWL)
    assert (got.source, got.local_date.isoformat()) == ("time", "2026-02-10")
    # alone it still dates the page, as meta, with less confidence than a named publication key
    alone = date_page(page('<meta name="date" content="2026-02-12">'), "https://a.example/x", CRAWL)
    named = date_page(page('<meta property="article:published_time" content="2026-02-12">'),
                      "https://a.example/x", CRAWL)
    assert alone.source == named.source == "meta" and alone.confidence < named.confidence
    # a key named for publication outranks a generic one written before it
    both = page('<meta name="date" content="2026-02-12"><meta name="pubdate" content="2026-02-11">')
    assert date_page(both, "https://a.example/x", CRAWL).local_date.isoformat() == "2026-02-11"


def test_htmldate_is_not_consulted_when_json_ld_or_meta_date_the_page(monkeypatch):
    from pastcast.curate import dating

    calls = []
    monkeypatch.setattr(dating, "_htmldate", lambda *a: calls.append(a) or ["2026-02-01"])
    tree = page('<meta property="article:published_time" content="2026-02-11T10:00:00Z">',
                body='<time datetime="2026-02-09T10:00:00Z">9 Feb</time>')
    got = date_page(tree, "https://a.example/x", CRAWL)
    assert not calls and got.source == "meta"  # disagreement, but htmldate would echo the meta
    tree = page(body='<time datetime="2026-02-09T10:00:00Z">9 Feb</time>')
    date_page(tree, "https://a.example/2026/02/11/x", CRAWL)
    assert len(calls) == 1  # time and URL disagree and no meta: htmldate breaks the tie


def test_parse_local_reads_rfc_2822_and_loose_iso_forms():
    from datetime import timedelta

    from pastcast.curate.dating import parse_local

    got = parse_local("Sat, 19 Oct 2019 00:04:00 +0200")
    assert got.date().isoformat() == "2019-10-19" and got.utcoffset() == timedelta(hours=2)
    assert parse_datetime("Wed, 04 May 2022 00:25:56 GMT") == datetime(2022, 5, 4, 0, 25, 56,
                                                                       tzinfo=timezone.utc)
    assert parse_local("2022-5-5 22:17:36") == datetime(2022, 5, 5, 22, 17, 36, tzinfo=timezone.utc)
    assert parse_datetime("2021-11-04T23:00Z") == datetime(2021, 11, 4, 23, tzinfo=timezone.utc)
    assert parse_local("2022-1-26T14:32:06+02:00").utcoffset() == timedelta(hours=2)
    assert parse_local("Mon, 32 Jan 2020 10:00:00 GMT") is None and parse_local("2019-13-45") is None


def test_a_time_written_in_utc_takes_the_day_the_page_writes():
    # 02:25 UTC on the 10th is the evening of the 9th in New York, as the URL says.
    tree = page('<script type="application/ld+json">{"datePublished": "2026-02-10T02:25:54Z"}</script>'
                '<meta property="article:published_time" content="2026-02-10T02:25:54Z">')
    got = date_page(tree, "https://a.example/2026/02/09/story", CRAWL)
    assert got.source == "jsonld"
    assert got.published_at == datetime(2026, 2, 10, 2, 25, 54, tzinfo=timezone.utc)  # the instant
    assert got.local_date.isoformat() == "2026-02-09"
    # the same instant written elsewhere with the page's own offset gives that offset's day
    tree = page('<script type="application/ld+json">{"datePublished": "2026-02-10T03:37:37Z"}</script>',
                body='<time datetime="2026-02-09T23:37:37-04:00">9 Feb</time>')
    assert date_page(tree, "https://a.example/x", CRAWL).local_date.isoformat() == "2026-02-09"
    # without such a signal, or with a written day no timezone reaches, the UTC day stays
    alone = page('<script type="application/ld+json">{"datePublished": "2026-02-10T02:25:54Z"}</script>')
    assert date_page(alone, "https://a.example/x", CRAWL).local_date.isoformat() == "2026-02-10"
    far = date_page(alone, "https://a.example/2026/02/07/story", CRAWL)  # not a timezone apart
    assert far.local_date.isoformat() == "2026-02-10"
    # midnight UTC is a date stored without its time: a day, not an instant to re-date
    midnight = page('<script type="application/ld+json">{"datePublished": "2026-02-10T00:00:00Z"}</script>')
    got = date_page(midnight, "https://a.example/2026/02/09/story", CRAWL)
    assert got.local_date.isoformat() == "2026-02-10"


def test_a_template_default_date_is_never_the_publication():
    epoch = page('<meta property="article:published_time" content="1970-01-01T00:00:00+00:00">')
    got = date_page(epoch, "https://a.example/2026/02/12/story", CRAWL)
    assert got.published_at.date().isoformat() == "2026-02-12" and got.source == "url"
    alone = date_page(epoch, "https://a.example/story", CRAWL)
    assert alone.published_at is None and any("1970-01-01" in r for r in alone.rejected)
