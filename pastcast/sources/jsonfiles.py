"""Reading the JSON shapes dumps come in: one document, a list, or newline-delimited records,
plain or compressed (zstd with Pushshift's long window, gzip, bz2, xz).

Every reader names the file and the line or position of a bad record, so an import can drop it
with a reason and go on.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import zstandard

from pastcast.io import loads_json
from pastcast.sources.limits import (EMPTY_FILE, FILE_ENV, RECORD_ENV, TOO_LARGE, EmptyFile, TooLarge,
                                     max_file_bytes, max_record_bytes)

class TruncatedFile(ValueError):
    """The file ends inside a compressed frame or a JSON document: it was cut (a partial
    download or copy). What was read before the cut is kept; the file is a ``truncated_file``
    drop, and the snapshot's blocking check says the input was not read whole."""


# What reading a damaged or unreadable dump raises (corrupt compression, cut files, bad JSON).
READ_ERRORS = (OSError, EOFError, ValueError, RecursionError, zstandard.ZstdError, lzma.LZMAError)
CHUNK = 1 << 18  # decompressed bytes read at a time


def failure_reason(exc: BaseException) -> str:
    """The drop reason for a dump that failed to read: ``truncated_file`` when it was cut (the
    decompressors say so with an EOFError), ``empty_file`` / ``too_large`` for those, else
    ``unreadable_file``."""
    if isinstance(exc, EmptyFile):
        return EMPTY_FILE
    if isinstance(exc, TooLarge):
        return TOO_LARGE
    return "truncated_file" if isinstance(exc, (TruncatedFile, EOFError)) else "unreadable_file"


_ZSTD_MAGIC = 0xFD2FB528


def zstd_cut_at(fh) -> int | None:
    """The offset of the zstd frame the file ends inside, or None when it ends after a whole
    frame. Walks frame and block headers only (no decompression): zstandard's stream reader
    stops quietly where a file is cut, so this is how a cut dump is told from a whole one."""
    size, pos = os.fstat(fh.fileno()).st_size, 0
    while pos < size:
        fh.seek(pos)
        head = fh.read(14)
        if len(head) < 4:
            return pos
        magic = int.from_bytes(head[:4], "little")
        if magic & 0xFFFFFFF0 == 0x184D2A50:  # a skippable frame: magic, 4-byte size, data
            if len(head) < 8:
                return pos
            pos += 8 + int.from_bytes(head[4:8], "little")
            continue
        if magic != _ZSTD_MAGIC or len(head) < 5:
            return None if magic != _ZSTD_MAGIC else pos  # garbage: the decompressor reports it
        descriptor = head[4]
        single = (descriptor >> 5) & 1
        content_size = (1 if single else 0, 2, 4, 8)[descriptor >> 6]
        block = pos + 5 + (0 if single else 1) + (0, 1, 2, 4)[descriptor & 3] + content_size
        while True:
            fh.seek(block)
            word = fh.read(3)
            if len(word) < 3:
                return pos
            header = int.from_bytes(word, "little")
            kind, length = (header >> 1) & 3, header >> 3
            block += 3 + (1 if kind == 1 else length)  # an RLE block stores one byte
            if header & 1:  # the last block
                break
        end = block + (4 if descriptor & 0x04 else 0)  # the content checksum
        if end > size:
            return pos
        pos = end
    return None


class _ZstdStream(io.RawIOBase):
    """zstd frames decoded one after another, at most the caller's buffer at a time (memory
    stays flat whatever a frame expands to), raising ``TruncatedFile`` when the file ends
    inside a frame."""

    def __init__(self, raw, path: Path):
        self.raw, self.path = raw, path
        dctx = zstandard.ZstdDecompressor(max_window_size=2**31)  # Pushshift's long window
        self.reader = dctx.stream_reader(raw, read_size=CHUNK, read_across_frames=True, closefd=False)
        self.ended = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.ended:
            return 0
        n = self.reader.readinto(buffer)
        if n == 0:
            self.ended = True
            cut = zstd_cut_at(self.raw)
            if cut is not None:
                size = os.fstat(self.raw.fileno()).st_size
                raise TruncatedFile(f"{self.path}: the zstd stream ends inside the frame at byte {cut} "
                                    f"(the file was cut at byte {size})")
        return n

    def close(self) -> None:
        self.reader.close()
        self.raw.close()
        super().close()
COMPRESSED = {".zst": "zstd", ".gz": "gzip", ".bz2": "bz2", ".xz": "xz"}
LINE_SUFFIXES = {".jsonl", ".ndjson"}


def _inner_suffix(path: Path) -> str:
    """The format suffix under any compression suffix: ``a.ndjson.zst`` -> ``.ndjson``."""
    suffixes = [s.lower() for s in path.suffixes]
    while suffixes and suffixes[-1] in COMPRESSED:
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def open_binary(path: str | Path) -> io.BufferedIOBase:
    path = Path(path)
    kind = COMPRESSED.get(path.suffix.lower())
    raw = open(path, "rb")
    if kind == "zstd":  # streamed: memory stays flat
        return io.BufferedReader(_ZstdStream(raw, path), CHUNK)
    if kind == "gzip":
        return gzip.GzipFile(fileobj=raw)
    if kind == "bz2":
        return bz2.BZ2File(raw)
    if kind == "xz":
        return lzma.LZMAFile(raw)
    return raw


def _check_not_empty(path: Path) -> None:
    if path.stat().st_size == 0:
        raise EmptyFile(f"{path}: the file is empty (0 bytes): a failed download or copy?")


