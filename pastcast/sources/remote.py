"""Remote WARC inputs in Common Crawl's layout: expand listings, download with resume, prefetch.

An input is a local WARC path or glob, the URL of one WARC file, or a ``*.paths.gz`` listing
(a URL or a local file) whose lines are paths relative to a base URL, as Common Crawl publishes
them per month (``crawl-data/CC-NEWS/2026/03/warc.paths.gz``). Remote files (~1 GB each) are
spooled to disk a few at a time, so a month can be ingested on a small disk.
"""

from __future__ import annotations

import glob
import gzip
import http.client
import os
import posixpath
import queue
import re
import ssl
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pastcast.retry import RetryPolicy, retry_after_header

DEFAULT_BASE_URL = "https://data.commoncrawl.org"
LISTING_SUFFIXES = (".paths.gz", ".paths")
RETRY_STATUSES = {408, 429}  # plus every 5xx
MAX_WAIT = 60.0  # seconds; caps both the backoff and a server's Retry-After


class RemoteError(OSError):
    """A remote input could not be fetched; the message names the URL and the cause."""

    def __init__(self, message: str, *, url: str, status: int | None = None):
        super().__init__(message)
        self.url, self.status = url, status


class _Incomplete(ConnectionError):
    """The body ended before (or ran past) the size the server announced."""


class _Cancelled(Exception):
    """Raised from the progress callback to stop a prefetch nobody will consume."""


# Worth a retry: the network, not the disk (a full disk must fail at once).
NETWORK_ERRORS = (urllib.error.URLError, http.client.HTTPException, ConnectionError,
                  TimeoutError, ssl.SSLError)


@dataclass(frozen=True)
class Input:
    name: str  # the file name: unique among the inputs, and the spooled copy's name
    source: str  # a local path or a URL
    is_remote: bool


# -- expanding inputs ------------------------------------------------------------------------

def expand_inputs(inputs: Sequence[str], base_url: str | None = None, **fetch_kw) -> list[Input]:
    """Paths, globs, WARC URLs and listings as one list in input order.

    A name seen before is dropped (the first one wins), since the name keys the spool and the
    per-file work. A listing's lines are joined to ``base_url``, by default the scheme and host
    of a listing URL (Common Crawl's layout), or Common Crawl itself for a local listing; a
    local folder as ``base_url`` gives local inputs (a mirror). ``fetch_kw`` go to ``fetch``
    when a listing is downloaded.
    """
    out: dict[str, Input] = {}
    for item in inputs:
        if _is_listing(item):
            split = urllib.parse.urlsplit(item)
            base = base_url or (f"{split.scheme}://{split.netloc}" if _is_url(item)
                                else DEFAULT_BASE_URL)
            found = [inp for line in _read_listing(item, fetch_kw)
                     for inp in _resolve(_join(base, line))]
        else:
            found = _resolve(item)
        for inp in found:
            out.setdefault(inp.name, inp)
    return list(out.values())


def _is_url(s: str) -> bool:
    return urllib.parse.urlsplit(s).scheme in ("http", "https")


def _is_listing(s: str) -> bool:
    if _is_url(s):
        return urllib.parse.urlsplit(s).path.endswith(LISTING_SUFFIXES)
    return s.endswith(LISTING_SUFFIXES) and os.path.isfile(s)


def _join(base: str, line: str) -> str:
    if _is_url(line):
        return line
    if _is_url(base):
        return f"{base.rstrip('/')}/{line.lstrip('/')}"
    return os.path.join(base, line)


