"""Retention: ``pastcast snapshot gc --keep N`` removes published versions beyond the last N and
the parts only they named.

Kept, whatever N: LATEST, the last N published versions, and every version never published
(one being checked now, or one whose checks failed and waits for a person: a retention rule
never decides those). A part is removed only when no remaining version names it, under the
store's lock, so a version being written at the same time (which holds the lock until its
manifest is in place) never loses a part. A version is renamed out of sight before it is
deleted: a reader sees it whole or not at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pastcast.io import read_manifest
from pastcast.snapshot import latest_version, published_versions, versions
from pastcast.store import referenced_parts, remove_out_of_sight, remove_temporaries, store_lock, stored_parts


@dataclass
class GcResult:
    removed_versions: list[str] = field(default_factory=list)
    kept_versions: list[str] = field(default_factory=list)
    removed_parts: int = 0
    freed_bytes: int = 0
    dry_run: bool = False


def collect_garbage(root: str | Path, name: str, keep: int, dry_run: bool = False) -> GcResult:
    """Remove the published versions of ``name`` older than its last ``keep`` published ones
    (LATEST always kept), then every part no remaining version names. ``dry_run`` reports what
    would go. A remaining version whose manifest cannot be read stops it (what it names is
    unknown, so nothing is removed)."""
    if keep < 1:
        raise ValueError(f"--keep {keep}: keep at least the latest version (1 or more)")
    folder = Path(root) / name
    if not folder.is_dir():
        raise FileNotFoundError(f"no snapshot {name!r} under {Path(root).resolve()}")
    with store_lock(folder):
        every = versions(root, name)
        published = published_versions(root, name)
        latest = latest_version(root, name)
        newest_published = [v for v in every if v in published][-keep:]
        doomed = [v for v in every if v in published and v not in newest_published and v != latest]
        kept = [v for v in every if v not in doomed]
        manifests = []
        for version in kept:
            try:
                manifests.append(read_manifest(folder / version))
            except (OSError, ValueError) as exc:
                raise ValueError(f"{folder / version}: its manifest cannot be read ({exc}); "
                                 "nothing removed (what it names is unknown)") from exc
        needed = referenced_parts(manifests)
        unneeded = [p for p in stored_parts(folder) if p.relative_to(folder).as_posix() not in needed]
        result = GcResult(doomed, kept, len(unneeded), sum(p.stat().st_size for p in unneeded), dry_run)
        if dry_run:
            return result
        for version in doomed:
            result.freed_bytes += sum(p.stat().st_size for p in (folder / version).rglob("*") if p.is_file())
            remove_out_of_sight(folder / version)
        for path in unneeded:
            path.unlink(missing_ok=True)
        remove_temporaries(folder)
    return result