def iter_lines(path: str | Path) -> Iterator[tuple[int, str | TooLarge]]:
    """(line number from 1, line) for every non-blank line, decoded as UTF-8 (bad bytes
    replaced). A line longer than ``PASTCAST_MAX_RECORD_BYTES`` comes as (line number,
    ``TooLarge``): it is skipped to its newline without being held, and reading goes on. A
    file of zero bytes, or of nothing but blank lines, is an ``EmptyFile`` error."""
    path = Path(path)
    _check_not_empty(path)
    cap, seen = max_record_bytes(), False
    with open_binary(path) as fh:
        for lineno, line in _split_lines(fh, cap):
            if isinstance(line, int):
                seen = True
                yield lineno, TooLarge(f"{path}: line {lineno} is longer than the cap of {cap} bytes "
                                       f"({line} bytes; {RECORD_ENV} raises it); skipped to the next line")
                continue
            text = line.decode("utf-8", errors="replace")
            if text.strip():
                seen = True
                yield lineno, text
    if not seen:
        raise EmptyFile(f"{path}: no records (only blank lines once decompressed)")


def _split_lines(fh, cap: int) -> Iterator[tuple[int, bytes | int]]:
    """(line number, bytes of the line) from a binary stream, in one pass: each chunk is
    looked at once, and a line is joined from its pieces once. A line past ``cap`` bytes gives
    (line number, bytes read of it so far, at least cap + 1) and its pieces are let go."""
    pieces: list[bytes] = []
    size, lineno, over = 0, 1, False
    # read1: what one step of the decompressor gives, so the lines before a cut are yielded
    # before the error the cut raises (read(n) would lose them to it)
    read = getattr(fh, "read1", fh.read)
    while chunk := read(CHUNK):
        start = 0
        while start < len(chunk):
            newline = chunk.find(b"\n", start)
            end = len(chunk) if newline < 0 else newline
            size += end - start
            if not over and size > cap:
                over, pieces = True, []
            elif not over:
                pieces.append(chunk[start:end])
            if newline < 0:
                break
            yield lineno, size if over else b"".join(pieces)
            pieces, size, lineno, over = [], 0, lineno + 1, False
            start = newline + 1
    if size or pieces:
        yield lineno, size if over else b"".join(pieces)


def read_json(path: str | Path) -> Any:
    """One JSON document; a ValueError naming the file when it is not one (``TooLarge`` when it
    decompresses past ``PASTCAST_MAX_FILE_BYTES``, ``EmptyFile`` when it has no bytes)."""
    path = Path(path)
    _check_not_empty(path)
    cap = max_file_bytes()
    try:
        with open_binary(path) as fh:
            data = bytearray()
            while len(data) <= cap and (chunk := fh.read(CHUNK)):
                data += chunk
        if len(data) > cap:
            raise TooLarge(f"{path}: decompresses past the cap of {cap} bytes for a whole-JSON file "
                           f"({FILE_ENV} raises it; or split the dump into ndjson, read a record at a time)")
        text = data.decode("utf-8", errors="replace")
        del data
        if not text.strip():
            raise EmptyFile(f"{path}: no JSON document (only blanks once decompressed)")
        return loads_json(text)
    except (OSError, EOFError, zstandard.ZstdError, lzma.LZMAError) as exc:
        raise ValueError(f"{path}: cannot read: {exc}") from exc
    except json.JSONDecodeError as exc:
        # the text stops mid-document: at its last character, or inside a string (an
        # unterminated string is one that reached the end of the text)
        if exc.doc and (exc.pos >= len(exc.doc.rstrip()) - 1 or exc.msg.startswith("Unterminated string")):
            raise TruncatedFile(f"{path}: the JSON document ends early, at character {exc.pos} "
                                "(the file was cut)") from exc
        raise ValueError(f"{path}: not a JSON document: {exc}") from exc


def is_line_delimited(path: str | Path) -> bool:
    """True for .jsonl/.ndjson, and for a ``.json`` file that holds one object per line (many
    Pushshift re-exports are named .json). A first line past the record cap is read as
    ndjson when a JSON object line follows it, else as one (large) document."""
    path = Path(path)
    if _inner_suffix(path) in LINE_SUFFIXES:
        return True
    for _, line in iter_lines(path):
        if isinstance(line, TooLarge):
            continue
        stripped = line.strip()
        if not stripped.startswith("{"):
            return False
        try:
            loads_json(stripped)  # a whole object on the first line (or the one after a huge one): ndjson
            return True
        except json.JSONDecodeError:
            return False
    return False


def iter_records(path: str | Path) -> Iterator[tuple[str, Any]]:
    """(locator, record) for each record of ``path``: each line of ndjson, each item of a
    top-level JSON list, or the single document. A line that is not JSON yields
    (locator, ValueError), a line past the record cap (locator, ``TooLarge``), so the caller
    can drop it and continue."""
    path = Path(path)
    if is_line_delimited(path):
        for lineno, line in iter_lines(path):
            if isinstance(line, TooLarge):
                yield f"line {lineno}", line
                continue
            try:
                yield f"line {lineno}", loads_json(line)
            except json.JSONDecodeError as exc:
                yield f"line {lineno}", ValueError(f"not JSON: {exc}")
        return
    doc = read_json(path)
    if isinstance(doc, list):
        for i, item in enumerate(doc):
            yield f"item {i}", item
    else:
        yield "document", doc
