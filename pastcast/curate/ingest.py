"""Ingest: WARC files in, article rows and drops out (read -> extract -> date -> filter)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import polars as pl

from pastcast.curate.extract import ExtractConfig, page_to_article
from pastcast.drops import Drop, drops_frame
from pastcast.schemas import ARTICLES, frame
from pastcast.sources.warc import HtmlPage, iter_html_pages


def ingest_warc(path: str | Path, config: ExtractConfig = ExtractConfig(),
                on_record: Callable[[], None] | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """One WARC file to (articles, drops); streams the file record by record."""
    articles: list[dict] = []
    drops: list[Drop] = []
    for item in iter_html_pages(path):
        if on_record:
            on_record()
        if isinstance(item, HtmlPage):
            item = page_to_article(item, config)
        (drops if isinstance(item, Drop) else articles).append(item)
    return frame(articles, ARTICLES), drops_frame(drops)


def ingest_warcs(paths: Iterable[str | Path], config: ExtractConfig = ExtractConfig(),
                 on_file: Callable[[Path, int], None] | None = None
                 ) -> tuple[pl.DataFrame, pl.DataFrame]:
    parts, drop_parts = [], []
    for path in paths:
        articles, drops = ingest_warc(path, config)
        parts.append(articles)
        drop_parts.append(drops)
        if on_file:
            on_file(Path(path), articles.height)
    return (pl.concat(parts) if parts else frame([], ARTICLES),
            pl.concat(drop_parts) if drop_parts else drops_frame([]))
