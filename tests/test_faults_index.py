"""A poisoned search index serves nothing (issue 36, item 1).

The evaluator keeps a snapshot's index in the user's cache, which an agent run as the same user
can write. An index found there is served only when its stored documents are proven to be the
verified table's (else it is built again, with a warning naming its folder), an index grown
from a parent version's cached index is proven the same way, and every hit is checked against
the verified table again when served, so a changed index can at worst change the ranking."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, time, timezone
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner
from evalkit import last_day_held

from pastcast import pipeline
from pastcast.cli import main
from pastcast.evaluate.environment import ReplayEnvironment
from pastcast.search.index import META_FILE, ArticleIndex, _tantivy_index
from pastcast.search.index_store import open_or_build
from pastcast.store import read_table


RUN = ("--agent", "retrieval", "--policy", "cron:7")  # a wake a week: searches enough, replays fast


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def index_folders(cache: Path) -> list[Path]:
    return sorted(p.parent for p in (cache / "indexes").glob(f"*/{META_FILE}"))


def poison(folder: Path, articles: pl.DataFrame, day) -> None:
    """The folder rebuilt with every article dated at the start of ``day`` (visible from it
    on), its old metadata file put back: what an agent with write access to the cache can do."""
    meta = (folder / META_FILE).read_bytes()
    shutil.rmtree(folder)
    early = datetime.combine(day, time(0), tzinfo=timezone.utc)
    ArticleIndex.build(articles.with_columns(pl.lit(early).alias("published_at"), pl.lit(early).alias("crawled_at")),
                       folder)
    (folder / META_FILE).write_bytes(meta)


def served_early(index: ArticleIndex, articles: pl.DataFrame, day) -> int:
    """How many of the hits for the articles' own titles on ``day`` the table dates later."""
    dated = dict(zip(articles["article_id"], articles["published_at"]))
    later = 0
    for title in articles["title"].drop_nulls().unique().sort().to_list()[:40]:
        later += sum(dated[h.article_id].date() > day for h in index.search(title, day, k=10, snippets=False))
    return later


@pytest.fixture(scope="module")
def snapshots(demo_snapshot):
    return demo_snapshot.parent.parent, demo_snapshot


def test_a_poisoned_cached_index_is_rebuilt_and_the_run_scores_as_before(snapshots, tmp_path, monkeypatch):
    root, folder = snapshots
    monkeypatch.setenv("PASTCAST_CACHE", str(tmp_path / "cache"))
    first = cli("eval", "run", "--snapshot", folder.parent.name, "--root", root, *RUN, "--out", tmp_path / "run1")
    assert first.exit_code == 0, first.output
    assert (tmp_path / "run1" / "ledger.jsonl").stat().st_size > 0
    (slot,) = index_folders(tmp_path / "cache")
    articles = read_table(folder, "articles")
    start = ReplayEnvironment(folder).start
    poison(slot, articles, start)
    # not vacuous: the poisoned folder, opened as it is, serves later articles on the first day
    assert served_early(ArticleIndex.open(slot), articles, start) > 0

    second = cli("eval", "run", "--snapshot", folder.parent.name, "--root", root, *RUN, "--out", tmp_path / "run2")
    assert second.exit_code == 0, second.output
    assert (tmp_path / "run1" / "ledger.jsonl").read_bytes() == (tmp_path / "run2" / "ledger.jsonl").read_bytes()
    assert pl.read_parquet(tmp_path / "run1" / "scores.parquet").equals(
        pl.read_parquet(tmp_path / "run2" / "scores.parquet"))
    assert str(slot) in second.output and "not the verified table's" in second.output  # said, named
    assert served_early(ArticleIndex.open(slot), articles, start) == 0  # the cache holds the genuine index again


def test_an_index_changed_after_its_proof_serves_nothing_early(snapshots, tmp_path):
    """Defence in depth: hits are checked against the verified table when served (its date
    gates, its digest vouches for the text), and counts come from the table, so an index
    changed under an open evaluator can reorder results but never show a later article."""
    from pastcast.search.index_store import _verified_documents

    _, folder = snapshots
    articles = read_table(folder, "articles")
    start = ReplayEnvironment(folder).start
    genuine = open_or_build(folder, tmp_path / "cache", trust_snapshot_copy=False)
    want_counts = genuine.count_published(start, start)
    forged_folder = tmp_path / "forged"
    shutil.copytree(genuine.path, forged_folder)
    poison(forged_folder, articles, start)
    _, table = _verified_documents(folder, "articles")
    forged = ArticleIndex(_tantivy_index(forged_folder), forged_folder, table)  # as if swapped under it
    assert served_early(ArticleIndex.open(forged_folder), articles, start) > 0  # unchecked, it would
    assert served_early(forged, articles, start) == 0
    assert forged.count_published(start, start) == want_counts
    texts = dict(zip(articles["article_id"], articles["text"]))
    for title in articles["title"].drop_nulls().unique().sort().to_list()[:10]:
        for hit in forged.search(title, articles["published_at"].max().date(), k=5):
            assert hit.text == (texts[hit.article_id] or "")


