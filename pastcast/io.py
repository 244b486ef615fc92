"""Atomic file output: a reader never sees a half-written file, an interrupted run leaves none."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import polars as pl

from pastcast.schemas import scan_parts


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# mkstemp makes owner-only files; outputs get the usual permissions (0644 under umask 022).
_FILE_MODE = 0o666 & ~_umask()


def _temp_beside(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.fchmod(fd, _FILE_MODE)
    os.close(fd)
    return Path(tmp)


@contextlib.contextmanager
def _atomic(path: str | Path):
    """A temp file beside ``path`` to write; renamed onto ``path`` when the block ends
    normally, removed otherwise: readers see the old file or the whole new one."""
    path = Path(path)
    tmp = _temp_beside(path)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_parquet(df: pl.DataFrame, path: str | Path) -> Path:
    with _atomic(path) as tmp:
        df.write_parquet(tmp, compression="zstd", statistics=True)
    return Path(path)


def merge_parquet(parts: list[str | Path], path: str | Path, empty: pl.DataFrame) -> Path:
    """Stream Parquet parts into one file, atomically; ``empty`` (a frame with the table's
    schema) is written when there are no parts."""
    if not parts:
        return write_parquet(empty, path)
    # parts written before a column was added (a resumed run of an earlier version) get it as nulls
    return sink_parquet(scan_parts(parts, empty.schema), path)


def sink_parquet(frame: pl.LazyFrame, path: str | Path) -> Path:
    """Stream a lazy query into a Parquet file, atomically."""
    with _atomic(path) as tmp:
        frame.sink_parquet(tmp, compression="zstd")
    return Path(path)


def copy_file(source: str | Path, path: str | Path) -> Path:
    with _atomic(path) as tmp:
        shutil.copyfile(source, tmp)
    return Path(path)


def write_text(text: str, path: str | Path) -> Path:
    with _atomic(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def write_json(obj, path: str | Path) -> Path:
    return write_text(json.dumps(obj, indent=2, sort_keys=False, default=str) + "\n", path)


@contextlib.contextmanager
def locked(path: str | Path):
    """Hold an exclusive advisory lock on ``path`` (created if absent) for the block: runs
    that share persistent state (the dedup index) take turns instead of racing."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def file_digests(paths: list[str | Path], cache_path: str | Path) -> list[dict]:
    """{file, bytes, sha256} of each path, each file hashed once: digests are kept in
    ``cache_path`` (JSON) by name, size and modification time, so a nightly snapshot does not
    read every gigabyte of the corpus again."""
    cache_path = Path(cache_path)
    cache = json.loads(cache_path.read_text()) if cache_path.is_file() else {}
    out, changed = [], False
    for p in map(Path, paths):
        stat = p.stat()
        key = f"{p.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
        if key not in cache:
            cache[key] = sha256_file(p)
            changed = True
        out.append({"file": p.name, "bytes": stat.st_size, "sha256": cache[key]})
    if changed:
        write_json(cache, cache_path)
    return out


def stable_id(*parts: str, length: int = 16) -> str:
    """A short, stable hex id from its parts (sha1; ids must not change between rebuilds)."""
    return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:length]


MANIFEST = "manifest.json"  # a snapshot folder's manifest (pastcast.snapshot writes it)


def read_manifest(folder: str | Path) -> dict:
    """The manifest of a snapshot folder: tables with row counts and sha256, stage counts, ...
    A manifest that is missing, not JSON or not an object with a ``tables`` map is a ValueError
    (FileNotFoundError when absent) naming the file."""
    path = Path(folder) / MANIFEST
    try:
        manifest = loads_json(path.read_bytes())
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no manifest (not a snapshot version)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a readable manifest ({exc})") from None
    # a hand-made folder (tests, a quick experiment) may list no tables; then none is checked
    tables = (manifest.get("tables") or {}) if isinstance(manifest, dict) else None
    files = (manifest.get("files") or {}) if isinstance(manifest, dict) else None
    if not isinstance(tables, dict) or not isinstance(files, dict) or not all(
            isinstance(info, dict) and (_stored_parts(table, info.get("parts")) if "parts" in info
                                        else plain_name(info.get("file")))
            for table, info in tables.items()) or not all(
            isinstance(info, dict) and plain_name(info.get("file")) for info in files.values()):
        raise ValueError(f"{path}: not a snapshot manifest (tables must each name a file of the version's "
                         "own folder or parts of its snapshot's store, files a file of the folder)")
    manifest.setdefault("tables", {})
    return manifest


def plain_name(name) -> bool:
    """A file name of a folder itself, one component: no separator, not ``.`` or ``..``, no NUL
    (a manifest never points elsewhere; a note never leads out of its folder)."""
    return isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\0" not in name


def warn(message: str) -> None:
    """A warning on stderr (stdout may be an MCP client's channel, or a command's result)."""
    print(f"warning: {message}", file=sys.stderr, flush=True)


def _stored_parts(table: str, parts) -> bool:
    """Parts of the snapshot's own store, by digest (``parts/<table>/<sha256>.parquet``): a
    manifest can name no file outside it."""
    return isinstance(parts, list) and all(
        isinstance(p, dict) and isinstance(p.get("sha256"), str) and _SHA256.fullmatch(p["sha256"])
        and p.get("path") == f"parts/{table}/{p['sha256']}.parquet" and isinstance(p.get("rows"), int)
        for p in parts)


_SHA256 = re.compile(r"[0-9a-f]{64}")


def loads_json(text: str | bytes):
    """``json.loads``; a document nested too deeply for the parser is a ``JSONDecodeError``
    (a bad input, named by the caller), never a ``RecursionError``."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply to read", "", 0) from None
