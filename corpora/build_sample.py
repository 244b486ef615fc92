#!/usr/bin/env python3
"""Build the bundled sample corpus from corpora/sample_src/.

Fictional world: the Republic of Veloria (see corpora/README.md). Inputs:

    sample_src/articles/NNN-slug.md   one article each: "key: value" header, blank line, paragraphs
    sample_src/markets.json           market definitions (friendly format, ISO times)
    sample_src/posts.jsonl            Pushshift-style Reddit items, one JSON object a line

Outputs (under --out, default corpora/sample/):

    warc/CC-NEWS-<first crawl time>-<serial>.warc.gz   one gzip WARC per crawl day
    markets/manifold.json                              Manifold /v0/market-style dump with bets
    social/reddit_sample.ndjson.zst                    zstd-compressed ndjson

Deterministic: no clock, no network, no unseeded randomness. Running it twice yields
byte-identical files (gzip members from zlib carry mtime 0; every WARC-Date and record id
is derived from the sources). Dependencies: stdlib, warcio, zstandard.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import html
import io
import json
import math
import random
import re
import sys
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path

import zstandard
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

HERE = Path(__file__).resolve().parent
SRC = HERE / "sample_src"
DEFAULT_OUT = HERE / "sample"

# Fixed namespace for uuid5 record ids (never change: ids are part of the committed output).
NS = uuid.UUID("6f1c1d2e-5b7a-4c3e-9a51-2f0d8e4b7c10")
UTC = timezone.utc
# Market price histories stop here (the dump was "taken" at the end of the window).
DUMP_TIME = datetime(2026, 3, 31, 23, 59, 59, tzinfo=UTC)

WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]


# --------------------------------------------------------------------------------------------
# sites


@dataclass(frozen=True)
class Site:
    name: str
    short: str
    server: str
    ip: str
    title_sep: str
    nav: tuple
    layout: str  # "a" | "b" | "c" (three markup families)
    text_date: str  # strftime-like key, see visible_date()
    tagline: str
    founded: int


SITES = {
    "kestrelbay-herald.example": Site(
        "Kestrel Bay Herald", "Herald", "nginx/1.24.0", "203.0.113.10", " | ",
        ("News", "City", "Politics", "Sport", "Culture", "Weather", "Opinion"), "a", "published_long",
        "News from the harbour city since 1871", 1871),
    "veloria-times.example": Site(
        "The Veloria Times", "Times", "Apache", "203.0.113.21", " - ",
        ("Politics", "Business", "Science", "Environment", "Health", "Culture", "Sport"), "b", "weekday_long",
        "Independent journalism for Veloria", 1902),
    "aldermoor-post.example": Site(
        "Aldermoor Post", "Post", "cloudflare", "203.0.113.35", " | ",
        ("City", "Politics", "Business", "Sport", "Culture", "Travel"), "c", "dotted",
        "The capital's daily newspaper", 1923),
    "velnews-wire.example": Site(
        "VelNews Wire", "VNW", "nginx", "203.0.113.47", " :: ",
        ("Top stories", "Economy", "Business", "Politics", "Sport", "Culture"), "b", "wire_utc",
        "National news agency of Veloria", 1951),
    "brennick-courier.example": Site(
        "Brennick Courier", "Courier", "Apache/2.4.58 (Debian)", "203.0.113.52", " | ",
        ("Region", "Business", "Sport", "Culture", "Education", "Jobs"), "a", "us_style",
        "Serving Brennick and the Marrow valley", 1888),
    "saltmere-gazette.example": Site(
        "Saltmere Gazette", "Gazette", "nginx/1.22.1", "203.0.113.66", " - ",
        ("Local", "Region", "Politics", "Sport", "Sea & Harbour", "Notices"), "c", "published_time",
        "The voice of the coast", 1896),
    "veloria-business-daily.example": Site(
        "Veloria Business Daily", "VBD", "cloudflare", "203.0.113.78", " | ",
        ("Markets", "Economy", "Companies", "Property", "Energy", "Opinion"), "b", "pipe",
        "Markets, companies and the economy", 1989),
    "sportsdesk-veloria.example": Site(
        "SportsDesk Veloria", "SportsDesk", "openresty", "203.0.113.90", " | ",
        ("Football", "Basketball", "Cycling", "Rugby", "Athletics", "Winter sports"), "a", "short",
        "All the sport, all the time", 2011),
}


# --------------------------------------------------------------------------------------------
# articles


@dataclass
class Article:
    id: str
    domain: str
    path: str
    published: datetime  # aware, original offset
    lag_hours: int
    date_style: str
    byline: str
    section: str
    title: str
    paragraphs: list
    syndicated_from: str | None = None
    charset: str = "utf-8"
    source_file: str = ""
    crawl: datetime = field(init=False)
    modified: datetime = field(init=False)

    def __post_init__(self):
        self.crawl = self.published.astimezone(UTC) + timedelta(hours=self.lag_hours)
        # dateModified: a few minutes after publication, always before the crawl (lag >= 1 h).
        self.modified = self.published + timedelta(minutes=_h(self.id, "mod") % 50)

    @property
    def url(self) -> str:
        return f"https://{self.domain}{self.path}"


REQUIRED = ("id", "domain", "path", "published", "crawl_lag_hours", "date_style", "byline",
            "section", "title")
STYLES = ("jsonld", "meta", "time", "url", "text", "none")


def _h(*parts) -> int:
    return int(hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:12], 16)


def parse_article(path: Path) -> Article:
    text = path.read_text(encoding="utf-8")
    head, _, body = text.partition("\n\n")
    hdr = {}
    for line in head.splitlines():
        key, sep, value = line.partition(": ")
        if not sep:
            raise ValueError(f"{path.name}: bad header line {line!r}")
        hdr[key] = value
    missing = [k for k in REQUIRED if k not in hdr]
    if missing:
        raise ValueError(f"{path.name}: missing header keys {missing}")
    if hdr["date_style"] not in STYLES:
        raise ValueError(f"{path.name}: bad date_style {hdr['date_style']}")
    lag = int(hdr["crawl_lag_hours"])
    if not 1 <= lag <= 40:
        raise ValueError(f"{path.name}: crawl_lag_hours out of range")
    published = datetime.fromisoformat(hdr["published"])
    if published.tzinfo is None:
        raise ValueError(f"{path.name}: published needs a UTC offset")
    paragraphs = [" ".join(p.split()) for p in body.strip().split("\n\n") if p.strip()]
    return Article(
        id=hdr["id"], domain=hdr["domain"], path=hdr["path"], published=published, lag_hours=lag,
        date_style=hdr["date_style"], byline=hdr["byline"], section=hdr["section"], title=hdr["title"],
        paragraphs=paragraphs, syndicated_from=hdr.get("syndicated_from"),
        charset=hdr.get("charset", "utf-8"), source_file=path.name)


def load_articles(src: Path) -> list[Article]:
    arts = [parse_article(p) for p in sorted((src / "articles").glob("*.md"))]
    ids = [a.id for a in arts]
    if len(set(ids)) != len(ids):
        raise ValueError("duplicate article ids")
    urls = [a.url for a in arts]
    if len(set(urls)) != len(urls):
        raise ValueError("duplicate article urls")
    known = set(ids)
    for a in arts:
        if a.syndicated_from and a.syndicated_from not in known:
            raise ValueError(f"{a.id}: syndicated_from {a.syndicated_from} unknown")
        if a.domain not in SITES:
            raise ValueError(f"{a.id}: unknown domain {a.domain}")
    return arts


# --------------------------------------------------------------------------------------------
# HTML rendering

DATED_PATH = re.compile(r"/20\d\d[/-]\d\d[/-]\d\d/")
esc = html.escape


def visible_date(site: Site, d: datetime) -> str:
    """Human-readable date line for date_style=text (publisher's local time as given)."""
    day, mon, year = d.day, MONTHS[d.month - 1], d.year
    hm = d.strftime("%H:%M")
    style = site.text_date
    if style == "published_long":
        return f"Published {day} {mon} {year}"
    if style == "weekday_long":
        return f"{WEEKDAYS[d.weekday()]} {day} {mon} {year}"
    if style == "dotted":
        return f"{d.strftime('%d.%m.%Y')}, {hm}"
    if style == "wire_utc":
        u = d.astimezone(UTC)
        return f"{u.day} {MONTHS[u.month - 1][:3]} {u.year} {u.strftime('%H:%M')} UTC"
    if style == "us_style":
        return f"{mon} {day}, {year}"
    if style == "published_time":
        return f"Published {day} {mon} {year}, {hm}"
    if style == "pipe":
        return f"{day} {mon} {year} | {hm}"
    if style == "short":
        return f"{WEEKDAYS[d.weekday()][:3]} {day} {mon[:3]} {year}"
    raise ValueError(style)


def time_label(d: datetime) -> str:
    return f"{d.day} {MONTHS[d.month - 1]} {d.year}, {d.strftime('%H:%M')}"


def related_for(a: Article, by_domain: dict) -> list[Article]:
    """Up to three earlier articles from the same site (never a later one: no future links)."""
    out = []
    for b in reversed(by_domain[a.domain]):
        if b.published.astimezone(UTC) >= a.published.astimezone(UTC) or b.id == a.id:
            continue
        if a.date_style in ("text", "none") and DATED_PATH.search(b.path):
            continue  # keep dateless pages free of any date, including in links
        out.append(b)
        if len(out) == 3:
            break
    return out


def description(a: Article) -> str:
    first = a.paragraphs[0]
    return first if len(first) <= 200 else first[:197].rsplit(" ", 1)[0] + "..."


def render_html(a: Article, related: list[Article]) -> bytes:
    site = SITES[a.domain]
    slug = a.path.rstrip("/").rsplit("/", 1)[-1].replace(".html", "")
    charset_tag = ('<meta charset="windows-1252">' if a.charset == "windows-1252"
                   else '<meta charset="utf-8">')
    head = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        charset_tag,
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(a.title)}{site.title_sep}{esc(site.name)}</title>",
        f'<meta name="description" content="{esc(description(a))}">',
        f'<link rel="canonical" href="{esc(a.url)}">',
        f'<meta property="og:title" content="{esc(a.title)}">',
        '<meta property="og:type" content="article">',
        f'<meta property="og:url" content="{esc(a.url)}">',
        f'<meta property="og:site_name" content="{esc(site.name)}">',
        f'<meta property="og:description" content="{esc(description(a))}">',
        f'<meta property="og:image" content="https://{a.domain}/img/{esc(slug)}.jpg">',
        '<meta name="twitter:card" content="summary_large_image">',
        f'<meta name="author" content="{esc(a.byline)}">',
        f'<meta property="article:section" content="{esc(a.section)}">',
        f'<link rel="stylesheet" href="/static/{site.layout}/main.css">',
    ]
    if a.date_style == "meta":
        head.append(f'<meta property="article:published_time" content="{a.published.isoformat()}">')
        if _h(a.id, "metamod") % 2:
            head.append(f'<meta property="article:modified_time" content="{a.modified.isoformat()}">')
    if a.date_style == "jsonld":
        ld = {
            "@context": "https://schema.org",
            "@type": "NewsArticle",
            "headline": a.title,
            "description": description(a),
            "datePublished": a.published.isoformat(),
            "dateModified": a.modified.isoformat(),
            "author": [{"@type": "Person", "name": a.byline}],
            "publisher": {"@type": "Organization", "name": site.name,
                          "logo": {"@type": "ImageObject", "url": f"https://{a.domain}/static/logo.png"}},
            "mainEntityOfPage": {"@type": "WebPage", "@id": a.url},
            "articleSection": a.section,
            "image": [f"https://{a.domain}/img/{slug}.jpg"],
        }
        head.append('<script type="application/ld+json">' + json.dumps(ld, ensure_ascii=False) + "</script>")
    elif site.layout == "b":
        # Site-level JSON-LD without any date: present on every page of these sites.
        org = {"@context": "https://schema.org", "@type": "Organization", "name": site.name,
               "url": f"https://{a.domain}/", "logo": f"https://{a.domain}/static/logo.png"}
        head.append('<script type="application/ld+json">' + json.dumps(org, ensure_ascii=False) + "</script>")
    head.append("</head>")

    nav = "".join(f'<li><a href="/{n.lower().replace(" & ", "-").replace(" ", "-")}/">{esc(n)}</a></li>'
                  for n in site.nav)
    top = [
        '<body class="article-page">',
        '<a class="skip-link" href="#main">Skip to content</a>',
        f'<header class="site-header"><a class="logo" href="/">{esc(site.name)}</a>'
        f'<p class="tagline">{esc(site.tagline)}</p>'
        '<a class="subscribe" href="/subscribe/">Subscribe</a> <a class="login" href="/login/">Log in</a></header>',
        f'<nav class="main-nav" aria-label="Sections"><ul><li><a href="/">Home</a></li>{nav}</ul></nav>',
    ]

    # byline block (with the date where the style puts it)
    by = f'<span class="author">By <a href="/authors/{_author_slug(a.byline)}/">{esc(a.byline)}</a></span>'
    if a.date_style == "time":
        by += f' <time datetime="{a.published.isoformat()}">{esc(time_label(a.published))}</time>'
    dateline = ""
    if a.date_style == "text":
        dateline = f'<p class="dateline">{esc(visible_date(site, a.published))}</p>'

    paras = [f"<p>{esc(p)}</p>" for p in a.paragraphs]
    if site.layout == "a" and related and len(paras) > 3:
        r = related[0]
        paras.insert(2, f'<p class="read-more"><strong>Read more:</strong> <a href="{esc(r.path)}">{esc(r.title)}</a></p>')

    crumbs = (f'<ol class="breadcrumbs"><li><a href="/">Home</a></li>'
              f'<li><a href="/{_author_slug(a.section)}/">{esc(a.section)}</a></li></ol>')
    if site.layout == "a":
        article = [
            '<main id="main">', crumbs,
            '<article class="story">',
            f'<h1 class="headline">{esc(a.title)}</h1>',
            f'<div class="byline">{by}</div>' + dateline,
            f'<figure class="lead-image"><img src="/img/{esc(slug)}.jpg" alt="" width="1200" height="675"></figure>',
            '<div class="story-body">', *paras, "</div>",
            '<div class="share">Share this article: <a href="#">Email</a> <a href="#">Copy link</a></div>',
            "</article>",
        ]
    elif site.layout == "b":
        article = [
            '<main id="main" class="container">',
            f'<article class="article" data-section="{esc(a.section)}">',
            f'<header class="article-header"><p class="kicker">{esc(a.section)}</p>'
            f'<h1>{esc(a.title)}</h1><p class="byline">{by}</p>{dateline}</header>',
            '<section class="article-body">', *paras, "</section>",
            '<p class="corrections">Spotted a mistake? <a href="/corrections/">Tell us</a>.</p>',
            "</article>",
        ]
    else:  # "c"
        article = [
            '<div id="main" class="page">', crumbs,
            '<article itemscope itemtype="https://schema.org/NewsArticle">',
            f'<h1 itemprop="headline">{esc(a.title)}</h1>',
            f'<div class="meta-line">{by}</div>' + dateline,
            '<div class="content" itemprop="articleBody">', *paras, "</div>",
            '<div class="newsletter-box"><h3>Get the morning briefing</h3>'
            '<p>The day\'s essential stories in your inbox before 7am.</p>'
            '<form action="/newsletter/"><input type="email" name="email" placeholder="Your email">'
            '<button>Sign up</button></form></div>',
            "</article>",
        ]
    aside = ['<aside class="related"><h2>Related</h2><ul>']
    aside += [f'<li><a href="{esc(r.path)}">{esc(r.title)}</a></li>' for r in related]
    aside += ["</ul></aside>"]
    close_main = ["</main>" if site.layout in ("a", "b") else "</div>"]
    footer = [
        '<div class="cookie-banner" role="dialog"><p>We use cookies to improve your experience, '
        'measure audiences and show relevant advertising. You can change your choices at any time '
        'in Privacy settings.</p><button class="accept">Accept all</button> '
        '<button class="reject">Reject non-essential</button></div>',
        '<footer class="site-footer"><ul>'
        '<li><a href="/about/">About us</a></li><li><a href="/contact/">Contact</a></li>'
        '<li><a href="/privacy/">Privacy policy</a></li><li><a href="/terms/">Terms of use</a></li>'
        '<li><a href="/advertise/">Advertise</a></li></ul>'
        f'<p class="copyright">© 2026 {esc(site.name)}. Founded {site.founded}. All rights reserved.</p>'
        "</footer>",
        f'<script src="/static/{site.layout}/app.js" defer></script>',
        "</body>",
        "</html>",
    ]
    doc = "\n".join(head + top + article + aside + close_main + footer) + "\n"
    return doc.encode("cp1252" if a.charset == "windows-1252" else "utf-8")


