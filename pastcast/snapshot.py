"""Versioned, immutable snapshots: ``snapshots/<name>/<version>/`` plus a ``LATEST`` pointer.

A snapshot is written into a hidden temporary folder and renamed into place, so a reader sees
a complete version or none. Versions are never overwritten: each build takes the next number,
records its parent, and its manifest carries row counts and sha256 of every table.
"""

from __future__ import annotations

import json
import logging
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
log = logging.getLogger(__name__)


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


_VERSION = re.compile(r"^v\d{1,18}$")
_POINTER_MAX = 64  # bytes: "vN" and a newline; anything longer is not a pointer


class PointerError(ValueError):
    """``LATEST`` holds something other than a version of its own folder."""


def latest_version(root: str | Path, name: str) -> str | None:
    """The version ``LATEST`` names; it must be a version of its own folder (``vN``), never a
    path elsewhere ("../../other/sample/v1" is refused), nor binary bytes or a number too long
    for a folder name (a ``PointerError`` naming the file, never a traceback)."""
    pointer = Path(root) / name / LATEST
    if not pointer.is_file():
        return None
    try:
        with open(pointer, "rb") as fh:
            raw = fh.read(_POINTER_MAX + 1)
    except OSError as exc:
        raise PointerError(f"{pointer}: cannot be read ({exc.strerror or exc})") from None
    text = raw.strip()
    if any(b < 0x20 or b > 0x7E for b in text):
        raise PointerError(f"{pointer} holds binary bytes, not a version of {pointer.parent} (vN): write the "
                           "version to publish into it, or remove it")
    if len(raw) > _POINTER_MAX:
        raise PointerError(f"{pointer} holds over {_POINTER_MAX} bytes ({text[:20].decode()}...), not a version of "
                           f"{pointer.parent} (vN)")
    version = text.decode("ascii") or None
    if version is not None and not _VERSION.match(version):
        raise PointerError(f"{pointer} names {version!r}, not a version of {pointer.parent} (vN)")
    return version


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
                   publish: bool = True, rehash: bool = False, unchanged_is_parent: bool = True) -> Path:
    """Write a new version of snapshot ``name`` and (``publish``) move ``LATEST`` to it; return
    its folder. A table is a frame (stored as one part) or a list of ``Part`` files already on
    disk (a crawl day each): a part whose digest the store holds, the parent's unchanged days,
    is named, never copied. ``inputs`` are paths (hashed here) or their ``{file, bytes, sha256}``
    already known. ``files`` are text files stored beside the manifest (e.g. the filter's
    ``audit.md``), hashed in it like the tables. The parent is the version LATEST points
    at: an unpublished version is nobody's parent. The manifest's ``store`` says how many bytes
    the version added to the store, how many parts it shares and which stored parts it found
    damaged and wrote again (``rehash``: every stored part it names is hashed, not only those
    whose stat changed since they were last hashed). No change, no version: when every table
    and the window are the parent's (``unchanged_is_parent``), no version is written
    and the parent's folder is returned; every build, new version or not, is a line of the
    snapshot's ``builds.jsonl``."""
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
            writer = PartWriter(folder, rehash=rehash)
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
                          "parts": sum(len(t["parts"]) for t in table_info.values()),
                          "parts_repaired": sorted(set(writer.repaired))},
                **(extra or {}),
            }
            writer.save()
            same = _same_as(parent, folder, manifest) if unchanged_is_parent else None
            if same is not None:  # no change, no version: the build is logged against its parent
                shutil.rmtree(staging, ignore_errors=True)
                append_lines(folder / BUILDS, [_build_entry(manifest, unchanged=True)])
                return same
            final = _claim_version(folder, staging, manifest)
            append_lines(folder / BUILDS, [_build_entry(manifest, unchanged=False)])
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    if publish:
        publish_version(final)
    return final


BUILDS = "builds.jsonl"  # every build, a new version or none (its tables were its parent's)


