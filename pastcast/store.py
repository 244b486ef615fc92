"""Where a snapshot's tables live: immutable, content-addressed Parquet parts shared by versions.

Every table of a version is a list of parts, each a Parquet file named by its own sha256::

    snapshots/<name>/parts/<table>/<sha256>.parquet   written once, never changed, shared
    snapshots/<name>/vN/manifest.json                  the parts of every table, with rows and sha256

A table split by crawl day (articles, and the days' drops) has one part a day, so a version
that adds a day writes that day's part and names the parent's parts for every other day: it
stores what changed, never a copy. A version is still complete on its own (its manifest lists
every part; nothing is read through its parent), and verifiable (every part's sha256 is in the
manifest and in its name). ``scan_table`` is the one way to read a table of a version, of a
version in the older layout (``vN/<table>.parquet``), or of a bare folder of tables.

Writers and ``snapshot gc`` take turns on ``snapshots/<name>/parts/.lock``: a part is only
ever removed when no manifest names it, and never while a version is being written.

A part already in the store is named by a new version only when its bytes still hash to its
name; one that does not (a flipped byte, a truncation) is written again from the bytes at hand,
which repairs every version naming it. ``parts/.verified.json`` keeps, for each part, the stat
(size, mtime, ctime, inode) it had when last hashed, so an untouched part costs a stat; any write
to it changes its ctime, which only the kernel sets, so it is hashed again (``rehash`` ignores
the record).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from pastcast.io import MANIFEST, locked, read_manifest, write_json
from pastcast.schemas import TABLES, conform, scan_parts

PARTS = "parts"
STORE_LOCK = ".lock"  # in parts/: writers and gc take turns
PART_PATH = re.compile(r"^parts/([a-z_]+)/([0-9a-f]{64})\.parquet$")
WHOLE = "all"  # the key of a table stored as one part
_CHUNK = 1 << 20
VERIFIED = ".verified.json"  # in parts/: the stat of each part when its bytes last hashed to its name
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Part:
    """A piece of a table on disk with its digest known (e.g. a crawl day's gathered articles):
    stored by its sha256, so a part already in the store is named, not copied again."""

    key: str  # what the part holds: "day=2026-01-05", "stage=filter", or "all"
    path: Path
    sha256: str
    rows: int


def part_path(table: str, sha256: str) -> str:
    """A part's place, relative to the snapshot's folder (``snapshots/<name>``)."""
    return f"{PARTS}/{table}/{sha256}.parquet"


def store_lock(name_folder: str | Path):
    return locked(Path(name_folder) / PARTS / STORE_LOCK)


def table_digest(parts: list[dict]) -> str:
    """A table's sha256: over its parts' keys and digests, in order (a part's own digest is the
    sha256 of its bytes)."""
    h = hashlib.sha256()
    for p in parts:
        h.update(f"{p['key']}\t{p['sha256']}\n".encode())
    return h.hexdigest()


def _copy_hashing(source: Path, target: Path) -> str:
    h = hashlib.sha256()
    with open(source, "rb") as src, open(target, "wb") as dst:
        while block := src.read(_CHUNK):
            h.update(block)
            dst.write(block)
        dst.flush()
        os.fsync(dst.fileno())
    return h.hexdigest()


def _hash(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(_CHUNK):
            h.update(block)
    return h.hexdigest()


def _stamp(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


class PartWriter:
    """Puts parts into ``snapshots/<name>/parts/`` (the caller holds the store lock). A part
    whose digest is already stored costs nothing when its bytes still hash to that digest (by
    the stat recorded when they last did, or hashed again); a new one, or a stored one whose
    bytes do not match its name (``repaired``), is written beside its place and renamed into
    it. ``written`` counts the bytes this writer added. ``save`` keeps the verified stats."""

    def __init__(self, name_folder: str | Path, rehash: bool = False):
        self.root = Path(name_folder)
        self.written = 0
        self.shared = 0  # parts named without writing
        self.repaired: list[str] = []  # stored parts whose bytes did not match their name, rewritten
        self._verified = {} if rehash else _read_verified(self.root)
        self._seen: dict[str, list[int]] = {}

    def _holds(self, target: Path, sha256: str) -> bool:
        """Whether ``target`` is in the store with bytes that hash to ``sha256``."""
        rel = target.relative_to(self.root).as_posix()
        if not target.is_file():
            return False
        stamp = _stamp(target)
        if self._seen.get(rel) == stamp or self._verified.get(rel) == stamp or _hash(target) == sha256:
            self._seen[rel] = stamp
            return True
        self.repaired.append(rel)
        log.warning("%s: its bytes do not hash to its name (damaged); written again", target)
        return False

    def _put(self, tmp: Path, target: Path) -> None:
        self.written += tmp.stat().st_size
        os.chmod(tmp, 0o444)  # immutable: a part is shared by versions, never edited in place
        os.replace(tmp, target)
        self._seen[target.relative_to(self.root).as_posix()] = _stamp(target)

    def _place(self, tmp: Path, table: str, sha256: str) -> Path:
        target = self.root / part_path(table, sha256)
        target.parent.mkdir(parents=True, exist_ok=True)
        if self._holds(target, sha256):
            tmp.unlink()
            self.shared += 1
        else:
            self._put(tmp, target)
        return target

    def _temp(self) -> Path:
        folder = self.root / PARTS
        folder.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=".tmp-", suffix=".parquet", dir=folder)
        os.close(fd)
        return Path(name)

    def frame(self, table: str, df: pl.DataFrame, key: str = WHOLE) -> dict:
        """A frame as one part of ``table`` (checked against the table's schema)."""
        df = conform(df, TABLES[table], table)
        tmp = self._temp()
        try:
            df.write_parquet(tmp, compression="zstd", statistics=True)
            sha = _hash(tmp)
            self._place(tmp, table, sha)
        finally:
            tmp.unlink(missing_ok=True)
        return {"key": key, "path": part_path(table, sha), "rows": df.height,
                "bytes": (self.root / part_path(table, sha)).stat().st_size, "sha256": sha}

    def part(self, table: str, part: Part) -> dict:
        """A part already on disk: named when the store holds its digest with matching bytes,
        else copied in (and hashed while copied: a part whose bytes are not its stated digest
        is refused)."""
        target = self.root / part_path(table, part.sha256)
        if self._holds(target, part.sha256):
            self.shared += 1
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = self._temp()
            try:
                found = _copy_hashing(part.path, tmp)
                if found != part.sha256:
                    raise ValueError(f"{part.path}: sha256 {found[:12]}..., stated {part.sha256[:12]}...: "
                                     "the file changed after its digest was taken")
                self._put(tmp, target)
            finally:
                tmp.unlink(missing_ok=True)
        return {"key": part.key, "path": part_path(table, part.sha256), "rows": part.rows,
                "bytes": target.stat().st_size, "sha256": part.sha256}

    def save(self) -> None:
        """Record the stat of every part this writer proved or wrote (the others' entries stay)."""
        if self._seen:
            write_json({**_read_verified(self.root), **self._seen}, self.root / PARTS / VERIFIED)


def _read_verified(name_folder: Path) -> dict[str, list[int]]:
    path = Path(name_folder) / PARTS / VERIFIED
    try:
        found = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        return {}  # cut or damaged: every part is hashed again, and the record rewritten
    return found if isinstance(found, dict) else {}


def table_entry(parts: list[dict]) -> dict:
    return {"rows": sum(p["rows"] for p in parts), "sha256": table_digest(parts), "parts": parts}


def parts_of(info: dict) -> list[dict]:
    return list(info.get("parts") or [])


def table_files(folder: str | Path, table: str, manifest: dict | None = None) -> list[Path]:
    """The files holding ``table`` of a snapshot folder: its parts (this layout), its own
    ``<table>.parquet`` (the older layout, or a bare folder of tables); empty when it has none."""
    folder = Path(folder)
    if manifest is None:
        manifest = read_manifest(folder) if (folder / MANIFEST).is_file() else {"tables": {}}
    info = (manifest.get("tables") or {}).get(table)
    if info is not None and "parts" in info:
        return [folder.parent / p["path"] for p in parts_of(info)]
    path = folder / (info or {}).get("file", f"{table}.parquet")
    return [path] if path.is_file() else []


def scan_table(folder: str | Path, table: str, manifest: dict | None = None) -> pl.LazyFrame:
    """A table of a snapshot version as one lazy frame with the table's declared columns (parts
    written before a column was added read it as nulls); an empty frame when the version has no
    such table. The one reader of snapshot tables: the evaluator, the CLI, ``snapshot diff``,
    the checks and the Dagster assets all come through here."""
    files = table_files(folder, table, manifest)
    schema = TABLES.get(table)
    if schema is None:
        raise ValueError(f"unknown snapshot table {table!r}; known: {sorted(TABLES)}")
    if not files:
        return pl.LazyFrame(schema=dict(schema))
    return scan_parts(files, schema)


def read_table(folder: str | Path, table: str, columns: list[str] | None = None,
               manifest: dict | None = None) -> pl.DataFrame:
    frame = scan_table(folder, table, manifest)
    return (frame.select(columns) if columns else frame).collect()


def has_table(folder: str | Path, table: str) -> bool:
    return bool(table_files(folder, table))


def referenced_parts(manifests: Iterable[dict]) -> set[str]:
    """Every part path the manifests name."""
    return {p["path"] for m in manifests for info in (m.get("tables") or {}).values() for p in parts_of(info)}


def stored_parts(name_folder: str | Path) -> list[Path]:
    root = Path(name_folder) / PARTS
    return sorted(root.glob("*/*.parquet")) if root.is_dir() else []


def remove_temporaries(name_folder: str | Path) -> int:
    """Parts a killed writer left half-written (the caller holds the store lock, so no writer
    is running): removed; returns how many."""
    root = Path(name_folder) / PARTS
    found = list(root.glob(".tmp-*")) if root.is_dir() else []
    for path in found:
        path.unlink(missing_ok=True)
    return len(found)


def remove_out_of_sight(path: Path) -> None:
    """A folder out of sight at once (renamed), then deleted."""
    hidden = path.with_name(f".removing-{path.name}")
    os.rename(path, hidden)
    shutil.rmtree(hidden, ignore_errors=True)


def link_or_copy(source: Path, target: Path) -> None:
    """``target`` holding ``source``'s bytes: a hard link (a part is never changed in place),
    a copy across file systems."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        return
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
