"""Importing market and social dumps into normalised tables in an output folder.

``import_markets`` writes ``markets.parquet``, ``market_prices.parquet`` and ``drops.parquet``;
``import_social`` writes ``posts.parquet`` and ``drops.parquet``, streaming (flat memory on a
dump of any size). Both also write ``import.json`` (format, inputs, records read/kept/dropped
by kind, drops by reason). Every file is written atomically; a rerun replaces the outputs.

Input paths may be files or folders (every data file under a folder, in name order). A corpus
folder names the format of each dump by a subfolder (``markets/polymarket/...``) or by the
start of a file's name (``markets/manifold.json``): ``formats_in``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from pastcast.drops import counts_by_reason
from pastcast.io import merge_parquet, write_json, write_parquet
from pastcast.schemas import DROPS, MARKET_PRICES, MARKETS, POSTS, empty, frame
from pastcast.sources.imported import Imported
from pastcast.sources.limits import check_caps
from pastcast.sources.markets import MARKET_FORMATS, read_markets
from pastcast.sources.social import SOCIAL_FORMATS, read_posts

DATA_SUFFIXES = (".json", ".jsonl", ".ndjson", ".zst", ".gz", ".bz2", ".xz")


@dataclass
class ImportResult:
    kind: str  # markets or social
    formats: list[str]
    inputs: list[str]
    rows: dict[str, int]  # table -> rows written (drops included)
    paths: dict[str, Path]  # table -> file written
    counts: dict = field(default_factory=dict)  # record kind -> {read, kept, dropped}
    drops_by_reason: dict[str, int] = field(default_factory=dict)  # "stage/reason" -> count

    def summary(self) -> dict:
        return {"kind": self.kind, "formats": self.formats, "inputs": self.inputs,
                "rows": {t: n for t, n in self.rows.items() if t != "drops"},
                "records": self.counts, "drops_by_reason": self.drops_by_reason}


def walk_files(folder: str | Path) -> list[Path]:
    """Every file under ``folder``, sorted, following links to folders and files (a corpus is
    often a tree of links into shared storage); a folder reached twice (a link loop, two links
    to one place) is walked once."""
    seen: set[str] = set()
    found: list[Path] = []
    for top, dirs, names in os.walk(folder, followlinks=True):
        real = os.path.realpath(top)
        if real in seen:
            dirs.clear()
            continue
        seen.add(real)
        dirs.sort()
        found.extend(Path(top) / n for n in names if os.path.isfile(os.path.join(top, n)))
    return sorted(found)


def is_data_file(path: Path) -> bool:
    return path.name.lower().endswith(DATA_SUFFIXES) and not path.name.startswith(".")


def expand_inputs(inputs: Iterable[str | Path]) -> list[Path]:
    """Files as given; folders to every data file under them (links followed), sorted. A
    missing path is an error naming it (a typo must not import nothing silently)."""
    files: list[Path] = []
    for raw in inputs:
        path = Path(raw)
        if path.is_dir():
            files.extend(p for p in walk_files(path) if is_data_file(p))
        elif path.is_file():
            files.append(path)
        else:
            raise FileNotFoundError(f"input {path} does not exist")
    return files


def formats_in(folder: str | Path, known: Iterable[str]) -> tuple[dict[str, list[Path]], list[Path]]:
    """({format: files}, every other file) for a corpus's markets/ or social/ folder: each file
    under it (links followed) is read as its format or becomes a drop (``_unknown``)."""
    folder, known = Path(folder), sorted(known, key=len, reverse=True)
    by_format: dict[str, list[Path]] = {}
    unknown: list[Path] = []
    if not folder.is_dir():
        return by_format, unknown
    for path in walk_files(folder):
        top = path.relative_to(folder).parts[0].lower()
        fmt = next((f for f in known if top == f or top.startswith(f)), None) if is_data_file(path) else None
        if fmt is None:
            unknown.append(path)
        else:
            by_format.setdefault(fmt, []).append(path)
    return by_format, unknown


def _unknown(imported: Imported, files: Sequence[Path], stage: str, known: Iterable[str]) -> None:
    for path in files:
        imported.seen("file")
        if not is_data_file(path):  # a LICENSE, a README, a hidden or partial download
            imported.drop(path.name, "file", stage, "not_a_data_file",
                          f"{path}: not read (data files end in {', '.join(DATA_SUFFIXES)} and are not hidden)")
            continue
        imported.drop(path.name, "file", stage, "unknown_format",
                      f"{path}: name a subfolder or the file after its format ({', '.join(sorted(known))})")


def _check_books(imported: Imported) -> None:
    gaps = imported.unaccounted()
    if gaps:  # a reader bug, not bad input: refuse to write tables that lost records
        raise RuntimeError(f"import lost records (kind: count): {gaps}")


def _inputs(files_by_format: dict[str, Sequence[Path]], unknown: Sequence[Path]) -> list[str]:
    return [str(p) for files in files_by_format.values() for p in files] + [str(p) for p in unknown]


def _reasons(drops: Path) -> dict[str, int]:
    return counts_by_reason(pl.read_parquet(drops, columns=["stage", "reason"]))


def run_markets(files_by_format: dict[str, Sequence[Path]], outputs: dict[str, Path],
                unknown: Sequence[Path] = ()) -> ImportResult:
    """Every format's market files into ``outputs["markets"]``, ``["market_prices"]`` and
    ``["drops"]``. Price histories refer to markets of other files, so the import is held in
    memory: market dumps are megabytes, not terabytes."""
    check_caps()
    imported = Imported()
    for fmt, files in files_by_format.items():
        imported.merge(read_markets(fmt, files))
    _unknown(imported, unknown, "markets", MARKET_FORMATS)
    _check_books(imported)
    tables = {
        "markets": imported.frame("markets", MARKETS).sort("market_id"),
        "market_prices": imported.frame("market_prices", MARKET_PRICES).sort("market_id", "ts", "outcome"),
        "drops": imported.drops_frame(),
    }
    paths = {name: write_parquet(df, outputs[name]) for name, df in tables.items()}
    return ImportResult("markets", sorted(files_by_format), _inputs(files_by_format, unknown),
                        {name: df.height for name, df in tables.items()}, paths, imported.counts(),
                        counts_by_reason(tables["drops"]))


class _Parts:
    """An import's sink: each batch of rows a Parquet part in a hidden folder, merged at the end."""

    SCHEMAS = {"posts": POSTS, "drops": DROPS}

    def __init__(self, folder: Path):
        self.folder = folder
        self.parts: dict[str, list[Path]] = {name: [] for name in self.SCHEMAS}

    def __call__(self, table: str, rows: list[dict]) -> None:
        path = self.folder / f"{table}-{len(self.parts[table]):06d}.parquet"
        frame(rows, self.SCHEMAS[table]).write_parquet(path)
        self.parts[table].append(path)