def content_digest(manifest: dict) -> dict:
    """What a version holds: each table's digest and the window. Stored files are reports of
    the run (the filter's audit.md carries its run time), not content."""
    return {"tables": {t: info.get("sha256") for t, info in sorted((manifest.get("tables") or {}).items())},
            "window": manifest.get("window")}


def _same_as(parent: str | None, folder: Path, manifest: dict) -> Path | None:
    """The parent's folder when the version about to be claimed holds exactly what it does."""
    if parent is None or not (folder / parent / MANIFEST).is_file():
        return None
    try:
        previous = read_manifest(folder / parent)
    except (OSError, ValueError):  # a damaged parent: write a version, the checks will say more
        return None
    return folder / parent if content_digest(previous) == content_digest(manifest) else None


def _build_entry(manifest: dict, unchanged: bool) -> dict:
    return {"built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "version": manifest["parent_version"] if unchanged else manifest["version"],
            "parent_version": manifest["parent_version"], "unchanged": unchanged,
            "window": manifest["window"], "partitions": manifest.get("partitions"),
            "inputs": len(manifest["inputs"]), "rows": {t: i["rows"] for t, i in manifest["tables"].items()}}


def is_unchanged_build(folder: str | Path, parent: str | None) -> bool:
    """Whether ``write_snapshot`` returned ``folder`` because nothing changed since ``parent``
    (the version LATEST named before the build): it gave back the parent itself."""
    return parent is not None and Path(folder).name == parent


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
    snapshot's ``history.jsonl``; nothing when LATEST names it already (an unchanged build)."""
    final = Path(snapshot_dir)
    folder = final.parent
    if latest_version(folder.parent, folder.name) == final.name:  # already there: nothing moves
        return
    entry = {"version": final.name, "published_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
             "previous": latest_version(folder.parent, folder.name), "checks": checks or {}}
    append_lines(folder / HISTORY, [entry])
    write_text(final.name + "\n", folder / LATEST)


def append_lines(path: Path, entries: list[dict]) -> None:
    """Append JSON lines to a log so each is whole on its own line: a line a crash cut short
    is closed with a newline first (the cut line stays a torn line, never glued to the next
    entry), and the entries go in one ``write`` of whole lines (O_APPEND)."""
    data = "".join(json.dumps(e) + "\n" for e in entries).encode("utf-8")
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        end = os.lseek(fd, 0, os.SEEK_END)
        if end and os.pread(fd, 1, end - 1) != b"\n":
            data = b"\n" + data
        while data:
            data = data[os.write(fd, data):]
    finally:
        os.close(fd)


def read_log(path: Path) -> list[dict]:
    """The entries of a JSON-lines log (``history.jsonl``, ``checks.jsonl``); a line that is not
    a JSON object (torn by a crash, damaged) is skipped with a warning naming file and line."""
    if not path.is_file():
        return []
    entries = []
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                entry = json.loads(raw)
            except ValueError:
                entry = None
            if isinstance(entry, dict):
                entries.append(entry)
            else:
                log.warning("%s line %d: not a whole JSON entry (torn by a crash?); skipped", path, number)
    return entries


CHECKS = "checks.jsonl"  # every blocking check run on a version: {version, check, passed, at}


def record_checks(snapshot_dir: str | Path, outcomes: dict[str, bool]) -> None:
    """Log that checks ran on this version (passed or not): a version never checked is one a
    killed build left, removed by the next build of the same work folder."""
    final = Path(snapshot_dir)
    at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    append_lines(final.parent / CHECKS, [{"version": final.name, "check": check, "passed": passed, "at": at}
                                         for check, passed in outcomes.items()])


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
    latest = latest_version(root, name)
    return logged_versions(root, name) | ({latest} if latest else set())


