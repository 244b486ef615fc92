"""Determinism of the daily news build (issue 18, goal 6): the same crawl days give the same
``articles`` table, every column, whatever the build order (in order, in reverse, shuffled, a day
built again), reruns, two builds at once on one working folder, or a day whose input changed
since it was first built; and every kept row's ``dup_count``/``dup_domains`` agree with its
cluster as recomputed independently from the days' drops.

Days of the bundled sample corpus with copies across days: 2026-02-04..09 (a story carried on
three consecutive days) and 2026-03-09..16 (copies a day apart, one crawl-dated kept copy, and a
copy stating its date that displaces a crawl-dated one kept the day before). They are ingested
once; each variation starts from a copy of the ingested days.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import polars as pl
import pytest

from pastcast.sources import crawl_days

from pastcast import daily, pipeline
from pastcast.curate.dedup import deduplicate
from pastcast.schemas import ARTICLES

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "corpora" / "sample"
RUNS = [("2026-02-04", "2026-02-09"), ("2026-03-09", "2026-03-16")]
DAY = timedelta(days=1)


def _days_of(files) -> list[date]:
    wanted = {d for a, b in RUNS for d in crawl_days.parse_days(f"{a}..{b}")}
    return [d for d in crawl_days.DayFiles.of(files).days() if d in wanted]


FILES = pipeline.CorpusFiles.discover(SAMPLE).warc
DAYS = _days_of(FILES)


@pytest.fixture(scope="module")
def ingested(tmp_path_factory) -> Path:
    """The days ingested once (the shared ingest parts and each day's ingest tables)."""
    work = tmp_path_factory.mktemp("determinism") / "ingested"
    pipeline.ingest_news_days(FILES, work, DAYS, workers=1)
    return work


@pytest.fixture(scope="module")
def fresh(ingested, tmp_path_factory) -> dict:
    """One build of the days in date order: its gathered table and drops."""
    work = _copy(ingested, tmp_path_factory.mktemp("fresh"))
    daily.dedup_days(work, DAYS)
    daily.gather_articles(work)
    return {"work": work, "articles": _articles(work), "drops": _drops(work)}


def _copy(ingested: Path, into: Path) -> Path:
    work = into / "work"
    shutil.copytree(ingested, work)
    return work


def _articles(work: Path) -> pl.DataFrame:
    return daily.scan_gathered(work).collect().sort("article_id")


def _drops(work: Path) -> pl.DataFrame:
    frames = [pl.read_parquet(daily.day_dir(work, d) / "dedup" / "drops.parquet").with_columns(pl.lit(d).alias("day"))
              for d in daily.built_days(work)]
    return pl.concat(frames).sort("day", "item_id", "reason")


def _ingest_rows(work: Path) -> pl.DataFrame:
    return pl.concat([pl.read_parquet(daily.day_dir(work, d) / "ingest" / "articles.parquet") for d in DAYS])


def assert_same_file(work: Path, want: Path) -> None:
    """The gathered tables row for row, in the order they were written."""
    assert daily.scan_gathered(work).collect().equals(daily.scan_gathered(want).collect())
    assert [p.sha256 for p in daily.gathered_parts(work)] == [p.sha256 for p in daily.gathered_parts(want)]


def assert_same_table(got: pl.DataFrame, want: pl.DataFrame) -> None:
    """Every column (no column of the articles table records when it was built)."""
    assert got.schema == want.schema == pl.Schema(ARTICLES)
    assert got["article_id"].to_list() == want["article_id"].to_list()
    for column in want.columns:
        assert got[column].equals(want[column]), column


# ------------------------------------------------------------------ the sample has what we test


def test_the_chosen_days_have_copies_across_days_a_three_day_story_and_a_displaced_copy(fresh):
    articles, drops = fresh["articles"], fresh["drops"]
    assert len(DAYS) >= 12
    kept_day = {a: d for d in DAYS
                for a in pl.read_parquet(daily.day_dir(fresh["work"], d) / "dedup" / "articles.parquet")["article_id"]}
    copies = drops.filter(pl.col("reason") != "superseded").with_columns(
        pl.col("detail").str.extract(r"kept=(\S+)").alias("kept"))
    across = [(day, kept_day.get(kept)) for day, kept in copies.select("day", "kept").iter_rows()]
    assert sum(1 for day, other in across if other is not None and other < day) >= 5
    assert articles["dup_count"].max() >= 3
    assert drops.filter(pl.col("reason") == "superseded").height >= 1


# ------------------------------------------------------------------------------ the orders


def test_a_rerun_on_the_built_folder_gives_the_same_table(fresh, tmp_path):
    work = _copy(fresh["work"], tmp_path)
    daily.dedup_days(work, DAYS)
    daily.gather_articles(work)
    assert_same_table(_articles(work), fresh["articles"])
    # the same decisions, superseded ones included; a copy displaced after its day was built is
    # now also a drop of its own day, naming the copy that displaced it
    drops = _drops(work)
    extra = drops.join(fresh["drops"], on=list(drops.columns), how="anti")
    assert fresh["drops"].join(drops, on=list(drops.columns), how="anti").is_empty()
    displaced = fresh["drops"].filter(pl.col("reason") == "superseded")
    assert sorted(extra["item_id"]) == sorted(displaced["item_id"])
    assert (extra["detail"].str.extract(r"kept=(\S+)").sort().to_list()
            == displaced["detail"].str.extract(r"kept=(\S+)").sort().to_list())
    daily.dedup_days(work, DAYS)  # and again: nothing changes now
    daily.gather_articles(work)
    assert_same_table(_articles(work), fresh["articles"])
    assert _drops(work).equals(drops)


def test_days_in_reverse_one_call_a_day_give_the_same_table(ingested, fresh, tmp_path):
    work = _copy(ingested, tmp_path)
    for d in reversed(DAYS):
        daily.dedup_days(work, [d])
        daily.gather_articles(work)  # gathering between days changes nothing that follows
    assert_same_table(_articles(work), fresh["articles"])
    assert_same_file(work, fresh["work"])


def test_days_shuffled_give_the_same_table(ingested, fresh, tmp_path):
    work = _copy(ingested, tmp_path)
    order = list(DAYS)
    random.Random(18).shuffle(order)
    for d in order:
        daily.dedup_days(work, [d])
    daily.gather_articles(work)
    assert_same_table(_articles(work), fresh["articles"])
    assert_same_file(work, fresh["work"])


def test_a_day_built_again_after_all_days_gives_the_same_table_and_drops(fresh, tmp_path):
    work = _copy(fresh["work"], tmp_path)
    index = work / daily.DEDUP_STATE / "dedup-index.sqlite"
    docs = _index_docs(index)
    superseding = fresh["drops"].filter(pl.col("reason") == "superseded")["day"].to_list()
    for d in [DAYS[0], DAYS[2], *superseding, DAYS[-1]]:  # its own earlier copies are not copies
        (counts,) = daily.dedup_days(work, [d])
        assert counts.extra["retired"] == 0 and counts.extra["indexed_after"] == counts.extra["indexed_before"]
        daily.gather_articles(work)
        assert_same_table(_articles(work), fresh["articles"])
        assert _drops(work).equals(fresh["drops"]), d
    assert _index_docs(index) == docs


def test_a_day_built_again_after_a_day_built_later_in_reverse_keeps_the_earliest_copy(ingested, fresh, tmp_path):
    """A backfill: later days first, then the earlier ones, then each day again."""
    work = _copy(ingested, tmp_path)
    half = len(DAYS) // 2
    daily.dedup_days(work, DAYS[half:])
    daily.dedup_days(work, DAYS[:half])
    for d in reversed(DAYS):
        daily.dedup_days(work, [d])
        daily.gather_articles(work)
        assert_same_table(_articles(work), fresh["articles"])


def test_two_builds_at_once_on_one_folder_give_the_same_table(fresh, tmp_path):
    """Two processes run the whole build (ingest, dedup, gather) on one new folder at once."""
    work = tmp_path / "work"
    days = json.dumps([d.isoformat() for d in DAYS])
    script = ("import json, sys; from datetime import date; from pathlib import Path; from pastcast import pipeline\n"
              f"files = pipeline.CorpusFiles.discover({str(SAMPLE)!r}).warc\n"
              f"days = [date.fromisoformat(d) for d in json.loads({days!r})]\n"
              "work = Path(sys.argv[1])\n"
              "pipeline.ingest_news_days(files, work, days, workers=1)\n"
              "pipeline.dedup_news_days(work, days)\n"
              "pipeline.gather_news(work)\n")
    builds = [subprocess.Popen([sys.executable, "-c", script, str(work)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for build in builds:
        _, err = build.communicate(timeout=300)
        assert build.returncode == 0, err[-3000:]
    assert_same_table(_articles(work), fresh["articles"])
    assert_same_file(work, fresh["work"])
    # and a third build afterwards, over what the two left
    pipeline.dedup_news_days(work, DAYS)
    pipeline.gather_news(work)
    assert_same_table(_articles(work), fresh["articles"])


def test_the_table_is_the_one_deduplication_of_every_day_at_once(fresh):
    """Day by day against the index, the clusters are those of all the articles taken together
    (in either order): cluster id, size and domains included."""
    rows = _ingest_rows(fresh["work"])
    for order in (rows, rows.reverse()):
        kept, _ = deduplicate(order)
        assert_same_table(kept.sort("article_id"), fresh["articles"])


# ------------------------------------------------------------- a day whose input changed


def _change_a_day(work: Path, day: date) -> None:
    """The day's ingest as a re-crawl gives it: every article under a new id (new record ids),
    one article gone (its file lost a record)."""
    path = daily.day_dir(work, day) / "ingest" / "articles.parquet"
    rows = pl.read_parquet(path)
    rows = rows.slice(1).with_columns((pl.col("article_id") + "-recrawl").alias("article_id"))
    rows.write_parquet(path)


def test_a_day_rebuilt_from_a_changed_input_is_the_same_as_a_fresh_build_of_it(ingested, fresh, tmp_path):
    """Its earlier articles leave the index first: neither counted as copies of the new ones
    nor kept in their place (the earliest copy of the day before, say, is not displaced by an
    article of a day's earlier input that no longer exists)."""
    changed = [d for d in DAYS
               if pl.read_parquet(daily.day_dir(ingested, d) / "ingest" / "articles.parquet").height >= 2]
    # days whose copies are in clusters across days first: their clusters must be settled again
    kept_days = fresh["drops"].filter(pl.col("reason") == "superseded")["day"].to_list()
    for day in dict.fromkeys([*kept_days, changed[1], changed[-1]]):
        rebuilt = _copy(fresh["work"], tmp_path / f"rebuilt-{day}")
        _change_a_day(rebuilt, day)
        (counts,) = daily.dedup_days(rebuilt, [day])
        assert counts.extra["retired"] > 0
        daily.gather_articles(rebuilt)

        scratch = _copy(ingested, tmp_path / f"scratch-{day}")
        _change_a_day(scratch, day)
        daily.dedup_days(scratch, DAYS)
        daily.gather_articles(scratch)
        assert_same_table(_articles(rebuilt), _articles(scratch))
        ids = _ingest_rows(rebuilt)["article_id"]
        assert _index_docs(rebuilt / daily.DEDUP_STATE / "dedup-index.sqlite") == sorted(ids)


def test_a_changed_day_that_took_a_story_from_another_day_gives_it_back(ingested, fresh, tmp_path):
    """The day with the copy that displaced one kept the day before loses that copy: the
    displaced copy is kept again, even when its own day, built again meanwhile, dropped it (its
    row is then read from its day's ingest table)."""
    superseded = fresh["drops"].filter(pl.col("reason") == "superseded")
    (day,) = superseded["day"].to_list()
    winner = superseded["detail"].str.extract(r"kept=(\S+)").item()
    loser = superseded["item_id"].item()
    (loser_day,) = [d for d in DAYS if loser in
                    pl.read_parquet(daily.day_dir(ingested, d) / "ingest" / "articles.parquet")["article_id"]]
    rebuilt = _copy(fresh["work"], tmp_path / "rebuilt")
    daily.dedup_days(rebuilt, [loser_day])  # built again: the displaced copy is a drop of its day now
    dropped_on_its_day = pl.read_parquet(daily.day_dir(rebuilt, loser_day) / "dedup" / "articles.parquet")
    assert loser not in dropped_on_its_day["article_id"].to_list()
    scratch = _copy(ingested, tmp_path / "scratch")
    for work in (rebuilt, scratch):
        path = daily.day_dir(work, day) / "ingest" / "articles.parquet"
        pl.read_parquet(path).filter(pl.col("article_id") != winner).write_parquet(path)
    daily.dedup_days(rebuilt, [day])
    gathered = daily.gather_articles(rebuilt)
    daily.dedup_days(scratch, DAYS)
    daily.gather_articles(scratch)
    assert_same_table(_articles(rebuilt), _articles(scratch))
    assert loser in _articles(rebuilt)["article_id"].to_list()
    assert winner not in _articles(rebuilt)["article_id"].to_list()
    assert gathered.restored == 1 and gathered.rows_in - gathered.rows_out == gathered.displaced


# ------------------------------------------------- cluster statistics recomputed from the drops


def _clusters_from_drops(articles: pl.DataFrame, drops: pl.DataFrame) -> dict[str, set[str]]:
    """Kept article -> the articles of its cluster: every drop names the article it lost to
    (``kept=``), a chain of them leads to a kept row (a copy displaced later names the copy it
    lost to in turn)."""
    parent: dict[str, str] = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for item, detail, reason in drops.select("item_id", "detail", "reason").iter_rows():
        if reason == "repeated_input":  # the same row twice in one input: not a copy
            continue
        kept = detail.split("kept=", 1)[1].split()[0]
        parent[find(item)] = find(kept)
    members: dict[str, set[str]] = {}
    for node in list(parent):
        members.setdefault(find(node), set()).add(node)
    out = {}
    for article_id in articles["article_id"]:
        root = find(article_id)
        out[article_id] = members.get(root, {article_id})
    return out


def _check_against_drops(work: Path) -> None:
    articles, drops = _articles(work), _drops(work)
    rows = _ingest_rows(work).unique("article_id")
    domain = dict(rows.select("article_id", "domain").iter_rows())
    clusters = _clusters_from_drops(articles, drops)
    kept = set(articles["article_id"])
    seen: set[str] = set()
    for row in articles.iter_rows(named=True):
        members = clusters[row["article_id"]]
        assert not (members - {row["article_id"]}) & kept, row["article_id"]  # one kept row a cluster
        assert not members & seen
        seen |= members
        assert row["dup_count"] == len(members), row["article_id"]
        assert row["dup_domains"] == sorted({domain[m] for m in members if domain.get(m)}), row["article_id"]
        assert row["dup_cluster"] == row["article_id"]  # a cluster is named after its kept copy
        assert _earliest(rows.filter(pl.col("article_id").is_in(list(members)))) == row["article_id"]
    assert seen == set(rows["article_id"])  # every article is in exactly one cluster


def _earliest(members: pl.DataFrame) -> str:
    """The rule of the module doc of pastcast.curate.dedup: published first, a crawl-dated copy
    a day later than its crawl, then a copy that states its date, then the earlier crawl."""
    def key(row):
        crawl_dated = row["date_source"] == "crawl"
        published = row["published_at"]
        when = None if published is None else published + (DAY if crawl_dated else timedelta(0))
        return (published is None, when or 0, crawl_dated, row["crawled_at"] is None, row["crawled_at"] or 0,
                row["article_id"])
    return min(members.iter_rows(named=True), key=key)["article_id"]


def test_dup_count_and_domains_are_the_clusters_the_drops_describe(ingested, fresh, tmp_path):
    _check_against_drops(fresh["work"])
    work = _copy(ingested, tmp_path / "reverse")
    for d in reversed(DAYS):
        daily.dedup_days(work, [d])
    daily.gather_articles(work)
    _check_against_drops(work)
    for d in (DAYS[3], DAYS[-1]):  # days built again, in the reverse-built folder
        daily.dedup_days(work, [d])
    daily.gather_articles(work)
    _check_against_drops(work)


def _index_docs(path: Path) -> list[str]:
    db = sqlite3.connect(path)
    try:
        return sorted(a for (a,) in db.execute("SELECT article_id FROM docs"))
    finally:
        db.close()


def test_an_index_of_an_earlier_version_naming_clusters_by_their_first_kept_copy(fresh, tmp_path):
    """An earlier version kept a cluster's first id when an earlier copy took over: the table
    names the cluster after its kept copy all the same, and the index is renamed when next opened."""
    work = _copy(fresh["work"], tmp_path)
    superseded = fresh["drops"].filter(pl.col("reason") == "superseded")
    loser, winner = superseded["item_id"].item(), superseded["detail"].str.extract(r"kept=(\S+)").item()
    index = work / daily.DEDUP_STATE / "dedup-index.sqlite"
    db = sqlite3.connect(index)
    with db:
        db.execute("UPDATE docs SET cluster_id = ? WHERE cluster_id = ?", (loser, winner))
        db.execute("UPDATE clusters SET cluster_id = ? WHERE cluster_id = ?", (loser, winner))
        db.execute("DELETE FROM meta WHERE key = 'clusters_named_by_kept'")
    db.close()
    daily.gather_articles(work)
    assert_same_table(_articles(work), fresh["articles"])
    daily.dedup_days(work, DAYS[-2:])
    daily.gather_articles(work)
    assert_same_table(_articles(work), fresh["articles"])
    db = sqlite3.connect(index)
    assert db.execute("SELECT COUNT(*) FROM clusters WHERE cluster_id != kept_id").fetchone() == (0,)
    db.close()
