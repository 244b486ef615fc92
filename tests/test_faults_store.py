"""Faults of the snapshot store (issue 36, items 5, 7 and 8): a stored part whose bytes no longer
match its name is written again, never named by a new version; `snapshot copy` from a damaged
version leaves nothing behind; a manifest missing a table every version has is refused; a torn
line of history.jsonl is reported and tolerated; a garbage LATEST is a one-line error; and a
build run again over its working folder stores the drops table an uninterrupted build stores.

Every case works on its own copy (bytes, not links) of the session's demo build."""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from pastcast import pipeline
from pastcast import snapshot as snapshots
from pastcast.cli import main
from pastcast.evaluate.environment import ReplayEnvironment
from pastcast.io import read_manifest
from pastcast.snapshot_gc import collect_garbage
from pastcast.store import read_table, referenced_parts

SAMPLE = Path(__file__).parents[1] / "corpora" / "sample"


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


def _one_line_error(result, *words: str) -> None:
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # an exit, not a traceback
    assert "Traceback" not in result.output
    text = result.output.replace("\n", "")
    for word in words:
        assert word in text, (word, result.output)


@pytest.fixture(scope="module")
def base(demo_snapshot, tmp_path_factory) -> Path:
    """The demo build copied: name ``sample``, v1 published, and v2 (the same build again: it
    shares every part of v1) published."""
    built = demo_snapshot.parent.parent.parent
    folder = tmp_path_factory.mktemp("store-base")
    shutil.copytree(built / "work", folder / "work")
    shutil.copytree(built / "snapshots", folder / "snapshots")
    v2 = pipeline.tail(folder / "work", folder / "snapshots", "sample", always_new_version=True)
    assert v2.name == "v2" and snapshots.latest_version(folder / "snapshots", "sample") == "v2"
    return folder


@pytest.fixture
def store(base, tmp_path) -> tuple[Path, Path]:
    """(work folder, snapshots root): this test's own copy of ``base``, bytes copied."""
    for sub in ("work", "snapshots"):
        shutil.copytree(base / sub, tmp_path / sub)
    return tmp_path / "work", tmp_path / "snapshots"


def _shared_part(root: Path, prefix: str = "parts/articles/") -> Path:
    folder = root / "sample"
    both = referenced_parts([read_manifest(folder / "v1")]) & referenced_parts([read_manifest(folder / "v2")])
    return folder / sorted(p for p in both if p.startswith(prefix))[0]


