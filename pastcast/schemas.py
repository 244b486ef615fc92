"""Every table's polars schema, declared once.

Stages build frames with ``empty(SCHEMA)`` / ``frame(rows, SCHEMA)`` so a column can never
silently change type between stages, and the snapshot writer checks each table against its
schema before writing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

import polars as pl

UTC_TS = pl.Datetime("us", "UTC")

ARTICLES = {
    "article_id": pl.String,  # stable hash of (url, warc_record_id)
    "url": pl.String,
    "canonical_url": pl.String,
    "domain": pl.String,
    "title": pl.String,
    "text": pl.String,
    "language": pl.String,
    "published_at": UTC_TS,  # the instant the date gate uses
    # the publisher's own calendar day (what its readers and a question's wording mean), and its
    # offset from UTC in minutes when the dating signal states one (null: not stated)
    "published_local_date": pl.Date,
    "published_utc_offset_minutes": pl.Int32,
    "date_source": pl.String,  # which signal won: jsonld, meta, time, url, htmldate, ...
    "date_confidence": pl.Float64,
    "crawled_at": UTC_TS,  # WARC-Date
    "warc_file": pl.String,
    "warc_record_id": pl.String,
    "content_hash": pl.String,  # sha1 of the normalised text
    "dup_cluster": pl.String,  # id of its duplicate cluster: its kept (earliest) copy's article_id
    "word_count": pl.Int64,
    "dup_count": pl.Int64,  # copies in its cluster, itself included (set by dedup)
    "dup_domains": pl.List(pl.String),  # the domains that carried the story (set by dedup)
}

DROPS = {
    "item_id": pl.String,
    "item_kind": pl.String,  # warc_record, article, market, post, question
    "stage": pl.String,
    "reason": pl.String,  # short code
    "detail": pl.String,
}

QUESTIONS = {
    "question_id": pl.String,
    "title": pl.String,  # as a forecaster reads it (pastcast.questions.titles)
    "original_title": pl.String,  # the title as its source wrote it, when that differs; else null
    "background": pl.String,
    "resolution_criteria": pl.String,
    "answer": pl.String,
    "answer_aliases": pl.List(pl.String),
    "answer_type": pl.String,  # a type of pastcast.text.answer_types: person, organisation, place, ...
    "answer_type_original": pl.String,  # the label as the generator wrote it, when not a type's own name
    "candidate_outcomes": pl.List(pl.String),  # known options (market questions); may be empty
    "open_date": pl.Date,  # first day it may be asked
    "resolution_date": pl.Date,  # open until the day before; answer revealed from this day
    "original_resolution_date": pl.Date,
    "revision_evidence": pl.List(pl.String),  # article ids that moved the resolution date
    "source_kind": pl.String,  # news, market
    "source_ids": pl.List(pl.String),
    "generator": pl.String,  # e.g. "extractive/won@<hash>" or "llm:<model>/<prompt>@<hash>"
    "category": pl.String,
}

MARKETS = {
    "market_id": pl.String,
    "platform": pl.String,
    "question": pl.String,
    "background": pl.String,
    "resolution_criteria": pl.String,
    "outcome_type": pl.String,  # binary, multiple_choice, numeric, date (numeric in epoch seconds)
    "outcomes": pl.List(pl.String),  # labels; empty for numeric and date markets
    "status": pl.String,  # open, closed, resolved, cancelled, ambiguous
    "created_at": UTC_TS,
    "close_at": UTC_TS,
    "resolved_at": UTC_TS,
    "resolution": pl.String,  # the winning outcome label; None unless status is resolved
    "resolution_value": pl.Float64,  # numeric markets' value; a probability for ambiguous ones
    "range_min": pl.Float64,  # numeric markets' stated range (for bucketing)
    "range_max": pl.Float64,
    "log_scale": pl.Boolean,
    "url": pl.String,
    # the platform's own topic labels: Manifold groupSlugs, Polymarket tag labels and category,
    # Metaculus category/tag/topic names, Kalshi category; empty where a platform gives none
    "tags": pl.List(pl.String),
}

MARKET_PRICES = {
    "market_id": pl.String,
    "ts": UTC_TS,  # when the price was set; visible to agents from that moment on
    "outcome": pl.String,  # an outcome label of the market ("Yes" for binary markets)
    "price": pl.Float64,  # probability in [0, 1]
}

POSTS = {
    "post_id": pl.String,
    "platform": pl.String,
    "kind": pl.String,  # submission, comment, story, job, poll, post, reply, ...
    "community": pl.String,  # subreddit; None where a platform has none
    "created_at": UTC_TS,
    "author_hash": pl.String,
    "text": pl.String,
    "url": pl.String,
    "parent_id": pl.String,
    "score": pl.Int64,
}

QUESTION_EVIDENCE = {  # why the question filter dropped, revised, merged or paired a question
    "question_id": pl.String,
    "stage": pl.String,  # validate, self_leak, dedup, revision, cross_leak, difficulty
    "action": pl.String,  # drop, revise, merge, pair, note
    "reason": pl.String,
    "article_ids": pl.List(pl.String),
    "dates": pl.List(pl.String),  # of those articles, same order
    "spans": pl.List(pl.String),  # the matching text
    "other_question_id": pl.String,  # the other side of a pair or a merge
    "detail": pl.String,
}

QUESTION_QUALITY = {  # the quality audit's flags on kept questions (pastcast.questions.quality)
    "question_id": pl.String,
    "flag": pl.String,
    "detail": pl.String,
}

TABLES: dict[str, Mapping[str, pl.DataType]] = {
    "articles": ARTICLES,
    "questions": QUESTIONS,
    "markets": MARKETS,
    "market_prices": MARKET_PRICES,
    "posts": POSTS,
    "drops": DROPS,
    "question_evidence": QUESTION_EVIDENCE,
    "question_quality": QUESTION_QUALITY,
}


def empty(schema: Mapping[str, pl.DataType]) -> pl.DataFrame:
    return pl.DataFrame(schema=dict(schema))


def frame(rows: Iterable[Mapping], schema: Mapping[str, pl.DataType]) -> pl.DataFrame:
    """Rows (dicts) to a frame with exactly ``schema``'s columns, in order."""
    rows = list(rows)
    if not rows:
        return empty(schema)
    return pl.DataFrame(rows, schema=dict(schema), strict=False).select(list(schema))


