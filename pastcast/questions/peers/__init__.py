"""Peer question sets in: OpenForesight, FutureSim custom datasets, ForecastBench, and pastcast's
own columns as JSON lines, to candidate questions (``pastcast.schemas.QUESTIONS``) that go
through ``pastcast questions filter`` like generated ones.

``import_questions`` writes ``questions.parquet``, ``drops.parquet`` (every row not kept, its
reason and a detail naming file and row) and ``import.json`` (format, inputs, rows read, kept
and dropped, drops by reason, answer-type labels and the types they map to, the columns used
and ignored per file, ``unmapped_columns``: every input column or nested path nothing read);
``articles.parquet`` when the files carry their source articles (OpenForesight's, or
``--map article_*``); ForecastBench also ``markets.parquet`` and ``market_prices.parquet``.
A file that cannot be read, or lacks a required column, is a ``ValueError`` naming it, and
nothing is written.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from pastcast.drops import counts_by_reason
from pastcast.io import write_json, write_parquet
from pastcast.questions.peers import futuresim, jsonl, openforesight
from pastcast.questions.peers.answers import INFERRED
from pastcast.questions.peers.articles import SourceArticles
from pastcast.questions.peers.common import ImportConfig, convert, dedupe
from pastcast.questions.peers.mapping import MapError, check_found, parse_maps
from pastcast.questions.peers.tables import data_files, read_table
from pastcast.schemas import ARTICLES, DROPS, QUESTIONS, conform

TABULAR = {m.FORMAT: m.COLUMNS for m in (openforesight, futuresim, jsonl)}
PEER_FORMATS = ("openforesight", "futuresim", "forecastbench", "jsonl")

__all__ = ["PEER_FORMATS", "ImportConfig", "MapError", "PeerImport", "import_questions", "parse_maps",
           "read_peer_questions"]


@dataclass
class PeerImport:
    fmt: str
    inputs: list[str]
    questions: pl.DataFrame
    drops: pl.DataFrame
    records: dict  # kind -> {read, kept, dropped}
    columns: dict = field(default_factory=dict)  # file -> {"used": {...}, "ignored": [...]}
    tables: dict[str, pl.DataFrame] = field(default_factory=dict)  # markets, market_prices (ForecastBench)
    config: ImportConfig = ImportConfig()
    paths: dict[str, Path] = field(default_factory=dict)
    unmapped: dict[str, int] = field(default_factory=dict)  # input column or nested path nothing read -> rows

    def answer_types(self) -> dict[str, dict]:
        """{label as written (or the type when it was one): {"type", "questions"}}."""
        q = self.questions
        labels = q.select(pl.coalesce("answer_type_original", "answer_type").alias("label"), "answer_type")
        counted = labels.group_by("label", "answer_type").len().sort("len", "label", descending=[True, False])
        return {label: {"type": t, "questions": n} for label, t, n in counted.iter_rows()}

    def summary(self) -> dict:
        return {"format": self.fmt, "inputs": self.inputs,
                "rows": {"questions": self.questions.height, "drops": self.drops.height,
                         **{t: df.height for t, df in self.tables.items()}},
                "records": self.records, "drops_by_reason": counts_by_reason(self.drops),
                "answer_types": self.answer_types(),
                "open_dates": {"horizon_days": self.config.horizon_days,
                               "open_date": self.config.open_date.isoformat() if self.config.open_date else None},
                "columns": self.columns,
                "maps": [f"{f}={p}" for f, p in self.config.maps],
                "unmapped_columns": self.unmapped}


def read_peer_questions(fmt: str, inputs: Iterable[str | Path], config: ImportConfig = ImportConfig()) -> PeerImport:
    """Every file of one peer format as candidate questions and drops (nothing written)."""
    if fmt not in PEER_FORMATS:
        raise ValueError(f"unknown question format {fmt!r}; known: {', '.join(PEER_FORMATS)}")
    files = data_files(inputs)
    if not files:
        raise ValueError("no input files")
    if fmt == "forecastbench":
        if config.maps:
            raise MapError("--map does not apply to forecastbench (its questions come from its markets)")
        from pastcast.questions.peers.forecastbench import read_forecastbench_questions

        questions, reader_drops, market_drops, markets, prices, records = read_forecastbench_questions(
            files, config.horizon_days)
        drops = pl.concat([reader_drops, market_drops]).select(list(DROPS))
        return PeerImport(fmt, [str(p) for p in files], questions, drops, records, {},
                          {"markets": markets, "market_prices": prices}, config)
    spec = TABULAR[fmt]
    parts, drops, columns, rows = [], [], {}, 0
    found, unmapped, sources = Counter(), Counter(), []
    for path in files:  # read every file before writing anything: one bad file, no output
        converted = convert(read_table(path), spec, path, config)
        parts.append(converted.questions)
        drops.append(converted.drops)
        columns[str(path)] = {"used": converted.used, "ignored": converted.ignored,
                              **({} if "answer_type" in converted.used else {"answer_type": INFERRED})}
        rows += converted.rows
        found.update(converted.found)
        unmapped.update(converted.unmapped)
        if converted.articles is not None:
            sources.append(converted.articles)
    check_found(config.maps, found, files)
    deduped = dedupe(pl.concat(parts))
    all_drops = pl.concat([*drops, deduped.drops])
    records = {"file": {"read": len(files), "kept": len(files), "dropped": 0},
               "row": {"read": rows, "kept": deduped.questions.height, "dropped": all_drops.height}}
    if rows != deduped.questions.height + all_drops.height:  # a bug, not bad input
        raise RuntimeError(f"import lost rows: {rows} read, {deduped.questions.height} kept, "
                           f"{all_drops.height} dropped")
    tables = {}
    if sources:
        articles, article_drops, records["article"] = _merge_articles(sources)
        tables["articles"] = articles
        all_drops = pl.concat([all_drops, article_drops])
    return PeerImport(fmt, [str(p) for p in files], deduped.questions, all_drops, records, columns, tables, config,
                      unmapped=dict(sorted(unmapped.items())))


def _merge_articles(sources: list[SourceArticles]) -> tuple[pl.DataFrame, pl.DataFrame, dict]:
    """One article per id across the files (the first read wins), their drops, and their counts:
    every row naming an article is one written, a repeat of one written, or a drop."""
    named = sum(s.named for s in sources)
    merged = pl.concat([s.articles for s in sources]).unique("article_id", keep="first", maintain_order=True)
    drops = pl.concat([s.drops for s in sources])
    counts = {"read": named, "kept": merged.height, "dropped": drops.height,
              "repeated": named - merged.height - drops.height}
    return merged, drops, counts


OUTPUT_FILES = ("questions.parquet", "drops.parquet", "articles.parquet", "markets.parquet", "market_prices.parquet",
                "import.json")


def import_questions(fmt: str, inputs: Iterable[str | Path], out_dir: str | Path,
                     config: ImportConfig = ImportConfig(), force: bool = False) -> PeerImport:
    """``pastcast questions import``: one peer format's files to ``out_dir`` (see the module doc).
    A folder that holds anything is replaced only with ``force`` (and then an earlier import's
    files, such as its markets, never linger beside the new ones)."""
    out_dir = Path(out_dir)
    if out_dir.is_dir() and any(out_dir.iterdir()) and not force:
        raise FileExistsError(f"{out_dir} exists and is not empty: pass --force to replace the import in it")
    result = read_peer_questions(fmt, inputs, config)  # read first: a bad input leaves OUT as it was
    for name in OUTPUT_FILES:
        (out_dir / name).unlink(missing_ok=True)
    result.paths = {
        "questions": write_parquet(conform(result.questions, QUESTIONS, "questions"), out_dir / "questions.parquet"),
        "drops": write_parquet(conform(result.drops, DROPS, "drops"), out_dir / "drops.parquet"),
        **{t: write_parquet(conform(df, ARTICLES, t) if t == "articles" else df, out_dir / f"{t}.parquet")
           for t, df in result.tables.items()},
    }
    result.paths["import"] = write_json(result.summary(), out_dir / "import.json")
    return result


def drop_examples(drops: pl.DataFrame, per_reason: int = 3) -> list[tuple[str, str]]:
    """A few (reason, detail) of each drop reason, for the command's summary."""
    seen: Counter = Counter()
    out = []
    for reason, detail in drops.select("reason", "detail").iter_rows():
        if seen[reason] < per_reason:
            seen[reason] += 1
            out.append((reason, detail))
    return out
