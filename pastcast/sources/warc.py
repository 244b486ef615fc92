"""Stream HTML responses out of WARC (and ARC) files with warcio, one record at a time.

Only HTTP 200 HTML responses become pages; every other record is a ``Drop`` with a reason.
A damaged file (truncated gzip, garbage between records) yields a ``corrupt_record`` drop
naming the file and byte offset, and the records read before the damage are kept.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from warcio.archiveiterator import ArchiveIterator

from pastcast.drops import Drop

STAGE = "read"
HTML_TYPES = ("text/html", "application/xhtml+xml")


@dataclass(frozen=True)
class HtmlPage:
    warc_file: str
    record_id: str
    url: str
    crawled_at: datetime  # WARC-Date, UTC
    http_headers: dict[str, str]  # lower-cased names
    body: bytes  # decoded transfer/content encodings, still in the page's charset
    offset: int


def parse_warc_date(value: str) -> datetime:
    """WARC-Date (ISO 8601, 'Z' or offset, optional fraction) to an aware UTC datetime."""
    dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.astimezone(timezone.utc)


def clean_target_uri(uri: str | None) -> str:
    """Some writers (wget) wrap WARC-Target-URI in <...>; strip them."""
    uri = (uri or "").strip()
    if uri.startswith("<") and uri.endswith(">"):
        uri = uri[1:-1].strip()
    return uri


def _drop(warc_file: str, item: str, reason: str, detail: str) -> Drop:
    return Drop(f"{warc_file}#{item}", "warc_record", STAGE, reason, detail)


def iter_html_pages(path: str | Path, reader: str = "auto") -> Iterator[HtmlPage | Drop]:
    """Yield an ``HtmlPage`` per HTTP 200 HTML response and a ``Drop`` for every other record.

    ``reader``: "fastwarc" (fast; WARC only), "warcio" (handles ARC and reports damage at
    the exact byte), or "auto": FastWARC, handing over to warcio at the first sign of
    trouble (an ARC file, a parse error, a short record). Both yield exactly one item per
    record, so warcio skips what FastWARC already yielded and carries on from there.
    """
    path = Path(path)
    try:
        path.open("rb").close()
    except OSError as exc:
        yield _drop(path.name, "file", "unreadable_file", f"{path}: {exc}")
        return
    if reader == "warcio" or ".arc" in path.suffixes:
        yield from _iter_warcio(path)
        return
    done = 0
    try:
        for item in _iter_fastwarc(path):
            done += 1
            yield item
        return
    except _HandOver:
        if reader == "fastwarc":
            raise
    for i, item in enumerate(_iter_warcio(path)):
        if i >= done:
            yield item


class _HandOver(Exception):
    """FastWARC met something it cannot read reliably; warcio takes over."""


def _iter_fastwarc(path: Path) -> Iterator[HtmlPage | Drop]:
    from fastwarc.warc import ArchiveIterator as FastIterator

    name = path.name
    with open(path, "rb") as stream:
        records = iter(FastIterator(stream, parse_http=True))
        last_pos, seen = 0, 0
        while True:
            try:
                record = next(records)
            except StopIteration:
                if not _tail_complete(path, last_pos, seen):
                    raise _HandOver("the file ends inside a record") from None
                return
            except Exception as exc:  # noqa: BLE001 - an ARC file, garbage, a cut file
                raise _HandOver(str(exc)) from exc
            last_pos, seen = record.stream_pos, seen + 1
            yield _page_from_fast_record(record, name)


def _tail_complete(path: Path, last_pos: int, seen: int) -> bool:
    """FastWARC stops quietly where a file is cut: check the last gzip member is whole.

    Only the bytes from the last record's start are read (one record), so this is cheap.
    """
    with open(path, "rb") as fh:
        fh.seek(last_pos)
        data = fh.read()
    if not data.strip(b"\r\n\x00 "):
        return True
    if data[:2] != b"\x1f\x8b":
        return seen > 0  # plain or lz4: FastWARC reports short records itself
    while data:
        member = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            member.decompress(data)
        except zlib.error:
            return False
        if not member.eof:
            return False
        data = member.unused_data
    return True


def _page_from_fast_record(record, warc_file: str) -> HtmlPage | Drop:
    item = record.record_id or f"offset:{record.stream_pos}"
    rec_type = str(record.record_type)
    declared = record.headers.get("Content-Length")
    if declared is None or not declared.strip().isdigit():
        # Mandatory in WARC: without it the header block itself was cut or mangled.
        raise _HandOver(f"record at byte {record.stream_pos} has no Content-Length")
    if rec_type in ("response", "request") and record.http_headers is None and declared.strip() != "0":
        raise _HandOver(f"unparseable HTTP block at byte {record.stream_pos}")
    body = record.reader.read()  # every record, read whole: a short one means a cut file
    if len(body) < record.content_length:
        raise _HandOver(f"short record at byte {record.stream_pos}")
    http = record.http_headers
    headers = {k.lower(): v for k, v in http.items()} if http is not None else None
    return _classify(warc_file, item, rec_type, str(http.status_code) if http is not None else None,
                     headers, lambda: _decode_http_body(body, headers), record.headers.get("WARC-Date"),
                     record.headers.get("WARC-Target-URI"), record.stream_pos)


def _classify(warc_file: str, item: str, rec_type: str, status: str | None,
              headers: dict[str, str] | None, read_body, warc_date: str | None,
              target_uri: str | None, offset: int) -> HtmlPage | Drop:
    """Both readers' records, reduced to the same facts, become a page or a drop here."""
    if rec_type != "response":
        # Crawl bookkeeping (warcinfo, request, metadata, ...): a drop, so nothing vanishes.
        return _drop(warc_file, item, "not_response", rec_type or "unknown")
    if headers is None:
        return _drop(warc_file, item, "not_http", "response without HTTP headers")
    if status != "200":
        return _drop(warc_file, item, "http_status", status or "missing")
    content_type = headers.get("content-type", "").lower()
    if content_type and not content_type.startswith(HTML_TYPES):
        return _drop(warc_file, item, "not_html", content_type.split(";")[0])
    body = read_body()
    if not body.strip():
        return _drop(warc_file, item, "empty_body", "")
    if not warc_date:
        return _drop(warc_file, item, "no_warc_date", "")
    try:
        crawled_at = parse_warc_date(warc_date)
    except ValueError:
        # A bad header spoils this record only; the stream itself is still in step.
        return _drop(warc_file, item, "bad_warc_date", warc_date[:80])
    return HtmlPage(warc_file, item, clean_target_uri(target_uri), crawled_at, headers, body, offset)


