"""Build a large CC-NEWS-like WARC for the ingest speed benchmark, from REAL pages only.

Every HTML body is a real page from ``../shared/data``: the fundus publisher pages
(``dates/fundus``), trafilatura's evaluation pages (``extraction/trafilatura``) and the HTML
responses inside the shared WARC files (``warc/``), de-duplicated by content. The builder
cycles through them (a fresh deterministic order each round) until the file holds at least
``--min-records`` response records and ``--min-mb`` megabytes, giving each copy its own URL
(the real URL first, then tracking/AMP/mobile variants of it) and its own WARC-Date (the
page's real crawl time when known, later for each further copy).

Like a CC-NEWS file it starts with a warcinfo record and holds only response records, a
small share of them not HTML 200: redirects and errors (about 3%) and non-HTML payloads
(about 2.5%: the fundus expected-output JSON files, RSS feeds listing real pages,
robots.txt). HTTP headers are synthetic but realistic (status line, Date, Server,
Content-Type with the page's real charset, Content-Length, caching headers).

Records are written with warcio's WARCWriter and gzipped one member per record (level 6,
as most crawlers do; warcio's own wrapper uses level 9, twice as slow for the same size).
The output is deterministic (fixed seed, record ids derived from content, gzip mtime 0)
and cached: ``.bench-cache/large.warc.gz`` is rebuilt only when the content key (this
script, its parameters and the bytes of every input) changes. A sidecar
``large.warc.gz.json`` records the key, the counts and the byte offset after every 100th
record, so a benchmark can cut an exact record prefix of the file.

Run: ``.venv/bin/python bench/build_large_warc.py [--force]``.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import random
import re
import sys
import time
import uuid
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import DATA, FUNDUS_PAGES, LARGE_WARC, TRAFILATURA, read_page_bytes  # noqa: E402
from _common import require_data, trafilatura_eval, trafilatura_page_path, write_json  # noqa: E402

from warcio.archiveiterator import ArchiveIterator  # noqa: E402
from warcio.statusandheaders import StatusAndHeaders  # noqa: E402
from warcio.warcwriter import WARCWriter  # noqa: E402

SEED = 20240101
OFFSET_EVERY = 100
BUILDER_VERSION = 1  # bump to force a rebuild when the layout changes without code changes
SHARED_WARCS = sorted(p for p in (DATA / "warc").rglob("*")
                      if p.is_file() and p.name.endswith((".warc.gz", ".warc", ".arc.gz"))
                      and "wat" not in p.name and "wet" not in p.name)
META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
SERVERS = ("nginx", "Apache", "cloudflare", "Varnish", "Microsoft-IIS/10.0", "openresty",
           "AmazonS3", "nginx/1.18.0 (Ubuntu)")
FALLBACK_CRAWL = datetime(2023, 6, 1, 4, 0, tzinfo=timezone.utc)
FILE_HOST = re.compile(r"^(.+?\.(?:com|org|net|de|cu|info|at|ch|fr|eu|io|es|it|uk)(?:\.[a-z]{2})?)"
                       r"(?:[.-](.*))?$")


@dataclass(frozen=True)
class Page:
    url: str
    body: bytes
    crawled_at: datetime  # the first copy's WARC-Date
    source: str


# ------------------------------------------------------------------------------ inputs


def input_files() -> list[Path]:
    files = sorted(FUNDUS_PAGES.rglob("*.html.gz")) + sorted(FUNDUS_PAGES.rglob("*.json"))
    files += sorted(FUNDUS_PAGES.rglob("*.info")) + [FUNDUS_PAGES / "manifest_derived.jsonl"]
    files += [TRAFILATURA / "evaldata.json"]
    files += sorted({trafilatura_page_path(it["file"]) for it in trafilatura_eval().values()})
    return files + SHARED_WARCS


def content_key(params: dict) -> str:
    digest = hashlib.sha256()
    digest.update(Path(__file__).read_bytes())
    digest.update(json.dumps(params, sort_keys=True).encode())
    for path in input_files():
        digest.update(str(path.relative_to(DATA)).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:32]


def _parse_time(value: str) -> datetime:
    dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    return (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)


def fundus_pages() -> list[Page]:
    pages = []
    for info in sorted(FUNDUS_PAGES.glob("*/meta.info")):
        for name, meta in sorted(json.loads(info.read_text(encoding="utf-8")).items()):
            path = info.parent / name
            if path.is_file():
                pages.append(Page(meta["url"], read_page_bytes(path),
                                  _parse_time(meta["crawl_date"]), f"fundus:{info.parent.name}"))
    return pages


def trafilatura_pages() -> list[Page]:
    pages = []
    for url, item in sorted(trafilatura_eval().items()):
        # Crawled a day after the gold date when there is one (the set has no crawl times).
        # Without one, a day after the date htmldate finds (a news crawl fetches fresh pages;
        # a fixed crawl day would make most of them implausibly old or new).
        body = read_page_bytes(trafilatura_page_path(item["file"]))
        day = _safe_day(item["date"]) if item.get("date") else _htmldate_day(body)
        crawled = (datetime.fromisoformat(day).replace(tzinfo=timezone.utc) + timedelta(hours=30)
                   if day else FALLBACK_CRAWL)
        pages.append(Page(_real_url(url), body, crawled, "trafilatura"))
    return pages


def _real_url(key: str) -> str:
    """The set's keys are URLs except 'xhttps://...' (1) and 'hard::<file>.html' (36)."""
    if key.startswith("xhttp"):
        return key[1:]
    if key.startswith("http"):
        return key
    name = key.split("::", 1)[-1].removesuffix(".html")
    match = FILE_HOST.match(name)
    host, rest = (match.group(1), match.group(2) or "") if match else (name, "")
    host = host if host.count(".") > 1 else f"www.{host}"
    return f"https://{host}/" + (f"news/{rest}" if rest else "")


