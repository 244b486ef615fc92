"""Nothing forged is replayed, nothing finished is overwritten (issue 18, goals 1 and 2): an
edited, truncated or deleted table is refused naming it, an index found in the snapshot folder
is never trusted, LATEST names only a version of its folder, and a run folder holding a run
needs --resume or --force, one writer at a time."""

from __future__ import annotations

import polars as pl
import pytest
from click.testing import CliRunner

from pastcast.cli import main
from pastcast.evaluate.run_folder import RunFolderBusy, claim_run_folder
from pastcast.snapshot import SnapshotIntegrityError, check_integrity, latest_version
from pastcast.snapshot import copy_version
from pastcast.store import read_table, table_files


@pytest.fixture(scope="module")
def built(demo_snapshot):
    return demo_snapshot.parent.parent, demo_snapshot


@pytest.fixture
def snapshot_copy(built, tmp_path):
    _, folder = built
    copy = copy_version(folder, tmp_path / "snapshots" / "s", link=False)  # its own bytes, to damage
    (tmp_path / "snapshots" / "s" / "LATEST").write_text(f"{copy.name}\n")
    return tmp_path / "snapshots", copy


def stored(folder, table: str):
    """The file holding (the first part of) a version's table, in the test's own copy."""
    return table_files(folder, table)[0]


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.parametrize("damage", ["edit", "truncate", "delete"])
def test_eval_run_refuses_a_tampered_table_naming_it(snapshot_copy, tmp_path, damage):
    root, folder = snapshot_copy
    questions = stored(folder, "questions")
    if damage == "edit":
        q = pl.read_parquet(questions)
        q.with_columns(pl.lit("Forged answer").alias("answer")).write_parquet(questions)
    elif damage == "truncate":
        questions.write_bytes(questions.read_bytes()[: questions.stat().st_size // 2])
    else:
        questions.unlink()
    result = cli("eval", "run", "--snapshot", "s", "--root", root, "--agent", "abstain", "--out", tmp_path / "run")
    assert result.exit_code != 0
    assert "questions" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "run" / "ledger.jsonl").exists()
    with pytest.raises(SnapshotIntegrityError, match="questions"):
        check_integrity(folder)


def test_an_index_found_in_the_snapshot_is_never_served(snapshot_copy, tmp_path, monkeypatch):
    """An index rebuilt in the version's folder with a re-dated article (its meta copied) is
    ignored: the evaluator builds its own from the verified table, in the user's cache."""
    from datetime import datetime, time, timezone  # noqa: F401

    from pastcast.evaluate.environment import ReplayEnvironment
    from pastcast.search.index import ArticleIndex
    from pastcast.search.index_store import _fingerprint

    monkeypatch.setenv("PASTCAST_CACHE", str(tmp_path / "cache"))
    _, folder = snapshot_copy
    env = ReplayEnvironment(folder)
    articles = read_table(folder, "articles")
    late = articles.filter(pl.col("date_source") != "crawl").sort("published_at").row(-1, named=True)
    early = datetime.combine(env.today, time(0), tzinfo=timezone.utc)  # visible on the first day
    forged = articles.with_columns(*(
        pl.when(pl.col("article_id") == late["article_id"]).then(pl.lit(early)).otherwise(pl.col(c)).alias(c)
        for c in ("published_at", "crawled_at")))
    ArticleIndex.build(forged, folder / "index", meta={"fingerprint": _fingerprint(folder, "articles")})
    query = late["title"]
    # the forged index would serve it on the first day: the test is not vacuous
    assert late["article_id"] in {h.article_id for h in ArticleIndex.open(folder / "index").search(query, env.today, 50)}
    assert late["article_id"] not in {h.article_id for h in env.search(query, k=50)}


def test_latest_must_name_a_version_of_its_own_folder(snapshot_copy, tmp_path):
    root, _ = snapshot_copy
    (root / "s" / "LATEST").write_text("../../other/sample/v1\n")
    with pytest.raises(ValueError, match="not a version"):
        latest_version(root, "s")
    result = cli("eval", "run", "--snapshot", "s", "--root", root, "--agent", "abstain", "--out", tmp_path / "run")
    assert result.exit_code != 0 and "not a version" in result.output and "Traceback" not in result.output


def test_a_finished_run_is_never_overwritten_without_force(snapshot_copy, tmp_path):
    root, _ = snapshot_copy
    out = tmp_path / "run"
    assert cli("eval", "run", "--snapshot", "s", "--root", root, "--agent", "abstain", "--out", out).exit_code == 0
    ledger = (out / "ledger.jsonl").read_bytes()
    again = cli("eval", "run", "--snapshot", "s", "--root", root, "--agent", "retrieval", "--out", out)
    assert again.exit_code != 0 and "--force" in again.output and "Traceback" not in again.output
    assert (out / "ledger.jsonl").read_bytes() == ledger  # intact
    resumed = cli("eval", "run", "--snapshot", "s", "--root", root, "--agent", "abstain", "--out", out, "--resume")
    assert resumed.exit_code != 0 and "nothing to resume" in resumed.output
    forced = cli("eval", "run", "--snapshot", "s", "--root", root, "--agent", "abstain", "--out", out, "--force")
    assert forced.exit_code == 0, forced.output


def test_one_writer_per_run_folder(tmp_path):
    held = claim_run_folder(tmp_path / "run")
    try:
        with pytest.raises(RunFolderBusy, match="another run"):
            claim_run_folder(tmp_path / "run")
    finally:
        held.release()
    claim_run_folder(tmp_path / "run").release()  # free again once released


def test_serve_refuses_a_finished_run_folder(snapshot_copy, tmp_path):
    from pastcast.evaluate.serve import make_server

    root, folder = snapshot_copy
    out = tmp_path / "run"
    assert cli("eval", "run", "--snapshot", "s", "--root", root, "--agent", "abstain", "--out", out).exit_code == 0
    with pytest.raises(FileExistsError, match="finished run"):
        make_server(folder, out)


def test_a_table_swapped_between_the_check_and_the_first_search_is_not_indexed(snapshot_copy, tmp_path,
                                                                              monkeypatch):
    """The index is keyed by the bytes it read, which must be the manifest's: a file swapped
    after the environment opened is refused, and no forged index reaches the cache."""
    from pastcast.evaluate.environment import ReplayEnvironment

    monkeypatch.setenv("PASTCAST_CACHE", str(tmp_path / "cache"))
    _, folder = snapshot_copy
    env = ReplayEnvironment(folder)
    articles = stored(folder, "articles")
    genuine = articles.read_bytes()
    pl.read_parquet(articles).with_columns(pl.col("title").str.to_uppercase()).write_parquet(articles)
    with pytest.raises(ValueError, match="articles"):
        env.search("cup", k=5)
    articles.write_bytes(genuine)
    assert ReplayEnvironment(folder).search("cup", k=5) is not None  # the genuine table indexes fine


def test_a_rewrite_that_restores_size_and_mtime_is_still_caught(snapshot_copy):
    import os

    _, folder = snapshot_copy
    check_integrity(folder)  # digests cached
    path = stored(folder, "questions")
    st = path.stat()
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(SnapshotIntegrityError, match="questions"):
        check_integrity(folder)


def test_eval_score_refuses_a_finished_run_folder(snapshot_copy, tmp_path):
    root, _ = snapshot_copy
    out = tmp_path / "run"
    assert cli("eval", "run", "--snapshot", "s", "--root", root, "--agent", "abstain", "--out", out).exit_code == 0
    forecasts = tmp_path / "f.jsonl"
    forecasts.write_text("")
    result = cli("eval", "score", "--snapshot", "s", "--root", root, "--forecasts", forecasts, "--out", out)
    assert result.exit_code != 0 and "--force" in result.output and "Traceback" not in result.output
