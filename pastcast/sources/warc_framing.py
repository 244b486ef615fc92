"""The framing of a WARC file: its gzip members, lz4 frames or plain records, found and
checked byte by byte. The readers (warcio, FastWARC) parse records; this says where a record
starts, whether one is whole or cut short, and where the next intact one begins after damage.
"""

from __future__ import annotations

import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

GZIP, LZ4, PLAIN = "gzip", "lz4", "plain"
_GZIP_MAGIC = b"\x1f\x8b\x08"
_LZ4_MAGIC = b"\x04\x22\x4d\x18"
# Where a record may start. Plain: anywhere, not only at a line start, so a damaged newline
# before a record does not lose it; the header must parse before it is trusted.
_SCAN_FOR = {GZIP: _GZIP_MAGIC, LZ4: _LZ4_MAGIC, PLAIN: b"WARC/1."}
_CHUNK = 1 << 20  # bytes read at a time when scanning or checking: memory stays flat
_HEAD = 32 << 10  # enough for any WARC header block
_BLANK = b"\r\n\x00 \t"
_HEADER_END = re.compile(rb"\r?\n\r?\n")
_ARC_LINE = re.compile(rb"[a-z][a-z0-9+.-]*:\S* \S+ \d{14} ")  # url ip date ...: an ARC record


@dataclass(frozen=True)
class RecordAt:
    """Where FastWARC says a record starts, with what it read of the record's header to check
    that claim against the bytes there."""

    pos: int
    record_id: str | None
    content_length: int | None  # as declared in the WARC header


def compression_of(path: Path) -> str:
    """How the file is compressed: by its first bytes, else (those damaged) by its name."""
    with open(path, "rb") as fh:
        first = fh.read(8)
    if first.startswith(b"\x1f\x8b"):
        return GZIP
    if first.startswith(_LZ4_MAGIC):
        return LZ4
    if first.startswith(b"WARC/"):
        return PLAIN
    suffixes = [s.lower() for s in path.suffixes]
    return GZIP if ".gz" in suffixes else LZ4 if ".lz4" in suffixes else PLAIN


@dataclass(frozen=True)
class Container:
    """The gzip member, lz4 frame or plain record at an offset.

    ``state``: "ok" (whole, ending at ``end``), "cut" (the file ends inside it) or "bad".
    ``head``: its first bytes, decompressed; ``record_id``: the WARC-Record-ID they state.
    """

    state: str
    end: int | None = None
    head: bytes = b""

    @property
    def record_id(self) -> str | None:
        header = warc_header(self.head)
        if header is None:
            return None
        return header[1].get(b"warc-record-id", b"").decode("latin-1") or None

    @property
    def content_length(self) -> int | None:
        header = warc_header(self.head)
        return int(header[1][b"content-length"]) if header else None


def container_at(fh, pos: int, compression: str, head_only: bool = False) -> Container:
    if compression == GZIP:
        return _gzip_member(fh, pos, head_only)
    if compression == LZ4:
        return _lz4_frame(fh, pos, head_only)
    return _plain_record(fh, pos)


def _gzip_member(fh, pos: int, head_only: bool) -> Container:
    """Decompress the member at ``pos`` in chunks (output discarded past the head).

    ``head_only``: in small steps, so the head of a member damaged further in is still seen
    (zlib returns nothing from a step that fails).
    """
    fh.seek(pos)
    member = zlib.decompressobj(16 + zlib.MAX_WBITS)
    head, read = bytearray(), 0
    while True:
        chunk = fh.read(256 if head_only else 1 << 16)
        if not chunk:
            return Container("cut" if read else "bad", head=bytes(head))
        read += len(chunk)
        data = chunk
        while data and not member.eof:
            try:
                out = member.decompress(data, _CHUNK)  # bounded: a zip bomb stays small
            except zlib.error:
                return Container("bad", head=bytes(head))
            if len(head) < _HEAD:
                head += out[:_HEAD - len(head)]
            data = member.unconsumed_tail
        if member.eof:
            return Container("ok", pos + read - len(member.unused_data), bytes(head))
        if head_only and (len(head) >= _HEAD or _HEADER_END.search(head)):
            return Container("ok", None, bytes(head))