def _htmldate_day(body: bytes) -> str | None:
    from htmldate import find_date

    try:
        return find_date(body, original_date=True, extensive_search=False)
    except Exception:  # noqa: BLE001
        return None


def _safe_day(value: str) -> str:
    """'2022-01.26', '2022-11-1', '2022-29-11' occur in the gold set: read them as meant."""
    y, m, d = (int(x) for x in re.findall(r"\d+", value)[:3])
    if m > 12:
        m, d = d, m
    return f"{y:04d}-{m:02d}-{d:02d}"


def warc_pages() -> tuple[list[Page], list[tuple[str, bytes, str]]]:
    """HTML 200 responses of the shared WARCs, and their non-HTML responses (real payloads)."""
    pages, other = [], []
    for path in SHARED_WARCS:
        try:
            with open(path, "rb") as fh:
                for record in ArchiveIterator(fh, arc2warc=True):
                    if record.rec_type != "response" or record.http_headers is None:
                        continue
                    if record.http_headers.get_statuscode() != "200":
                        continue
                    ctype = (record.http_headers.get_header("Content-Type") or "").lower()
                    url = (record.rec_headers.get_header("WARC-Target-URI") or "").strip("<>")
                    body = record.content_stream().read()
                    if not body.strip() or not url.startswith("http"):
                        continue
                    if ctype.startswith("text/html"):
                        date = record.rec_headers.get_header("WARC-Date")
                        pages.append(Page(url, body, _parse_time(date) if date else FALLBACK_CRAWL,
                                          f"warc:{path.parent.name}"))
                    else:
                        other.append((url, body, ctype.split(";")[0].strip()))
        except Exception:  # noqa: BLE001 - the damaged test files: keep what was read
            continue
    return pages, other


def load_pages() -> tuple[list[Page], list[tuple[str, bytes, str]]]:
    seen, unique = set(), []
    from_warcs, other = warc_pages()
    for page in fundus_pages() + trafilatura_pages() + from_warcs:
        key = hashlib.sha1(page.body).digest()
        if key not in seen:
            seen.add(key)
            unique.append(page)
    for path in sorted(FUNDUS_PAGES.glob("*/*.json")):  # expected parser output, real JSON
        other.append((f"https://api.{path.parent.name}.example-news.net/articles/{path.stem}.json",
                      path.read_bytes(), "application/json"))
    return unique, other


# ---------------------------------------------------------------------------- records


def charset_of(body: bytes) -> str | None:
    """The page's real charset: UTF-8 when it decodes as such, else its <meta> charset."""
    try:
        body.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        match = META_CHARSET.search(body[:4096])
        return match.group(1).decode("ascii").lower() if match else None


