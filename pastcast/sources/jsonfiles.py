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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import zstandard

from pastcast.io import loads_json

# What reading a damaged or unreadable dump raises (corrupt compression, cut files, bad JSON).
READ_ERRORS = (OSError, EOFError, ValueError, RecursionError, zstandard.ZstdError, lzma.LZMAError)
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
    if kind == "zstd":
        # Pushshift files need a 2 GiB window; streaming keeps memory flat.
        return zstandard.ZstdDecompressor(max_window_size=2**31).stream_reader(raw, closefd=True)
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
