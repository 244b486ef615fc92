"""A snapshot version in a peer's layout: its questions as an OpenForesight split, its articles
as FutureSim's browsable news tree (``pastcast snapshot export``).

- ``openforesight``: ``{split}-00000-of-00001.parquet`` with OpenForesight's columns in its
  order (``pastcast.questions.peers.openforesight.OPENFORESIGHT_COLUMNS``; strings, ``""``
  when unknown) and pastcast's own ``answer_aliases``, ``candidate_outcomes``,
  ``source_kind``, ``source_ids``, ``category`` after them, so ``pastcast questions import
  --format openforesight`` gives the same questions back. ``answer_type`` is the label the
  generator wrote (else the type); ``question_start_date`` the open date; ``url``,
  ``article_title``, ``article_publish_date`` and ``news_source`` describe the first source
  article in the snapshot (they give the answer away: for audits, not for agents);
  ``article_maintext`` and the prompts stay empty; ``data_source`` is ``pastcast:<name>/<version>``.
- ``futuresim-news``: ``YYYY/MM/DD/articles.jsonl`` (FutureSim's ``FSIM_ARTICLES_BASE``), one
  line an article with ``title``, ``source`` (its domain), ``date`` (``YYYY-MM-DD``),
  ``content`` (its text), ``url``, ``date_publish`` (``YYYY-MM-DD HH:MM:SS``, UTC) and ``id``,
  filed under the UTC day it becomes visible (``published_at``), in time order. Archive pages
  (crawled over 30 days after publication: never served, ``pastcast.search.visibility``) and
  undated rows are left out and counted.

Both also write ``export.json`` (format, snapshot, files and rows, what was left out). The
snapshot is verified against its manifest first. The output folder is written beside its
place and renamed into it: a reader sees the old folder or the whole new one. An existing
folder that is not empty is replaced only with ``force``.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import polars as pl

from pastcast.io import read_manifest, write_json, write_parquet, write_text
from pastcast.questions.peers.openforesight import DEFAULT_SPLIT, OPENFORESIGHT_COLUMNS, split_file
from pastcast.schemas import ARTICLES, QUESTIONS, complete
from pastcast.search.visibility import not_archive
from pastcast.snapshot import verify
from pastcast.store import read_table

EXPORT_FORMATS = ("openforesight", "futuresim-news")
PASTCAST_EXTRAS = ("answer_aliases", "candidate_outcomes", "source_kind", "source_ids", "category")


@dataclass
class ExportResult:
    fmt: str
    out_dir: Path
    files: dict[str, int]  # file (relative to out_dir) -> rows
    summary: dict = field(default_factory=dict)


def _table(folder: Path, manifest: dict, table: str, schema) -> pl.DataFrame:
    return complete(read_table(folder, table, manifest=manifest), schema)


def _text(col: str) -> pl.Expr:
    return pl.col(col).cast(pl.String).fill_null("")


def openforesight_frame(questions: pl.DataFrame, articles: pl.DataFrame, data_source: str) -> pl.DataFrame:
    """The questions as an OpenForesight split (see the module doc), sorted by resolution date
    and id."""
    sources = (questions.select("question_id", "source_ids").explode("source_ids")
               .with_row_index("_order")
               .join(articles.select(pl.col("article_id").alias("source_ids"), "url", "title", "domain",
                                     pl.col("published_at").dt.date().cast(pl.String).alias("_published")),
                     on="source_ids", how="inner")
               .sort("_order").group_by("question_id", maintain_order=True).first())
    q = questions.join(sources.drop("source_ids", "_order"), on="question_id", how="left", suffix="_article")
    empty = pl.lit("")
    columns = {
        "qid": _text("question_id"), "question_title": _text("title"), "background": _text("background"),
        "resolution_criteria": _text("resolution_criteria"),
        "answer_type": pl.coalesce("answer_type_original", "answer_type").fill_null(""),
        "answer": _text("answer"), "url": _text("url"), "article_maintext": empty,
        "article_publish_date": _text("_published"), "article_modify_date": empty,
        "article_download_date": empty, "article_description": empty,
        "article_title": _text("title_article"), "data_source": pl.lit(data_source),
        "news_source": _text("domain"), "resolution_date": _text("resolution_date"),
        "question_start_date": _text("open_date"), "prompt": empty, "prompt_without_retrieval": empty,
    }
    assert tuple(columns) == OPENFORESIGHT_COLUMNS
    return (q.sort("resolution_date", "question_id")
            .select(*(e.alias(c) for c, e in columns.items()), *PASTCAST_EXTRAS))


def futuresim_articles(articles: pl.DataFrame) -> tuple[dict[str, pl.DataFrame], dict[str, int]]:
    """({"YYYY/MM/DD/articles.jsonl": rows}, {"archive": n, "undated": n} left out)."""
    dated = articles.filter(pl.col("published_at").is_not_null())
    served = dated.filter(not_archive(articles.columns))
    left_out = {"undated": articles.height - dated.height, "archive": dated.height - served.height}
    rows = served.sort("published_at", "article_id").select(
        pl.col("published_at").dt.strftime("%Y/%m/%d/articles.jsonl").alias("_file"),
        _text("title").alias("title"), _text("domain").alias("source"),
        pl.col("published_at").dt.strftime("%Y-%m-%d").alias("date"), _text("text").alias("content"),
        _text("url").alias("url"), pl.col("published_at").dt.strftime("%Y-%m-%d %H:%M:%S").alias("date_publish"),
        pl.col("article_id").alias("id"))
    files = {name: part.drop("_file") for (name,), part in rows.partition_by("_file", as_dict=True).items()}
    return dict(sorted(files.items())), left_out


def export_snapshot(folder: str | Path, fmt: str, out_dir: str | Path, split: str = DEFAULT_SPLIT,
                    force: bool = False) -> ExportResult:
    """Write snapshot ``folder`` in format ``fmt`` to ``out_dir`` (see the module doc)."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; known: {', '.join(EXPORT_FORMATS)}")
    if not split or "/" in split or split.startswith("."):
        raise ValueError(f"--split {split!r} is not a file name part")
    folder, out_dir = Path(folder), Path(out_dir)
    try:
        problems = verify(folder)
    except (OSError, pl.exceptions.PolarsError) as exc:  # a table that is not Parquet any more
        problems = [f"cannot read a table: {exc}"]
    if problems:
        raise ValueError(f"{folder} does not match its manifest: {'; '.join(problems[:3])}")
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"{out_dir} is a file, not a folder")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not force:
        raise ValueError(f"{out_dir} exists and is not empty; pass --force to replace it")
    manifest = read_manifest(folder)
    articles = _table(folder, manifest, "articles", ARTICLES)
    summary = {"format": fmt, "snapshot": {"name": manifest.get("name"), "version": manifest.get("version"),
                                           "folder": str(folder.resolve()), "window": manifest.get("window")},
               "exported_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    if fmt == "openforesight":
        questions = _table(folder, manifest, "questions", QUESTIONS)
        data_source = f"pastcast:{manifest.get('name')}/{manifest.get('version')}"
        tables = {split_file(split): openforesight_frame(questions, articles, data_source)}
        summary["split"] = split
        summary["columns"] = [*OPENFORESIGHT_COLUMNS, *PASTCAST_EXTRAS]
    else:
        tables, summary["left_out"] = futuresim_articles(articles)
    files = {name: df.height for name, df in tables.items()}
    summary["files"] = len(files)
    summary["rows"] = sum(files.values())
    if fmt == "futuresim-news":
        summary["days"] = {name[:10]: n for name, n in files.items()}
    else:
        summary["files_rows"] = files

    def write(staging: Path) -> None:
        for name, df in tables.items():
            if name.endswith(".parquet"):
                write_parquet(df, staging / name)
            else:
                write_text(df.write_ndjson(), staging / name)
        write_json(summary, staging / "export.json")

    _replace_folder(out_dir, write)
    return ExportResult(fmt, out_dir, files, summary)


def _replace_folder(out_dir: Path, write) -> None:
    """``write`` into a hidden folder beside ``out_dir``, then swap it into place."""
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    stamp = f"{os.getpid()}-{datetime.now(timezone.utc):%Y%m%dT%H%M%S%f}"
    staging = out_dir.parent / f".{out_dir.name}.export-{stamp}"
    old = out_dir.parent / f".{out_dir.name}.old-{stamp}"
    staging.mkdir()
    try:
        write(staging)
        if out_dir.exists():
            os.rename(out_dir, old)
        os.rename(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if old.exists() and not out_dir.exists():
            os.rename(old, out_dir)  # put the folder that was there back
        raise
    shutil.rmtree(old, ignore_errors=True)
