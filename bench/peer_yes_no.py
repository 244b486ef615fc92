"""A peer's yes/no questions written by an LLM from July 2024 news, with their source articles:
the real set the yes/no leak checks are measured on (``bench/yes_no_checks.py``).

The file is third-party (github.com/dpaleka/consistency-forecasting @ ed41073d, MIT):
``src/data/fq/synthetic/news_api_generated_fqs/openai__gpt-4o-2024-08-06/2024-07-01_to_2024-07-31/
num_pages_1/num_articles_all/strict_res_checking_fqs_cleaned.jsonl``, 117 questions (title, body,
created_date, resolution_date, resolution true/false, metadata.article_information: the NewsAPI
record of the article it was written from: title, description, a truncated content and its
date). It is never copied into this project: pass its path (``--peer-file``) or set
``PASTCAST_PEER_YES_NO``. The hand labels in ``bench/labels/`` name its sentences by a hash, not
by their text.

``pairs`` is the one enumeration of (question, sentence of its source article) the labels are
keyed on: the article's title, description and content (its "… [+N chars]" tail cut), each split
by ``pastcast.text.sentences``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path

SOURCE = ("github.com/dpaleka/consistency-forecasting @ ed41073d, src/data/fq/synthetic/news_api_generated_fqs/"
          "openai__gpt-4o-2024-08-06/2024-07-01_to_2024-07-31/num_pages_1/num_articles_all/"
          "strict_res_checking_fqs_cleaned.jsonl")
ENV = "PASTCAST_PEER_YES_NO"
KNOWN_PLACES = (Path("/tmp/cf_july.jsonl"),)
_TRUNCATED = re.compile(r"\s*…?\s*\[\+\d+ chars\]\s*$")
FIELDS = ("article_title", "article_description", "article_content")


@dataclass(frozen=True)
class Pair:
    key: str  # sha1 of question id and sentence: what a label names
    question_id: str
    field: str
    sentence: str
    article_url: str
    article_day: date


def find_file(path: str | Path | None = None) -> Path | None:
    """The peer file: ``path``, else ``$PASTCAST_PEER_YES_NO``, else a known place; None if absent."""
    for candidate in (path, os.environ.get(ENV), *KNOWN_PLACES):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def load(path: str | Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def article_of(row: dict) -> dict:
    return (row.get("metadata") or {}).get("article_information") or {}


def article_day(row: dict) -> date:
    return datetime.fromisoformat(article_of(row)["article_date"]).replace(tzinfo=timezone.utc).date()


def field_text(article: dict, field: str) -> str:
    text = (article.get(field) or "").replace("\r\n", " ").replace("\r", " ")
    return _TRUNCATED.sub("", text) if field == "article_content" else text


def pair_key(question_id: str, sentence: str) -> str:
    return hashlib.sha1(f"{question_id}\n{sentence}".encode("utf-8")).hexdigest()


def pairs(rows: list[dict]) -> list[Pair]:
    """Every (question, sentence of its own source article), in file and text order."""
    from pastcast.text import sentences

    out = []
    for row in rows:
        article = article_of(row)
        for field in FIELDS:
            for s in sentences(field_text(article, field)):
                out.append(Pair(pair_key(row["id"], s), row["id"], field, s, article.get("article_url") or "",
                                article_day(row)))
    return out
