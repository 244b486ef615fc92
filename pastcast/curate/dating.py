"""Publication dates from every signal a page offers, bounded above by its crawl time.

Signals are tried from most to least trustworthy; the first plausible one wins and is
recorded with its source and a confidence. WARC-Date is an upper bound on publication, with
one day of slack: a page in a timezone east of UTC may carry a local date ahead of UTC.
A page whose only dates are implausible gets no date, never the crawl date.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone

from htmldate import find_date
from lxml import html as lxml_html

SLACK = timedelta(days=1)
MAX_AGE = timedelta(days=730)  # older than this at crawl time: an archive page, not news

# Confidence of each signal: explicit machine-readable publication times beat inferred ones.
CONFIDENCE = {
    "jsonld": 0.95,
    "meta": 0.9,
    "time": 0.8,
    "url": 0.7,
    "htmldate": 0.6,
    "last_modified": 0.3,
}

META_NAMES = {
    "article:published_time", "og:published_time", "og:article:published_time",
    "datepublished", "pubdate", "publishdate", "publish-date", "publish_date",
    "publication_date", "date", "dc.date", "dc.date.issued", "dcterms.created",
    "dcterms.date", "sailthru.date", "parsely-pub-date", "article.published",
    "cxenseparse:recs:publishtime", "citation_publication_date",
}

URL_DATE = re.compile(
    r"/(?P<y>(?:19|20)\d{2})[/-](?P<m>0?[1-9]|1[0-2])[/-](?P<d>0?[1-9]|[12]\d|3[01])(?:/|[-_.]|$)"
    r"|[/_-](?P<y2>(?:19|20)\d{2})(?P<m2>0[1-9]|1[0-2])(?P<d2>0[1-9]|[12]\d|3[01])(?:/|[-_.]|$)"
)


@dataclass(frozen=True)
class PageDate:
    published_at: datetime | None  # UTC
    source: str | None
    confidence: float
    rejected: tuple[str, ...] = ()  # "source:value" of implausible candidates, for drops
    local_date: date | None = None  # the calendar day as the page states it, in its own offset


def parse_datetime(value: str) -> datetime | None:
    """ISO 8601 date or datetime to aware UTC; a naive time is taken as UTC."""
    local = parse_local(value)
    return local.astimezone(timezone.utc) if local else None


def parse_local(value: str) -> datetime | None:
    """ISO 8601 date or datetime, aware, in the offset it was written with (naive: UTC)."""
    value = value.strip()
    if not value:
        return None
    value = value.replace("Z", "+00:00").replace("z", "+00:00")
    # "+0100" offsets are common in the wild; fromisoformat wants "+01:00" on 3.11
    value = re.sub(r"([+-]\d{2})(\d{2})$", r"\1:\2", value)
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        try:
            dt = datetime.combine(date.fromisoformat(value[:10]), time())
        except ValueError:
            return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt


def _jsonld_dates(tree) -> list[str]:
    found: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            value = node.get("datePublished") or node.get("dateCreated")
            if isinstance(value, str):
                found.append(value)
            for child in node.values():
                if isinstance(child, (dict, list)):
                    walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    for script in tree.xpath('//script[@type="application/ld+json"]'):
        try:
            walk(json.loads(script.text_content() or ""))
        except (json.JSONDecodeError, RecursionError):
            continue
    return found


def _meta_dates(tree) -> list[str]:
    found = []
    for meta in tree.xpath("//meta[@content]"):
        key = (meta.get("property") or meta.get("name") or meta.get("itemprop") or "").lower()
        if key in META_NAMES:
            found.append(meta.get("content"))
    return found


def _time_dates(tree) -> list[str]:
    times = tree.xpath("//time[@datetime]")
    # A <time> marked as the publication time beats the first one on the page.
    times.sort(key=lambda t: not (t.get("pubdate") is not None
                                  or "publish" in (t.get("class") or "").lower()
                                  or t.get("itemprop") == "datePublished"))
    return [t.get("datetime") for t in times]


def _url_dates(url: str) -> list[str]:
    match = URL_DATE.search(url or "")
    if not match:
        return []
    y, m, d = (match.group("y"), match.group("m"), match.group("d")) if match.group("y") else (
        match.group("y2"), match.group("m2"), match.group("d2"))
    return [f"{int(y):04d}-{int(m):02d}-{int(d):02d}"]


def _htmldate(tree, url: str, ceiling: datetime) -> list[str]:
    try:
        found = find_date(tree, url=url, original_date=True, extensive_search=True,
                          max_date=ceiling.date().isoformat(), outputformat="%Y-%m-%d")
    except (ValueError, TypeError):
        return []
    if found and found.endswith("-01") and not _day_attested(tree, url, date.fromisoformat(found)):
        # htmldate pads a bare year or month ("(c) 2026" in a footer) to the 1st: no day known.
        return []
    return [found] if found else []


MONTHS = {  # the 1st of a month written out, in the languages most news is in
    1: ("January", "Januar", "janvier", "enero", "gennaio"), 2: ("February", "Februar", "février", "febrero", "febbraio"),
    3: ("March", "März", "mars", "marzo", "marzo"), 4: ("April", "April", "avril", "abril", "aprile"),
    5: ("May", "Mai", "mai", "mayo", "maggio"), 6: ("June", "Juni", "juin", "junio", "giugno"),
    7: ("July", "Juli", "juillet", "julio", "luglio"), 8: ("August", "August", "août", "agosto", "agosto"),
    9: ("September", "September", "septembre", "septiembre", "settembre"),
    10: ("October", "Oktober", "octobre", "octubre", "ottobre"), 11: ("November", "November", "novembre", "noviembre", "novembre"),
    12: ("December", "Dezember", "décembre", "diciembre", "dicembre"),
}


def _day_attested(tree, url: str, day: date) -> bool:
    """Whether the page spells out this exact day (the 1st), not just its month or year."""
    y = day.year
    forms = [day.isoformat(), day.strftime("%Y/%m/%d"), day.strftime("%d.%m.%Y"), day.strftime("%d-%m-%Y"),
             day.strftime("%d/%m/%Y"), day.strftime("%m/%d/%Y"), day.strftime("%Y%m%d"), f"1.{day.month}.{y}"]
    for name in MONTHS[day.month]:
        forms += [f"1 {name} {y}", f"01 {name} {y}", f"1st {name} {y}", f"1. {name} {y}", f"01. {name} {y}",
                  f"{name} 1, {y}", f"{name} 1st, {y}", f"1er {name} {y}", f"1 de {name} de {y}",
                  f"1 {name[:3]} {y}", f"{name[:3]} 1, {y}"]
    text = " ".join(tree.xpath("//text()")) + " " + url + " " + " ".join(
        v for el in tree.xpath("//*[@content or @datetime]") for v in (el.get("content"), el.get("datetime")) if v)
    text = " ".join(text.split()).lower()
    return any(form.lower() in text for form in forms)


def date_page(tree, url: str, crawled_at: datetime, http_headers: dict[str, str] | None = None,
              max_age: timedelta = MAX_AGE) -> PageDate:
    """The best plausible publication time of a parsed page, or none with the rejects.

    Plausible: no later than the crawl plus ``SLACK``. Each signal offers its first plausible
    date; the calendar day most signals agree on wins,
    ties going to the most trusted signal, whose time is kept. Agreement beats trust because
    pages carry stale or templated metadata more often than several signals err alike
    (measured in bench/ingest_accuracy.py). HTTP Last-Modified only counts when nothing
    else dates the page. A winning date older than ``max_age`` before the crawl marks an
    archive page: no date (rather than a weaker, newer signal such as an "updated" time).
    """
    ceiling, earliest = crawled_at + SLACK, crawled_at - max_age
    rejected: list[str] = []
    signals = (
        ("jsonld", lambda: _jsonld_dates(tree)),
        ("meta", lambda: _meta_dates(tree)),
        ("time", lambda: _time_dates(tree)),
        ("url", lambda: _url_dates(url)),
        ("htmldate", lambda: _htmldate(tree, url, ceiling)),
        ("last_modified", lambda: [(http_headers or {}).get("last-modified", "")]),
    )
    offers: dict[str, datetime] = {}  # source -> its first plausible date, in trust order
    for source, candidates in signals:
        if source == "htmldate" and len({v.date() for v in offers.values()}) == 1:
            break  # htmldate could only agree or lose a tie: skip its cost (same result)
        if source == "last_modified" and offers:
            break
        for raw in candidates():
            value = _parse_any(raw, source)
            if value is None:
                continue
            if value <= ceiling:
                offers[source] = value
                break
            rejected.append(f"{source}:{raw}")
    if not offers:
        return PageDate(None, None, 0.0, tuple(rejected))
    votes = Counter(value.date() for value in offers.values())
    day = max(votes, key=lambda d: votes[d])  # Counter keeps first-seen order: trust breaks ties
    source = next(s for s, value in offers.items() if value.date() == day)
    value = offers[source]
    if value < earliest:
        return PageDate(None, None, 0.0, (*rejected, f"too_old:{source}:{value.isoformat()}"))
    confidence = min(0.99, CONFIDENCE[source] + 0.05 * (votes[day] - 1))
    return PageDate(value.astimezone(timezone.utc), source, round(confidence, 2), tuple(rejected),
                    value.date())


def _parse_any(raw: str, source: str) -> datetime | None:
    if not raw:
        return None
    if source == "last_modified":
        from email.utils import parsedate_to_datetime

        try:
            value = parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    return parse_local(raw)


def date_html(html: str | bytes, url: str, crawled_at: datetime | None = None,
              http_headers: dict[str, str] | None = None, max_age: timedelta | None = None) -> PageDate:
    """Date one HTML page (benchmarks, notebooks). Without a crawl time the upper bound is now
    and there is no age limit, unless ``max_age`` is given."""
    if crawled_at is None:
        crawled_at, max_age = datetime.now(timezone.utc), max_age or timedelta(days=36_500)
    return date_page(parse_html(html), url, crawled_at, http_headers, max_age or MAX_AGE)


XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>", re.I)


def parse_html(body: str | bytes):
    """An lxml tree of a page, shared by the dating and extraction steps."""
    if isinstance(body, str):
        # lxml refuses text that still declares a byte encoding (XHTML pages); it is decoded.
        body = XML_DECLARATION.sub("", body, count=1)
    return lxml_html.document_fromstring(body)
