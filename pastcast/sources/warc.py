"""Stream HTML responses out of WARC (and ARC) files, one record at a time.

Only HTTP 200 HTML responses become pages; every other record is a ``Drop`` with a reason.
Damage loses only the damaged record: a bad gzip member or lz4 frame, or garbage in a plain
file, is one ``corrupt_record`` drop naming the file and byte offset, and reading resumes at
the next intact record. A file cut short is one ``truncated_file`` drop at the record it cuts;
every complete record before it is kept. A file that cannot be read at all, or whose reading
fails on an I/O error, is an ``unreadable_file`` drop: the disk, not the data, so the caller
may try it again.
"""

from __future__ import annotations

import zlib
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from warcio.archiveiterator import ArchiveIterator

from pastcast.drops import Drop
from pastcast.sources.limits import EMPTY_FILE, RECORD_ENV, TOO_LARGE, TooLarge, check_caps, max_record_bytes
from pastcast.sources.warc_framing import (LZ4, RecordAt, compression_of, container_at, cut_short,
                                           next_record_start, record_id_at, skip_blanks, tail_complete)

STAGE = "read"
HTML_TYPES = ("text/html", "application/xhtml+xml")
UNREADABLE_FILE = "unreadable_file"  # could not be opened or read: reading it again may work
CORRUPT_RECORD = "corrupt_record"
TRUNCATED_FILE = "truncated_file"



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


@dataclass(frozen=True)
class _Stop:
    """A segment reader could not read the record at ``offset`` (a file offset); with
    ``why`` None it did not try: read on from there in a fresh segment, nothing to report."""

    offset: int
    why: str | None


Segment = Generator["HtmlPage | Drop", None, "_Stop | None"]


def iter_html_pages(path: str | Path, reader: str = "auto") -> Iterator[HtmlPage | Drop]:
    """Yield an ``HtmlPage`` per HTTP 200 HTML response and a ``Drop`` for every other record.

    ``reader``: "fastwarc" (fast; WARC only), "warcio" (handles ARC and reports damage at
    the exact byte), or "auto": FastWARC, handing over to warcio at the first sign of
    trouble (an ARC file, a parse error, a short record); lz4 files, which warcio cannot
    read, stay with FastWARC. The file is read in segments: a segment ends at a record that
    cannot be read, and the next one starts at the next offset that verifiably starts a
    record, so every intact record is yielded exactly once, in order.
    """
    path = Path(path)
    name = path.name
    check_caps()
    try:
        compression = compression_of(path)
        empty = path.stat().st_size == 0
    except OSError as exc:
        yield _drop(name, "file", UNREADABLE_FILE, f"{path}: {exc}")
        return
    if empty:  # a failed download: a drop the blocking checks see, never a silently empty day
        yield _drop(name, "file", EMPTY_FILE, f"{path}: the file is empty (0 bytes): a failed download or copy?")
        return
    arc = ".arc" in path.suffixes
    if reader == "warcio" or arc:
        segment = _warcio_segment
    elif reader == "fastwarc" or compression == LZ4:
        segment = _fastwarc_segment
    else:
        segment = _auto_segment
    start = 0
    try:
        while True:
            stop = yield from segment(path, start, compression)
            if stop is None:
                return
            if stop.why is None:
                start = stop.offset
                continue
            resume = next_record_start(path, stop.offset + 1, compression, arc)
            size = path.stat().st_size
            if resume is None and cut_short(path, stop.offset, compression):
                yield _drop(name, f"offset:{stop.offset}", TRUNCATED_FILE,
                            f"{path}: the file is cut short inside the record at byte {stop.offset} "
                            f"(only {size - stop.offset} bytes of it are there); every complete "
                            "record before it is kept")
                return
            after = (f"reading resumed at the next intact record, byte {resume}" if resume is not None
                     else f"no readable record follows it (the last {size - stop.offset} bytes)")
            yield _drop(name, f"offset:{stop.offset}", CORRUPT_RECORD,
                        f"{path}: the record at byte {stop.offset} is damaged ({stop.why}); {after}")
            if resume is None:
                return
            start = resume
    except OSError as exc:  # the disk or the network share failed, not the data
        yield _drop(name, "file", UNREADABLE_FILE,
                    f"{path}: reading failed past byte {start}: {type(exc).__name__}: {exc}; "
                    "the records read before it are kept, and reading the file again may succeed")


def _why(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0][:200]}" if lines else type(exc).__name__


# -- FastWARC --------------------------------------------------------------------------------

class _HandOver(Exception):
    """FastWARC met something it cannot read reliably.

    ``done``: items yielded from the segment; ``at``: the record in trouble (None: the first);
    ``held``: that record's item when it was read whole but not yet yielded.
    """

    def __init__(self, why: str, done: int, at: RecordAt | None, held: HtmlPage | Drop | None = None):
        super().__init__(why)
        self.why, self.done, self.at, self.held = why, done, at, held


