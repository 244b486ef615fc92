from datetime import date
from pathlib import Path

import polars as pl
import pytest

from pastcast.schemas import ARTICLES, DROPS, frame
from pastcast.snapshot import (latest_version, list_snapshots, read_manifest, resolve, verify,
                               versions, write_snapshot)

WINDOW = (date(2026, 1, 1), date(2026, 3, 31))


def tables():
    drops = frame([{"item_id": "x", "item_kind": "article", "stage": "dedup", "reason": "exact_duplicate",
                    "detail": ""}], DROPS)
    return {"articles": frame([], ARTICLES), "drops": drops}


def _changed():
    more = tables()
    more["drops"] = pl.concat([more["drops"], more["drops"].with_columns(pl.lit("y").alias("item_id"))])
    return more


def test_versions_are_immutable_and_latest_moves(tmp_path):
    first = write_snapshot(tables(), tmp_path, "demo", WINDOW)
    second = write_snapshot(_changed(), tmp_path, "demo", WINDOW)
    assert (first.name, second.name) == ("v1", "v2")
    assert versions(tmp_path, "demo") == ["v1", "v2"] and latest_version(tmp_path, "demo") == "v2"
    assert read_manifest(second)["parent_version"] == "v1"
    assert resolve("demo", tmp_path) == second and resolve("demo/v1", tmp_path) == first
    assert list_snapshots(tmp_path)["latest"].to_list() == [False, True]
    assert not any(p.name.startswith(".staging") for p in (tmp_path / "demo").iterdir())


def test_no_change_no_version_the_build_is_logged_against_its_parent(tmp_path):
    import json

    from pastcast.snapshot import BUILDS, HISTORY, is_unchanged_build

    first = write_snapshot(tables(), tmp_path, "demo", WINDOW)
    again = write_snapshot(tables(), tmp_path, "demo", WINDOW, config={"a setting": "changed"})
    assert again == first and is_unchanged_build(again, "v1")  # the same tables: no new version
    assert versions(tmp_path, "demo") == ["v1"] and latest_version(tmp_path, "demo") == "v1"
    history = (tmp_path / "demo" / HISTORY).read_text().splitlines()
    assert len(history) == 1  # LATEST did not move again
    builds = [json.loads(line) for line in (tmp_path / "demo" / BUILDS).read_text().splitlines()]
    assert [(b["version"], b["unchanged"]) for b in builds] == [("v1", False), ("v1", True)]
    assert not any(p.name.startswith(".staging") for p in (tmp_path / "demo").iterdir())
    wider = write_snapshot(tables(), tmp_path, "demo", (WINDOW[0], date(2026, 4, 1)))  # another window
    assert wider.name == "v2" and not is_unchanged_build(wider, "v1")
    forced = write_snapshot(tables(), tmp_path, "demo", (WINDOW[0], date(2026, 4, 1)), unchanged_is_parent=False)
    assert forced.name == "v3"


def test_manifest_counts_and_hashes_match_and_tampering_is_caught(tmp_path):
    folder = write_snapshot(tables(), tmp_path, "demo", WINDOW, stage_counts={"dedup": {"rows_in": 2}})
    manifest = read_manifest(folder)
    assert manifest["tables"]["drops"]["rows"] == 1 and manifest["tables"]["questions"]["rows"] == 0
    assert manifest["drops_by_reason"] == {"dedup/exact_duplicate": 1}
    assert manifest["window"] == {"start": "2026-01-01", "end": "2026-03-31"}
    assert verify(folder) == []
    pl.DataFrame(schema=DROPS).write_parquet(folder / "drops.parquet")
    assert any("drops" in p for p in verify(folder))


def test_wrong_schema_is_refused_and_leaves_no_version(tmp_path):
    bad = {"articles": pl.DataFrame({"article_id": [1]})}
    with pytest.raises(ValueError, match="missing columns"):
        write_snapshot(bad, tmp_path, "demo", WINDOW)
    assert versions(tmp_path, "demo") == []
    assert [p.name for p in (tmp_path / "demo").iterdir()] in ([], ["parts"])  # the store, with no part
    assert not list((tmp_path / "demo").rglob("*.parquet"))


def test_resolve_explains_what_is_missing(tmp_path):
    with pytest.raises(FileNotFoundError, match="no snapshot"):
        resolve("nothing", tmp_path)


def test_outputs_get_the_usual_file_permissions(tmp_path):
    import os

    from pastcast.io import write_text

    mask = os.umask(0)
    os.umask(mask)
    path = write_text("hello", tmp_path / "f.txt")
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask  # not mkstemp's owner-only 0600


def test_input_digests_are_computed_once_per_file_version(tmp_path, monkeypatch):
    """A nightly snapshot lists every input's sha256 without reading the corpus again."""
    import os

    from pastcast import io

    files = [tmp_path / "a.warc.gz", tmp_path / "b.json"]
    for i, f in enumerate(files):
        f.write_bytes(b"x" * (i + 1))
    calls = []
    real = io.sha256_file
    monkeypatch.setattr(io, "sha256_file", lambda p: calls.append(Path(p).name) or real(p))
    cache = tmp_path / "work" / "input_digests.json"
    first = io.file_digests(files, cache)
    assert first == [{"file": "a.warc.gz", "bytes": 1, "sha256": real(files[0])},
                     {"file": "b.json", "bytes": 2, "sha256": real(files[1])}]
    assert io.file_digests(files, cache) == first and calls == ["a.warc.gz", "b.json"]
    files[1].write_bytes(b"yy!")  # replaced: hashed again
    os.utime(files[1], ns=(files[1].stat().st_atime_ns, files[1].stat().st_mtime_ns + 10**9))
    assert io.file_digests(files, cache)[1]["sha256"] == real(files[1]) and calls[-1] == "b.json"
    assert len(calls) == 3
