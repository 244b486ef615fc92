"""Shared helpers for the ingest benchmarks: data locations, page loading, tables, JSON.

The benchmarks read the real third-party data in ``../shared/data`` (never copied into the
project) and write their outputs under ``.bench-cache/``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("PASTCAST_SHARED_DATA", ROOT.parent / "shared" / "data")).resolve()
CACHE = ROOT / ".bench-cache"

FUNDUS_WARC = DATA / "warc" / "derived" / "CC-NEWS-like-fundus-256.warc.gz"
FUNDUS_MANIFEST = DATA / "warc" / "derived" / "CC-NEWS-like-fundus-256.manifest.jsonl"
FUNDUS_PAGES = DATA / "dates" / "fundus"
TRAFILATURA = DATA / "extraction" / "trafilatura"
LARGE_WARC = CACHE / "large.warc.gz"

if str(ROOT) not in sys.path:  # run as `python bench/x.py` from anywhere
    sys.path.insert(0, str(ROOT))

# Gold sets are split into a tuning half and a held-out half by publisher, never by page: a
# heuristic tuned on a publisher's pages would otherwise be scored on its other pages.
SPLIT_SEED = "pastcast-split-2026"


MOBILE_PREFIXES = ("www.", "m.", "amp.", "mobile.")
# trafilatura's evaluation set keys a few pages by "<label>::<file name>" (the file named after
# the host, e.g. "hard::jamaicaobserver.com-attacks.html", "hard::zeit.de.zugverkehr.html")
KEYED_FILE = re.compile(r"^[a-z]+::(?P<name>.+?)(?:\.html?)?$", re.I)


def _registered_domain(host: str) -> str | None:
    """The ICANN registered domain of a host ("de.euronews.com" -> "euronews.com",
    "x.blogspot.com" -> "blogspot.com", "bbc.co.uk" -> "bbc.co.uk"), from the public suffix
    list bundled with ``tld`` (a trafilatura dependency, via courlan; no network). Private
    suffixes (blogspot.com, github.io, ...) are not used: blogs on one platform share its
    templates, so they count as one publisher. None for IPs, bare names, unknown suffixes."""
    try:
        from tld import get_fld
    except ImportError:  # pragma: no cover - tld comes with trafilatura
        return None
    try:
        return get_fld(f"http://{host}", fail_silently=True, search_private=False)
    except Exception:  # noqa: BLE001 - a host tld cannot read is left as it is
        return None


def _host_from_file_name(name: str) -> str:
    """The host a trafilatura file name starts with: the shortest dot-prefix with a known public
    suffix, extended by two-letter country labels ("laestrella.com.pa-laboral" ->
    "laestrella.com.pa", "mercurynews.com.2023.01.16.letters-1119" -> "mercurynews.com")."""
    labels = name.split("-", 1)[0].lower().split(".")
    for i in range(2, len(labels) + 1):
        if _registered_domain(".".join(labels[:i])):
            while (i < len(labels) and len(labels[i]) == 2 and labels[i].isalpha()
                   and _registered_domain(".".join(labels[:i + 1]))):
                i += 1
            return ".".join(labels[:i])
    return name.lower()


def publisher(url: str) -> str:
    """The publisher of a page: the registered domain of its host (see ``_registered_domain``),
    else the host without "www." and the usual mobile/AMP prefixes. Subdomains of one publisher
    ("de.euronews.com", "fr.euronews.com", "japannews.yomiuri.co.jp") are one publisher, so they
    never fall in different halves. Also reads trafilatura's "<label>::<file>" keys."""
    keyed = KEYED_FILE.match(url) if "://" not in url else None
    if keyed:
        host = _host_from_file_name(keyed.group("name"))
    else:
        host = (urlsplit(url.strip()).hostname or "").lower().rstrip(".")
    for prefix in MOBILE_PREFIXES:
        host = host.removeprefix(prefix)
    name = _registered_domain(host) or host
    return PUBLISHER_ALIASES.get(name, name)


# One publisher under several registered domains (fundus names the publisher of each page:
# ``generalisation.py`` warns when one of its publishers spans both halves).
PUBLISHER_ALIASES = {"zdfheute.de": "zdf.de", "9news.com.au": "nine.com.au"}


