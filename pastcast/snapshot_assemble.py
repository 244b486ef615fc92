"""A snapshot version from folders a user built step by step: the questions ``pastcast questions
filter`` kept (generated or imported from a peer set), the articles they were checked against,
and optionally the markets an import wrote. ``pastcast snapshot create`` runs this, then the
blocking checks, and moves ``LATEST`` only when every check passes, like ``pastcast build``."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import polars as pl

from pastcast.io import sha256_file
from pastcast.questions.generate import read_articles
from pastcast.schemas import (DROPS, MARKET_PRICES, MARKETS, QUESTION_EVIDENCE, QUESTION_QUALITY, QUESTIONS,
                              empty)
from pastcast.search.visibility import news_window
from pastcast.snapshot import write_snapshot
from pastcast.store import table_files


FILTER_OUTPUT = ("questions.parquet", "drops.parquet", "evidence.parquet", "audit.md", "filter.json")


def _optional(folder: Path, name: str, schema) -> pl.DataFrame:
    path = folder / name
    return pl.read_parquet(path) if path.is_file() else empty(schema)


def _filter_drops(folder: Path) -> pl.DataFrame:
    """The filter's drops (``question_id, stage, reason, detail``) as snapshot drop rows."""
    drops = _optional(folder, "drops.parquet", {"question_id": pl.String})
    if drops.is_empty() or "question_id" not in drops.columns:
        return empty(DROPS)
    return drops.select(pl.col("question_id").alias("item_id"), pl.lit("question").alias("item_kind"),
                        "stage", "reason", "detail")


def assemble_snapshot(questions_dir: str | Path, articles: str | Path, root: str | Path, name: str,
                      markets_dir: str | Path | None = None,
                      window: tuple[date, date] | None = None) -> Path:
    """Write an unpublished version of ``name`` under ``root`` from a ``questions filter``
    output folder, an articles folder or file, and (``markets_dir``) a folder holding
    ``markets.parquet`` and ``market_prices.parquet``; return its folder. The window is the
    articles' news days unless given, else the questions' open and resolution days."""
    qdir = Path(questions_dir)
    missing_files = [f for f in FILTER_OUTPUT if not (qdir / f).is_file()]
    if missing_files:
        # an import or a generation not yet filtered: leaks and early answers never checked
        raise FileNotFoundError(f"{qdir} is not a `pastcast questions filter` --out folder (no "
                                f"{', '.join(missing_files)}): filter the questions first")
    record = json.loads((qdir / "filter.json").read_text(encoding="utf-8"))
    written = record.get("questions_sha256")
    if written != sha256_file(qdir / "questions.parquet"):
        raise ValueError(f"{qdir / 'questions.parquet'} is not the file `pastcast questions filter` wrote there "
                         f"(its sha256 differs from filter.json): filter the questions again")
    questions = pl.read_parquet(qdir / "questions.parquet")
    missing = set(QUESTIONS) - set(questions.columns)
    if missing:
        raise ValueError(f"{qdir / 'questions.parquet'}: not a question table, missing {sorted(missing)}")
    corpus = read_articles(articles)
    mdir = Path(markets_dir) if markets_dir else None
    if mdir is not None and not (mdir / "markets.parquet").is_file():
        raise FileNotFoundError(f"no markets.parquet in {mdir}")
    if window is None:
        window = news_window(corpus)
    if window is None and questions.height:
        window = (questions["open_date"].min(), questions["resolution_date"].max())
    if window is None:
        raise ValueError("no dated articles and no questions: cannot derive the snapshot's time window")
    tables = {
        "articles": corpus,
        "questions": questions,
        "markets": _optional(mdir, "markets.parquet", MARKETS) if mdir else empty(MARKETS),
        "market_prices": _optional(mdir, "market_prices.parquet", MARKET_PRICES) if mdir else empty(MARKET_PRICES),
        "drops": _filter_drops(qdir),
        "question_evidence": _optional(qdir, "evidence.parquet", QUESTION_EVIDENCE),
        "question_quality": _optional(qdir, "quality.parquet", QUESTION_QUALITY),
    }
    audit = qdir / "audit.md"
    files = {"audit.md": audit.read_text(encoding="utf-8")} if audit.is_file() else {}
    article_files = table_files(articles, "articles") if Path(articles).is_dir() else [Path(articles)]
    inputs = [p for p in (qdir / "questions.parquet", *article_files,
                          *([mdir / "markets.parquet"] if mdir else [])) if p.is_file()]
    # the filter's counts beside the version, as a build records them (what every step examined)
    stage_counts = {"filter": {k: record[k] for k in ("questions", "decided_by", "coverage", "coverage_by_source",
                                                      "revision_on_their_day") if k in record}}
    return write_snapshot(tables, root, name, window, inputs=inputs, files=files, publish=False,
                          stage_counts=stage_counts,
                          config={"assembled_from": {"questions": str(qdir), "articles": str(articles),
                                                     "markets": str(mdir) if mdir else None}})