def _decode_http_body(body: bytes, headers: dict[str, str]) -> bytes:
    """Undo chunked transfer and gzip/deflate/br content encoding, as warcio does.

    FastWARC hands over the raw HTTP body. A body that does not decode as declared is kept
    as it is (servers lie about encodings; crawlers often store decoded bodies).
    """
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = _dechunk(body)
    encoding = headers.get("content-encoding", "").lower().strip()
    try:
        if encoding in ("gzip", "x-gzip"):
            body = zlib.decompress(body, 16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            body = zlib.decompress(body)
        elif encoding == "br":
            import brotli

            body = brotli.decompress(body)
    except Exception:  # noqa: BLE001 - any decoder error: keep the stored bytes
        pass
    return body


def _dechunk(body: bytes) -> bytes:
    out, pos = bytearray(), 0
    while True:
        end = body.find(b"\r\n", pos)
        if end < 0:
            return body  # not chunked after all
        try:
            size = int(body[pos:end].split(b";")[0].strip() or b"x", 16)
        except ValueError:
            return body
        if size == 0:
            return bytes(out)
        out += body[end + 2:end + 2 + size]
        pos = end + 2 + size + 2


def _iter_warcio(path: Path) -> Iterator[HtmlPage | Drop]:
    name = path.name
    with open(path, "rb") as stream:
        records = ArchiveIterator(stream, arc2warc=True)
        while True:
            offset = records.offset  # start of the last record read; the damage lies past it
            try:
                record = next(records)
            except StopIteration:
                tail = _unread_tail(stream, records)
                if tail:
                    yield _drop(name, f"offset:{tail[0]}", "corrupt_record",
                                f"{path}: {tail[1]} bytes after the last complete record (byte "
                                f"{tail[0]}) are not a readable record: the file is truncated; "
                                "the records before it are kept")
                return
            except Exception as exc:  # noqa: BLE001 - warcio raises anything on damaged bytes
                yield _drop(name, f"offset:{offset}", "corrupt_record",
                            f"{path}: cannot read a record past byte {offset}: "
                            f"{type(exc).__name__}: {exc}; "
                            "the records before it are kept")
                return
            item = record.rec_headers.get_header("WARC-Record-ID") or f"offset:{records.offset}"
            problem = _not_a_record(record)
            if problem:
                yield _drop(name, f"offset:{records.offset}", "corrupt_record",
                            f"{path}: no WARC/ARC record at byte {records.offset} ({problem}); "
                            "the records before it are kept")
                return
            try:
                page_or_drop = _page_from_record(record, name, item, records.offset)
                while record.raw_stream.read(1 << 16):  # drain, so a short record shows below
                    pass
            except Exception as exc:  # noqa: BLE001 - as above: report it, keep what was read
                yield _drop(name, item, "corrupt_record",
                            f"{path}: record at byte {records.offset} is damaged: "
                            f"{type(exc).__name__}: {exc}")
                return
            missing = getattr(record.raw_stream, "limit", 0)
            if missing:
                # A truncated file ends inside a record: warcio hands back what is there.
                yield _drop(name, item, "corrupt_record",
                            f"{path}: record at byte {records.offset} is truncated, {missing} of "
                            f"{record.length} bytes missing; the records before it are kept")
                return
            yield page_or_drop


def _unread_tail(stream, records) -> tuple[int, int] | None:
    """(offset, size) of bytes past the last record that warcio silently skipped, if any.

    A file cut inside a gzip member ends without an error: warcio just stops. What lies past
    the end of the last record it returned is then a partial record.
    """
    end = sum(records.member_info) if records.member_info else 0  # none read: all of it
    stream.seek(end)
    rest = stream.read(1 << 16)
    return (end, os.fstat(stream.fileno()).st_size - end) if rest.strip(b"\r\n\x00 ") else None


def _not_a_record(record) -> str | None:
    """warcio reads almost any text as headers: reject what no archive writer produces."""
    headers = record.rec_headers
    if not (headers.protocol or "").upper().startswith("WARC/"):
        return f"found {headers.protocol[:40]!r}"
    length = headers.get_header("Content-Length") or ""
    if not length.strip().isdigit():
        return f"Content-Length {length[:20]!r}"
    uri = clean_target_uri(headers.get_header("WARC-Target-URI"))
    if uri and ":" not in uri:
        return f"target URI {uri[:40]!r}"
    return None


def _page_from_record(record, warc_file: str, item: str, offset: int) -> HtmlPage | Drop:
    http = record.http_headers
    return _classify(warc_file, item, record.rec_type,
                     (http.get_statuscode() or "").strip() if http is not None else None,
                     {k.lower(): v for k, v in http.headers} if http is not None else None,
                     lambda: record.content_stream().read(), record.rec_headers.get_header("WARC-Date"),
                     record.rec_headers.get_header("WARC-Target-URI"), offset)
