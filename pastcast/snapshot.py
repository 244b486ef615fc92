"""Versioned, immutable snapshots: ``snapshots/<name>/<version>/`` plus a ``LATEST`` pointer.

A snapshot is written into a hidden temporary folder and renamed into place, so a reader sees
a complete version or none. Versions are never overwritten: each build takes the next number,
records its parent, and its manifest carries row counts and sha256 of every table.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
from datetime import date, datetime, timezone
from pathlib import Path

import polars as pl

import pastcast
from pastcast.drops import counts_by_reason
from pastcast.io import MANIFEST, read_manifest, sha256_file, write_json, write_parquet, write_text
from pastcast.schemas import TABLES, conform

VERSION = re.compile(r"^v(\d+)$")
LATEST = "LATEST"
HISTORY = "history.jsonl"  # every move of LATEST


def code_version() -> str:
    """The package version plus the git commit when run from a checkout."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, cwd=Path(__file__).parent, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return f"{pastcast.__version__}+{commit}" if commit else pastcast.__version__


def versions(root: str | Path, name: str) -> list[str]:
    folder = Path(root) / name
    if not folder.is_dir():
        return []
    found = [p.name for p in folder.iterdir() if p.is_dir() and VERSION.match(p.name)]
    return sorted(found, key=lambda v: int(v[1:]))


_VERSION = re.compile(r"^v\d+$")


def latest_version(root: str | Path, name: str) -> str | None:
    """The version ``LATEST`` names; it must be a version of its own folder (``vN``), never a
    path elsewhere ("../../other/sample/v1" is refused)."""
    pointer = Path(root) / name / LATEST
    if pointer.is_file():
        version = pointer.read_text().strip() or None
        if version is not None and not _VERSION.match(version):
            raise ValueError(f"{pointer} names {version[:80]!r}, not a version of {pointer.parent} (vN)")
        return version
    return None


def resolve(path_or_ref: str | Path, root: str | Path = "snapshots") -> Path:
    """A snapshot folder from a path, ``name`` (its latest) or ``name/vN``; a FileNotFoundError
    saying what is missing (the folder, its LATEST, the version LATEST names) otherwise."""
    path = Path(path_or_ref)
    if (path / MANIFEST).is_file():
        return path
    parts = str(path_or_ref).strip("/").split("/")
    folder = Path(root) / parts[0]
    version = parts[1] if len(parts) > 1 else latest_version(root, parts[0])
    if version and (folder / version / MANIFEST).is_file():
        return folder / version
    known = versions(root, parts[0])
    if len(parts) == 1 and known and version is None:
        raise FileNotFoundError(f"{folder}: no {LATEST} (no version was published); name one of "
                                f"{', '.join(known)} as {parts[0]}/vN")
    if version and known:
        said = f"{LATEST} names" if len(parts) == 1 else "asked for"
        raise FileNotFoundError(f"{folder}: {said} {version}, which is not a version there "
                                f"(versions: {', '.join(known)})")
    raise FileNotFoundError(f"no snapshot at {path_or_ref!r} (looked for {MANIFEST} there and "
                            f"under {Path(root).resolve()})")


def write_snapshot(tables: dict[str, pl.DataFrame], root: str | Path, name: str,
                   window: tuple[date, date], inputs: list[str | Path | dict] = (),
                   stage_counts: dict | None = None, config: dict | None = None,
                   extra: dict | None = None, files: dict[str, str] | None = None,
                   publish: bool = True) -> Path:
    """Write a new version of snapshot ``name`` and (``publish``) move ``LATEST`` to it; return
    its folder. ``inputs`` are paths (hashed here) or their ``{file, bytes, sha256}`` already
    known. ``files`` are text files stored beside the tables (e.g. the filter's
    ``audit.md``), hashed in the manifest like them. The parent is the version LATEST points
    at: an unpublished version is nobody's parent."""
    unknown = set(tables) - set(TABLES)
    if unknown:
        raise ValueError(f"unknown snapshot tables {sorted(unknown)}; known: {sorted(TABLES)}")
    folder = Path(root) / name
    folder.mkdir(parents=True, exist_ok=True)
    remove_abandoned_staging(folder)
    staging = folder / f"{STAGING}{_HOST}-{os.getpid()}-{datetime.now(timezone.utc):%Y%m%dT%H%M%S%f}"
    staging.mkdir()
    try:
        table_info = {}
        for table, schema in TABLES.items():
            df = conform(tables.get(table, pl.DataFrame(schema=dict(schema))), schema, table)
            path = write_parquet(df, staging / f"{table}.parquet")
            table_info[table] = {"file": path.name, "rows": df.height, "sha256": sha256_file(path)}
        file_info = {}
        for file_name, text in (files or {}).items():
            path = write_text(text, staging / file_name)
            file_info[file_name] = {"file": path.name, "sha256": sha256_file(path)}
        drops = tables.get("drops")
        parent = latest_version(root, name)
        manifest = {
            "name": name,
            "version": None,  # set when the version number is taken
            "parent_version": parent,
            "window": {"start": window[0].isoformat(), "end": window[1].isoformat()},
            "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "code_version": code_version(),
            "config": config or {},
            "inputs": [p if isinstance(p, dict) else {"file": Path(p).name, "bytes": Path(p).stat().st_size,
                                                      "sha256": sha256_file(p)} for p in inputs],
            "tables": table_info,
            "files": file_info,
            "stage_counts": stage_counts or {},
            "drops_by_reason": counts_by_reason(drops) if drops is not None else {},
            "llm": {"calls": 0, "tokens": 0, "cost_usd": 0.0},
            **(extra or {}),
        }
        final = _claim_version(folder, staging, manifest)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if publish:
        publish_version(final)
    return final


