"""The source articles a peer file carries beside its questions (OpenForesight's ``url`` and
``article_*`` columns; ``--map article_url=... article_date=...`` for any other file), as rows of
``pastcast.schemas.ARTICLES``, so ``pastcast questions filter --articles DIR`` checks the questions
against the news they were written from.

One article per distinct URL (the first row naming it wins): ``article_id`` is ``stable_id`` of
the URL (the id ``bench/yes_no_checks.py`` gives them), ``published_at`` the instant of
``article_date`` in UTC (a time without an offset is UTC, a day alone its midnight),
``date_source`` ``peer``, ``language`` ingest's ``detect_language``, the text without NewsAPI's
``… [+N chars]`` truncation mark. A row that names an article without a URL, a usable date, or
any text is an ``article`` drop (``missing_field``, ``bad_date``); its question is judged on its
own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

import polars as pl

from pastcast.io import stable_id
from pastcast.schemas import ARTICLES, DROPS, frame

STAGE = "import"
DATE_SOURCE = "peer"
DATE_CONFIDENCE = 0.9  # the peer states the day; one signal, unchecked
FIELDS = ("article_url", "article_title", "article_text", "article_date")
_TRUNCATED = re.compile(r"\s*…?\s*\[\+\d+ chars\]\s*$")  # NewsAPI cuts content with this mark
_DAY = re.compile(r"^\s*(\d{4}-\d{2}-\d{2})")
_OFFSET = re.compile(r"(?:[+-]\d{2}:?\d{2}|[Zz])\s*$")


@dataclass
class SourceArticles:
    articles: pl.DataFrame  # ARTICLES, one row per distinct URL of the file
    drops: pl.DataFrame  # DROPS, item_kind article
    named: int  # rows naming an article (kept, dropped, or a repeat of one kept)


def has_articles(used: dict[str, str]) -> bool:
    """A file carries articles when it has their URL, date, and a title or text."""
    return {"article_url", "article_date"} <= used.keys() and bool(used.keys() & {"article_title", "article_text"})


def source_articles(work: pl.DataFrame, path: Path, used: dict[str, str], instant: pl.Series) -> SourceArticles:
    """The articles of ``work`` (a row per record: ``_where``, ``_bad`` and the article fields as
    text), ``instant`` the parsed ``article_date`` of each row."""
    rows, drops, named, seen = [], [], 0, set()
    columns = {f: work[f].to_list() if f in work.columns else [None] * work.height for f in FIELDS}
    for i, (where, bad) in enumerate(zip(work["_where"], work["_bad"])):
        article = {f: columns[f][i] for f in FIELDS}
        if bad is not None or not any(article.values()):
            continue  # an unreadable record is its question's drop; no article named
        named += 1
        problem = _problem(article, instant[i], used)
        if problem:
            item = stable_id(article["article_url"]) if article["article_url"] else f"{path.name}#{where}"
            drops.append({"item_id": item, "item_kind": "article", "stage": STAGE, "reason": problem[0],
                          "detail": f"{path} {where}: {problem[1]}"})
            continue
        if article["article_url"] not in seen:  # a repeat of a URL is not read again
            seen.add(article["article_url"])
            rows.append(_article_row(article, instant[i], path, where))
    articles = frame(rows, ARTICLES)
    return SourceArticles(articles, frame(drops, DROPS), named)


def _problem(article: dict, instant, used: dict[str, str]) -> tuple[str, str] | None:
    if not article["article_url"]:
        return "missing_field", f"an article without a URL ({used['article_url']} is empty)"
    if not article["article_date"]:
        return "missing_field", f"article {article['article_url']} has no date ({used['article_date']} is empty)"
    if instant is None:
        return "bad_date", (f"{used['article_date']} '{article['article_date'][:40]}' of article "
                            f"{article['article_url']} is not a date (YYYY-MM-DD or ISO 8601)")
    if not (article["article_title"] or article["article_text"]):
        return "missing_field", f"article {article['article_url']} has no title or text"
    return None


def _article_row(article: dict, instant, path: Path, where: str) -> dict:
    from pastcast.curate.extract import canonical_url, content_hash
    from pastcast.text.language import detect_language
    from pastcast.text.scripts import word_units

    url = article["article_url"]
    text = _TRUNCATED.sub("", (article["article_text"] or "").replace("\r\n", "\n"))
    title = article["article_title"]
    article_id = stable_id(url)
    domain = (urlsplit(url).hostname or "").lower().removeprefix("www.")
    return {
        "article_id": article_id, "url": url, "canonical_url": canonical_url(url), "domain": domain,
        "title": title, "text": text, "language": detect_language("\n".join(filter(None, [title, text]))),
        "published_at": instant, "published_local_date": _local_day(article["article_date"], instant),
        "published_utc_offset_minutes": _offset_minutes(article["article_date"]),
        "date_source": DATE_SOURCE, "date_confidence": DATE_CONFIDENCE,
        "crawled_at": instant,  # no crawl: seen when published
        "warc_file": path.name, "warc_record_id": where,  # where it came from
        "content_hash": content_hash(text or title or ""), "dup_cluster": article_id,
        "word_count": word_units(text), "dup_count": 1, "dup_domains": [domain],
    }


def _local_day(written: str, instant) -> date:
    """The calendar day as the peer wrote it (the publisher's), else the UTC one (epoch times)."""
    m = _DAY.match(written)
    try:
        return date.fromisoformat(m[1]) if m else instant.date()
    except ValueError:
        return instant.date()


def _offset_minutes(written: str) -> int | None:
    """The UTC offset the date states (Z is 0), None when it states none."""
    m = _OFFSET.search(written) if _DAY.match(written) and ("T" in written or " " in written.strip()) else None
    if not m:
        return None
    token = m[0].strip()
    if token in ("Z", "z"):
        return 0
    sign = -1 if token[0] == "-" else 1
    digits = token[1:].replace(":", "")
    return sign * (int(digits[:2]) * 60 + int(digits[2:]))
