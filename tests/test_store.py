"""Versions that share unchanged data: a day added is a day stored, the old version reads as
before, retention keeps what kept versions need, checks and indexes cost what a version adds."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from pastcast import pipeline
from evalkit import last_day_held

from pastcast.daily import built_days
from pastcast.io import read_manifest
from pastcast.search.index import ArticleIndex
from pastcast.search.index_store import open_or_build
from pastcast.snapshot import latest_version, published_versions, verify, versions
from pastcast.snapshot_checks import ids_are_unique, run_blocking_checks
from pastcast.snapshot_gc import collect_garbage
from pastcast.store import read_table, referenced_parts, stored_parts, table_files


def store_bytes(folder: Path) -> int:
    seen, total = set(), 0
    for p in folder.rglob("*"):
        if p.is_file() and p.stat().st_ino not in seen:
            seen.add(p.stat().st_ino)
            total += p.stat().st_size
    return total


@pytest.fixture(scope="module")
def two_versions(demo_snapshot, tmp_path_factory):
    """The sample's working folder without its last crawl day -> v1; the day back -> v2 (the
    nightly case: one day added to an 80-day window, through the same tail `pastcast build` runs)."""
    root = tmp_path_factory.mktemp("store")
    work = root / "work"
    shutil.copytree(demo_snapshot.parent.parent.parent / "work", work)
    snapshots = root / "snapshots"
    with last_day_held(work, root / "held"):
        v1 = pipeline.tail(work, snapshots, "s")
        first = {"bytes": store_bytes(snapshots / "s"), "manifest": (v1 / "manifest.json").read_bytes(),
                 "questions": read_table(v1, "questions"), "articles": read_table(v1, "articles")}
    v2 = pipeline.tail(work, snapshots, "s")
    return work, snapshots, v1, v2, first, store_bytes(snapshots / "s")


def test_a_day_added_grows_the_store_by_far_less_than_a_version_and_both_verify(two_versions):
    work, snapshots, v1, v2, first, after = two_versions
    assert latest_version(snapshots, "s") == "v2" and {"v1", "v2"} <= published_versions(snapshots, "s")
    growth = after - first["bytes"]
    assert 0 < growth < first["bytes"] / 4, (growth, first["bytes"])
    assert verify(v1) == [] and verify(v2) == []
    # the first version reads exactly as before: same manifest, same rows
    assert (v1 / "manifest.json").read_bytes() == first["manifest"]
    assert read_table(v1, "questions").equals(first["questions"])
    assert read_table(v1, "articles").equals(first["articles"])
    m1, m2 = read_manifest(v1), read_manifest(v2)
    days1 = {p["key"]: p["path"] for p in m1["tables"]["articles"]["parts"]}
    days2 = {p["key"]: p["path"] for p in m2["tables"]["articles"]["parts"]}
    assert set(days2) - set(days1) == {f"day={built_days(work)[-1].isoformat()}"}
    shared = [k for k in days1 if days1[k] == days2[k]]
    assert len(shared) >= len(days1) - 3  # an old day changes only when its stories gained a copy
    assert m2["store"]["bytes_written"] < first["bytes"] / 4
    gathered = json.loads((work / "reports" / "articles.json").read_text())
    assert gathered["extra"]["days_rewritten"] <= len(days2) - len(shared)
    # the new day and the days whose stories it touched were read; the others not opened
    assert 1 <= gathered["extra"]["days_read"] <= len(days2) - len(shared) + 3 < len(days2) / 2


def test_the_incremental_tail_gives_what_a_full_one_gives(two_versions):
    """The revision memo searched the old questions in the new day only; a full filter over the
    same folder (every question searched in the whole corpus) keeps the same questions."""
    work, _snapshots, _v1, v2, _first, _after = two_versions
    memo = json.loads((work / "reports" / "filter.json").read_text())["extra"]["revision_memo"]
    # searched in the new day alone, or not at all when it resolved before every new article
    assert memo["reused"] > 0
    assert memo["searched_new_articles_only"] + memo["resolved_before_the_new_articles"] > 0
    records = {t: pl.read_parquet(work / f"{t}.parquet") for t in ("question_evidence", "drops/filter")}
    pipeline.filter_questions_stage(work, full=True)
    full = pl.read_parquet(work / "questions.parquet").sort("question_id")
    assert read_table(v2, "questions").sort("question_id").equals(full)
    # the drops and evidence kept from the build before, as stored, in the order a full build gives
    for table, incremental in records.items():
        assert incremental.height > 0 and incremental.equals(pl.read_parquet(work / f"{table}.parquet")), table


def test_an_index_grows_from_its_parents_and_ranks_like_a_fresh_one(two_versions, tmp_path):
    _work, _snapshots, v1, v2, _first, _after = two_versions
    cache = tmp_path / "cache"
    open_or_build(v1, cache, trust_snapshot_copy=False)
    grown = open_or_build(v2, cache, trust_snapshot_copy=False)
    assert grown.meta.get("grown_from") and grown.meta["added"] > 0
    fresh = ArticleIndex.build(read_table(v2, "articles"), tmp_path / "fresh")
    assert len(grown) == len(fresh)
    titles = read_table(v2, "articles")["title"].drop_nulls().to_list()[:8]
    last_day = read_table(v2, "articles")["published_at"].max().date()
    for title in titles:
        got = [(h.article_id, round(h.score, 4)) for h in grown.search(title, last_day, k=5)]
        want = [(h.article_id, round(h.score, 4)) for h in fresh.search(title, last_day, k=5)]
        assert got == want


def test_the_incremental_check_reads_the_new_parts_and_full_reads_all(two_versions, tmp_path):
    _work, snapshots, v1, v2, _first, _after = two_versions
    copy = tmp_path / "s"
    shutil.copytree(snapshots / "s", copy)  # bytes copied: the module's versions stay intact
    ours = copy / "v2"
    new = set(referenced_parts([read_manifest(ours)])) - set(referenced_parts([read_manifest(copy / "v1")]))
    shared = sorted(set(referenced_parts([read_manifest(copy / "v1")])) & set(referenced_parts([read_manifest(ours)])))
    article_shared = next(p for p in shared if p.startswith("parts/articles/"))
    damaged = copy / article_shared
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size: only a hash sees it
    damaged.write_bytes(bytes(data))
    by_name = {o.name: o for o in run_blocking_checks(ours)}
    assert by_name["manifest_matches_files"].passed  # a shared part was proved on the parent
    full = {o.name: o for o in run_blocking_checks(ours, full=True)}
    assert not full["manifest_matches_files"].passed
    assert any("sha256" in e for e in full["manifest_matches_files"].examples)
    damaged.write_bytes(bytes(data[:-1]))  # a size change is seen even incrementally
    assert not {o.name: o for o in run_blocking_checks(ours)}["manifest_matches_files"].passed
    assert new  # and the version's own parts are always hashed
    new_part = copy / sorted(new)[0]
    new_part.write_bytes(b"x" * new_part.stat().st_size)
    assert not {o.name: o for o in run_blocking_checks(ours)}["manifest_matches_files"].passed


def test_the_incremental_id_check_finds_a_new_id_repeating_an_old_one(two_versions, tmp_path):
    _work, snapshots, _v1, _v2, _first, _after = two_versions
    copy = tmp_path / "s"
    shutil.copytree(snapshots / "s", copy)
    ours = copy / "v2"
    assert ids_are_unique(ours, full=False).passed and ids_are_unique(ours).passed
    parts = {p["path"] for p in read_manifest(ours)["tables"]["articles"]["parts"]}
    old = parts & {p["path"] for p in read_manifest(copy / "v1")["tables"]["articles"]["parts"]}
    new_part = max((copy / p for p in parts - old), key=lambda f: pl.scan_parquet(f).select(pl.len()).collect().item())
    old_part = copy / sorted(old)[0]
    taken = pl.read_parquet(old_part)["article_id"][0]
    rows = pl.read_parquet(new_part)
    planted = pl.concat([rows, rows.head(1).with_columns(pl.lit(taken).alias("article_id")),
                         rows.head(1).with_columns(pl.lit(None, pl.String).alias("article_id"))])
    for part in (new_part, old_part):
        part.chmod(0o644)  # parts are read-only: this test damages its own copy
    planted.write_parquet(new_part)
    for full in (False, True):
        got = ids_are_unique(ours, full=full)
        assert not got.passed and any(repr(taken) in e for e in got.examples), (full, got.examples)
        assert any("None appears 1 times" in e for e in got.examples)
    # a repeat within the parts the published parent proved is the full check's to find
    rows.write_parquet(new_part)
    pl.concat([pl.read_parquet(old_part), pl.read_parquet(old_part).head(1)]).write_parquet(old_part)
    assert ids_are_unique(ours, full=False).passed and not ids_are_unique(ours, full=True).passed


def test_the_window_kept_per_part_is_the_window_of_the_gathered_articles(two_versions, tmp_path):
    from pastcast.daily import GATHERED_RECORD, gathered_window, scan_gathered
    from pastcast.search.visibility import news_window

    work = two_versions[0]
    want = news_window(scan_gathered(work))
    assert want is not None and gathered_window(work) == want
    # a record written before the bounds were kept is read from the parts, and the next gather adds them
    copy = tmp_path / "work"
    shutil.copytree(work, copy)
    record = json.loads((copy / GATHERED_RECORD).read_text())
    for info in record["days"].values():
        info.pop("window")
    (copy / GATHERED_RECORD).write_text(json.dumps(record))
    assert gathered_window(copy) == want
    pipeline.gather_news(copy)
    assert all("window" in info for info in json.loads((copy / GATHERED_RECORD).read_text())["days"].values())
    assert gathered_window(copy) == want


def test_retention_removes_old_versions_and_only_their_parts(two_versions, tmp_path):
    work, snapshots, *_ = two_versions
    root = tmp_path / "snapshots"
    shutil.copytree(snapshots, root)
    v3 = pipeline.tail(work, root, "s", always_new_version=True)  # nothing new: shares every part of v2
    assert latest_version(root, "s") == v3.name == "v3"
    # e.g. one whose checks failed (a version of v3's tables, written though nothing changed)
    unpublished = pipeline.snapshot(work, root, "s", [], publish=False, always_new_version=True)
    before = {p.relative_to(root / "s").as_posix() for p in stored_parts(root / "s")}
    plan = collect_garbage(root, "s", keep=1, dry_run=True)
    assert plan.removed_versions == ["v1", "v2"] and versions(root, "s") == ["v1", "v2", "v3", unpublished.name]
    result = collect_garbage(root, "s", keep=1)
    assert result.removed_versions == ["v1", "v2"] and versions(root, "s") == ["v3", unpublished.name]
    after = {p.relative_to(root / "s").as_posix() for p in stored_parts(root / "s")}
    needed = referenced_parts([read_manifest(root / "s" / v) for v in ("v3", unpublished.name)])
    assert needed <= after and after == needed  # nothing a kept version names is gone, nothing else stays
    assert result.removed_parts == len(before - after) > 0
    assert verify(root / "s" / "v3") == [] and verify(unpublished) == []
    assert all(o.passed for o in run_blocking_checks(root / "s" / "v3", full=True))
    with pytest.raises(ValueError, match="keep at least"):
        collect_garbage(root, "s", keep=0)


def test_a_version_copied_alone_keeps_its_parts(two_versions, tmp_path):
    from pastcast.snapshot import copy_version

    _work, _snapshots, _v1, v2, _first, _after = two_versions
    copied = copy_version(v2, tmp_path / "elsewhere")
    assert verify(copied) == []
    assert read_table(copied, "articles").equals(read_table(v2, "articles"))
    assert all(f.is_file() for f in table_files(copied, "articles"))
    with pytest.raises(FileExistsError):
        copy_version(v2, tmp_path / "elsewhere")
