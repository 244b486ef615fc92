"""Building rows of the ``posts`` table, checked once for every social reader.

Conventions every reader follows:
- ``post_id`` is ``<platform>:<the platform's own id>``; drops of a post use the same id (or
  ``<file name>:<locator>`` when the record is too broken to have one).
- ``created_at`` is when the post was made (UTC): the replay shows a post from that moment on.
- ``author_hash`` is a stable hash of the author name, never the name itself.
- ``text`` is plain text (HTML and entities decoded); a submission's title leads its text.
- A deleted or removed body is a drop (``deleted_body`` / ``removed_body``), not an empty post.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pastcast.io import stable_id
from pastcast.schemas import POSTS
from pastcast.sources import fields
from pastcast.sources.fields import RECORD_ERRORS, BadField, check_row  # RECORD_ERRORS: the social readers take it from here
from pastcast.sources.imported import Imported, to_utc
from pastcast.sources.jsonfiles import READ_ERRORS, failure_reason, iter_records
from pastcast.sources.limits import TOO_LARGE, TooLarge

STAGE = "social"
DELETED = {"[deleted]", "[deleted by user]", "deleted"}
REMOVED = {"[removed]", "[removed by reddit]", "removed"}
_TAGS = re.compile(r"<[^>]+>")
_PARAGRAPH = re.compile(r"<\s*(p|br|/p|li|/li|div|/div)\b[^>]*>", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def gone_reason(text: str | None) -> str | None:
    """``deleted_body`` / ``removed_body`` for a tombstone body, ``empty_body`` for nothing."""
    stripped = (text or "").strip()
    if not stripped:
        return "empty_body"
    if stripped.lower() in DELETED:
        return "deleted_body"
    if stripped.lower() in REMOVED:
        return "removed_body"
    return None


def html_to_text(value: str | None) -> str:
    """HN and Reddit bodies carry HTML or entities: paragraphs kept as newlines, tags removed."""
    if not value:
        return ""
    text = _PARAGRAPH.sub("\n", value)
    text = html.unescape(_TAGS.sub("", text))
    return clean_text(text)


def clean_text(value: str | None) -> str:
    text = unicodedata.normalize("NFC", value or "")
    text = _CONTROL.sub("", text).replace("\r\n", "\n")
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def author_hash(platform: str, author: str | None) -> str | None:
    if not author or author.strip().lower() in DELETED | REMOVED:
        return None
    return stable_id(platform, author.strip())


def post_row(*, post_id: str, platform: str, kind: str, created_at, text: str,
             author: str | None = None, community: str | None = None, url: str | None = None,
             parent_id: str | None = None, score=None) -> dict:
    """One ``posts`` row; a ValueError (``BadField``) saying what is missing or of the wrong type."""
    created = to_utc(created_at, "created_at")
    if created is None:
        raise BadField("created_at", "the post has no creation time")
    if not fields.text(text, "text").strip():
        raise BadField("text", "the post has no text")
    return check_row({
        "post_id": post_id,
        "platform": platform,
        "kind": kind,
        "community": community,
        "created_at": created,
        "author_hash": author_hash(platform, fields.text(author, "author")),
        "text": text,
        "url": url,
        "parent_id": parent_id,
        "score": fields.integer(score, "score"),
    }, POSTS)


class Gone(Exception):
    """A post whose body is gone: dropped with ``reason``."""

    def __init__(self, reason: str, body: Any):
        super().__init__(repr(body))
        self.reason = reason


def records(imported: Imported, paths: Sequence[Path]) -> Iterator[tuple[Path, str, Any]]:
    """(path, locator, record) for every record; a file that cannot be read (missing, corrupt
    compression, not JSON, empty) becomes a ``file`` drop, after any records read before the
    fault; a line past the record cap is a ``too_large`` drop (kind ``record``)."""
    for path in map(Path, paths):
        where = ""
        try:
            for where, record in iter_records(path):
                if isinstance(record, TooLarge):  # a line past the record cap: dropped, the rest read
                    imported.seen("record")
                    imported.drop(f"{path.name}:{where}", "record", STAGE, TOO_LARGE, str(record))
                    continue
                yield path, where, record
        except READ_ERRORS as exc:
            imported.seen("file")
            message = str(exc) if str(path) in str(exc) else f"{path}: {exc}"
            imported.drop(path.name, "file", STAGE, failure_reason(exc),
                          message + (f" (after {where}; the records before it are kept)" if where else ""))


def keep(imported: Imported, kept: set[str], row: dict, detail: str) -> None:
    """Add ``row`` unless its post id already became a row in this import (first copy wins)."""
    if row["post_id"] in kept:
        imported.drop(row["post_id"], "post", STAGE, "duplicate_post", detail)
        return
    kept.add(row["post_id"])
    imported.add("posts", row)
    imported.kept("post")