STAGING = ".staging-"  # a version being written: .staging-<host>-<pid>-<time>
_HOST = socket.gethostname().replace("-", "_")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def remove_abandoned_staging(folder: str | Path) -> list[Path]:
    """Staging folders of writers on this host that are gone (a killed build): removed, so a
    crash leaves no half-written version behind. A live writer's folder, or one from another
    host sharing the storage, is left alone."""
    removed = []
    for path in Path(folder).glob(f"{STAGING}*"):
        host, _, rest = path.name[len(STAGING):].partition("-")
        pid = rest.partition("-")[0]
        if host == _HOST and pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def publish_version(snapshot_dir: str | Path, checks: dict | None = None) -> None:
    """Move LATEST to this version and log the move (with the checks that allowed it) in the
    snapshot's ``history.jsonl``."""
    final = Path(snapshot_dir)
    folder = final.parent
    entry = {"version": final.name, "published_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
             "previous": latest_version(folder.parent, folder.name), "checks": checks or {}}
    with open(folder / HISTORY, "a", encoding="utf-8") as log:
        log.write(json.dumps(entry) + "\n")
    write_text(final.name + "\n", folder / LATEST)


CHECKS = "checks.jsonl"  # every blocking check run on a version: {version, check, passed, at}


def record_checks(snapshot_dir: str | Path, outcomes: dict[str, bool]) -> None:
    """Log that checks ran on this version (passed or not): a version never checked is one a
    killed build left, removed by the next build of the same work folder."""
    final = Path(snapshot_dir)
    at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    with open(final.parent / CHECKS, "a", encoding="utf-8") as log:
        for check, passed in outcomes.items():
            log.write(json.dumps({"version": final.name, "check": check, "passed": passed, "at": at}) + "\n")


def checked_versions(root: str | Path, name: str) -> set[str]:
    path = Path(root) / name / CHECKS
    if not path.is_file():
        return set()
    found = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            found.add(json.loads(line)["version"])
        except (ValueError, KeyError, TypeError):
            continue  # a line cut by a crash: the version is simply not known as checked
    return found


def remove_unchecked(snapshot_dir: str | Path | None) -> Path | None:
    """Remove ``snapshot_dir`` when it is a version never published and never checked (its
    build was killed between writing it and checking it); returns it when removed."""
    if snapshot_dir is None:
        return None
    final = Path(snapshot_dir)
    root, name = final.parent.parent, final.parent.name
    if not VERSION.match(final.name) or not (final / MANIFEST).is_file():
        return None
    try:
        if final.name in published_versions(root, name) | checked_versions(root, name):
            return None
    except ValueError:  # a LATEST naming no version: leave everything alone
        return None
    shutil.rmtree(final)
    return final


def published_versions(root: str | Path, name: str) -> set[str]:
    """Versions LATEST has ever pointed at (the history log, plus LATEST itself)."""
    folder = Path(root) / name
    found = set()
    history = folder / HISTORY
    if history.is_file():
        found = {json.loads(line)["version"] for line in history.read_text().splitlines() if line.strip()}
    latest = latest_version(root, name)
    return found | ({latest} if latest else set())


def _claim_version(folder: Path, staging: Path, manifest: dict) -> Path:
    """Rename the staging folder to the next free vN; a concurrent writer takes the next one."""
    existing = versions(folder.parent, folder.name)
    number = int(existing[-1][1:]) + 1 if existing else 1
    while True:
        manifest["version"] = f"v{number}"
        write_json(manifest, staging / MANIFEST)
        try:
            os.rename(staging, folder / manifest["version"])  # fails if the version exists
            return folder / manifest["version"]
        except OSError:
            if not (folder / manifest["version"]).exists():
                raise
            number += 1


