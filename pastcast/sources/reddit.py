"""Reddit dumps (Pushshift / Arctic Shift) into the ``posts`` table.

Newline-delimited JSON, usually zstd-compressed with a long window (often named .json), comments
and submissions mixed or apart. ``created_utc`` is an int, a float or a numeric string in the
wild; bodies carry HTML entities (``&gt;``). A deleted or removed body, of a comment or of a
self post, is a drop: the post as written is gone, and a title alone would misstate it.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any


from pastcast.sources.fields import BadField, as_instant, as_int, as_text
from pastcast.sources.imported import Imported
from pastcast.sources.post_rows import RECORD_ERRORS, STAGE, Gone, clean_text, gone_reason, keep, post_row, records

PLATFORM = "reddit"


def read_reddit(paths: Sequence[Path], imported: Imported | None = None) -> Imported:
    """Every comment and submission of ``paths``; table ``posts``."""
    imported, kept = imported or Imported(), set[str]()
    for path, where, raw in records(imported, paths):
        imported.seen("post")
        post_id = _post_id(raw)
        try:
            row = _row(raw, post_id)
        except Gone as gone:
            imported.drop(post_id, "post", STAGE, gone.reason, f"{path} {where}: {gone}")
            continue
        except RECORD_ERRORS as exc:
            imported.drop(post_id or f"{path.name}:{where}", "post", STAGE, "malformed_post",
                          f"{path} {where}: {exc}")
            continue
        keep(imported, kept, row, f"{path} {where}")
    return imported


def _is_submission(raw: dict) -> bool:
    name = str(raw.get("name") or "")
    return name.startswith("t3_") or ("title" in raw and "body" not in raw)


def _post_id(raw: Any) -> str | None:
    if not isinstance(raw, dict) or not raw.get("id") or not isinstance(raw["id"], (str, int)):
        return None
    return f"{PLATFORM}:{'t3' if _is_submission(raw) else 't1'}_{raw['id']}"


def _text(raw: dict, field: str) -> str:
    return clean_text(html.unescape(as_text(raw, field) or ""))


def _row(raw: Any, post_id: str | None) -> dict:
    if isinstance(raw, ValueError):  # a line that is not JSON
        raise raw
    if not isinstance(raw, dict):
        raise TypeError(f"not a JSON object: {type(raw).__name__}")
    if post_id is None:
        raise BadField("id", "missing" if not raw.get("id") else f"{raw['id']!r:.60} is not an id")
    submission = _is_submission(raw)
    if not submission and "body" not in raw:
        raise ValueError("neither a comment body nor a submission title")
    if submission:
        title, selftext = _text(raw, "title"), _text(raw, "selftext")
        # An empty selftext is a link post (title only); a tombstone selftext is a gone body.
        if reason := gone_reason(title) or (selftext and gone_reason(selftext)):
            raise Gone(reason, raw.get("selftext") if selftext else raw.get("title"))
        text = f"{title}\n\n{selftext}" if selftext else title
    else:
        text = _text(raw, "body")
        if reason := gone_reason(text):
            raise Gone(reason, raw.get("body"))
    permalink = as_text(raw, "permalink") or ""
    return post_row(
        post_id=post_id, platform=PLATFORM, kind="submission" if submission else "comment",
        created_at=as_instant(raw, "created_utc"), text=text, author=as_text(raw, "author"),
        community=as_text(raw, "subreddit"), parent_id=None if submission else as_text(raw, "parent_id"),
        url=permalink if permalink.startswith("http") else
        f"https://www.reddit.com{permalink}" if permalink else None,
        score=as_int(raw, "score"))