def _author_slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


# --------------------------------------------------------------------------------------------
# WARC writing


def warc_date(d: datetime) -> str:
    return d.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def http_date(d: datetime) -> str:
    return format_datetime(d.astimezone(UTC), usegmt=True)


def record_id(key: str, rtype: str) -> str:
    return f"<urn:uuid:{uuid.uuid5(NS, f'{key}:{rtype}')}>"


@dataclass
class Fetch:
    """One request/response pair to write."""
    key: str
    url: str
    crawl: datetime
    status: str  # e.g. "200 OK"
    headers: list  # http response headers (without Date/Content-Length)
    body: bytes
    ip: str
    kind: str  # "article" | "edge"


JPEG_1x1 = base64.b64decode(
    "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP////////////////////////////////////////////////////"
    "//////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgB"
    "AQABPxA=")


def _tiny_pdf(lines: list[str]) -> bytes:
    """A small, valid single-page PDF with the given text lines (byte offsets computed)."""
    content = "BT /F1 11 Tf 72 760 Td 14 TL " + " ".join(
        "(" + ln.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ") '" for ln in lines) + " ET"
    objs = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(content)} >>\nstream\n{content}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, o in enumerate(objs, 1):
        offsets.append(out.tell())
        out.write(f"{i} 0 obj\n{o}\nendobj\n".encode("latin-1"))
    xref = out.tell()
    out.write(f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode())
    for off in offsets:
        out.write(f"{off:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def _error_page(title: str, text: str) -> bytes:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head>"
            f"<body><h1>{title}</h1><p>{text}</p></body></html>\n").encode()


