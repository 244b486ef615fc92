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
    if not isinstance(raw, dict) or not raw.get("id"):
        return None
    return f"{PLATFORM}:{'t3' if _is_submission(raw) else 't1'}_{raw['id']}"


def _text(value: Any) -> str:
    return clean_text(html.unescape(value or ""))


def _row(raw: Any, post_id: str | None) -> dict:
    if isinstance(raw, ValueError):  # a line that is not JSON
        raise raw
    if not isinstance(raw, dict):
        raise TypeError(f"not a JSON object: {type(raw).__name__}")
    if post_id is None:
        raise ValueError("no id")
    submission = _is_submission(raw)
    if not submission and "body" not in raw:
        raise ValueError("neither a comment body nor a submission title")
    if submission:
        title, selftext = _text(raw.get("title")), _text(raw.get("selftext"))
        # An empty selftext is a link post (title only); a tombstone selftext is a gone body.
        if reason := gone_reason(title) or (selftext and gone_reason(selftext)):
            raise Gone(reason, raw.get("selftext") if selftext else raw.get("title"))
        text = f"{title}\n\n{selftext}" if selftext else title
    else:
        text = _text(raw.get("body"))
        if reason := gone_reason(text):
            raise Gone(reason, raw.get("body"))
    permalink = raw.get("permalink") or ""
    return post_row(
        post_id=post_id, platform=PLATFORM, kind="submission" if submission else "comment",
        created_at=raw.get("created_utc"), text=text, author=raw.get("author"),
        community=raw.get("subreddit"), parent_id=None if submission else raw.get("parent_id"),
        url=permalink if permalink.startswith("http") else
        f"https://www.reddit.com{permalink}" if permalink else None,
        score=_int(raw.get("score")))


def _int(value: Any) -> int | None:
    return None if value in (None, "") else int(float(value))
