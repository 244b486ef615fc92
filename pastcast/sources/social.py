"""Social-media dumps into the ``posts`` table.

Pushshift / Arctic Shift Reddit dumps: newline-delimited JSON, usually zstd-compressed with a
long window, streamed line by line. ``created_utc`` is an int or a numeric string in the wild.
Deleted or removed bodies are drops with a reason.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import polars as pl
import zstandard

from pastcast.drops import Drop, drops_frame
from pastcast.io import stable_id
from pastcast.schemas import POSTS, frame

STAGE = "social"
GONE = {"[deleted]", "[removed]", "[deleted by user]", ""}


def _lines(path: Path) -> Iterator[str]:
    raw = open(path, "rb")
    if path.suffix == ".zst":
        # Pushshift files need a 2 GiB window; streaming keeps memory flat.
        raw = zstandard.ZstdDecompressor(max_window_size=2**31).stream_reader(raw)
    with io.TextIOWrapper(raw, encoding="utf-8", errors="replace") as text:
        yield from text


def read_pushshift(path: str | Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    path = Path(path)
    posts, drops = [], []
    for lineno, line in enumerate(_lines(path), start=1):
        if not line.strip():
            continue
        item = f"{path.name}:{lineno}"
        try:
            raw = json.loads(line)
            post = _reddit_post(raw)
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            drops.append(Drop(item, "post", STAGE, "malformed_post", f"{path} line {lineno}: {exc!r}"))
            continue
        if (post["text"] or "").strip() in GONE:
            drops.append(Drop(post["post_id"], "post", STAGE, "deleted_body",
                              f"{path} line {lineno}: {raw.get('body') or raw.get('selftext')!r}"))
            continue
        posts.append(post)
    return frame(posts, POSTS).sort("created_at"), drops_frame(drops)


def _reddit_post(raw: dict) -> dict:
    is_submission = "title" in raw and "body" not in raw
    kind = "t3" if is_submission else "t1"
    text = (f"{raw.get('title', '')}\n\n{raw.get('selftext', '')}".strip()
            if is_submission else raw.get("body", ""))
    if is_submission and (raw.get("selftext") or "").strip() in ("[deleted]", "[removed]"):
        text = raw["selftext"].strip()
    author = raw.get("author") or ""
    permalink = raw.get("permalink")
    return {
        "post_id": f"reddit:{kind}_{raw['id']}",
        "platform": "reddit",
        "created_at": datetime.fromtimestamp(int(float(raw["created_utc"])), tz=timezone.utc),
        "author_hash": stable_id("reddit", author) if author not in ("", "[deleted]") else None,
        "text": text,
        "url": f"https://www.reddit.com{permalink}" if permalink else None,
        "parent_id": raw.get("parent_id"),
        "score": int(raw["score"]) if raw.get("score") is not None else None,
    }
