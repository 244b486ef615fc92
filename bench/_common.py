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


def publisher(url: str) -> str:
    """The publisher of a page: its host without "www." and the usual mobile/AMP prefixes."""
    host = (urlsplit(url).hostname or "").lower()
    for prefix in ("www.", "m.", "amp.", "mobile."):
        host = host.removeprefix(prefix)
    return host


def split_half(url_or_publisher: str, seed: str = SPLIT_SEED) -> str:
    """"tune" or "heldout", fixed by a hash of the page's publisher and the seed."""
    name = publisher(url_or_publisher) if "://" in url_or_publisher else url_or_publisher
    digest = hashlib.sha256(f"{seed}:{name}".encode("utf-8")).digest()
    return "tune" if digest[0] % 2 == 0 else "heldout"


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