def _lz4_frame(fh, pos: int, head_only: bool) -> Container:
    """Walk the frame's block sizes (no decompression): enough to tell whole from cut."""
    from fastwarc.stream_io import Lz4Reader

    head = b""
    try:
        fh.seek(pos)
        frame = Lz4Reader(fh)
        # A little at a time, up to the end of the header block: a read past this frame would
        # decompress the next one, which may be the damaged one.
        while len(head) < _HEAD and not _HEADER_END.search(head):
            more = frame.read(256)
            if not more:
                break
            head += more
    except Exception:  # noqa: BLE001 - not a frame, or a damaged one: the walk below says which
        pass
    if head_only:
        return Container("ok" if head else "bad", None, head)
    size = _size(fh)
    fh.seek(pos)
    header = fh.read(19)
    if not header or not _LZ4_MAGIC.startswith(header[:4]):
        return Container("bad", head=head)
    if len(header) < 7:
        return Container("cut", head=head)
    flags = header[4]
    if flags >> 6 != 1:
        return Container("bad", head=head)
    p = pos + 7 + (8 if flags & 0x08 else 0) + (4 if flags & 0x01 else 0)
    block_sum, content_sum = (4 if flags & 0x10 else 0), (4 if flags & 0x04 else 0)
    while True:
        fh.seek(p)
        word = fh.read(4)
        if len(word) < 4:
            return Container("cut", head=head)
        p += 4
        block = int.from_bytes(word, "little")
        if block == 0:  # the end mark
            end = p + content_sum
            return Container("ok" if end <= size else "cut", end if end <= size else None, head)
        block &= 0x7FFFFFFF
        if block > 4 << 20:  # larger than lz4's largest block: not a block size at all
            return Container("bad", head=head)
        p += block + block_sum
        if p > size:
            return Container("cut", head=head)


def _plain_record(fh, pos: int) -> Container:
    fh.seek(pos)
    head = fh.read(_HEAD)
    header = warc_header(head)
    if header is None:
        # A header block the file ends inside was cut; anything else is not a record.
        cut = (head and len(head) < _HEAD and not _HEADER_END.search(head)
               and (head.startswith(b"WARC/") or b"WARC/1.".startswith(head)))
        return Container("cut" if cut else "bad", head=head)
    end = pos + header[0] + int(header[1][b"content-length"])
    return Container("ok", end, head) if end <= _size(fh) else Container("cut", head=head)


def warc_header(head: bytes) -> tuple[int, dict[bytes, bytes]] | None:
    """(length, fields) of the WARC header block ``head`` starts with, if it starts a record."""
    if not re.match(rb"WARC/1\.[01]\r?\n", head):
        return None
    end = _HEADER_END.search(head)
    if not end:
        return None
    fields = {}
    for line in head[:end.start()].split(b"\n")[1:]:
        if line[:1] in (b" ", b"\t"):
            continue  # a folded continuation line
        name, sep, value = line.partition(b":")
        if not sep:
            return None
        fields[name.strip().lower()] = value.strip()
    if not fields.get(b"content-length", b"").isdigit() or b"warc-type" not in fields:
        return None
    return end.end(), fields


def _size(fh) -> int:
    return os.fstat(fh.fileno()).st_size


def skip_blanks(fh, pos: int) -> int | None:
    """The first offset from ``pos`` that is not a blank between records; None: only blanks."""
    fh.seek(pos)
    while chunk := fh.read(_CHUNK):
        rest = chunk.lstrip(_BLANK)
        if rest:
            return pos + len(chunk) - len(rest)
        pos += len(chunk)
    return None


def _only_blanks(fh, pos: int) -> bool:
    return skip_blanks(fh, pos) is None


def record_id_at(path: Path, pos: int, compression: str) -> str | None:
    with open(path, "rb") as fh:
        return container_at(fh, pos, compression, head_only=True).record_id


def tail_complete(path: Path, start: int, last: RecordAt | None, compression: str) -> bool:
    """Is the segment's last record (``last``) whole, with nothing but blanks after it?"""
    with open(path, "rb") as fh:
        if last is None:
            return _only_blanks(fh, start)
        whole = container_at(fh, last.pos, compression)
        if whole.record_id == last.record_id:
            return whole.state == "ok" and _only_blanks(fh, whole.end)
        # FastWARC's position is not where the record starts (one gzip member holding many
        # records): walk the segment's containers from its start instead.
        pos = start
        while not _only_blanks(fh, pos):
            whole = container_at(fh, pos, compression)
            if whole.state != "ok":
                return False
            pos = whole.end
        return True


def next_record_start(path: Path, after: int, compression: str, arc: bool) -> int | None:
    """The first offset >= ``after`` where a gzip member, lz4 frame or ``WARC/1.`` starts
    that holds a real record header (a chance match inside compressed bytes does not)."""
    magic = _SCAN_FOR[compression]
    with open(path, "rb") as fh:
        pos = after
        while True:
            fh.seek(pos)
            chunk = fh.read(_CHUNK)
            hit = chunk.find(magic)
            while hit >= 0:
                candidate = pos + hit
                if _starts_record(fh, candidate, compression, arc):
                    return candidate
                hit = chunk.find(magic, hit + 1)
            if len(chunk) < _CHUNK:
                return None
            pos += len(chunk) - len(magic) + 1  # overlap: a match across chunks is found once


def _starts_record(fh, pos: int, compression: str, arc: bool) -> bool:
    """A record header decompresses cleanly here (its body may still be damaged: then that
    record is the next drop, one per damaged record)."""
    head = container_at(fh, pos, compression, head_only=True).head
    return warc_header(head) is not None or (arc and _ARC_LINE.match(head) is not None)


def cut_short(path: Path, pos: int, compression: str) -> bool:
    """Does the file end inside the container at ``pos`` (rather than hold garbage there)?"""
    with open(path, "rb") as fh:
        return container_at(fh, pos, compression).state == "cut"
