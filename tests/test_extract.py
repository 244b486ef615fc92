from datetime import datetime, timezone
import pytest


from pastcast.curate.extract import (ExtractConfig, canonical_url, content_hash, decode_html,
                                     page_to_article)
from pastcast.curate.dating import CONFIDENCE
from pastcast.drops import Drop
from pastcast.sources.warc import HtmlPage
from warcs import LOREM, article_html

CRAWL = datetime(2026, 2, 14, 6, 0, tzinfo=timezone.utc)


def make_page(html: str, url="https://www.news.example/2026/02/10/council-budget", headers=None):
    return HtmlPage("f.warc.gz", "<urn:uuid:1>", url, CRAWL,
                    headers or {"content-type": "text/html; charset=utf-8"}, html.encode("utf-8"), 0)


def test_article_row_has_text_title_date_and_language():
    html = article_html("Council sets budget", LOREM * 3,
                        head='<meta property="article:published_time" content="2026-02-10T09:00:00Z">')
    row = page_to_article(make_page(html))
    assert not isinstance(row, Drop)
    assert row["title"] == "Council sets budget"
    assert "road repairs" in row["text"] and "Copyright" not in row["text"]
    assert row["language"] == "en" and row["domain"] == "news.example"
    assert (row["date_source"], row["published_at"].day) == ("meta", 10)
    assert row["word_count"] > 100 and row["content_hash"] == content_hash(row["text"])


def test_short_pages_and_wrong_language_are_drops():
    short = page_to_article(make_page(article_html("Tiny", "Just a few words here.")))
    assert isinstance(short, Drop) and short.reason == "too_short"
    html = article_html("Budget", LOREM * 3, head='<meta name="date" content="2026-02-10">')
    wrong = page_to_article(make_page(html), ExtractConfig(languages=("de",)))
    assert isinstance(wrong, Drop) and wrong.reason == "wrong_language" and "en" in wrong.detail


BRIEF = ("The central bank held its main rate at 4.5 percent on Tuesday, as expected by most "
         "economists polled last week. It said inflation was easing but remained above target, "
         "and signalled that cuts were unlikely before the summer. The decision was unanimous.")


def test_a_wire_brief_is_an_article_not_too_short():
    html = article_html("Bank holds rate", BRIEF,
                        head='<meta property="article:published_time" content="2026-02-10T09:00:00+01:00">')
    row = page_to_article(make_page(html))
    assert not isinstance(row, Drop), row
    assert 40 <= row["word_count"] < 60  # a 50-word brief
    assert row["published_local_date"].isoformat() == "2026-02-10"
    assert row["published_utc_offset_minutes"] == 60


def test_length_of_chinese_and_japanese_text_is_counted_in_characters():
    zh = "中国人民银行周二宣布将一年期贷款市场报价利率维持在百分之三点一不变，符合市场预期。" * 3
    ja = "日本銀行は火曜日、政策金利を据え置くと発表した。市場の予想通りの決定だった。" * 3
    for text in (zh, ja):
        html = article_html("标题", text, head='<meta property="article:published_time" content="2026-02-10">')
        row = page_to_article(make_page(html))
        assert not isinstance(row, Drop), row
        assert row["word_count"] >= len(text) * 0.4  # two characters a word, not one word a space


def test_an_archive_page_is_kept_with_its_true_date_unless_limited():
    html = article_html("Budget", LOREM * 3,
                        head='<meta property="article:published_time" content="2019-05-01T10:00:00Z">')
    row = page_to_article(make_page(html, url="https://news.example/budget"))
    assert not isinstance(row, Drop) and row["published_at"].year == 2019
    limited = page_to_article(make_page(html, url="https://news.example/budget"),
                              ExtractConfig(max_age_days=730))
    assert isinstance(limited, Drop) and limited.reason == "too_old" and "2019-05-01" in limited.detail


def test_a_page_dated_only_after_its_crawl_is_kept_dated_by_its_crawl_or_dropped_on_request():
    html = article_html("Budget", LOREM * 3,
                        head='<meta property="article:published_time" content="2026-03-01T10:00:00Z">')
    page = make_page(html, url="https://news.example/budget")
    row = page_to_article(page)
    assert not isinstance(row, Drop)
    assert row["date_source"] == "crawl" and row["published_at"] == page.crawled_at
    assert row["published_local_date"] is None and row["published_utc_offset_minutes"] is None
    assert row["date_confidence"] < min(c for s, c in CONFIDENCE.items() if s != "crawl")
    dropped = page_to_article(page, ExtractConfig(undated="drop"))
    assert isinstance(dropped, Drop) and dropped.reason == "implausible_date" and "2026-03-01" in dropped.detail


def test_an_undated_page_is_kept_dated_by_its_crawl_or_dropped_with_reason():
    page = make_page(article_html("Budget", LOREM * 3), url="https://news.example/budget")
    row = page_to_article(page)
    assert not isinstance(row, Drop) and row["date_source"] == "crawl"
    assert row["published_at"] == page.crawled_at and row["published_at"].tzinfo is not None
    dropped = page_to_article(page, ExtractConfig(undated="drop"))
    assert isinstance(dropped, Drop) and dropped.reason == "no_date"


def test_an_unknown_undated_policy_is_refused():
    with pytest.raises(ValueError, match="undated"):
        ExtractConfig(undated="guess")


def test_charset_from_meta_when_the_header_has_none():
    body = '<html><head><meta charset="windows-1252"></head><body>caf\xe9 cr\xe8me</body></html>'
    assert "café crème" in decode_html(body.encode("cp1252"), {"content-type": "text/html"})
    assert "café" in decode_html("café".encode("utf-8"), {})


def test_canonical_url():
    assert canonical_url("HTTPS://WWW.News.Example/a/b/?utm_source=x&id=3#top") == \
        "https://www.news.example/a/b?id=3"


def test_title_prefers_og_title_without_the_site_name():
    from pastcast.curate.htmltree import parse_html
    from pastcast.curate.extract import page_title

    tree = parse_html('<html><head><meta property="og:site_name" content="MDR.DE">'
                      '<meta property="og:title" content="Rates - what now? | MDR.DE">'
                      '<title>ignored</title></head><body><h1>H</h1></body></html>')
    assert page_title(tree) == "Rates - what now?"
    assert page_title(parse_html("<html><head><title>Budget agreed | Kestrel Herald</title></head>"
                                 "<body><p>x</p></body></html>")) == "Budget agreed"


def test_xhtml_with_an_xml_declaration_parses():
    from pastcast.curate.extract import extract_html

    html = ('<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
            f"<head><title>Council budget</title></head><body><article><p>{LOREM}</p></article></body></html>")
    title, text = extract_html(html)
    assert title == "Council budget" and "road repairs" in text


def test_control_characters_and_unnormalised_accents_are_cleaned():
    body = ("<html><body><article><p>Caf\u0065\u0301 \x07opening</p><p>" + LOREM + "</p></article></body></html>").encode()
    text = decode_html(body, {})
    assert "Café" in text and "\x07" not in text