def _damage(part: Path, truncate: bool = False) -> bytes:
    """One byte flipped (same size: only a hash sees it) or the tail cut; returns the bytes before."""
    good = part.read_bytes()
    part.chmod(0o644)  # parts are read-only: the test damages its own copy
    data = bytearray(good)
    data[len(data) // 2] ^= 0xFF
    part.write_bytes(bytes(data[: len(data) // 2]) if truncate else bytes(data))
    return good


# ------------------------------------------------------- damaged parts are repaired, not named


@pytest.mark.parametrize("truncate", [False, True], ids=["flipped_byte", "truncated"])
def test_a_damaged_shared_part_is_written_again_and_the_next_version_verifies(store, truncate):
    work, root = store
    part = _shared_part(root)
    good = _damage(part, truncate)
    v3 = pipeline.tail(work, root, "sample", always_new_version=True)
    assert snapshots.latest_version(root, "sample") == "v3"  # published, and sound:
    assert snapshots.verify(v3) == []
    assert part.read_bytes() == good  # repaired in place: every version naming it reads again
    assert snapshots.verify(root / "sample" / "v1") == [] and snapshots.verify(root / "sample" / "v2") == []
    entry = next(p for p in read_manifest(v3)["tables"]["articles"]["parts"] if root / "sample" / p["path"] == part)
    assert entry["bytes"] == len(good)  # never the damaged size
    assert read_manifest(v3)["store"]["parts_repaired"] == [part.relative_to(root / "sample").as_posix()]
    # the next build finds nothing to repair, and a full one (hashing every part) neither
    v4 = pipeline.tail(work, root, "sample", always_new_version=True)
    assert read_manifest(v4)["store"]["parts_repaired"] == [] and snapshots.verify(v4) == []


def test_a_full_build_repairs_a_part_whose_stat_was_put_back(store):
    """A damage that restores size and mtime (ctime still changes) is found without --full; and
    --full hashes every part whatever the record of verified parts says."""
    work, root = store
    part = _shared_part(root, "parts/drops/")
    before = part.stat()
    good = _damage(part)
    os.utime(part, ns=(before.st_atime_ns, before.st_mtime_ns))
    v3 = pipeline.tail(work, root, "sample", always_new_version=True)
    assert snapshots.verify(v3) == [] and part.read_bytes() == good
    record = root / "sample" / "parts" / ".verified.json"
    record.write_text(json.dumps({k: [0, 0, 0, 0] for k in json.loads(record.read_text())}))
    _damage(part)
    stat = part.stat()  # the record lies that the damaged bytes were verified
    rel = part.relative_to(root / "sample").as_posix()
    record.write_text(json.dumps({rel: [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]}))
    v4 = pipeline.tail(work, root, "sample", full=True, always_new_version=True)
    assert snapshots.verify(v4) == [] and part.read_bytes() == good
    assert read_manifest(v4)["store"]["parts_repaired"] == [rel]


# -------------------------------------------------------------------------- snapshot copy


def test_copy_from_a_damaged_version_leaves_nothing_and_a_retry_after_repair_works(store, tmp_path):
    _work, root = store
    part = _shared_part(root)
    good = _damage(part)
    dest = tmp_path / "elsewhere" / "sample"
    result = _cli("snapshot", "copy", "sample/v2", str(dest), "--root", str(root))
    _one_line_error(result, "not copied", "sha256")
    assert not dest.exists()  # nothing of it: no version, no part, no staging folder
    with pytest.raises(snapshots.SnapshotIntegrityError):
        snapshots.copy_version(root / "sample" / "v2", dest, link=False)
    assert not (dest / "v2").exists() and not list(dest.rglob("*.parquet"))
    part.write_bytes(good)  # repaired: the retry is not told the version exists
    result = _cli("snapshot", "copy", "sample/v2", str(dest), "--root", str(root))
    assert result.exit_code == 0, result.output
    assert snapshots.verify(dest / "v2") == []
    assert not [p for p in dest.iterdir() if p.name.startswith(".staging-")]


def test_copy_replaces_a_damaged_part_of_the_destination(store, tmp_path):
    _work, root = store
    dest = tmp_path / "elsewhere" / "sample"
    snapshots.copy_version(root / "sample" / "v1", dest, link=False)
    theirs = dest / _shared_part(root).relative_to(root / "sample")
    _damage(theirs)
    snapshots.copy_version(root / "sample" / "v2", dest, link=False)
    assert snapshots.verify(dest / "v2") == [] and snapshots.verify(dest / "v1") == []


# ------------------------------------------------------------------ a manifest missing a table


@pytest.mark.parametrize("cut", ["questions", "drops", "every_table"])
def test_a_manifest_missing_a_table_every_version_has_is_refused(store, cut):
    _work, root = store
    version = root / "sample" / "v2"
    manifest = json.loads((version / "manifest.json").read_text())
    if cut == "every_table":  # no table list and no format: a bare folder without its tables
        del manifest["tables"], manifest["format"]
    else:
        del manifest["tables"][cut]
    (version / "manifest.json").write_text(json.dumps(manifest))
    missing = "questions" if cut == "every_table" else cut
    assert any(missing in p for p in snapshots.verify(version))
    with pytest.raises(snapshots.SnapshotIntegrityError, match=missing):
        snapshots.check_integrity(version)
    with pytest.raises(snapshots.SnapshotIntegrityError, match=missing):
        ReplayEnvironment(version)  # the evaluator never replays 0 questions from it
    _one_line_error(_cli("snapshot", "verify", str(version)), missing)
    result = _cli("eval", "run", "--snapshot", str(version), "--agent", "retrieval", "--out",
                  str(root.parent / "run"))
    _one_line_error(result, missing)
    assert not (root.parent / "run" / "run.json").exists()


# ------------------------------------------------------------------------- history.jsonl


def test_a_torn_history_line_is_reported_and_a_build_after_it_publishes_a_whole_line(store, caplog):
    work, root = store
    history = root / "sample" / snapshots.HISTORY
    lines = history.read_text().splitlines()
    assert len(lines) == 2
    with open(history, "a") as fh:
        fh.write('{"version": "v9", "publi')  # a publish killed mid-write
    checks = root / "sample" / snapshots.CHECKS
    with open(checks, "a") as fh:
        fh.write('{"version": "v2", "che')
    with caplog.at_level(logging.WARNING):
        assert snapshots.published_versions(root, "sample") == {"v1", "v2"}
    assert any(str(history) in r.getMessage() and "line 3" in r.getMessage() for r in caplog.records)
    listed = snapshots.list_snapshots(root)
    assert listed["published"].to_list() == [True, True]
    v3 = pipeline.tail(work, root, "sample", always_new_version=True)
    assert snapshots.latest_version(root, "sample") == "v3"
    after = history.read_text().splitlines()
    assert after[:3] == [*lines, '{"version": "v9", "publi']  # the torn line stays a line of its own
    assert json.loads(after[3])["version"] == "v3" and len(after) == 4 and history.read_text().endswith("\n")
    assert "v3" in snapshots.checked_versions(root, "sample")  # its check lines are whole too
    assert snapshots.published_versions(root, "sample") == {"v1", "v2", "v3"}
    result = collect_garbage(root, "sample", keep=1)
    assert result.removed_versions == ["v1", "v2"] and snapshots.verify(v3) == []
    assert _cli("snapshot", "gc", "sample", "--keep", "1", "--root", str(root)).exit_code == 0


# --------------------------------------------------------------------------------- LATEST


@pytest.mark.parametrize("pointer", [b"9" * 300, b"v" + b"9" * 300, bytes(range(256)), b"\xff\xfe v1\n"],
                         ids=["300_digits", "v_and_300_digits", "binary", "not_utf8"])
def test_a_garbage_latest_is_a_one_line_error_naming_the_file(store, pointer):
    _work, root = store
    latest = root / "sample" / snapshots.LATEST
    latest.write_bytes(pointer)
    for args in (["snapshot", "verify", "sample"], ["snapshot", "show", "sample"],
                 ["snapshot", "gc", "sample", "--keep", "1"],
                 ["eval", "run", "--snapshot", "sample", "--agent", "retrieval", "--out", str(root.parent / "run")]):
        _one_line_error(_cli(*args, "--root", str(root)), str(latest))
    result = _cli("build", "--corpus", str(SAMPLE), "--work", str(root.parent / "w2"), "--snapshots", str(root),
                  "--name", "sample")
    _one_line_error(result, str(latest))
    assert not (root.parent / "w2").exists()  # named before any stage ran
    assert _cli("snapshot", "list", "--root", str(root)).exit_code == 0
    assert snapshots.list_snapshots(root)["published"].to_list() == [True, True]


# --------------------------------------------------------------------- the drops table


def test_a_build_run_again_over_its_work_folder_stores_the_drops_of_an_uninterrupted_build(demo_snapshot,
                                                                                            tmp_path):
    """A build killed after its days were deduplicated, then run again (or a second build on the
    same folder): every day is deduplicated again, after the later days. Its drops table is the
    uninterrupted build's, row for row."""
    built = demo_snapshot.parent.parent.parent
    work = tmp_path / "work"
    shutil.copytree(built / "work", work)
    files = pipeline.CorpusFiles.discover(SAMPLE)
    candidates = pl.read_parquet(work / "question_candidates.parquet")
    pipeline.build_news(files.warc, work)  # the rerun: every day again
    pipeline.generate(work)
    # the filter's input is the uninterrupted build's, so are its outputs (not run again: 4 s)
    assert pl.read_parquet(work / "question_candidates.parquet").equals(candidates)
    again = pipeline.snapshot(work, tmp_path / "snapshots", "sample", [], corpus=files, publish=False)
    want, got = read_table(demo_snapshot, "drops"), read_table(again, "drops")
    assert got.equals(want), (got.join(want, on=list(want.columns), how="anti"),
                              want.join(got, on=list(want.columns), how="anti"))
    assert got.group_by("item_kind", "item_id").len().filter(pl.col("len") > 1).is_empty()
    assert read_manifest(again)["drops_by_reason"] == read_manifest(demo_snapshot)["drops_by_reason"]