_STRINGS = pl.List(pl.String)


def _text_records(dtype: pl.DataType) -> bool:
    """A list of records whose fields are all text or lists of text (evidence, drops, phrases):
    built through JSON like a list of strings, in one pass instead of value by value."""
    if not isinstance(dtype, pl.List) or not isinstance(dtype.inner, pl.Struct):
        return False
    return all(f.dtype in (pl.String, _STRINGS) for f in dtype.inner.fields)


def columns_frame(columns: Mapping[str, list], schema: Mapping[str, pl.DataType]) -> pl.DataFrame:
    """Python columns (equal lengths) to a frame of ``schema``. Lists of strings, and lists of
    records of text, go through JSON, which polars decodes in one pass: building them value by
    value costs 4x more, and the filter writes tens of thousands of such rows a build."""
    out = []
    for name, dtype in schema.items():
        values = columns[name]
        if dtype == _STRINGS or _text_records(dtype):
            encoded = pl.Series(name, [None if v is None else json.dumps(list(v), default=str) for v in values],
                                pl.String)
            out.append(encoded.str.json_decode(dtype))
        else:
            out.append(pl.Series(name, values, dtype, strict=False))
    return pl.DataFrame(out) if out else pl.DataFrame(schema=dict(schema))


# Columns added after tables were first written: a snapshot or working folder of an earlier
# version lacks them (readers see nulls; the schema check accepts their absence).
ADDED_LATER: dict[str, tuple[str, ...]] = {
    "articles": ("published_local_date", "published_utc_offset_minutes"),
    "questions": ("answer_type_original", "original_title"),
    "markets": ("tags",),
}


def scan_parts(paths: Iterable, schema: Mapping[str, pl.DataType]) -> pl.LazyFrame:
    """Parquet files of one table as one lazy frame with ``schema``'s columns: files written
    before a column was added (a working folder of an earlier version, a day built then) get it
    as nulls, so adding a day to such a folder needs no rebuild of the days before."""
    return pl.scan_parquet([str(p) for p in paths], schema=dict(schema), missing_columns="insert",
                           extra_columns="ignore")


def complete(df: pl.DataFrame, schema: Mapping[str, pl.DataType]) -> pl.DataFrame:
    """``df`` with exactly ``schema``'s columns, in order: missing ones null, others cast."""
    return df.select([pl.col(c).cast(t) if c in df.columns else pl.lit(None, dtype=t).alias(c)
                      for c, t in schema.items()])


def conform(df: pl.DataFrame, schema: Mapping[str, pl.DataType], table: str) -> pl.DataFrame:
    """Check ``df`` has every column of ``schema`` with the declared type; return it in order.
    A column added later (``ADDED_LATER``) that a frame read from an earlier version lacks is
    added as nulls, as readers see it."""
    later = [c for c in ADDED_LATER.get(table, ()) if c in schema and c not in df.columns]
    if later:
        df = df.with_columns(pl.lit(None, dtype=schema[c]).alias(c) for c in later)
    missing = [c for c in schema if c not in df.columns]
    if missing:
        raise ValueError(f"table {table!r} is missing columns {missing}")
    wrong = {c: (str(df.schema[c]), str(t)) for c, t in schema.items() if df.schema[c] != t}
    if wrong:
        raise ValueError(f"table {table!r} has columns of the wrong type (got, want): {wrong}")
    return df.select(list(schema))