def url_variant(url: str, copy: int) -> str:
    """The real URL for the first copy, then the variants a news crawl sees for one story."""
    if copy == 0:
        return url
    parts = urlsplit(url)
    kind = copy % 4
    query = parts.query
    if kind == 1:
        query = "&".join(q for q in (query, f"utm_source=rss&utm_medium=feed&utm_campaign=n{copy}") if q)
    elif kind == 2:
        query = "&".join(q for q in (query, f"ref=homepage&cc={copy}") if q)
    elif kind == 3:
        return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + "/amp",
                           "&".join(q for q in (query, f"v={copy}") if q), ""))
    else:
        host = parts.netloc.removeprefix("www.")
        return urlunsplit((parts.scheme, f"m.{host}", parts.path, f"s={copy}", ""))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def http_headers(status: str, ctype: str | None, body: bytes, when: datetime, rng: random.Random,
                 extra: list[tuple[str, str]] = ()) -> StatusAndHeaders:
    headers = [("Date", format_datetime(when, usegmt=True)), ("Server", rng.choice(SERVERS))]
    if ctype:
        headers.append(("Content-Type", ctype))
    headers += list(extra)
    headers += [("Content-Length", str(len(body))), ("Connection", "close")]
    if status.startswith("200"):
        headers += [("Cache-Control", rng.choice(("max-age=60, public", "no-cache",
                                                  "public, max-age=300, s-maxage=600"))),
                    ("Vary", "Accept-Encoding"), ("X-Cache", rng.choice(("HIT", "MISS")))]
    return StatusAndHeaders(status, headers, protocol="HTTP/1.1")


def record_bytes(uri: str, when: datetime, http: StatusAndHeaders, body: bytes,
                 rec_id: str) -> bytes:
    """One response record, as warcio writes it, gzipped as its own member."""
    plain = io.BytesIO()
    writer = WARCWriter(plain, gzip=False, warc_version="1.0")
    record = writer.create_warc_record(
        uri, "response", payload=io.BytesIO(body), http_headers=http,
        warc_headers_dict={"WARC-Record-ID": rec_id,
                           "WARC-Date": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
                           "WARC-IP-Address": _ip(uri)})
    writer.write_record(record)
    return _gzip(plain.getvalue())


def _gzip(data: bytes) -> bytes:
    compressor = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)  # gzip, mtime 0
    return compressor.compress(data) + compressor.flush()


def _ip(uri: str) -> str:
    h = hashlib.sha1((urlsplit(uri).hostname or "").encode()).digest()
    return f"{h[0] % 223 + 1}.{h[1]}.{h[2]}.{h[3] % 254 + 1}"


def _record_id(*parts) -> str:
    return f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, '|'.join(map(str, parts)))}>"


def warcinfo_bytes(name: str, when: datetime) -> bytes:
    plain = io.BytesIO()
    writer = WARCWriter(plain, gzip=False, warc_version="1.0")
    info = {"software": "pastcast bench/build_large_warc.py", "format": "WARC File Format 1.0",
            "description": "CC-NEWS-like benchmark file built from real pages in ../shared/data",
            "isPartOf": "pastcast-bench-large"}
    record = writer.create_warcinfo_record(name, info)
    record.rec_headers.replace_header("WARC-Record-ID", _record_id("warcinfo", name))
    record.rec_headers.replace_header("WARC-Date", when.strftime("%Y-%m-%dT%H:%M:%SZ"))
    writer.write_record(record)
    return _gzip(plain.getvalue())


def rss_feed(host: str, items: list[Page]) -> bytes:
    entries = "".join(
        f"<item><title>Story {i}</title><link>{p.url.replace('&', '&amp;')}</link>"
        f"<pubDate>{format_datetime(p.crawled_at, usegmt=True)}</pubDate></item>"
        for i, p in enumerate(items))
    return (f'<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel>'
            f"<title>{host}</title><link>https://{host}/</link>{entries}</channel></rss>").encode()


def side_record(rng: random.Random, page: Page, uri: str, when: datetime, n: int,
                other: list[tuple[str, bytes, str]], pages: list[Page]) -> tuple[str, bytes]:
    """A non-HTML or non-200 response near a page, as a news crawl meets them."""
    host = urlsplit(uri).netloc or "example.com"
    roll = rng.random()
    status = "200 OK"
    if roll < 0.55:  # not 200: redirects and errors
        status = rng.choice(("301 Moved Permanently", "301 Moved Permanently", "302 Found",
                             "404 Not Found", "403 Forbidden", "410 Gone",
                             "500 Internal Server Error", "503 Service Unavailable"))
        if status[0] == "3":
            body, extra = b"", [("Location", page.url)]
            ctype = "text/html; charset=utf-8"
        else:
            body = (f"<html><head><title>{status}</title></head><body><h1>{status}</h1>"
                    f"<p>The requested URL was not available.</p></body></html>").encode()
            extra, ctype = [], "text/html; charset=utf-8"
        kind = "status_" + status.split()[0]
        target = uri
    elif roll < 0.8:
        url, body, ctype = other[n % len(other)]
        target, extra, kind = url, [], "non_html_" + ctype
    elif roll < 0.92:
        body = rss_feed(host, [pages[(n + i * 7) % len(pages)] for i in range(10)])
        target, ctype, extra, kind = f"https://{host}/feed/", "application/rss+xml; charset=utf-8", \
            [], "non_html_application/rss+xml"
    else:
        body = f"User-agent: *\nDisallow: /admin/\nDisallow: /search\nSitemap: https://{host}/sitemap.xml\n".encode()
        target, ctype, extra, kind = f"https://{host}/robots.txt", "text/plain", [], "non_html_text/plain"
    http = http_headers(status, ctype, body, when, rng, extra)
    return kind, record_bytes(target, when, http, body, _record_id("side", n, target))


