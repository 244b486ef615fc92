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
from pastcast.io import MANIFEST, read_manifest, sha256_file, write_json, write_text
from pastcast.schemas import TABLES
from pastcast.store import (WHOLE, Part, PartWriter, link_or_copy, referenced_parts, remove_temporaries, store_lock,
                            table_entry, table_files)

FORMAT = 2  # tables as content-addressed parts shared by versions (1: each version's own files)

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


def write_snapshot(tables: dict[str, pl.DataFrame | list[Part]], root: str | Path, name: str,
                   window: tuple[date, date], inputs: list[str | Path | dict] = (),
                   stage_counts: dict | None = None, config: dict | None = None,
                   extra: dict | None = None, files: dict[str, str] | None = None,
                   publish: bool = True) -> Path:
    """Write a new version of snapshot ``name`` and (``publish``) move ``LATEST`` to it; return
    its folder. A table is a frame (stored as one part) or a list of ``Part`` files already on
    disk (a crawl day each): a part whose digest the store holds, the parent's unchanged days,
    is named, never copied. ``inputs`` are paths (hashed here) or their ``{file, bytes, sha256}``
    already known. ``files`` are text files stored beside the manifest (e.g. the filter's
    ``audit.md``), hashed in it like the tables. The parent is the version LATEST points
    at: an unpublished version is nobody's parent. The manifest's ``store`` says how many bytes
    the version added to the store and how many parts it shares."""
    unknown = set(tables) - set(TABLES)
    if unknown:
        raise ValueError(f"unknown snapshot tables {sorted(unknown)}; known: {sorted(TABLES)}")
    folder = Path(root) / name
    folder.mkdir(parents=True, exist_ok=True)
    remove_abandoned_staging(folder)
    with store_lock(folder):  # `snapshot gc` never removes a part while a version is written
        remove_temporaries(folder)
        staging = folder / f"{STAGING}{_HOST}-{os.getpid()}-{datetime.now(timezone.utc):%Y%m%dT%H%M%S%f}"
        staging.mkdir()
        try:
            writer = PartWriter(folder)
            table_info = {}
            for table, schema in TABLES.items():
                given = tables.get(table)
                if isinstance(given, list):
                    parts = [writer.part(table, p) for p in given]
                else:
                    frame = given if given is not None else pl.DataFrame(schema=dict(schema))
                    parts = [writer.frame(table, frame)]
                table_info[table] = table_entry(parts)
            file_info = {}
            for file_name, text in (files or {}).items():
                path = write_text(text, staging / file_name)
                file_info[file_name] = {"file": path.name, "sha256": sha256_file(path)}
                writer.written += path.stat().st_size
            drops = tables.get("drops")
            parent = latest_version(root, name)
            manifest = {
                "name": name,
                "version": None,  # set when the version number is taken
                "format": FORMAT,
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
                "drops_by_reason": (extra or {}).pop("drops_by_reason", None) or (
                    counts_by_reason(drops) if isinstance(drops, pl.DataFrame) else {}),
                "llm": {"calls": 0, "tokens": 0, "cost_usd": 0.0},
                "store": {"bytes_written": writer.written, "parts_shared": writer.shared,
                          "parts": sum(len(t["parts"]) for t in table_info.values())},
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


def passed_checks(snapshot_dir: str | Path) -> set[str]:
    """The checks whose latest run on this version passed (from the check log)."""
    final = Path(snapshot_dir)
    path = final.parent / CHECKS
    latest: dict[str, bool] = {}
    for line in path.read_text(encoding="utf-8").splitlines() if path.is_file() else []:
        try:
            entry = json.loads(line)
            if entry["version"] == final.name:
                latest[entry["check"]] = bool(entry["passed"])
        except (ValueError, KeyError, TypeError):
            continue  # a line cut by a crash
    return {check for check, passed in latest.items() if passed}


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


def part_label(table: str, key: str | None) -> str:
    """How a message names a part: the table alone when it is stored whole."""
    return table if key in (None, WHOLE) else f"{table} part {key}"


def _entries(folder: Path, manifest: dict) -> list[tuple[str, dict, Path]]:
    """(name, entry, path) of every file the manifest lists: each table's parts (or, in the older
    layout, its file) and the version's own files."""
    out = []
    for table, info in (manifest.get("tables") or {}).items():
        if "parts" in info:
            out += [(part_label(table, p["key"]), p, folder.parent / p["path"]) for p in info["parts"]]
        else:
            out.append((table, info, folder / info["file"]))
    out += [(name, info, folder / info["file"]) for name, info in (manifest.get("files") or {}).items()]
    return out


def _mismatches(folder: Path, manifest: dict, digest,
                trusted: frozenset[str] = frozenset()) -> list[tuple[str, dict, Path, str]]:
    """(name, manifest entry, path, "missing", "size" or "sha256") for every file the manifest
    lists that is absent or whose ``digest`` differs; parts in ``trusted`` (paths proved when a
    published parent was checked) are compared by size only. ``verify`` and
    ``check_integrity`` read it."""
    out = []
    for name, info, path in _entries(folder, manifest):
        if not path.is_file():
            out.append((name, info, path, "missing"))
        elif info.get("path") in trusted:
            if info.get("bytes") is not None and path.stat().st_size != info["bytes"]:
                out.append((name, info, path, "size"))
        elif digest(path) != info["sha256"]:
            out.append((name, info, path, "sha256"))
    return out


def _unlisted(folder: Path, manifest: dict) -> list[str]:
    """Table files in the version's folder that its manifest does not list (a file added after
    the version was written, which a reader could take for the version's own table)."""
    listed = manifest.get("tables") or {}
    if not listed:
        return []
    own = {info["file"] for info in listed.values() if "file" in info}
    return [t for t in TABLES if f"{t}.parquet" not in own and (folder / f"{t}.parquet").exists()]


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
    unlisted = _unlisted(folder, manifest)
    if unlisted:  # a reader would take it for the version's own table
        raise SnapshotIntegrityError(f"{folder}: {unlisted[0]}.parquet is not in the manifest: a file "
                                     "added after the version was written")
    for name, info, path, kind in _mismatches(folder, manifest, _digest)[:1]:
        if kind == "missing":
            raise SnapshotIntegrityError(f"{folder}: {name} ({path.name}) is missing; the manifest lists it")
        raise SnapshotIntegrityError(f"{folder}: {name} ({path.name}) differs from the manifest "
                                     f"(sha256): the snapshot was changed after it was written")


def open_snapshot(path_or_ref: str | Path, root: str | Path = "snapshots") -> Path:
    """``resolve``, then ``check_integrity``: the folder of a snapshot safe to read."""
    folder = resolve(path_or_ref, root)
    check_integrity(folder)
    return folder


def proved_by_parent(snapshot_dir: str | Path) -> frozenset[str]:
    """Parts this version shares with its parent when the parent was published (its blocking
    checks, the manifest check among them, passed): an incremental check compares them by
    size; ``snapshot check --full`` and ``snapshot verify`` hash them again."""
    folder = Path(snapshot_dir)
    parent = published_parent(folder)
    try:
        theirs = read_manifest(parent) if parent is not None else None
    except (OSError, ValueError):
        return frozenset()
    return frozenset(referenced_parts([theirs]) & referenced_parts([read_manifest(folder)])) if theirs else frozenset()


def published_parent(snapshot_dir: str | Path) -> Path | None:
    """The folder of this version's parent when the parent was published (so passed every
    blocking check), else None."""
    folder = Path(snapshot_dir)
    parent = read_manifest(folder).get("parent_version")
    if not parent or not (folder.parent / parent / MANIFEST).is_file():
        return None
    try:
        return folder.parent / parent if parent in published_versions(folder.parent.parent, folder.parent.name) else None
    except (OSError, ValueError):
        return None


def verify(snapshot_dir: str | Path, full: bool = True) -> list[str]:
    """Problems found comparing the manifest with the files (empty when it all matches): every
    part's sha256 and row count. ``full=False`` takes the parts shared with a published parent
    as proved (their size is still compared) and reads only the new ones."""
    folder = Path(snapshot_dir)
    manifest = read_manifest(folder)
    trusted = frozenset() if full else proved_by_parent(folder)
    problems = []
    for name, _info, path, kind in _mismatches(folder, manifest, sha256_file, trusted):
        problems.append(f"{name}: {path} is missing" if kind == "missing" else
                        f"{name}: {path.name} is not the size the manifest states" if kind == "size" else
                        f"{name}: sha256 differs from the manifest")
    for table, info in manifest["tables"].items():  # row counts of the files present
        entries = info["parts"] if "parts" in info else [{**info, "key": None}]
        for entry in entries:
            if entry.get("path") in trusted:
                continue
            path = folder.parent / entry["path"] if "path" in entry else folder / entry["file"]
            label = part_label(table, entry["key"])
            if not path.is_file():
                continue
            try:
                rows = pl.scan_parquet(path).select(pl.len()).collect().item()
            except (OSError, pl.exceptions.PolarsError) as exc:
                problems.append(f"{label}: {path} is not a readable Parquet file ({str(exc).splitlines()[0]})")
                continue
            if rows != entry["rows"]:
                problems.append(f"{label}: {rows} rows, manifest says {entry['rows']}")
        if "parts" in info and sum(p["rows"] for p in info["parts"]) != info.get("rows"):
            problems.append(f"{table}: the parts hold {sum(p['rows'] for p in info['parts'])} rows, "
                            f"the manifest says {info.get('rows')}")
    problems += [f"{t}: {folder / f'{t}.parquet'} is not in the manifest" for t in _unlisted(folder, manifest)]
    return problems



def copy_version(snapshot_dir: str | Path, name_folder: str | Path, link: bool = True) -> Path:
    """A version and every part it names into another snapshot folder (``snapshots/<other>``;
    parts hard-linked where the file system allows, so nothing is duplicated on one disk):
    how a version moves to another store or machine. Its manifest says what to copy; the copy
    keeps the version's number and is verified like any version. ``link=False`` copies the
    bytes (a copy to be edited, e.g. by a test that damages it, must not share them)."""
    source = Path(snapshot_dir)
    manifest = read_manifest(source)
    target_root = Path(name_folder)
    target = target_root / source.name
    if target.exists():
        raise FileExistsError(f"{target} exists: versions are never overwritten")
    with store_lock(target_root):
        for part in sorted(referenced_parts([manifest])):
            if link:
                link_or_copy(source.parent / part, target_root / part)
            elif not (target_root / part).exists():
                (target_root / part).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source.parent / part, target_root / part)
        staging = target_root / f"{STAGING}{_HOST}-{os.getpid()}-copy"
        shutil.copytree(source, staging, ignore=shutil.ignore_patterns("index", "index-posts"))
        os.rename(staging, target)
    return target
