"""Turn an HTML page into an article row: decode, extract with trafilatura, date, language.

Each page yields either an article (a dict with the article columns) or a ``Drop`` with a
reason; nothing is lost silently.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

import trafilatura
from lxml.etree import ParserError
from trafilatura.utils import decode_file

from pastcast.curate.dating import crawl_date, date_page
from pastcast.curate.drop_policy import MAX_AGE_DAYS, MIN_WORD_UNITS, UNDATED, UNDATED_CHOICES
from pastcast.curate.htmltree import parse_html
from pastcast.drops import Drop
from pastcast.io import stable_id
from pastcast.sources.warc import HtmlPage
from pastcast.text.language import detect_language  # noqa: F401 - ingest's language, also used from here
from pastcast.text.scripts import text_length

STAGE = "extract"
META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
HEADER_CHARSET = re.compile(r"charset\s*=\s*[\"']?([A-Za-z0-9_.:-]+)", re.I)
WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class ExtractConfig:
    min_words: int = MIN_WORD_UNITS  # in word units (pastcast.text.scripts): CJK by characters
    languages: tuple[str, ...] = ()  # keep only these ISO codes; empty keeps all
    # trafilatura's fast pass first; its slower fallback extractors only when the fast pass
    # finds fewer word units than this (about 12% of pages): at least the F1 of the full pass
    # on every page at a fraction of its time. Chosen on the tuning half of the gold sets
    # (bench/extraction_threshold.py).
    full_extraction_below_words: int = 150
    # None keeps a page dated long before its crawl (an archive page) with its true date, in
    # the corpus but never served (pastcast.search.visibility); N drops pages dated over N days
    # before their crawl.
    max_age_days: int | None = MAX_AGE_DAYS
    # "crawl" keeps a page with no plausible date of its own, dated by its crawl (see
    # pastcast.curate.drop_policy.UNDATED); "drop" drops it
    undated: str = UNDATED

    def __post_init__(self):
        if self.undated not in UNDATED_CHOICES:
            raise ValueError(f"undated must be one of {UNDATED_CHOICES}, not {self.undated!r}")


CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def decode_html(body: bytes, headers: dict[str, str]) -> str:
    """Bytes to text: the HTTP charset, else the page's <meta> charset, else detection.

    Control characters go (lxml stops parsing at some, losing the rest of the page) and the
    text is NFC-normalised, so "é" is one code point whichever way the page wrote it.
    """
    return clean_markup(_decode(body, headers))


def clean_markup(html: str) -> str:
    return unicodedata.normalize("NFC", CONTROL.sub("", html))


def _decode(body: bytes, headers: dict[str, str]) -> str:
    for charset in (_header_charset(headers), _meta_charset(body)):
        if charset:
            try:
                return body.decode(charset)
            except (LookupError, UnicodeDecodeError):
                continue
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return decode_file(body)  # trafilatura's detector (charset_normalizer)


def _header_charset(headers: dict[str, str]) -> str | None:
    match = HEADER_CHARSET.search(headers.get("content-type", ""))
    return match.group(1) if match else None


def _meta_charset(body: bytes) -> str | None:
    match = META_CHARSET.search(body[:4096])
    return match.group(1).decode("ascii") if match else None


def normalise_text(text: str) -> str:
    return " ".join(WORD.findall(text.lower()))


def content_hash(text: str) -> str:
    return _sha1(normalise_text(text))


def _sha1(normalised: str) -> str:
    return hashlib.sha1(normalised.encode("utf-8")).hexdigest()


def canonical_url(url: str) -> str:
    """Scheme and host lower-cased, fragment and tracking parameters gone, no trailing slash."""
    parts = urlsplit(url.strip())
    query = "&".join(
        p for p in parts.query.split("&")
        if p and not p.lower().startswith(("utm_", "fbclid", "gclid", "mc_cid", "mc_eid"))
    )
    path = parts.path.rstrip("/") or "/"
    host = (parts.hostname or "").lower()
    if parts.port and parts.port not in (80, 443):
        host = f"{host}:{parts.port}"
    return f"{parts.scheme.lower() or 'http'}://{host}{path}" + (f"?{query}" if query else "")


TITLE_SEPARATORS = re.compile(r"\s+[|–—·:»-]\s+")
TRAILING_SEPARATOR = re.compile(r"\s+[|–—·:»-]\s*$")


def page_title(tree) -> str | None:
    """The headline: og:title, else the first <h1>, else <title>; without the site name."""
    site = " ".join(tree.xpath('//meta[@property="og:site_name"]/@content')).strip().lower()
    for xpath in ('//meta[@property="og:title"]/@content', '//meta[@name="twitter:title"]/@content'):
        found = [" ".join(t.split()) for t in tree.xpath(xpath) if t and t.strip()]
        if found:
            last = TITLE_SEPARATORS.split(found[0])[-1]
            if site and last != found[0] and last.strip().lower() in site:  # "Headline | Site"
                return TRAILING_SEPARATOR.sub("", found[0][: -len(last)])
            return found[0]
    h1 = [" ".join(h.text_content().split()) for h in tree.xpath("//h1")]
    if h1 and h1[0]:
        return h1[0]
    title = " ".join(" ".join(tree.xpath("//title/text()")).split())
    if not title:
        return None
    return TITLE_SEPARATORS.split(title)[0]  # "Headline | Site" is the common convention


def _trafilatura(tree, url: str | None, fast: bool) -> str:
    # with_metadata=False: trafilatura would otherwise run htmldate again (a third of its time).
    # The fast pass favours precision: it keeps less boilerplate ("related stories" lists name
    # other, often later, articles: a leak in a date-gated corpus) and skips trafilatura's
    # rescue stages; the full pass that follows on short results is balanced and recovers the
    # recall (bench/ingest_accuracy.py: F1 0.923 at precision 0.923, against 0.923 at 0.909
    # with a balanced fast pass, and 12% less extraction time).
    doc = trafilatura.bare_extraction(tree, url=url, with_metadata=False, fast=fast,
                                      favor_precision=fast, include_comments=False,
                                      include_tables=True)
    return (doc.text if doc is not None else "") or ""


def extract_tree(html: str, tree, url: str | None, config: ExtractConfig = ExtractConfig()
                 ) -> tuple[str | None, str]:
    """(title, main text) of a page parsed from ``html``. Date it first: trafilatura prunes
    the tree."""
    title = page_title(tree)
    text = _trafilatura(tree, url, fast=True)
    if text_length(text).word_units < config.full_extraction_below_words:
        text = _trafilatura(parse_html(html), url, fast=False) or text  # a fresh, unpruned tree
    return title, text


def extract_html(html: str | bytes, url: str | None = None,
                 config: ExtractConfig = ExtractConfig()) -> tuple[str | None, str]:
    """(title, main text) of an HTML page, for notebooks and benchmarks."""
    html = decode_html(html, {}) if isinstance(html, bytes) else clean_markup(html)
    return extract_tree(html, parse_html(html), url, config)


def page_to_article(page: HtmlPage, config: ExtractConfig = ExtractConfig()) -> dict | Drop:
    item = f"{page.warc_file}#{page.record_id}"

    def drop(reason: str, detail: str = "") -> Drop:
        return Drop(item, "article", STAGE, reason, f"{page.url} {detail}".strip())

    try:
        html = decode_html(page.body, page.http_headers)
        tree = parse_html(html)
    except (ParserError, ValueError) as exc:
        return drop("unparseable_html", str(exc)[:200])
    # Date first: trafilatura prunes the tree it is given.
    max_age = timedelta(days=config.max_age_days) if config.max_age_days is not None else None
    dated = date_page(tree, page.url, page.crawled_at, page.http_headers, max_age=max_age)
    title, text = extract_tree(html, tree, page.url, config)
    if not text.strip():
        return drop("no_text", "boilerplate only")
    length = text_length(text)
    if length.word_units < config.min_words:
        return drop("too_short", f"{length.describe()} < {config.min_words}")
    language = detect_language(text)
    if config.languages and language not in config.languages:
        return drop("wrong_language", str(language))
    if dated.published_at is None:
        if any(r.startswith("too_old:") for r in dated.rejected):
            return drop("too_old", "; ".join(dated.rejected)[:300])  # only with max_age_days
        if config.undated == "drop":
            reason = "implausible_date" if dated.rejected else "no_date"
            return drop(reason, "; ".join(dated.rejected)[:300])
        dated = crawl_date(page.crawled_at)
    return {
        "article_id": stable_id(page.url, page.record_id),
        "url": page.url,
        "canonical_url": canonical_url(page.url),
        "domain": (urlsplit(page.url).hostname or "").lower().removeprefix("www."),
        "title": title,
        "text": text,
        "language": language,
        "published_at": dated.published_at,
        "published_local_date": dated.local_date,
        "published_utc_offset_minutes": (int(dated.utc_offset.total_seconds()) // 60
                                         if dated.utc_offset is not None else None),
        "date_source": dated.source,
        "date_confidence": dated.confidence,
        "crawled_at": page.crawled_at,
        "warc_file": page.warc_file,
        "warc_record_id": page.record_id,
        "content_hash": content_hash(text),
        "dup_cluster": None,
        "word_count": length.word_units,
    }
