"""Hacker News items (the official API, https://github.com/HackerNews/API) into ``posts``.

Items come one per line (jsonl), as a JSON list or one item per file. ``time`` is unix
seconds; ``text`` is HTML. Deleted and dead (flagged, killed) items are drops: the first has no
body left and the second was hidden from readers. User records (``karma``, no ``type``) are not
posts. The API answers ``null`` for an item that does not exist: a malformed post here. A body
edited to "[deleted]" (HN closes deletion soon after posting) counts as deleted.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pastcast.sources.fields import BadField, as_instant, as_int, as_text, integer
from pastcast.sources.imported import Imported
from pastcast.sources.post_rows import RECORD_ERRORS, STAGE, Gone, clean_text, gone_reason, html_to_text, keep, post_row, records

PLATFORM = "hn"
KINDS = {"story", "comment", "job", "poll", "pollopt"}
TITLED = {"story", "job", "poll"}  # the title leads the text; comments and poll options have none
PARENT = {"comment": "parent", "pollopt": "poll"}
ITEM_PAGE = "https://news.ycombinator.com/item?id="


def read_hackernews(paths: Sequence[Path], imported: Imported | None = None) -> Imported:
    """Every item of ``paths``; table ``posts``."""
    imported, kept = imported or Imported(), set[str]()
    for path, where, raw in records(imported, paths):
        detail = f"{path} {where}"
        if isinstance(raw, dict) and "type" not in raw and "karma" in raw:
            imported.seen("record")
            imported.drop(f"{PLATFORM}:user:{raw.get('id')}", "record", STAGE, "not_a_post",
                          f"{detail}: a user profile")
            continue
        imported.seen("post")
        post_id = (f"{PLATFORM}:{raw['id']}" if isinstance(raw, dict) and raw.get("id")
                   and isinstance(raw["id"], (str, int)) else None)
        try:
            row = _row(raw, post_id)
        except Gone as gone:
            imported.drop(post_id, "post", STAGE, gone.reason, f"{detail}: {gone}")
            continue
        except RECORD_ERRORS as exc:
            imported.drop(post_id or f"{path.name}:{where}", "post", STAGE, "malformed_post",
                          f"{detail}: {exc}")
            continue
        keep(imported, kept, row, detail)
    return imported


def _row(raw: Any, post_id: str | None) -> dict:
    if isinstance(raw, ValueError):  # a line that is not JSON
        raise raw
    if not isinstance(raw, dict):
        raise TypeError(f"not an item: {raw!r}")
    if post_id is None:
        raise BadField("id", "missing" if not raw.get("id") else f"{raw['id']!r:.60} is not an id")
    if raw.get("deleted"):
        raise Gone("deleted_item", raw.get("text"))
    if raw.get("dead"):
        raise Gone("dead_item", raw.get("text"))
    kind = as_text(raw, "type")
    if kind not in KINDS:
        raise ValueError(f"unknown item type {kind!r}")
    # Titles may hold HTML entities too (HackerNews/API#20), but no tags.
    title, body = clean_text(html.unescape(as_text(raw, "title") or "")), html_to_text(as_text(raw, "text"))
    if kind in TITLED:  # a story without text is a link: the title alone is its text
        if reason := gone_reason(title) or (body and gone_reason(body)):
            raise Gone(reason, raw.get("text") if body else raw.get("title"))
        text = f"{title}\n\n{body}" if body else title
    elif reason := gone_reason(body):
        raise Gone(reason, raw.get("text"))
    else:
        text = body
    parent = integer(raw.get(PARENT[kind]), PARENT[kind]) if kind in PARENT else None
    return post_row(
        post_id=post_id, platform=PLATFORM, kind=kind, created_at=as_instant(raw, "time"), text=text,
        author=as_text(raw, "by"), url=as_text(raw, "url") or f"{ITEM_PAGE}{raw['id']}",
        parent_id=f"{PLATFORM}:{parent}" if parent else None, score=as_int(raw, "score"))