# ------------------------------------------------------------------------------ build


def build(out: Path, min_records: int, min_bytes: int, side_share: float) -> dict:
    started = time.perf_counter()
    pages, other = load_pages()
    rng = random.Random(SEED)
    counts: dict[str, int] = {}
    offsets = []
    sources: dict[str, int] = {}
    records = 0
    tmp = out.with_suffix(".tmp")
    with open(tmp, "wb") as fh:
        fh.write(warcinfo_bytes(out.name, FALLBACK_CRAWL))
        written = fh.tell()
        copy = 0
        while records < min_records or written < min_bytes:
            order = list(range(len(pages)))
            rng.shuffle(order)
            for i in order:
                if records >= min_records and written >= min_bytes:
                    break
                page = pages[i]
                when = page.crawled_at + timedelta(hours=3 * copy, minutes=rng.randrange(0, 180),
                                                   seconds=rng.randrange(60))
                uri = url_variant(page.url, copy)
                if rng.random() < side_share:
                    kind, data = side_record(rng, page, uri, when, records, other, pages)
                else:
                    charset = charset_of(page.body)
                    ctype = f"text/html; charset={charset}" if charset else "text/html"
                    http = http_headers("200 OK", ctype, page.body, when, rng)
                    data = record_bytes(uri, when, http, page.body, _record_id(copy, i, uri))
                    kind = "html_200"
                    sources[page.source.split(":")[0]] = sources.get(page.source.split(":")[0], 0) + 1
                fh.write(data)
                written += len(data)
                records += 1
                counts[kind] = counts.get(kind, 0) + 1
                if records % OFFSET_EVERY == 0:
                    offsets.append(written)
            copy += 1
    tmp.replace(out)
    return {
        "path": str(out),
        "bytes": written,
        "mb": round(written / 1e6, 1),
        "response_records": records,
        "records_total": records + 1,  # + warcinfo
        "records_by_kind": dict(sorted(counts.items())),
        "html_200_by_source": sources,
        "unique_html_pages": len(pages),
        "rounds": copy,
        "offset_every": OFFSET_EVERY,
        "offsets_after_records": offsets,  # offsets[k]: bytes of warcinfo + first 100(k+1) records
        "sha256": hashlib.sha256(out.read_bytes()).hexdigest(),
        "build_seconds": round(time.perf_counter() - started, 1),
    }


def ensure_large_warc(out: Path = LARGE_WARC, min_records: int = 20_000, min_mb: float = 200,
                      side_share: float = 0.055, force: bool = False, quiet: bool = False) -> dict:
    """The built file's sidecar info, building it first unless the cached one matches."""
    require_data(FUNDUS_PAGES, TRAFILATURA / "evaldata.json", DATA / "warc")
    params = {"min_records": min_records, "min_mb": min_mb, "side_share": side_share,
              "seed": SEED, "version": BUILDER_VERSION}
    key = content_key(params)
    sidecar = out.with_name(out.name + ".json")
    if not force and out.exists() and sidecar.exists():
        info = json.loads(sidecar.read_text())
        if info.get("key") == key and info.get("bytes") == out.stat().st_size:
            if not quiet:
                print(f"{out} is up to date ({info['mb']} MB, {info['response_records']} "
                      f"response records, key {key})")
            return info
    if not quiet:
        print(f"building {out} (key {key}) ...", flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    info = {"key": key, "params": params,
            **build(out, min_records, int(min_mb * 1e6), side_share)}
    write_json(sidecar, info)
    if not quiet:
        print(f"built {out}: {info['mb']} MB, {info['response_records']} response records "
              f"({info['records_by_kind'].get('html_200', 0)} HTML 200 from "
              f"{info['unique_html_pages']} unique real pages), {info['build_seconds']} s")
    return info


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=LARGE_WARC)
    parser.add_argument("--min-records", type=int, default=20_000)
    parser.add_argument("--min-mb", type=float, default=200)
    parser.add_argument("--force", action="store_true", help="rebuild even if cached")
    args = parser.parse_args()
    ensure_large_warc(args.out, args.min_records, args.min_mb, force=args.force)


if __name__ == "__main__":
    main()
