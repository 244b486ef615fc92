"""Peer question files read into one frame shape: every data column as text (``String``) or a
list of texts (``List(String)``), plus ``_where`` (the record's place in its file: ``row 3`` of
a Parquet or CSV file, ``line 7`` of JSON lines, ``item 2`` of a JSON list) and ``_bad`` (why a
record could not be read, else null).

A file that cannot be read at all (missing, not Parquet, not JSON, no CSV header) is a
``ValueError`` naming it; a damaged record (a line that is not JSON, a CSV row with the wrong
number of fields) is a row with ``_bad`` set, so the caller drops it and reads the next one.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import polars as pl

from pastcast.sources.jsonfiles import READ_ERRORS, is_line_delimited, iter_lines, open_binary, read_json

TABLE_SUFFIXES = (".parquet", ".jsonl", ".ndjson", ".json", ".csv")
COMPRESSED = (".gz", ".zst", ".bz2", ".xz")
RECORD_LISTS = ("questions", "data", "rows", "items", "records")  # {"questions": [...]} and the like
INTERNAL = ("_where", "_bad")
SUMMARIES = ("export.json", "import.json", "generate.json")  # pastcast's own notes in a folder: not questions


def data_files(inputs: Iterable[str | Path]) -> list[Path]:
    """Files as given; folders to every question file under them (Parquet, JSON lines, JSON,
    CSV; plain or compressed; not pastcast's ``SUMMARIES``), sorted. A missing path is an error
    naming it."""
    files: list[Path] = []
    for raw in inputs:
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith(".")
                           and p.name not in SUMMARIES and _kind(p) is not None)
            if not found:
                raise ValueError(f"{path}: no question files in this folder (looked for "
                                 f"{', '.join(TABLE_SUFFIXES)})")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise FileNotFoundError(f"input {path} does not exist")
    return files


def _kind(path: Path) -> str | None:
    suffixes = [s.lower() for s in path.suffixes]
    while suffixes and suffixes[-1] in COMPRESSED:
        suffixes.pop()
    last = suffixes[-1] if suffixes else ""
    return {".parquet": "parquet", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json",
            ".csv": "csv"}.get(last)


def read_table(path: Path) -> pl.DataFrame:
    """Every record of ``path`` (see the module doc); ``ValueError`` naming the file when it
    cannot be read."""
    kind = _kind(path)
    if kind is None:
        raise ValueError(f"{path}: not a question file (use {', '.join(TABLE_SUFFIXES)})")
    try:
        if kind == "parquet":
            return _parquet(path)
        if kind == "csv":
            return _records_frame(_csv_records(path))
        if kind == "jsonl" or is_line_delimited(path):
            return _records_frame(_json_lines(path))
        return _records_frame(_json_document(path))
    except ValueError as exc:
        raise ValueError(str(exc) if str(path) in str(exc) else f"{path}: {exc}") from exc
    except READ_ERRORS as exc:  # corrupt compression, unreadable file
        raise ValueError(f"{path}: cannot read: {exc}") from exc


def _parquet(path: Path) -> pl.DataFrame:
    try:
        df = pl.read_parquet(path)
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise ValueError(f"{path}: cannot read as Parquet: {exc}") from exc
    where = pl.format("row {}", pl.int_range(1, pl.len() + 1))
    return df.select(where.alias("_where"), pl.lit(None, pl.String).alias("_bad"),
                     *(_as_text(c, t) for c, t in df.schema.items() if c not in INTERNAL))


def _as_text(name: str, dtype: pl.DataType) -> pl.Expr:
    """A Parquet column as text, or a list of texts; times as ISO 8601 (UTC when zoned)."""
    col = pl.col(name)
    if isinstance(dtype, pl.List | pl.Array):
        inner = dtype.inner
        if isinstance(inner, pl.Struct | pl.List | pl.Array):
            return col.cast(pl.List(inner)).list.eval(pl.element().struct.json_encode()
                                                      if isinstance(inner, pl.Struct) else
                                                      pl.element().cast(pl.String)).alias(name)
        return col.cast(pl.List(pl.String)).alias(name)
    if isinstance(dtype, pl.Datetime):
        if dtype.time_zone:
            return (col.dt.convert_time_zone("UTC").dt.strftime("%Y-%m-%dT%H:%M:%S%.f") + "+00:00").alias(name)
        return col.dt.strftime("%Y-%m-%dT%H:%M:%S%.f").alias(name)
    if isinstance(dtype, pl.Struct):
        return col.struct.json_encode().alias(name)
    return col.cast(pl.String).alias(name)


# -- records (CSV, JSON, JSON lines) -------------------------------------------------------------

Record = tuple[str, dict | None, str | None]  # (where, the record, why it is unreadable)


def _csv_records(path: Path) -> list[Record]:
    with io.TextIOWrapper(open_binary(path), encoding="utf-8-sig", errors="replace", newline="") as text:
        reader = csv.DictReader(text)
        if not reader.fieldnames:
            raise ValueError(f"{path}: no CSV header")
        width = len(reader.fieldnames)
        out = []
        for row in reader:
            where = f"line {reader.line_num}"
            extra, short = row.pop(None, None), [k for k, v in row.items() if v is None]
            if extra is not None or short:
                fields = width + len(extra or []) - len(short)
                out.append((where, None, f"{fields} fields, the header has {width}"))
            else:
                out.append((where, row, None))
        return out


def _json_lines(path: Path) -> list[Record]:
    out = []
    for lineno, line in iter_lines(path):
        where = f"line {lineno}"
        if isinstance(line, Exception):  # a line past the record cap, skipped unread
            out.append((where, None, str(line)))
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            out.append((where, None, f"not JSON ({exc.msg} at column {exc.colno})"))
            continue
        out.append((where, record, None) if isinstance(record, dict)
                   else (where, None, f"a JSON {type(record).__name__}, not an object"))
    return out


def _json_document(path: Path) -> list[Record]:
    doc = read_json(path)
    if isinstance(doc, dict):
        lists = [k for k in RECORD_LISTS if isinstance(doc.get(k), list)]
        if not lists:
            raise ValueError(f"{path}: a JSON object without a list of questions (looked for "
                             f"{', '.join(RECORD_LISTS)})")
        doc = doc[lists[0]]
    if not isinstance(doc, list):
        raise ValueError(f"{path}: neither a list of questions nor an object holding one")
    return [(f"item {i}", r, None) if isinstance(r, dict)
            else (f"item {i}", None, f"a JSON {type(r).__name__}, not an object") for i, r in enumerate(doc)]


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):  # a binary resolution written true/false
        return "Yes" if value else "No"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))  # an id or a year written 123.0 by a spreadsheet
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _records_frame(records: list[Record]) -> pl.DataFrame:
    """Records as a frame: a column of lists where every value is a list (or missing), else text
    (a list written among texts is its JSON)."""
    names: dict[str, None] = {}
    for _, r, _ in records:
        for k in r or ():
            if k not in INTERNAL:
                names.setdefault(str(k), None)
    columns: dict[str, pl.Series] = {
        "_where": pl.Series([w for w, _, _ in records], dtype=pl.String),
        "_bad": pl.Series([b for _, _, b in records], dtype=pl.String)}
    for name in names:
        values = [(r or {}).get(name) for _, r, _ in records]
        if any(isinstance(v, list) for v in values) and all(v is None or isinstance(v, list) for v in values):
            columns[name] = pl.Series(name, [None if v is None else [_text(x) for x in v] for v in values],
                                      dtype=pl.List(pl.String))
        else:
            columns[name] = pl.Series(name, [_text(v) for v in values], dtype=pl.String)
    return pl.DataFrame(columns)