def _iter_fastwarc(path: Path, start: int, compression: str) -> Iterator[HtmlPage | Drop]:
    """FastWARC from ``start``; raises ``_HandOver`` at trouble.

    Each record is held back until the next one parses: a gzip member's CRC (or an lz4
    frame's end) is only checked once the reader moves past it, so a damaged record is never
    yielded first and reported after.
    """
    from fastwarc.warc import ArchiveIterator as FastIterator

    name = path.name
    done, held, at = 0, None, None
    with open(path, "rb") as stream:
        stream.seek(start)
        records = iter(FastIterator(stream, parse_http=True))
        while True:
            try:
                record = next(records)
            except StopIteration:
                # FastWARC stops quietly where a file is cut: check the last record is whole.
                if not tail_complete(path, start, at, compression):
                    raise _HandOver("the file ends inside a record", done, at, held) from None
                if held is not None:
                    yield held
                return
            except Exception as exc:  # noqa: BLE001 - an ARC file, garbage, a bad gzip member
                raise _HandOver(_why(exc), done, at, held) from exc
            if held is not None:
                yield held
                done += 1
            declared = (record.headers.get("Content-Length") or "").strip()
            at = RecordAt(record.stream_pos, record.record_id, int(declared) if declared.isdigit() else None)
            held = None
            try:
                held = _page_from_fast_record(record, name)
            except Exception as exc:  # noqa: BLE001 - a short or mangled record
                raise _HandOver(_why(exc), done, at) from exc


def _auto_segment(path: Path, start: int, compression: str) -> Segment:
    try:
        yield from _iter_fastwarc(path, start, compression)
        return None
    except _HandOver as trouble:
        handover = trouble
    # warcio reads on from the record in trouble when FastWARC's position for it is verifiably
    # that record's start; otherwise from the segment's start, skipping what FastWARC yielded
    # (both readers yield exactly one item per record).
    at = handover.at
    if at is not None and at.record_id and record_id_at(path, at.pos, compression) == at.record_id:
        begin, skip = at.pos, 0
    else:
        begin, skip = start, handover.done
    seen = 0
    reread = _warcio_segment(path, begin, compression)
    while True:
        try:
            item = next(reread)
        except StopIteration as end:
            stop = end.value
            break
        seen += 1
        if seen > skip:
            yield item
    if stop is not None and seen < skip:
        # warcio gave up on a record FastWARC had already yielded: go on past FastWARC's trouble.
        return _Stop(at.pos if at else start, handover.why)
    return stop


def _fastwarc_segment(path: Path, start: int, compression: str) -> Segment:
    """FastWARC alone (lz4, or reader="fastwarc"): the trouble is placed by the containers."""
    try:
        yield from _iter_fastwarc(path, start, compression)
        return None
    except _HandOver as trouble:
        at = trouble.at
        if at is None:
            return _Stop(start, trouble.why)
        if trouble.held is not None:
            with open(path, "rb") as fh:
                whole = container_at(fh, at.pos, compression)
                if whole.state == "ok" and (whole.record_id, whole.content_length) == (
                        at.record_id, at.content_length):
                    # Read whole, and as its container states: keep it, and read on after it
                    # afresh (the trouble may be FastWARC's, not the next record's).
                    yield trouble.held
                    after = skip_blanks(fh, whole.end)
                    return None if after is None else _Stop(after, None)
        return _Stop(at.pos, trouble.why)


def _page_from_fast_record(record, warc_file: str) -> HtmlPage | Drop:
    item = record.record_id or f"offset:{record.stream_pos}"
    rec_type = str(record.record_type)
    declared = record.headers.get("Content-Length")
    if declared is None or not declared.strip().isdigit():
        # Mandatory in WARC: without it the header block itself was cut or mangled.
        raise ValueError(f"record at byte {record.stream_pos} has no Content-Length")
    if rec_type in ("response", "request") and record.http_headers is None and declared.strip() != "0":
        raise ValueError(f"unparseable HTTP block at byte {record.stream_pos}")
    if record.content_length > _record_cap() + _HTTP_HEAD:  # never read (FastWARC skips it)
        return _drop(warc_file, item, TOO_LARGE, _too_large(warc_file, item, record.stream_pos,
                                                            f"declares {record.content_length} bytes"))
    body = record.reader.read()  # every record, read whole: a short one means a cut file
    if len(body) < record.content_length:
        raise ValueError(f"short record at byte {record.stream_pos}")
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
    try:
        body = read_body()
    except TooLarge as exc:
        return _drop(warc_file, item, TOO_LARGE, _too_large(warc_file, item, offset, str(exc)))
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


_HTTP_HEAD = 64 << 10  # room for a record's HTTP headers on top of the body cap


