"""Social-media dumps into the ``posts`` table: one reader per platform format, chosen by name
(``pastcast social import --format``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pastcast.sources.imported import Imported
from pastcast.sources.markets import reader

SOCIAL_FORMATS = {
    "reddit": "pastcast.sources.reddit:read_reddit",
    "hn": "pastcast.sources.hackernews:read_hackernews",
    "bluesky": "pastcast.sources.bluesky:read_bluesky",
}


def read_posts(fmt: str, paths: Sequence[str | Path], imported: Imported | None = None) -> Imported:
    """Every file of one social format; table ``posts``. Pass ``imported`` (with a sink) to
    stream rows out as they are read, or to add several formats to one import."""
    return reader(fmt, SOCIAL_FORMATS)([Path(p) for p in paths], imported)
