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

class TruncatedFile(ValueError):
    """The file ends inside a compressed frame or a JSON document: it was cut (a partial
    download or copy). What was read before the cut is kept; the file is a ``truncated_file``
    drop, and the snapshot's blocking check says the input was not read whole."""


# What reading a damaged or unreadable dump raises (corrupt compression, cut files, bad JSON).
READ_ERRORS = (OSError, EOFError, ValueError, RecursionError, zstandard.ZstdError, lzma.LZMAError)
CHUNK = 1 << 18  # compressed bytes read at a time


def failure_reason(exc: BaseException) -> str:
    """The drop reason for a dump that failed to read: ``truncated_file`` when it was cut (the
    decompressors say so with an EOFError), else ``unreadable_file``."""
    return "truncated_file" if isinstance(exc, (TruncatedFile, EOFError)) else "unreadable_file"


class _ZstdStream(io.RawIOBase):
    """zstd frames decoded one after another, raising ``TruncatedFile`` when the file ends
    inside a frame (zstandard's stream reader just stops there, so a cut dump looked whole)."""

    def __init__(self, raw, path: Path):
        self.raw, self.path = raw, path
        self.dctx = zstandard.ZstdDecompressor(max_window_size=2**31)  # Pushshift's long window
        self.frame = self.dctx.decompressobj()
        self.in_frame = False  # bytes of the current frame fed, its end not seen yet
        self.pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self.pending:
            chunk = self.raw.read(CHUNK)
            if not chunk:
                if self.in_frame:
                    size = os.fstat(self.raw.fileno()).st_size
                    raise TruncatedFile(f"{self.path}: the zstd stream ends inside a frame at byte {size} "
                                        "(the file was cut)")
                return 0
            out = []
            while chunk:
                out.append(self.frame.decompress(chunk))
                self.in_frame = True
                if not self.frame.eof:
                    break
                chunk, self.in_frame = self.frame.unused_data, False  # a next frame may follow
                self.frame = self.dctx.decompressobj()
            self.pending = b"".join(out)
        n = min(len(buffer), len(self.pending))
        buffer[:n] = self.pending[:n]
        self.pending = self.pending[n:]
        return n

    def close(self) -> None:
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


def iter_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """(line number from 1, line) for every non-blank line, decoded as UTF-8 (bad bytes replaced)."""
    with io.TextIOWrapper(open_binary(path), encoding="utf-8", errors="replace") as text:
        for lineno, line in enumerate(text, start=1):
            if line.strip():
                yield lineno, line


def read_json(path: str | Path) -> Any:
    """One JSON document; a ValueError naming the file when it is not one."""
    path = Path(path)
    try:
        with open_binary(path) as fh:
            return loads_json(fh.read().decode("utf-8", errors="replace"))
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
    Pushshift re-exports are named .json)."""
    path = Path(path)
    if _inner_suffix(path) in LINE_SUFFIXES:
        return True
    for _, line in iter_lines(path):
        stripped = line.strip()
        if not stripped.startswith("{"):
            return False
        try:
            loads_json(stripped)  # a whole object on the first line: ndjson
            return True
        except json.JSONDecodeError:
            return False
    return False


def iter_records(path: str | Path) -> Iterator[tuple[str, Any]]:
    """(locator, record) for each record of ``path``: each line of ndjson, each item of a
    top-level JSON list, or the single document. A line that is not JSON yields
    (locator, ValueError) so the caller can drop it and continue."""
    path = Path(path)
    if is_line_delimited(path):
        for lineno, line in iter_lines(path):
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
