"""What the corpus may serve, from when, and the time window a set of articles covers as news.

Archive pages crawled again years after publication are kept with their true dates, so the
oldest ``published_at`` says nothing about the period a crawl covers. The window runs from the
first day of an article crawled within ``CURRENT_NEWS_DAYS`` of its publication (news when it
was crawled) to the last published day.

An archive page is never served (search index, extractive background, question sources): its
text is the text at crawl time, which may carry edits made long after its stated date (an
evergreen page), so shown from that date it could show later news early.

A page dated by its crawl (no date of its own, ``date_source`` "crawl") is served from its
crawl on, when its text is what was crawled, but is never a question's source: its day is an
upper bound, not the day its news happened.
"""

from __future__ import annotations

from datetime import date

import polars as pl

CURRENT_NEWS_DAYS = 30  # CC-NEWS crawls most pages within two days of publication
CRAWL_DATED = "crawl"  # the date_source of a page with no date of its own (curate.dating.crawl_date)


def is_current_news(max_days: int = CURRENT_NEWS_DAYS) -> pl.Expr:
    """True for an article published at most ``max_days`` before its crawl (or with no crawl
    time), False for an archive page, null when undated."""
    lag = pl.col("crawled_at") - pl.col("published_at")
    return pl.when(pl.col("published_at").is_null()).then(None).otherwise(
        pl.col("crawled_at").is_null() | (lag <= pl.duration(days=max_days)))


def not_archive(columns) -> pl.Expr:
    """The rows that may be served of a table with these ``columns``: dated current news
    (``is_current_news``, undated rows out); every row of a table without crawl times."""
    return is_current_news().fill_null(False) if "crawled_at" in columns else pl.lit(True)


def question_source(columns) -> pl.Expr:
    """The rows a question may be generated from: served (``not_archive``) and dated by the
    page itself, not only by its crawl."""
    served = not_archive(columns)
    if "date_source" not in columns:
        return served
    return served & (pl.col("date_source").fill_null("") != CRAWL_DATED)


def window_bounds(articles: pl.DataFrame | pl.LazyFrame) -> tuple[date | None, date | None, date | None]:
    """(first day of current news, last published day, oldest published day) of the articles,
    each None when none is dated: what ``news_window`` is made of. Kept per part, they combine
    (``combined_window``) into the window of the parts together."""
    lazy = articles.lazy()
    return lazy.select(
        pl.col("published_at").filter(not_archive(lazy.collect_schema().names())).min().dt.date().alias("first"),
        pl.col("published_at").max().dt.date().alias("last"),
        pl.col("published_at").min().dt.date().alias("oldest")).collect().row(0)


def combined_window(bounds) -> tuple[date, date] | None:
    """The news window of articles whose parts have these ``window_bounds``."""
    bounds = list(bounds)
    firsts, lasts, oldests = ([b[i] for b in bounds if b[i] is not None] for i in range(3))
    if not lasts:
        return None
    return (min(firsts) if firsts else min(oldests)), max(lasts)


def news_window(articles: pl.DataFrame | pl.LazyFrame) -> tuple[date, date] | None:
    """(first, last) day the articles cover as news (see the module doc), or None when no
    article is dated."""
    return combined_window([window_bounds(articles)])
