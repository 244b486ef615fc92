"""Exact deduplication: the same canonical URL, or the same normalised text, is one article.

The EARLIEST copy wins (published_at, then crawled_at): it fixes when the information
became available, so a later syndicated copy must never replace it. Every removed copy is a
drop naming the kept article, and every row's ``dup_cluster`` is its kept article's id.
"""

from __future__ import annotations

import polars as pl

from pastcast.schemas import ARTICLES, DROPS

STAGE = "dedup"
EARLIEST_FIRST = ["published_at", "crawled_at", "article_id"]


def _dedup_on(articles: pl.DataFrame, key: str, reason: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    ranked = articles.sort(EARLIEST_FIRST).with_columns(
        pl.col("article_id").first().over(key).alias("_kept"))
    removed = ranked.filter(pl.col("article_id") != pl.col("_kept"))
    drops = removed.select(
        pl.col("article_id").alias("item_id"),
        pl.lit("article").alias("item_kind"),
        pl.lit(STAGE).alias("stage"),
        pl.lit(reason).alias("reason"),
        pl.format("kept {} ({} copy of {})", "_kept", pl.col("domain"), pl.col("url")).alias("detail"),
    )
    kept = ranked.filter(pl.col("article_id") == pl.col("_kept")).drop("_kept")
    return kept, drops.cast(DROPS)


def exact_dedup(articles: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(kept articles, drops): URL duplicates first, then identical normalised text."""
    kept, url_drops = _dedup_on(articles, "canonical_url", "duplicate_url")
    kept, text_drops = _dedup_on(kept, "content_hash", "exact_duplicate")
    kept = kept.with_columns(pl.col("article_id").alias("dup_cluster")).select(list(ARTICLES))
    return kept.sort(EARLIEST_FIRST), pl.concat([url_drops, text_drops])