def list_snapshots(root: str | Path = "snapshots") -> pl.DataFrame:
    rows = []
    root = Path(root)
    for folder in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        try:
            latest = latest_version(root, folder.name)
        except ValueError:  # a LATEST naming no version of its folder: listed as no latest
            latest = None
        try:
            published = published_versions(root, folder.name)
        except ValueError:
            published = set()
        for version in versions(root, folder.name):
            try:
                m = read_manifest(folder / version)
            except (OSError, ValueError):  # listed, so it is seen; `snapshot verify` says why
                m = {"created_at": "", "window": {"start": "unreadable", "end": "manifest"},
                     "tables": {t: {"rows": None} for t in ("articles", "questions", "drops")}}
            rows.append({
                "name": folder.name, "version": version, "latest": version == latest,
                "published": version in published, "parent": m.get("parent_version") or "",
                "partitions": ", ".join((m.get("partitions") or {}).get("daily", [])),
                "created_at": m["created_at"], "window": f"{m['window']['start']}..{m['window']['end']}",
                "articles": m["tables"]["articles"]["rows"], "questions": m["tables"]["questions"]["rows"],
                "drops": m["tables"]["drops"]["rows"], "path": str(folder / version),
            })
    return pl.DataFrame(rows, schema={"name": pl.String, "version": pl.String, "latest": pl.Boolean,
                                      "published": pl.Boolean, "parent": pl.String, "partitions": pl.String,
                                      "created_at": pl.String, "window": pl.String,
                                      "articles": pl.Int64, "questions": pl.Int64,
                                      "drops": pl.Int64, "path": pl.String})


class SnapshotIntegrityError(ValueError):
    """A snapshot's files do not match its manifest: nothing is read from it."""


# digests computed in this process, keyed by (path, size, mtime): a file hashed once is not
# hashed again until it changes
_DIGESTS: dict[tuple, str] = {}


def _digest(path: Path) -> str:
    st = path.stat()
    # ctime and inode too: a rewrite that restores the size and mtime still changes them
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
    if key not in _DIGESTS:
        _DIGESTS[key] = sha256_file(path)
    return _DIGESTS[key]


def _mismatches(folder: Path, manifest: dict, digest) -> list[tuple[str, dict, Path, str]]:
    """(name, manifest entry, path, "missing" or "sha256") for every table and file the manifest
    lists that is absent or whose ``digest`` differs; ``verify`` and ``check_integrity`` read it."""
    out = []
    for name, info in [*(manifest.get("tables") or {}).items(), *(manifest.get("files") or {}).items()]:
        path = folder / info["file"]
        if not path.is_file():
            out.append((name, info, path, "missing"))
        elif digest(path) != info["sha256"]:
            out.append((name, info, path, "sha256"))
    return out


def check_integrity(snapshot_dir: str | Path) -> None:
    """Refuse a snapshot whose tables or files differ from its manifest, naming the table
    (``SnapshotIntegrityError``). The evaluator and ``snapshot diff`` go through this;
    digests are cached per process by path, size, mtime, ctime and inode. A bare folder of
    tables without a manifest's table list (tests, hand-made) is not checked."""
    folder = Path(snapshot_dir)
    if not (folder / MANIFEST).is_file():
        return
    try:
        manifest = read_manifest(folder)
    except (OSError, ValueError) as exc:
        raise SnapshotIntegrityError(str(exc)) from exc
    listed = manifest.get("tables") or {}
    unlisted = [t for t in TABLES if listed and t not in listed and (folder / f"{t}.parquet").exists()]
    if unlisted:  # a reader would take it for the version's own table
        raise SnapshotIntegrityError(f"{folder}: {unlisted[0]}.parquet is not in the manifest: a file "
                                     "added after the version was written")
    for name, info, _path, kind in _mismatches(folder, manifest, _digest)[:1]:
        if kind == "missing":
            raise SnapshotIntegrityError(f"{folder}: {name} ({info['file']}) is missing; the manifest lists it")
        raise SnapshotIntegrityError(f"{folder}: {name} ({info['file']}) differs from the manifest "
                                     f"(sha256): the snapshot was changed after it was written")


def open_snapshot(path_or_ref: str | Path, root: str | Path = "snapshots") -> Path:
    """``resolve``, then ``check_integrity``: the folder of a snapshot safe to read."""
    folder = resolve(path_or_ref, root)
    check_integrity(folder)
    return folder


def verify(snapshot_dir: str | Path) -> list[str]:
    """Problems found comparing the manifest with the files (empty when it all matches)."""
    folder = Path(snapshot_dir)
    manifest = read_manifest(folder)
    problems = [f"{name}: {path} is missing" if kind == "missing" else f"{name}: sha256 differs from the manifest"
                for name, _info, path, kind in _mismatches(folder, manifest, sha256_file)]
    for table, info in manifest["tables"].items():  # row counts of the tables present
        path = folder / info["file"]
        if path.is_file():
            try:
                rows = pl.scan_parquet(path).select(pl.len()).collect().item()
            except (OSError, pl.exceptions.PolarsError) as exc:
                problems.append(f"{table}: {path} is not a readable Parquet file ({str(exc).splitlines()[0]})")
                continue
            if rows != info["rows"]:
                problems.append(f"{table}: {rows} rows, manifest says {info['rows']}")
    problems += [f"{t}: {folder / f'{t}.parquet'} is not in the manifest" for t in TABLES
                 if manifest["tables"] and t not in manifest["tables"] and (folder / f"{t}.parquet").exists()]
    return problems