def edge_fetches(articles: list[Article]) -> list[Fetch]:
    """Non-article records: non-HTML 200s and non-200 responses."""
    t = lambda s: datetime.fromisoformat(s).replace(tzinfo=UTC)  # noqa: E731
    robots = (b"User-agent: *\nDisallow: /login/\nDisallow: /subscribe/\nDisallow: /search\n\n"
              b"User-agent: GPTBot\nDisallow: /\n\nSitemap: https://kestrelbay-herald.example/sitemap.xml\n")
    pdf = _tiny_pdf([
        "Bank of Veloria - Monetary Policy Statement",
        "22 January 2026",
        "The Monetary Policy Committee voted by a majority of 4-3 to maintain",
        "the benchmark rate at 3.50 per cent.",
    ])
    # a 301 pointing at an existing article on the same site
    target = next(a for a in articles if a.domain == "veloria-times.example" and a.date_style != "url")
    return [
        Fetch("edge:robots", "https://kestrelbay-herald.example/robots.txt", t("2026-01-05T08:30:00"),
              "200 OK", [("Content-Type", "text/plain; charset=utf-8"), ("Server", "nginx/1.24.0")],
              robots, "203.0.113.10", "edge"),
        Fetch("edge:jpeg", "https://veloria-times.example/img/halvard-prize-shortlist.jpg", t("2026-01-17T02:10:00"),
              "200 OK", [("Content-Type", "image/jpeg"), ("Server", "Apache"), ("Cache-Control", "max-age=86400")],
              JPEG_1x1, "203.0.113.21", "edge"),
        Fetch("edge:404", "https://aldermoor-post.example/article/10001/page-that-never-existed",
              t("2026-02-02T11:45:00"), "404 Not Found",
              [("Content-Type", "text/html; charset=utf-8"), ("Server", "cloudflare")],
              _error_page("Page not found", "Sorry, we could not find the page you were looking for."),
              "203.0.113.35", "edge"),
        Fetch("edge:301", "https://veloria-times.example/news/old-url-redirect", t("2026-02-09T06:05:00"),
              "301 Moved Permanently",
              [("Content-Type", "text/html; charset=iso-8859-1"), ("Server", "Apache"), ("Location", target.url)],
              _error_page("Moved Permanently", f'The document has moved <a href="{target.url}">here</a>.'),
              "203.0.113.21", "edge"),
        Fetch("edge:pdf", "https://veloria-business-daily.example/documents/bov-policy-statement-2026-01.pdf",
              t("2026-01-23T09:20:00"), "200 OK",
              [("Content-Type", "application/pdf"), ("Server", "cloudflare")], pdf, "203.0.113.78", "edge"),
        Fetch("edge:503", "https://saltmere-gazette.example/local/live-storm-updates", t("2026-03-02T19:40:00"),
              "503 Service Unavailable",
              [("Content-Type", "text/html; charset=utf-8"), ("Server", "nginx/1.22.1"), ("Retry-After", "120")],
              _error_page("Service Temporarily Unavailable",
                          "The server is temporarily unable to service your request. Please try again later."),
              "203.0.113.66", "edge"),
        Fetch("edge:robots2", "https://sportsdesk-veloria.example/robots.txt", t("2026-03-20T04:00:00"),
              "200 OK", [("Content-Type", "text/plain"), ("Server", "openresty")],
              b"User-agent: *\nAllow: /\nCrawl-delay: 2\n", "203.0.113.90", "edge"),
    ]


