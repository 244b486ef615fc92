"""Byte caps on what decompressing an input may produce, so a small compressed file that
expands without end (a decompression bomb, or one huge record) costs bounded memory and time.

- ``PASTCAST_MAX_RECORD_BYTES`` (default 32 MiB): one line of a line-delimited dump, and one
  decoded HTTP body of a WARC record. A record past it is a ``too_large`` drop naming file and
  record; the rest of the file is read (a long line is skipped to its newline, never held).
- ``PASTCAST_MAX_FILE_BYTES`` (default 256 MiB): a whole-JSON file (one document or one list),
  decompressed. A file past it is one ``too_large`` file drop; split such a dump into ndjson.

Read at each use, so a run (or a test) may set them in its environment. See docs/input-limits.md.
"""

from __future__ import annotations

import os

RECORD_ENV, FILE_ENV = "PASTCAST_MAX_RECORD_BYTES", "PASTCAST_MAX_FILE_BYTES"
DEFAULT_RECORD_BYTES = 32 << 20
DEFAULT_FILE_BYTES = 256 << 20
TOO_LARGE, EMPTY_FILE = "too_large", "empty_file"


def _cap(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r}: not a whole number of bytes") from None
    if value < 1:
        raise ValueError(f"{name}={raw!r}: must be at least 1 byte")
    return value


def max_record_bytes() -> int:
    return _cap(RECORD_ENV, DEFAULT_RECORD_BYTES)


def max_file_bytes() -> int:
    return _cap(FILE_ENV, DEFAULT_FILE_BYTES)


def check_caps() -> None:
    """Fail before reading anything when a cap is set to no number (one ValueError naming the
    variable), rather than every file becoming a drop."""
    max_record_bytes()
    max_file_bytes()


class TooLarge(ValueError):
    """A record or file that decompresses past its cap: a ``too_large`` drop."""


class EmptyFile(ValueError):
    """An input of zero bytes, or none once decompressed (a failed download): an ``empty_file``
    drop, which the snapshot's blocking check counts as an input not read whole."""