def split_half(url_or_publisher: str, seed: str = SPLIT_SEED) -> str:
    """"tune" or "heldout", fixed by a SHA-256 of the seed and the page's publisher.

    Give a URL (or a trafilatura "<label>::<file>" key) or a publisher from ``publisher``.
    Stable across runs, machines and Python versions (no ``hash()``): the first byte's parity.
    """
    name = (publisher(url_or_publisher) if "://" in url_or_publisher or "::" in url_or_publisher
            else url_or_publisher)
    digest = hashlib.sha256(f"{seed}:{name}".encode("utf-8")).digest()
    return "tune" if digest[0] % 2 == 0 else "heldout"


HALVES = ("tune", "heldout")


def half_counts(urls) -> dict[str, dict[str, int]]:
    """{"tune": {"publishers": n, "pages": n}, "heldout": {...}} for a set's page URLs."""
    out = {h: {"publishers": 0, "pages": 0} for h in HALVES}
    seen: set[str] = set()
    for url in urls:
        name = publisher(url)
        half = split_half(name)
        out[half]["pages"] += 1
        if name not in seen:
            seen.add(name)
            out[half]["publishers"] += 1
    return out


def fundus_gold() -> list[dict]:
    """The fundus pages' gold, one row per page (``dates/fundus/manifest_derived.jsonl``), each
    with its expected article ``body_text`` from ``<cc>/<Publisher>.json`` (fundus's
    ``ArticleBody``: summary, then each section's headlines and paragraphs, blank-line joined)."""
    rows, expected = [], {}
    for line in (FUNDUS_PAGES / "manifest_derived.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        key = FUNDUS_PAGES / row["group"] / f"{row['publisher']}.json"
        if key not in expected:
            expected[key] = json.loads(key.read_text(encoding="utf-8"))
        body = expected[key][row["parser_version"]]["body"]
        parts = list(body.get("summary") or [])
        for section in body.get("sections") or []:
            parts += list(section.get("headline") or []) + list(section.get("paragraphs") or [])
        rows.append({**row, "body_text": "\n\n".join(p for p in parts if p and p.strip())})
    return rows


def require_data(*paths: Path) -> None:
    """Stop with a clear message when the shared reference data is not there."""
    missing = [p for p in paths if not p.exists()]
    if missing:
        sys.exit(f"benchmark needs the shared reference data, missing: "
                 f"{', '.join(str(p) for p in missing)} (set PASTCAST_SHARED_DATA to its folder)")


def read_page_bytes(path: Path) -> bytes:
    """A stored page's bytes, gunzipped when it is gzip (by magic, not by name)."""
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def trafilatura_eval() -> dict[str, dict]:
    """trafilatura's evaluation set: {url: item}, item with 'file', 'with', 'without', ..."""
    return json.loads((TRAFILATURA / "evaldata.json").read_text(encoding="utf-8"))


def trafilatura_page_path(filename: str) -> Path:
    """Where trafilatura's own scripts look: tests/cache/ first, then tests/eval/."""
    path = TRAFILATURA / "cache" / filename
    return path if path.is_file() else TRAFILATURA / "eval" / filename


def write_json(path: Path, payload: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2, sort_keys=False, default=str) + "\n",
                   encoding="utf-8")
    tmp.replace(path)


def environment() -> dict:
    """What the numbers were measured on."""
    versions = {}
    for name in ("trafilatura", "htmldate", "warcio", "fastwarc", "lxml"):
        try:
            from importlib.metadata import version

            versions[name] = version(name)
        except Exception:  # noqa: BLE001 - a missing package is just not reported
            versions[name] = None
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "pastcast"], cwd=ROOT,
                                    capture_output=True, text=True, timeout=10).stdout.strip())
    except (OSError, subprocess.SubprocessError):
        commit, dirty = None, None
    return {
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "git_commit": commit,
        "pastcast_dirty": dirty,
        "packages": versions,
    }


def table(headers: list[str], rows: list[list], title: str | None = None) -> str:
    """A compact fixed-width text table; floats as given (format them before)."""
    cells = [[str(c) for c in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(row):
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(row, widths)))

    out = [title] if title else []
    out += [line(cells[0]), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells[1:]]
    return "\n".join(out)


class Timer:
    """Accumulates the time spent inside ``with timer:`` blocks."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def __enter__(self):
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        self.seconds += time.perf_counter() - self._start