def _resolve(item: str) -> list[Input]:
    """One URL, or the local files a path or glob names (an error if none)."""
    if _is_url(item):
        name = posixpath.basename(urllib.parse.unquote(urllib.parse.urlsplit(item).path))
        if name in ("", ".", ".."):
            raise ValueError(f"input {item!r}: the URL names no file")
        return [Input(name, item, True)]
    if os.path.isdir(item):
        raise IsADirectoryError(f"input {item!r} is a folder; give a glob such as "
                                f"{os.path.join(item, '*.warc.gz')}")
    if os.path.exists(item):
        paths = [item]
    elif re.search(r"[*?[]", item):
        # Sorted: file systems list in arbitrary order, and the order must be reproducible.
        paths = sorted(p for p in glob.glob(item) if os.path.isfile(p))
        if not paths:
            raise FileNotFoundError(f"input {item!r}: the pattern matches no file")
    else:
        raise FileNotFoundError(f"input {item!r}: no such file")
    return [Input(Path(p).name, p, False) for p in paths]


def _read_listing(item: str, fetch_kw: dict) -> list[str]:
    if _is_url(item):
        with tempfile.TemporaryDirectory() as tmp:
            data = fetch(_resolve(item)[0], tmp, **fetch_kw).read_bytes()
    else:
        data = Path(item).read_bytes()
    try:
        if data[:2] == b"\x1f\x8b":  # by content, not name: it may have been unpacked already
            data = gzip.decompress(data)
        return [line.strip() for line in data.decode("utf-8").splitlines() if line.strip()]
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise ValueError(f"listing {item!r} is not a readable paths file: {exc}") from exc


# -- downloading ----------------------------------------------------------------------------

def fetch(input: Input, spool_dir: str | Path, *, retries: int = 5, backoff: float = 0.5,
          timeout: float = 60, chunk: int = 1 << 20,
          on_bytes: Callable[[int], None] | None = None,
          sleep: Callable[[float], None] = time.sleep) -> Path:
    """The local path of ``input``: a local input itself, a remote one downloaded to the spool.

    The download goes to ``<name>.part`` and resumes with a Range request after a dropped
    connection, a timeout, a 5xx, 408 or 429. ``retries`` bounds failed attempts in a row; one
    that received bytes resets the count, so a flaky 1 GB transfer still finishes. Between
    attempts it waits as ``pastcast.retry.RetryPolicy`` says (backoff from ``backoff`` seconds
    with full jitter, or the server's Retry-After, at most ``MAX_WAIT``), through ``sleep``.
    The final name appears only by an atomic rename once the size matches what the server
    announced, so an existing final file is complete and is returned without a request.
    ``on_bytes(n)`` is called with each block's size.
    """
    if not input.is_remote:
        return Path(input.source)
    spool = Path(spool_dir)
    spool.mkdir(parents=True, exist_ok=True)
    final = spool / input.name
    if final.exists():
        return final
    part = final.with_name(final.name + ".part")
    policy = RetryPolicy(max_attempts=max(1, retries + 1), base=backoff, cap=MAX_WAIT)
    url, failures = input.source, 0
    while True:
        start, wait = _size(part), None
        try:
            _download(url, part, timeout, chunk, on_bytes)
        except urllib.error.HTTPError as exc:
            exc.close()
            if exc.code not in RETRY_STATUSES and exc.code < 500:
                raise RemoteError(f"{url}: HTTP {exc.code} {exc.reason}", url=url,
                                  status=exc.code) from None
            last, wait = exc, retry_after_header(exc.headers)
        except NETWORK_ERRORS as exc:
            last = exc
        else:
            os.replace(part, final)
            return final
        failures = (0 if _size(part) > start else failures) + 1
        if not policy.should_retry(failures):
            raise RemoteError(f"{url}: gave up after {failures} failed attempts in a row, "
                              f"{_size(part)} bytes received (kept in {part.name}); "
                              f"last error: {last}", url=url,
                              status=getattr(last, "code", None)) from last
        sleep(policy.delay(failures, wait))