def article_fetches(articles: list[Article]) -> list[Fetch]:
    by_domain: dict[str, list[Article]] = {}
    for a in sorted(articles, key=lambda x: (x.published.astimezone(UTC), x.id)):
        by_domain.setdefault(a.domain, []).append(a)
    out = []
    for a in articles:
        site = SITES[a.domain]
        body = render_html(a, related_for(a, by_domain))
        ctype = "text/html" if a.charset == "windows-1252" else "text/html; charset=utf-8"
        headers = [("Server", site.server), ("Content-Type", ctype),
                   ("Cache-Control", "public, max-age=300"), ("Vary", "Accept-Encoding")]
        # Last-Modified only where the page itself already carries a machine-readable date.
        if a.date_style in ("jsonld", "meta", "time") and _h(a.id, "lastmod") % 3 == 0:
            headers.append(("Last-Modified", http_date(a.modified)))
        headers.append(("X-Cache", "HIT" if _h(a.id, "cache") % 2 else "MISS"))
        out.append(Fetch(a.id, a.url, a.crawl, "200 OK", headers, body, site.ip, "article"))
    return out


def write_warcs(fetches: list[Fetch], out_dir: Path) -> list[tuple[str, int]]:
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.warc.gz"):
        old.unlink()
    fetches = sorted(fetches, key=lambda f: (f.crawl, f.key))
    days: dict[tuple, list[Fetch]] = {}  # CC-NEWS writes files through each crawl day
    for f in fetches:
        days.setdefault((f.crawl.year, f.crawl.month, f.crawl.day), []).append(f)
    written = []
    for serial, (_, group) in enumerate(sorted(days.items())):
        first = group[0].crawl
        name = f"CC-NEWS-{first.strftime('%Y%m%d%H%M%S')}-{serial:05d}.warc.gz"
        buf = io.BytesIO()
        writer = WARCWriter(buf, gzip=True, warc_version="1.0")
        info_id = record_id(name, "warcinfo")
        info = (
            "software: pastcast corpora/build_sample.py (fictional sample corpus)\r\n"
            "format: WARC File Format 1.0\r\n"
            "conformsTo: http://bibnum.bnf.fr/WARC/WARC_ISO_28500_version1_latestdraft.pdf\r\n"
            "isPartOf: CC-NEWS-SAMPLE\r\n"
            "publisher: pastcast sample corpus (all people, places and events are invented)\r\n"
            "description: Sample news crawl of the fictional Republic of Veloria, "
            f"crawl day {first.strftime('%Y-%m-%d')}\r\n"
            "robots: checked via crawler-commons (https://github.com/crawler-commons/crawler-commons)\r\n"
            "operator: pastcast\r\n"
        ).encode()
        rec = writer.create_warc_record(
            "", "warcinfo", payload=io.BytesIO(info), length=len(info),
            warc_content_type="application/warc-fields",
            warc_headers_dict={"WARC-Record-ID": info_id, "WARC-Date": warc_date(first), "WARC-Filename": name})
        writer.write_record(rec)
        n = 1
        for f in group:
            host = f.url.split("/")[2]
            path = "/" + f.url.split("/", 3)[3]
            req_id = record_id(f.key, "request")
            req_headers = StatusAndHeaders(f"GET {path} HTTP/1.1", [
                ("Host", host),
                ("User-Agent", "CCBot/2.0 (https://commoncrawl.org/faq/)"),
                ("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"),
                ("Accept-Language", "en-US,en;q=0.5"),
                ("Connection", "Keep-Alive"),
            ], is_http_request=True)
            rec = writer.create_warc_record(
                f.url, "request", http_headers=req_headers,
                warc_headers_dict={"WARC-Record-ID": req_id, "WARC-Date": warc_date(f.crawl),
                                   "WARC-Warcinfo-ID": info_id, "WARC-IP-Address": f.ip})
            writer.write_record(rec)
            resp_headers = StatusAndHeaders(f.status, [("Date", http_date(f.crawl))] + list(f.headers) + [
                ("Content-Length", str(len(f.body)))], protocol="HTTP/1.1")
            wh = {"WARC-Record-ID": record_id(f.key, "response"), "WARC-Date": warc_date(f.crawl),
                  "WARC-Warcinfo-ID": info_id, "WARC-Concurrent-To": req_id, "WARC-IP-Address": f.ip}
            ctype = dict(f.headers).get("Content-Type", "")
            if f.status.startswith("200"):
                wh["WARC-Identified-Payload-Type"] = ctype.split(";")[0]
            rec = writer.create_warc_record(
                f.url, "response", payload=io.BytesIO(f.body), length=len(f.body),
                http_headers=resp_headers, warc_headers_dict=wh)
            writer.write_record(rec)
            n += 2
        (out_dir / name).write_bytes(buf.getvalue())
        written.append((name, n))
    return written


