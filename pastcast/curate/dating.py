"""Publication dates from every signal a page offers, bounded above by its crawl time.

Each signal (JSON-LD, <meta>, <time>, the URL, the date written under the headline, htmldate,
HTTP Last-Modified) offers its first plausible date; the day most of them agree on wins and is
recorded with its source and a confidence. WARC-Date is an upper bound on publication, with
one day of slack: a page in a timezone east of UTC may carry a local date ahead of UTC.
A page whose only dates are implausible (after its crawl) gets no date from ``date_page``; the
ingest may then date it by its crawl (``crawl_date``, recorded as source "crawl"): an upper
bound, never mistaken for a reading of the page.
A page dated long before its crawl (an archive page crawled again) keeps its true date (what
is served of it is decided downstream, ``pastcast.search.visibility``); an age limit is an option.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from email.utils import parsedate_to_datetime, parsedate_tz

from htmldate import find_date

from pastcast.curate.datelines import headline_dates, labelled_dates, text_dates
from pastcast.curate.htmltree import parse_html

SLACK = timedelta(days=1)
# Before the web had news sites: a date this early is a template's default (1970-01-01,
# 1900-01-01), never a page's publication; the signal's next date is tried.
EARLIEST_PLAUSIBLE = datetime(1995, 1, 1, tzinfo=timezone.utc)

# Confidence of each signal: explicit machine-readable publication times beat inferred ones.
CONFIDENCE = {
    "jsonld": 0.95,
    "meta": 0.9,
    "time": 0.8,
    "url": 0.7,
    "text": 0.65,  # a date written in the visible text under the headline
    "htmldate": 0.6,
    "last_modified": 0.3,
    "crawl": 0.1,  # no signal: the crawl time, an upper bound on publication
}

META_NAMES = {
    "article:published_time", "og:published_time", "og:article:published_time",
    "datepublished", "pubdate", "publishdate", "publish-date", "publish_date",
    "publication_date", "date", "dc.date", "dc.date.issued", "dcterms.created",
    "dcterms.date", "sailthru.date", "parsely-pub-date", "article.published",
    "cxenseparse:recs:publishtime", "citation_publication_date",
    "cxenseparse:publishtime", "shareaholic:article_published_time",
}
# Generic keys: often the page's last edit or print day, not its publication (right on 0.79 of
# the trafilatura pages that have <meta name="date">, against 0.92 for article:published_time).
# They vote after every other signal but htmldate (so lose its ties), with less confidence.
META_GENERIC = {"date", "dc.date", "dcterms.date", "sailthru.date"}
GENERIC_META_CONFIDENCE = 0.7

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
    utc_offset: timedelta | None = None  # the page's offset from UTC, when a signal states one


def parse_datetime(value: str) -> datetime | None:
    """ISO 8601 date or datetime to aware UTC; a naive time is taken as UTC."""
    local = parse_local(value)
    return local.astimezone(timezone.utc) if local else None


def parse_local(value: str) -> datetime | None:
    """ISO 8601 (or RFC 2822) date or datetime, aware, in the offset it was written with
    (naive: UTC)."""
    stated = _parse_stated(value)
    return stated[0] if stated else None


# How a machine-readable date was written, which says what its calendar day means:
DAY, NAIVE, UTC, OFFSET = "day", "naive", "utc", "offset"  # date only / no offset / UTC / an offset

ISO_LOOSE = re.compile(  # "2022-5-5 22:17:36", "2021-11-04T23:00Z", "2019-10-19 00:04 +0200"
    r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ]\s*(\d{1,2}):(\d{2})(?::(\d{2}))?(?:[.,]\d+)?)?"
    r"\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$", re.I)


def _parse_stated(value: str | None) -> tuple[datetime, str] | None:
    """A machine-readable date and how it was written (``DAY``, ``NAIVE``, ``UTC``, ``OFFSET``).

    ISO 8601 first, then looser ISO-like forms and RFC 2822 ("Sat, 19 Oct 2019 00:04:00 +0200",
    common in <meta> and JSON-LD). Naive and date-only values are returned as UTC.
    """
    value = (value or "").strip()
    if not value:
        return None
    iso = value.replace("Z", "+00:00").replace("z", "+00:00")
    # "+0100" offsets are common in the wild; fromisoformat wants "+01:00" on 3.11
    iso = re.sub(r"([+-]\d{2})(\d{2})$", r"\1:\2", iso)
    try:
        return _stated(datetime.fromisoformat(iso), len(value) <= 10)
    except ValueError:
        pass
    match = ISO_LOOSE.match(value)
    if match:
        y, m, d, hh, mm, ss, tz = match.groups()
        try:
            dt = datetime(int(y), int(m), int(d), int(hh or 0), int(mm or 0), int(ss or 0))
        except ValueError:
            return None
        if tz:
            tz = tz.upper()
            if tz in ("Z", "UTC", "GMT"):
                dt = dt.replace(tzinfo=timezone.utc)
            else:
                sign = -1 if tz[0] == "-" else 1
                digits = tz[1:].replace(":", "").ljust(4, "0")
                dt = dt.replace(tzinfo=timezone(sign * timedelta(hours=int(digits[:2]),
                                                                 minutes=int(digits[2:]))))
        return _stated(dt, hh is None)
    if value[:1].isalpha() or value[:2].strip().isdigit():
        parts = parsedate_tz(value)
        if parts and parts[0] >= 1900:
            try:
                dt = parsedate_to_datetime(value)
            except (TypeError, ValueError):
                dt = None
            if dt is not None:
                # RFC 2822 "-0000" and no zone at all both come back naive
                return _stated(dt, False)
    try:
        return datetime.combine(date.fromisoformat(value[:10]), time(), timezone.utc), DAY
    except ValueError:
        return None


def _stated(dt: datetime, date_only: bool) -> tuple[datetime, str]:
    if dt.tzinfo is None:
        return dt.replace(tzinfo=timezone.utc), DAY if date_only else NAIVE
    if dt.utcoffset():
        return dt, OFFSET
    # Midnight UTC is how date-only values are usually stored: it states a day, not an instant.
    return dt, DAY if dt.time() == time() else UTC


class _Elements:
    """The elements dating reads, found in one pass over the page (each XPath search is a pass
    over the whole tree, and large pages have tens of thousands of nodes)."""

    def __init__(self, tree):
        self.tree = tree
        self.jsonld, self.meta, self.times, self.headings = [], [], [], []
        self.title = ""
        for el in tree.iter("script", "meta", "time", "h1", "h2", "h3", "title"):
            tag = el.tag
            if tag == "meta":
                if el.get("content") is not None:
                    self.meta.append(el)
            elif tag == "time":
                self.times.append(el)
            elif tag == "script":
                if el.get("type") == "application/ld+json":
                    self.jsonld.append(el)
            elif tag == "title":
                self.title = self.title or el.text_content()
            else:
                self.headings.append(el)


def _jsonld_dates(page: _Elements) -> list[str]:
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

    for script in page.jsonld:
        try:
            walk(json.loads(script.text_content() or ""))
        except (json.JSONDecodeError, RecursionError):
            continue
    return found


def _meta_dates(page: _Elements, generic: bool = False) -> list[str]:
    """<meta> publication dates in page order: those named for publication, or (``generic``)
    the generic ones."""
    found = []
    for meta in page.meta:
        key = (meta.get("property") or meta.get("name") or meta.get("itemprop") or "").lower()
        if key in META_NAMES and (key in META_GENERIC) == generic:
            found.append(meta.get("content"))
    return found


def _time_dates(page: _Elements) -> list[str]:
    # A <time> marked as the publication time beats the first one on the page; one that only
    # writes its date for readers ("29.04.2020, 12:01 Uhr") comes after those with a datetime;
    # one marked as the modification time (itemprop="dateModified") is no candidate.
    times = sorted((t for t in page.times if t.get("itemprop") != "dateModified"), key=lambda t: (
        not (t.get("pubdate") is not None or "publish" in (t.get("class") or "").lower()
             or t.get("itemprop") == "datePublished"),
        not t.get("datetime")))
    return [t.get("datetime") or t.text_content() for t in times]


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


def _day_attested(tree, url: str, day: date) -> bool:
    """Whether the page writes this exact day (the 1st) anywhere, not just its month or year."""
    text = " ".join(tree.xpath("//text()")) + " " + url + " " + " ".join(
        v for el in tree.xpath("//*[@content or @datetime]") for v in (el.get("content"), el.get("datetime")) if v)
    text = " ".join(text.split())
    if day.strftime("%Y%m%d") in text:
        return True
    # every written form has the year: read dates only around its occurrences
    year = str(day.year)
    start = text.find(year)
    while start != -1:
        if day in text_dates(text[max(0, start - 30):start + 20]):
            return True
        start = text.find(year, start + 1)
    return False


def date_page(tree, url: str, crawled_at: datetime, http_headers: dict[str, str] | None = None,
              max_age: timedelta | None = None) -> PageDate:
    """The best plausible publication time of a parsed page, or none with the rejects.

    Plausible: no later than the crawl plus ``SLACK``. Each signal offers its first plausible
    date; the calendar day most signals agree on wins,
    ties going to the most trusted signal, whose time is kept. Agreement beats trust because
    pages carry stale or templated metadata more often than several signals err alike
    (measured in bench/ingest_accuracy.py). The costlier readers (a publication label anywhere
    in the page, htmldate) only run when the signals before them disagree or are missing (they
    could only agree or lose a tie), and htmldate not at all when JSON-LD or <meta> date the
    page (it reads them first, so it would mostly repeat them). HTTP Last-Modified only counts
    when nothing else dates the page. With ``max_age`` (off by default), a winning date older
    than that before the crawl gives no date (rather than a weaker, newer signal such as an
    "updated" time). ``local_date`` is the day in the page's own offset and ``utc_offset`` that
    offset when a signal states it: a time written in UTC takes the day (and offset) another
    signal writes for it (see ``_local_day``).
    """
    ceiling = crawled_at + SLACK
    earliest = crawled_at - max_age if max_age is not None else None
    page = _Elements(tree)
    rejected: list[str] = []
    offers: dict[str, tuple[datetime, str]] = {}  # signal -> its first plausible date, trust order
    signals = (  # (name, source it is recorded as, its candidates)
        ("jsonld", "jsonld", lambda: _jsonld_dates(page)),
        ("meta", "meta", lambda: _meta_dates(page)),
        ("time", "time", lambda: _time_dates(page)),
        ("url", "url", lambda: _url_dates(url)),
        # the dateline under the headline, else a date labelled as the publication anywhere in
        # the page: costlier, so only read when the signals before disagree or are missing
        ("text", "text", lambda: headline_dates(page) or (
            labelled_dates(tree) if len({v.date() for v, _ in offers.values()}) != 1 else [])),
        ("generic_meta", "meta", lambda: _meta_dates(page, generic=True)),
        ("htmldate", "htmldate", lambda: _htmldate(tree, url, ceiling)),
        ("last_modified", "last_modified", lambda: [(http_headers or {}).get("last-modified", "")]),
    )
    for name, source, candidates in signals:
        if name == "htmldate" and (len({v.date() for v, _ in offers.values()}) == 1
                                   or offers.keys() & {"jsonld", "meta", "generic_meta"}):
            continue  # it could only agree or lose a tie, or echo JSON-LD and <meta>: skip its cost
        if name == "last_modified" and offers:
            break
        for raw in candidates():
            stated = _parse_any(raw, source)
            if stated is None:
                continue
            if EARLIEST_PLAUSIBLE <= stated[0] <= ceiling:
                offers[name] = stated
                break
            rejected.append(f"{source}:{raw}")
    if not offers:
        return PageDate(None, None, 0.0, tuple(rejected))
    votes = Counter(value.date() for value, _ in offers.values())
    day = max(votes, key=lambda d: votes[d])  # Counter keeps first-seen order: trust breaks ties
    name = next(n for n, (value, _) in offers.items() if value.date() == day)
    source = next(s for n, s, _ in signals if n == name)
    value, kind = offers[name]
    if earliest is not None and value < earliest:
        return PageDate(None, None, 0.0, (*rejected, f"too_old:{source}:{value.isoformat()}"))
    base = GENERIC_META_CONFIDENCE if name == "generic_meta" else CONFIDENCE[source]
    confidence = min(0.99, base + 0.05 * (votes[day] - 1))
    local_day, offset = _local_day(value, kind, offers)
    return PageDate(value.astimezone(timezone.utc), source, round(confidence, 2), tuple(rejected),
                    local_day, offset)


def crawl_date(crawled_at: datetime) -> PageDate:
    """The date of a page with no plausible date of its own: its crawl time (WARC-Date bounds
    publication from above), source "crawl", no local day or offset (the page states none)."""
    return PageDate(crawled_at.astimezone(timezone.utc), "crawl", CONFIDENCE["crawl"])


def _local_day(value: datetime, kind: str, offers: dict[str, tuple[datetime, str]]
               ) -> tuple[date, timedelta | None]:
    """The calendar day of the winning date as the page states it, and the page's UTC offset
    when a signal states one (None: not known).

    A time written with an offset gives both. A time written in UTC ("2020-02-25T02:25:54Z")
    fixes the instant but not the page's own day: when another signal writes the same instant
    with an offset, that offset is the page's; else when another signal writes a day (URL, a
    date under the headline, a date-only value) that the instant falls on somewhere between
    UTC-12 and UTC+14, that is the page's day (its offset stays unknown). A date without a time
    is the page's day as written.
    """
    if kind == OFFSET:
        return value.date(), value.utcoffset()
    if kind != UTC:
        return value.date(), None
    for other, other_kind in offers.values():
        if other_kind == OFFSET and abs(other - value) <= timedelta(minutes=2):
            return other.date(), other.utcoffset()
    days = [other.date() for other, other_kind in offers.values() if other_kind == DAY]
    if value.date() in days:
        return value.date(), None
    earliest, latest = (value - timedelta(hours=12)).date(), (value + timedelta(hours=14)).date()
    return next((d for d in days if earliest <= d <= latest), value.date()), None


def _parse_any(raw, source: str) -> tuple[datetime, str] | None:
    if not raw:
        return None
    if source == "last_modified":
        try:
            value = parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
        return _stated(value, False)
    stated = _parse_stated(raw)
    if stated is None and source == "time":  # <time>3 de mayo de 2022</time>
        days = text_dates(raw)
        if days:
            return datetime.combine(days[0], time(), timezone.utc), DAY
    return stated


def date_html(html: str | bytes, url: str, crawled_at: datetime | None = None,
              http_headers: dict[str, str] | None = None, max_age: timedelta | None = None) -> PageDate:
    """Date one HTML page (benchmarks, notebooks). Without a crawl time the upper bound is now."""
    return date_page(parse_html(html), url, crawled_at or datetime.now(timezone.utc), http_headers,
                     max_age)

