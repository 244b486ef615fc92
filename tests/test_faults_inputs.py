"""Fault injection on a corpus and on snapshots (issue 18): every file under a corpus is read or
a drop, a build that lost an input does not move LATEST without an explicit allowance, a
damaged or hand-edited snapshot gives a one-line error, and a killed build leaves nothing
half-done for the next one. The WARC reader's faults are in test_faults_warc.py, the HTTP
server's in test_faults_http.py, the builds' determinism in test_faults_determinism.py."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
import zstandard
from click.testing import CliRunner

from pastcast import pipeline
from pastcast import snapshot as snapshots
from pastcast.cli import main
from pastcast.imports import import_social, run_markets
from pastcast.snapshot_checks import publish_if_sound, run_blocking_checks
from pastcast.store import read_table, table_files

SAMPLE = Path(__file__).parents[1] / "corpora" / "sample"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The sample corpus built once: (corpus copy, work folder, snapshots root), LATEST at v1."""
    root = tmp_path_factory.mktemp("built")
    corpus = root / "corpus"
    shutil.copytree(SAMPLE, corpus)
    folder = pipeline.run_all(corpus, root / "work", root / "snapshots", "s", publish=False)
    assert all(o.passed for o in publish_if_sound(folder))
    return corpus, root / "work", root / "snapshots"


def _copy(built, tmp_path):
    """A private copy of the built corpus, work folder and snapshots (ingest parts reused:
    copytree keeps sizes and mtimes, which key them)."""
    return [Path(shutil.copytree(p, tmp_path / p.name, symlinks=True)) for p in built]


def _reasons(folder: Path) -> dict[str, int]:
    drops = read_table(folder, "drops")
    return dict(drops.group_by("reason").len().iter_rows())