def _record_cap() -> int:
    return max_record_bytes()


def _too_large(warc_file: str, item: str, offset: int, what: str) -> str:
    return (f"{warc_file}: record {item} at byte {offset}: {what}, past the cap of {_record_cap()} "
            f"bytes for one record ({RECORD_ENV} raises it); the rest of the file is read")


def _decode_http_body(body: bytes, headers: dict[str, str]) -> bytes:
    """Undo chunked transfer and gzip/deflate/br content encoding, as warcio does, producing at
    most the record cap (``TooLarge`` past it: a decompression bomb costs nothing).

    FastWARC hands over the raw HTTP body. A body that does not decode as declared is kept
    as it is (servers lie about encodings; crawlers often store decoded bodies).
    """
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = _dechunk(body)
    encoding = headers.get("content-encoding", "").lower().strip()
    cap = _record_cap()
    try:
        if encoding in ("gzip", "x-gzip"):
            body = _inflate(body, 16 + zlib.MAX_WBITS, cap, encoding)
        elif encoding == "deflate":
            body = _inflate(body, zlib.MAX_WBITS, cap, encoding)
        elif encoding == "br":
            body = _unbrotli(body, cap)
    except TooLarge:
        raise
    except Exception:  # noqa: BLE001 - any decoder error: keep the stored bytes
        pass
    if len(body) > cap:
        raise TooLarge(f"its HTTP body is {len(body)} bytes")
    return body


def _inflate(body: bytes, wbits: int, cap: int, encoding: str) -> bytes:
    """zlib's output, at most ``cap`` bytes of it (``TooLarge`` past them)."""
    stream = zlib.decompressobj(wbits)
    out = stream.decompress(body, cap + 1)
    if len(out) > cap:
        raise TooLarge(f"its HTTP body ({len(body)} bytes, Content-Encoding {encoding}) decodes past {cap} bytes")
    if not stream.eof:
        raise zlib.error("the compressed body ends early")  # kept as stored, as before
    return out


def _unbrotli(body: bytes, cap: int) -> bytes:
    import brotli

    stream = brotli.Decompressor()
    out = stream.process(body, output_buffer_limit=cap + 1)
    if len(out) > cap or not stream.is_finished() and not stream.can_accept_more_data():
        raise TooLarge(f"its HTTP body ({len(body)} bytes, br) decodes past {cap} bytes")
    if not stream.is_finished():
        raise brotli.error("the compressed body ends early")
    return out


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


# -- warcio ----------------------------------------------------------------------------------

def _warcio_segment(path: Path, start: int, compression: str) -> Segment:
    name = path.name
    with open(path, "rb") as stream:
        stream.seek(start)  # warcio takes its offsets from tell(): they stay file offsets
        records = ArchiveIterator(stream, arc2warc=True)
        while True:
            offset = records.offset  # where the next record starts
            try:
                record = next(records)
            except StopIteration:
                # A file cut inside a gzip member ends without an error: warcio just stops.
                end = sum(records.member_info) if records.member_info else start
                rest = skip_blanks(stream, end)
                if rest is None:
                    return None
                return _Stop(rest, "the bytes past the last complete record are not a readable record")
            except OSError:
                raise  # the disk, not the data (warcio's own errors are not OSErrors)
            except Exception as exc:  # noqa: BLE001 - warcio raises anything on damaged bytes
                return _Stop(offset, _why(exc))
            item = record.rec_headers.get_header("WARC-Record-ID") or f"offset:{offset}"
            problem = _not_a_record(record)
            if problem:
                return _Stop(offset, f"no WARC/ARC record here: {problem}")
            try:
                page_or_drop = _page_from_record(record, name, item, offset)
                # The rest of the record and its gzip trailer, now: a bad CRC or a short record
                # shows before the page is yielded, never after it.
                records.read_to_end()
            except OSError:
                raise
            except Exception as exc:  # noqa: BLE001 - as above
                return _Stop(offset, _why(exc))
            missing = getattr(record.raw_stream, "limit", 0)
            if missing:
                return _Stop(offset, f"{missing} of its {record.length} bytes are missing")
            member = getattr(records.reader, "decompressor", None)
            if member is not None and not getattr(member, "eof", True):
                # Its content is all there but the gzip trailer is not: unchecked, so not kept.
                return _Stop(offset, "its gzip member ends without its trailer")
            yield page_or_drop


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
                     lambda: _read_capped(record.content_stream()), record.rec_headers.get_header("WARC-Date"),
                     record.rec_headers.get_header("WARC-Target-URI"), offset)


def _read_capped(stream) -> bytes:
    """warcio's decoded body, at most the record cap of it (``TooLarge`` past it)."""
    cap = _record_cap()
    body = stream.read(cap + 1)
    if len(body) > cap:
        raise TooLarge(f"its HTTP body decodes past {cap} bytes")
    return body