def test_an_index_whose_text_was_changed_is_rebuilt(snapshots, tmp_path, capsys):
    """Same ids, same dates, another text (what a served snippet would carry): rebuilt."""
    _, folder = snapshots
    cache = tmp_path / "cache"
    genuine = open_or_build(folder, cache, trust_snapshot_copy=False)
    articles = read_table(folder, "articles")
    meta = (genuine.path / META_FILE).read_bytes()
    shutil.rmtree(genuine.path)
    ArticleIndex.build(articles.with_columns(pl.col("text") + " The final score was 3-1."), genuine.path)
    (genuine.path / META_FILE).write_bytes(meta)
    again = open_or_build(folder, cache, trust_snapshot_copy=False)
    assert not any("final score was 3-1" in h.text for h in again.search("final score", articles["published_at"].max()))
    warned = capsys.readouterr().err
    assert "not the verified table's" in warned and str(genuine.path) in warned


def test_a_cache_slot_replaced_by_a_link_or_a_file_is_rebuilt_in_place(snapshots, tmp_path):
    _, folder = snapshots
    cache = tmp_path / "cache"
    slot = open_or_build(folder, cache, trust_snapshot_copy=False).path
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(slot, elsewhere)
    poison(elsewhere, read_table(folder, "articles"), ReplayEnvironment(folder).start)
    shutil.rmtree(slot)
    slot.symlink_to(elsewhere)
    index = open_or_build(folder, cache, trust_snapshot_copy=False)
    assert not slot.is_symlink() and index.path == slot
    assert (elsewhere / META_FILE).is_file()  # the link's target is left alone
    shutil.rmtree(slot)
    slot.write_text("not an index")
    assert len(open_or_build(folder, cache, trust_snapshot_copy=False)) == len(index)


# -- the incremental path: a version's index grown from its parent's cached one ----------------

@pytest.fixture(scope="module")
def two_versions(demo_snapshot, tmp_path_factory):
    """The sample's working folder without its last crawl day -> v1; the day back -> v2 (as in
    tests/test_store.py: v2's index grows from v1's)."""
    root = tmp_path_factory.mktemp("grow")
    work = root / "work"
    shutil.copytree(demo_snapshot.parent.parent.parent / "work", work)
    with last_day_held(work, root / "held"):
        v1 = pipeline.tail(work, root / "snapshots", "s")
    v2 = pipeline.tail(work, root / "snapshots", "s")
    return v1, v2


def test_an_index_grown_from_a_poisoned_parent_is_built_afresh(two_versions, tmp_path, capsys):
    v1, v2 = two_versions
    cache = tmp_path / "cache"
    parent = open_or_build(v1, cache, trust_snapshot_copy=False)
    first_day = read_table(v1, "articles")["published_at"].min().date()
    poison(parent.path, read_table(v1, "articles"), first_day)
    articles = read_table(v2, "articles")
    grown = open_or_build(v2, cache, trust_snapshot_copy=False)
    assert served_early(grown, articles, first_day) == 0
    assert "not the verified table's" in capsys.readouterr().err  # the grown index failed its proof
    assert "grown_from" not in grown.meta  # built afresh
    fresh = ArticleIndex.build(articles, tmp_path / "fresh")
    assert len(grown) == len(fresh)
    last_day = articles["published_at"].max().date()
    for title in articles["title"].drop_nulls().sort().to_list()[:8]:
        assert ([(h.article_id, round(h.score, 4)) for h in grown.search(title, last_day, k=5)]
                == [(h.article_id, round(h.score, 4)) for h in fresh.search(title, last_day, k=5)])


def test_an_index_grown_from_a_genuine_parent_is_proven_and_kept(two_versions, tmp_path, capsys):
    v1, v2 = two_versions
    cache = tmp_path / "cache"
    open_or_build(v1, cache, trust_snapshot_copy=False)
    grown = open_or_build(v2, cache, trust_snapshot_copy=False)
    assert grown.meta.get("grown_from") and "warning" not in capsys.readouterr().err
    assert json.loads((grown.path / META_FILE).read_text())["documents"] == len(grown)
