from datetime import datetime, timezone

from pastcast.curate.extract import (ExtractConfig, canonical_url, content_hash, decode_html,
                                     page_to_article)
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


def test_undated_page_is_dropped_with_reason():
    row = page_to_article(make_page(article_html("Budget", LOREM * 3), url="https://news.example/budget"))
    assert isinstance(row, Drop) and row.reason == "no_date"


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