# --------------------------------------------------------------------------------------------
# markets (Manifold /v0/market-style)

B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def manifold_id(*parts, n: int = 20) -> str:
    x = int(hashlib.sha256("\x1f".join(parts).encode()).hexdigest(), 16)
    s = []
    for _ in range(n):
        x, r = divmod(x, 62)
        s.append(B62[r])
    return "".join(s)


def ms(s: str) -> int:
    d = datetime.fromisoformat(s.replace("Z", "+00:00"))
    return int(d.timestamp() * 1000)


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def _sig(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def _clip(p: float) -> float:
    return min(0.99, max(0.01, p))


def build_markets(src: Path) -> dict:
    spec = json.loads((src / "markets.json").read_text(encoding="utf-8"))
    users = [manifold_id("user", str(i), n=28) for i in range(23)]
    markets, bets = [], []
    for m in spec["markets"]:
        rng = random.Random("market:" + m["slug"])
        mid = manifold_id("market", m["slug"])
        created, close = ms(m["created"]), ms(m["close"])
        end = min(close, int(DUMP_TIME.timestamp() * 1000))
        mc = m["outcomeType"] == "MULTIPLE_CHOICE"
        res = m.get("resolution")  # answer text for MC, YES/NO/CANCEL for binary, None = open
        out = {
            "id": mid,
            "creatorId": manifold_id("user", m["creatorUsername"], n=28),
            "creatorUsername": m["creatorUsername"],
            "creatorName": m["creatorName"],
            "createdTime": created,
            "closeTime": close,
            "question": m["question"],
            "slug": m["slug"],
            "url": f"https://manifold.markets/{m['creatorUsername']}/{m['slug']}",
            "outcomeType": m["outcomeType"],
            "mechanism": "cpmm-multi-1" if mc else "cpmm-1",
            "description": m["description"],
            "token": "MANA",
        }
        if mc:
            answers = [{"id": manifold_id("answer", m["slug"], a["text"], n=12), "index": i, "text": a["text"],
                        "p0": a["p0"], "out": ms(a["out"]) if a.get("out") else None}
                       for i, a in enumerate(m["answers"])]
            tot = sum(a["p0"] for a in answers)
            probs = [a["p0"] / tot for a in answers]
            truth = [a["text"] == res for a in answers] if res else None
        else:
            p = m["p0"]
        t = created + rng.randint(2, 20) * 3600 * 1000
        volume, bettors, last_bet = 0.0, set(), None
        while t < end:
            # w: how much of the truth the market "knows" at t (0 at creation, 1 at close)
            w = ((t - created) / (close - created)) ** 2
            user = rng.choice(users)
            amount = float(rng.choice([5, 10, 10, 20, 25, 50, 50, 100, 150, 250, 500]))
            bid = manifold_id("bet", m["slug"], str(t), n=20)
            if mc:
                alive = [a["out"] is None or t < a["out"] for a in answers]
                stale = [i for i in range(len(answers)) if not alive[i] and probs[i] > 0.01]
                if stale:  # an eliminated answer is sold off on the next trade
                    k = stale[0]
                    before, after = probs[k], 0.004
                else:
                    prior = [answers[i]["p0"] if alive[i] else 0.0 for i in range(len(answers))]
                    z = sum(prior)
                    tgt = [(1 - w) * prior[i] / z + w * (1.0 if truth and truth[i] else 0.0) if alive[i] else 0.0
                           for i in range(len(answers))]
                    live = [i for i in range(len(answers)) if alive[i]]
                    k = rng.choice(live)
                    before = probs[k]
                    step = (_logit(_clip(tgt[k])) - _logit(_clip(before))) * 0.5 + rng.gauss(0, 0.3)
                    after = round(_clip(_sig(_logit(_clip(before)) + step)), 4)
                rest = 1 - before
                probs = [after if i == k else (probs[i] * (1 - after) / rest if rest > 0 else 0.0)
                         for i in range(len(answers))]
                bet = {"id": bid, "contractId": mid, "answerId": answers[k]["id"], "userId": user,
                       "createdTime": t, "outcome": "YES" if after >= before else "NO",
                       "probBefore": round(before, 4), "probAfter": after, "amount": amount}
            else:
                truth_p = {"YES": 0.95, "NO": 0.05}.get(res)
                target = m["p0"] if truth_p is None else (1 - w) * m["p0"] + w * truth_p
                before = p
                step = (_logit(_clip(target)) - _logit(_clip(before))) * 0.5 + rng.gauss(0, 0.3)
                p = round(_clip(_sig(_logit(_clip(before)) + step)), 4)
                bet = {"id": bid, "contractId": mid, "createdTime": t, "userId": user,
                       "outcome": "YES" if p >= before else "NO",
                       "probBefore": round(before, 4), "probAfter": p, "amount": amount}
            bets.append(bet)
            volume += amount
            bettors.add(user)
            last_bet = t
            t += int(rng.uniform(1.0, 3.0) * 86400 * 1000)
        if mc:
            out["answers"] = []
            for i, a in enumerate(answers):
                ans = {"id": a["id"], "index": i, "text": a["text"], "probability": round(probs[i], 4)}
                if res:
                    ans["resolution"] = "YES" if a["text"] == res else "NO"
                out["answers"].append(ans)
        else:
            out["probability"] = round(p, 4)
        out["volume"] = round(volume, 2)
        out["uniqueBettorCount"] = len(bettors)
        if last_bet is not None:
            out["lastBetTime"] = last_bet
        if res:
            out["isResolved"] = True
            out["resolution"] = "CHOOSE_ONE" if mc else res
            out["resolutionTime"] = ms(m["resolved"])
        else:
            out["isResolved"] = False
        markets.append(out)
    bets.sort(key=lambda b: (b["createdTime"], b["id"]))
    return {"markets": markets, "bets": bets}


# --------------------------------------------------------------------------------------------
# social (Pushshift-style)


def build_posts(src: Path) -> tuple[bytes, int]:
    lines = []
    for n, line in enumerate((src / "posts.jsonl").read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        obj = json.loads(line)
        for k in ("id", "author", "created_utc", "subreddit", "score", "permalink"):
            if k not in obj:
                raise ValueError(f"posts.jsonl line {n}: missing {k}")
        lines.append(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))
    raw = ("\n".join(lines) + "\n").encode("utf-8")
    cctx = zstandard.ZstdCompressor(level=10, write_checksum=True, write_content_size=True, threads=0)
    return cctx.compress(raw), len(lines)


# --------------------------------------------------------------------------------------------


def build(out: Path, src: Path = SRC) -> dict:
    articles = load_articles(src)
    fetches = article_fetches(articles) + edge_fetches(articles)
    written = write_warcs(fetches, out / "warc")

    (out / "markets").mkdir(parents=True, exist_ok=True)
    dump = build_markets(src)
    (out / "markets" / "manifold.json").write_text(
        json.dumps(dump, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")

    (out / "social").mkdir(parents=True, exist_ok=True)
    data, n_posts = build_posts(src)
    (out / "social" / "reddit_sample.ndjson.zst").write_bytes(data)

    days = sorted({a.published.date() for a in articles})
    return {
        "warc_files": len(written),
        "warc_records": sum(n for _, n in written),
        "articles": len(articles),
        "days": len(days),
        "first_day": days[0].isoformat(),
        "last_day": days[-1].isoformat(),
        "markets": len(dump["markets"]),
        "bets": len(dump["bets"]),
        "posts": n_posts,
        "files": [name for name, _ in written],
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory (default: corpora/sample)")
    ap.add_argument("--src", type=Path, default=SRC, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    s = build(args.out, args.src)
    print(f"sample corpus: {s['warc_files']} WARC files, {s['warc_records']} records, {s['articles']} articles "
          f"over {s['days']} publication days ({s['first_day']}..{s['last_day']}), {s['markets']} markets, "
          f"{s['bets']} bets, {s['posts']} posts -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
