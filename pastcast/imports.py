"""Importing market and social dumps into normalised tables in an output folder.

``import_markets`` writes ``markets.parquet``, ``market_prices.parquet`` and ``drops.parquet``;
``import_social`` writes ``posts.parquet`` and ``drops.parquet``. Both also write
``import.json`` (format, inputs, records read/kept/dropped by kind, drops by reason). Every
file is written atomically; a rerun replaces the outputs.

Input paths may be files or folders (every data file under a folder, in name order). A corpus
folder names the format of each dump by a subfolder (``markets/polymarket/...``) or by the
start of a file's name (``markets/manifold.json``): ``formats_in``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from pastcast.drops import counts_by_reason
from pastcast.io import write_json, write_parquet
from pastcast.schemas import MARKET_PRICES, MARKETS, POSTS
from pastcast.sources.imported import Imported
from pastcast.sources.markets import MARKET_FORMATS, read_markets
from pastcast.sources.social import SOCIAL_FORMATS, read_posts

DATA_SUFFIXES = (".json", ".jsonl", ".ndjson", ".zst", ".gz", ".bz2", ".xz")


@dataclass
class ImportResult:
    kind: str  # markets or social
    formats: list[str]
    inputs: list[str]
    tables: dict[str, pl.DataFrame]
    drops: pl.DataFrame
    counts: dict = field(default_factory=dict)  # kind -> {read, kept, dropped}

    @property
    def drops_by_reason(self) -> dict[str, int]:
        return counts_by_reason(self.drops)

    def summary(self) -> dict:
        return {"kind": self.kind, "formats": self.formats, "inputs": self.inputs,
                "rows": {name: df.height for name, df in self.tables.items()},
                "records": self.counts, "drops_by_reason": self.drops_by_reason}


def expand_inputs(inputs: Iterable[str | Path]) -> list[Path]:
    """Files as given; folders to every data file under them, sorted. A missing path is an
    error naming it (a typo must not import nothing silently)."""
    files: list[Path] = []
    for raw in inputs:
        path = Path(raw)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*")
                                if p.is_file() and p.name.lower().endswith(DATA_SUFFIXES)
                                and not p.name.startswith(".")))
        elif path.is_file():
            files.append(path)
        else:
            raise FileNotFoundError(f"input {path} does not exist")
    return files


def formats_in(folder: str | Path, known: Iterable[str]) -> tuple[dict[str, list[Path]], list[Path]]:
    """({format: files}, files of no known format) for a corpus's markets/ or social/ folder."""
    folder, known = Path(folder), sorted(known, key=len, reverse=True)
    by_format: dict[str, list[Path]] = {}
    unknown: list[Path] = []
    if not folder.is_dir():
        return by_format, unknown
    for path in expand_inputs([folder]):
        top = path.relative_to(folder).parts[0].lower()
        fmt = next((f for f in known if top == f or top.startswith(f)), None)
        if fmt is None:
            unknown.append(path)
        else:
            by_format.setdefault(fmt, []).append(path)
    return by_format, unknown


def _unknown(imported: Imported, files: Sequence[Path], stage: str, known: Iterable[str]) -> None:
    for path in files:
        imported.seen("file")
        imported.drop(path.name, "file", stage, "unknown_format",
                      f"{path}: name a subfolder or the file after its format ({', '.join(sorted(known))})")


def read_all(kind: str, files_by_format: dict[str, Sequence[Path]],
             unknown: Sequence[Path] = ()) -> ImportResult:
    """Every format's files read and combined into one set of tables."""
    formats = MARKET_FORMATS if kind == "markets" else SOCIAL_FORMATS
    read = read_markets if kind == "markets" else read_posts
    imported = Imported()
    for fmt, files in files_by_format.items():
        imported.merge(read(fmt, files))
    _unknown(imported, unknown, kind if kind == "markets" else "social", formats)
    gaps = imported.unaccounted()
    if gaps:  # a reader bug, not bad input: refuse to write tables that lost records
        raise RuntimeError(f"import lost records (kind: count): {gaps}")
    if kind == "markets":
        tables = {
            "markets": imported.frame("markets", MARKETS).sort("market_id"),
            "market_prices": imported.frame("market_prices", MARKET_PRICES).sort("market_id", "ts", "outcome"),
        }
    else:
        tables = {"posts": imported.frame("posts", POSTS).sort("created_at", "post_id")}
    inputs = [str(p) for files in files_by_format.values() for p in files] + [str(p) for p in unknown]
    return ImportResult(kind, sorted(files_by_format), inputs, tables, imported.drops_frame(),
                        imported.counts())


def write_result(result: ImportResult, out_dir: str | Path) -> dict[str, Path]:
    out_dir = Path(out_dir)
    paths = {name: write_parquet(df, out_dir / f"{name}.parquet") for name, df in result.tables.items()}
    paths["drops"] = write_parquet(result.drops, out_dir / "drops.parquet")
    paths["import"] = write_json(result.summary(), out_dir / "import.json")
    return paths


def import_markets(fmt: str, inputs: Iterable[str | Path], out_dir: str | Path) -> ImportResult:
    """``pastcast markets import``: one format's dumps to ``out_dir``."""
    if fmt not in MARKET_FORMATS:
        raise ValueError(f"unknown market format {fmt!r}; known: {', '.join(sorted(MARKET_FORMATS))}")
    result = read_all("markets", {fmt: expand_inputs(inputs)})
    write_result(result, out_dir)
    return result


def import_social(fmt: str, inputs: Iterable[str | Path], out_dir: str | Path) -> ImportResult:
    """``pastcast social import``: one format's dumps to ``out_dir``."""
    if fmt not in SOCIAL_FORMATS:
        raise ValueError(f"unknown social format {fmt!r}; known: {', '.join(sorted(SOCIAL_FORMATS))}")
    result = read_all("social", {fmt: expand_inputs(inputs)})
    write_result(result, out_dir)
    return result