def test_a_truncated_market_dump_does_not_move_latest(built, tmp_path):
    corpus, work, snaps = _copy(built, tmp_path)
    dump = corpus / "markets" / "manifold.json"
    dump.write_bytes(dump.read_bytes()[: dump.stat().st_size // 3])
    folder = pipeline.run_all(corpus, work, snaps, "s", publish=False, days=[])  # the dump alone changed
    outcomes = {o.name: o for o in publish_if_sound(folder)}
    assert not outcomes["inputs_read_whole"].passed
    assert "manifold.json" in outcomes["inputs_read_whole"].examples[0]
    assert not outcomes["tables_kept_their_rows"].passed  # the markets table emptied
    assert snapshots.latest_version(snaps, "s") == "v1"
    assert _reasons(folder).get("truncated_file") == 1
    # the operator's explicit allowance publishes it, and the manifest says so
    allowed = pipeline.run_all(corpus, work, snaps, "s", publish=False, allow_input_loss=True, days=[])
    outcomes = {o.name: o for o in publish_if_sound(allowed)}
    assert all(o.passed for o in outcomes.values())
    assert outcomes["inputs_read_whole"].problems == 1 and outcomes["inputs_read_whole"].metadata["allowed"]
    assert snapshots.latest_version(snaps, "s") == allowed.name
    assert snapshots.read_manifest(allowed)["allowances"] == {"input_loss": True}


def test_a_build_that_keeps_its_inputs_passes_the_loss_checks(built):
    _corpus, _work, snaps = built
    folder = snapshots.resolve("s", snaps)
    outcomes = {o.name: o for o in run_blocking_checks(folder)}
    assert outcomes["inputs_read_whole"].passed and outcomes["inputs_read_whole"].problems == 0
    assert outcomes["tables_kept_their_rows"].passed


def test_every_file_under_a_corpus_is_read_or_dropped(tmp_path):
    corpus = tmp_path / "corpus"
    (corpus / "warc").mkdir(parents=True)
    first = sorted((SAMPLE / "warc").iterdir())[0]
    shutil.copy2(first, corpus / "warc")
    shared = tmp_path / "shared" / "more-warc"  # a linked folder of WARC files
    shared.mkdir(parents=True)
    shutil.copy2(sorted((SAMPLE / "warc").iterdir())[1], shared)
    os.symlink(shared, corpus / "warc" / "linked")
    os.symlink(corpus / "warc", shared / "loop")  # a link loop must not hang the walk
    (corpus / "warc" / "notes.txt").write_text("crawl notes")
    # ClueWeb's quirk: the first WARC-Date cannot be read and the name has no time stamp
    (corpus / "warc" / "clueweb-00.warc.gz").write_bytes(gzip.compress(
        b"WARC/1.0\r\nWARC-Type: warcinfo\r\nWARC-Date: 2008-10-294\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
        b"Content-Length: 4\r\n\r\nabcd\r\n\r\n"))
    social = tmp_path / "shared" / "reddit"
    shutil.copytree(SAMPLE / "social", social)
    (corpus / "social").mkdir()
    os.symlink(social, corpus / "social" / "reddit")
    (corpus / "social" / "LICENSE").write_text("CC-BY")
    (corpus / "README.md").write_text("where it came from")
    files = pipeline.CorpusFiles.discover(corpus)
    assert {p.parent.name for p in files.warc} >= {"warc", "linked"}  # the linked WARC is read
    assert len(files.social["reddit"]) == len(list(social.iterdir()))  # the linked dumps too
    reasons = {Path(p).name: r for p, (r, _d) in files.not_read.items()}
    assert reasons == {"notes.txt": "not_a_warc_file", "clueweb-00.warc.gz": "undated_file",
                       "README.md": "outside_layout"}
    assert "2008-10-294" in files.not_read[str(corpus / "warc" / "clueweb-00.warc.gz")][1]
    report = files.report()
    assert report.rows_in - report.rows_out == sum(report.drops.values()) == 3
    drops = files.drops()
    assert drops.height == 3 and set(drops["stage"]) == {"corpus"}
    # a dump folder's non-data file is the import stage's drop
    result = run_markets({}, {t: tmp_path / "m" / f"{t}.parquet" for t in ("markets", "market_prices", "drops")},
                         [corpus / "social" / "LICENSE"])
    assert result.drops_by_reason == {"markets/not_a_data_file": 1}


def test_a_truncated_zstd_dump_keeps_the_lines_before_the_cut(tmp_path):
    lines = [json.dumps({"id": f"p{i}", "subreddit": "worldnews", "author": "a", "created_utc": 1767225600 + i,
                         "title": f"Post {i}", "selftext": "text " * 20, "score": 1}) for i in range(3000)]
    data = zstandard.ZstdCompressor().compress("\n".join(lines).encode())
    cut = tmp_path / "reddit_cut.ndjson.zst"
    cut.write_bytes(data[: len(data) * 2 // 3])
    result = import_social("reddit", [cut], tmp_path / "out")
    assert result.drops_by_reason.get("social/truncated_file") == 1
    kept = pl.read_parquet(result.paths["posts"]).height
    assert 0 < kept < len(lines)
    detail = pl.read_parquet(result.paths["drops"]).filter(pl.col("reason") == "truncated_file")["detail"].item()
    assert "reddit_cut.ndjson.zst" in detail and "byte" in detail


@pytest.mark.parametrize("field,value", [("question", 12345), ("question", ["a", "b"]),
                                         ("textDescription", {"x": 1})])
def test_a_market_field_of_the_wrong_type_is_a_drop(tmp_path, field, value):
    doc = json.loads((SAMPLE / "markets" / "manifold.json").read_text())
    doc["markets"][0][field] = value
    dump = tmp_path / "manifold.json"
    dump.write_text(json.dumps(doc))
    result = run_markets({"manifold": [dump]}, {t: tmp_path / f"{t}.parquet" for t in
                                                ("markets", "market_prices", "drops")})
    assert result.rows["markets"] >= len(doc["markets"]) - 1 - result.drops_by_reason.get("markets/malformed_market", 0)
    if field == "question":
        assert result.drops_by_reason.get("markets/malformed_market", 0) >= 1


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


def test_damaged_snapshots_give_one_line_errors(built, tmp_path):
    _c, _w, snaps = _copy(built, tmp_path)
    version = snaps / "s" / "v1"
    part = table_files(version, "markets")[0]  # of this test's own copy of the store
    part.chmod(0o644)
    part.write_bytes(part.read_bytes()[:300])
    result = _cli("snapshot", "verify", str(version))
    assert result.exit_code == 1 and "not a readable Parquet file" in result.output
    result = _cli("snapshot", "check", str(version))
    assert result.exit_code == 1 and "manifest_matches_files" in result.output
    assert isinstance(result.exception, SystemExit)  # an exit, not an exception
    (version / "manifest.json").write_text("{not json")
    for command in ("verify", "show", "check"):
        result = _cli("snapshot", command, str(version))
        assert result.exit_code == 1 and "manifest.json" in result.output.replace("\n", ""), command
        assert isinstance(result.exception, SystemExit), command
    assert _cli("snapshot", "list", "--root", str(snaps)).exit_code == 0  # listed, marked unreadable
    (snaps / "s" / "LATEST").unlink()
    result = _cli("snapshot", "verify", "s", "--root", str(snaps))
    assert result.exit_code == 1 and "no LATEST" in result.output
    (snaps / "s" / "LATEST").write_text("v9\n")
    result = _cli("snapshot", "verify", "s", "--root", str(snaps))
    assert result.exit_code == 1 and "v9" in result.output and "v1" in result.output


def test_a_table_added_beside_the_manifest_is_refused(built, tmp_path):
    _c, _w, snaps = _copy(built, tmp_path)
    version = snaps / "s" / "v1"
    manifest = json.loads((version / "manifest.json").read_text())
    posts = table_files(version, "posts")[0]
    del manifest["tables"]["posts"]  # as if posts were never written, then a file put beside it
    (version / "manifest.json").write_text(json.dumps(manifest))
    shutil.copyfile(posts, version / "posts.parquet")
    with pytest.raises(snapshots.SnapshotIntegrityError, match="posts"):
        snapshots.check_integrity(version)
    assert any("posts" in p and "not in the manifest" in p for p in snapshots.verify(version))
    manifest["tables"]["articles"]["parts"][0]["path"] = "../elsewhere.parquet"  # never read outside the store
    (version / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="own folder"):
        snapshots.read_manifest(version)


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_killed_builds_staging_and_unchecked_version_are_cleaned_up(built, tmp_path):
    _c, work, snaps = _copy(built, tmp_path)
    name_dir = snaps / "s"
    host = snapshots._HOST
    dead = name_dir / f"{snapshots.STAGING}{host}-{_dead_pid()}-20260101T000000000000"
    alive = name_dir / f"{snapshots.STAGING}{host}-{os.getpid()}-20260101T000000000000"
    other_host = name_dir / f"{snapshots.STAGING}elsewhere-{_dead_pid()}-20260101T000000000000"
    for folder in (dead, alive, other_host):
        folder.mkdir()
    unchecked = pipeline.snapshot(work, snaps, "s", [], publish=False, always_new_version=True)  # then killed
    assert not dead.exists() and alive.exists() and other_host.exists()
    # the next build of the same work folder removes the version whose checks never ran ...
    following = pipeline.snapshot(work, snaps, "s", [], publish=False, always_new_version=True)
    assert snapshots.versions(snaps, "s") == ["v1", following.name] == ["v1", unchecked.name]  # one, not two
    # ... but never a version that was checked (passed or failed) or published
    run_blocking_checks(following)
    pipeline.snapshot(work, snaps, "s", [], publish=False, always_new_version=True)
    assert following.exists() and (name_dir / "v1").exists()