def _download(url: str, part: Path, timeout: float, chunk: int,
              on_bytes: Callable[[int], None] | None) -> None:
    """One attempt: extend ``part`` from its current size; return only once it is complete."""
    have = _size(part)
    request = urllib.request.Request(url, headers={"Range": f"bytes={have}-"} if have else {})
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        if exc.code != 416 or not have:
            raise
        # Nothing past ``have``: complete if that is the whole file (stopped before the
        # rename), else the .part is not this file's prefix: start over.
        exc.close()
        if _content_range(exc.headers.get("Content-Range"))[1] == have:
            return
        part.unlink()
        raise _Incomplete(f"{have} bytes on disk do not fit the remote file") from None
    with response:
        length = _int(response.headers.get("Content-Length"))
        if response.status == 206:
            first, total = _content_range(response.headers.get("Content-Range"))
            if first != have:
                part.unlink()
                raise _Incomplete(f"asked for bytes from {have}, the server sent from {first}")
            if total is None and length is not None:
                total = have + length
            mode = "ab"
        else:  # the whole file, even if Range was asked for: start over, never append
            have, mode, total = 0, "wb", length
        with open(part, mode) as f:
            while block := response.read(chunk):
                f.write(block)
                have += len(block)
                if on_bytes:
                    on_bytes(len(block))
    if total is not None and have != total:
        if have > total:  # more than announced: the bytes cannot be trusted
            part.unlink()
        raise _Incomplete(f"the body ended at byte {have} of {total}")


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _int(value: str | None) -> int | None:
    """A non-negative integer header (Content-Length), else None."""
    return int(value) if value and value.strip().isdigit() else None


def _content_range(value: str | None) -> tuple[int | None, int | None]:
    """(first byte, total size) of ``bytes first-last/total`` or ``bytes */total``."""
    m = re.fullmatch(r"bytes (?:(\d+)-\d+|\*)/(\d+|\*)", (value or "").strip())
    if not m:
        return None, None
    return (int(m[1]) if m[1] else None), (int(m[2]) if m[2] != "*" else None)


# -- iterating with prefetch ------------------------------------------------------------------

def iter_local(inputs: Sequence[Input], spool_dir: str | Path, prefetch: int = 1,
               **fetch_kw) -> Iterator[tuple[Input, Path]]:
    """Each input with a local path, in order; remote ones download in a background thread.

    Up to ``prefetch`` inputs are fetched ahead of the one the caller holds, so downloading
    overlaps processing and the spool holds at most ``prefetch + 1`` files if the caller
    ``release``s each before asking for the next. A failed fetch is raised at its input's turn.
    Closing the iterator early stops the download in flight at its next block (its ``.part``
    stays, to resume later). ``on_bytes``, if given, is called from the background thread.
    """
    inputs = list(inputs)
    if prefetch < 1:
        for inp in inputs:
            yield inp, fetch(inp, spool_dir, **fetch_kw)
        return
    slots, done, stop = threading.Semaphore(prefetch), queue.Queue(), threading.Event()
    user_on_bytes = fetch_kw.pop("on_bytes", None)

    def on_bytes(n: int) -> None:
        if stop.is_set():
            raise _Cancelled
        if user_on_bytes:
            user_on_bytes(n)

    def work() -> None:
        for inp in inputs:
            slots.acquire()
            if stop.is_set():
                return
            try:
                done.put((inp, fetch(inp, spool_dir, on_bytes=on_bytes, **fetch_kw)))
            except Exception as exc:  # handed over in order, at this input's turn
                done.put((inp, exc))
                return

    threading.Thread(target=work, name="pastcast-prefetch", daemon=True).start()
    try:
        for _ in inputs:
            inp, result = done.get()
            slots.release()  # the caller is done with the previous file: one more may start
            if isinstance(result, Exception):
                raise result
            yield inp, result
    finally:
        stop.set()
        slots.release()  # wake the worker if it waits for a slot, so it can see ``stop``


def release(path: str | Path, input: Input) -> None:
    """Delete the spooled copy of a remote input; a local input is the user's file, kept."""
    path = Path(path)
    if input.is_remote and path.name == input.name:
        path.unlink(missing_ok=True)