def logged_versions(root: str | Path, name: str) -> set[str]:
    """Versions ``history.jsonl`` says LATEST moved to (torn lines skipped, with a warning)."""
    return {e["version"] for e in read_log(Path(root) / name / HISTORY) if isinstance(e.get("version"), str)}


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
        except ValueError:  # LATEST damaged: the history still says what was published
            published = logged_versions(root, folder.name)
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


# Tables every version has had since the first format (later ones, e.g. question_evidence, may be
# absent from an older version); a manifest with a table list that lacks one was edited or cut.
REQUIRED_TABLES = ("articles", "questions", "markets", "market_prices", "posts", "drops")
BARE_REQUIRED = ("articles", "questions")  # a folder of tables whose manifest lists none (hand-made)


def missing_tables(folder: Path, manifest: dict) -> list[str]:
    """Tables the version must have that its manifest does not list (a replay of it would read
    them as empty: 0 questions); for a manifest without a table list, that folder's own files.
    A manifest written by ``write_snapshot`` always has a table list and a format."""
    listed = manifest.get("tables") or {}  # read_manifest gives {} when the key is absent
    if listed or "format" in manifest:
        return [t for t in REQUIRED_TABLES if t not in listed]
    return [t for t in BARE_REQUIRED if not (folder / f"{t}.parquet").is_file()]


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
    missing = missing_tables(folder, manifest)
    if missing:
        raise SnapshotIntegrityError(f"{folder / MANIFEST}: lists no {', '.join(missing)} table, which every "
                                     "version has: the manifest was edited or cut")
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
    problems = [f"{t}: not in the manifest's tables, which every version has (the manifest was edited or cut)"
                for t in missing_tables(folder, manifest)]
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
    keeps the version's number. The source is verified first (every part hashed: a damaged
    version is refused, nothing written), then every part is hashed again in a staging folder of
    the destination and only then renamed into place (a stored part of the destination whose
    bytes do not match its name is replaced), the version folder last: on any failure nothing
    of it is left. ``link=False`` copies the bytes (a copy to be edited, e.g. by a test that
    damages it, must not share them)."""
    source = Path(snapshot_dir)
    manifest = read_manifest(source)
    target_root = Path(name_folder)
    target = target_root / source.name
    if target.exists():
        raise FileExistsError(f"{target} exists: versions are never overwritten")
    problems = verify(source)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise SnapshotIntegrityError(f"{source}: not copied, it does not match its manifest: {problems[0]}{more}; "
                                     "`pastcast snapshot verify` lists every problem")
    digests = {p["path"]: p["sha256"] for info in manifest["tables"].values() for p in info.get("parts") or []}
    with store_lock(target_root):
        staging = target_root / f"{STAGING}{_HOST}-{os.getpid()}-copy-{datetime.now(timezone.utc):%Y%m%dT%H%M%S%f}"
        staging.mkdir()
        try:
            placed = []
            for part in sorted(referenced_parts([manifest])):
                stored = target_root / part
                if stored.is_file() and sha256_file(stored) == digests[part]:
                    continue  # the destination already holds it, intact
                held = staging / part
                held.parent.mkdir(parents=True, exist_ok=True)
                if link:
                    link_or_copy(source.parent / part, held)
                else:
                    shutil.copyfile(source.parent / part, held)
                if sha256_file(held) != digests[part]:  # changed since it was verified
                    raise SnapshotIntegrityError(f"{source.parent / part}: its sha256 differs from {source / MANIFEST} "
                                                 "(changed while being copied); nothing copied")
                placed.append((held, stored))
            version = staging / "version"
            shutil.copytree(source, version, ignore=shutil.ignore_patterns("index", "index-posts"))
            for name, info in (manifest.get("files") or {}).items():
                if sha256_file(version / info["file"]) != info["sha256"]:
                    raise SnapshotIntegrityError(f"{source / info['file']}: its sha256 differs from the manifest "
                                                 "(changed while being copied); nothing copied")
            for held, stored in placed:
                stored.parent.mkdir(parents=True, exist_ok=True)
                os.replace(held, stored)
            os.rename(version, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return target