def run_social(files_by_format: dict[str, Sequence[Path]], outputs: dict[str, Path],
               unknown: Sequence[Path] = (), part_rows: int = 100_000) -> ImportResult:
    """Every format's social files into ``outputs["posts"]`` and ``["drops"]``, streamed: rows
    leave memory in parts of ``part_rows``, so a dump of any size imports in flat memory.
    Posts keep their input order (file by file, line by line)."""
    check_caps()
    folder = outputs["posts"].parent
    folder.mkdir(parents=True, exist_ok=True)
    parts_dir = Path(tempfile.mkdtemp(prefix=".import-parts-", dir=folder))
    try:
        parts = _Parts(parts_dir)
        imported = Imported(sink=parts, sink_rows=part_rows)
        for fmt, files in files_by_format.items():
            read_posts(fmt, files, imported)
        _unknown(imported, unknown, "social", SOCIAL_FORMATS)
        imported.flush()
        _check_books(imported)
        paths = {name: merge_parquet(parts.parts[name], outputs[name], empty(schema))
                 for name, schema in _Parts.SCHEMAS.items()}
    finally:
        shutil.rmtree(parts_dir, ignore_errors=True)
    return ImportResult("social", sorted(files_by_format), _inputs(files_by_format, unknown),
                        {name: imported.rows(name) for name in _Parts.SCHEMAS}, paths,
                        imported.counts(), _reasons(paths["drops"]))


def _write_summary(result: ImportResult, out_dir: Path) -> None:
    result.paths["import"] = write_json(result.summary(), out_dir / "import.json")


def import_markets(fmt: str, inputs: Iterable[str | Path], out_dir: str | Path) -> ImportResult:
    """``pastcast markets import``: one format's dumps to ``out_dir``."""
    if fmt not in MARKET_FORMATS:
        raise ValueError(f"unknown market format {fmt!r}; known: {', '.join(sorted(MARKET_FORMATS))}")
    out_dir = Path(out_dir)
    result = run_markets({fmt: expand_inputs(inputs)},
                         {t: out_dir / f"{t}.parquet" for t in ("markets", "market_prices", "drops")})
    _write_summary(result, out_dir)
    return result


def import_social(fmt: str, inputs: Iterable[str | Path], out_dir: str | Path,
                  part_rows: int = 100_000) -> ImportResult:
    """``pastcast social import``: one format's dumps to ``out_dir``."""
    if fmt not in SOCIAL_FORMATS:
        raise ValueError(f"unknown social format {fmt!r}; known: {', '.join(sorted(SOCIAL_FORMATS))}")
    out_dir = Path(out_dir)
    result = run_social({fmt: expand_inputs(inputs)},
                        {t: out_dir / f"{t}.parquet" for t in ("posts", "drops")}, part_rows=part_rows)
    _write_summary(result, out_dir)
    return result
