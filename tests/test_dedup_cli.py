"""`pastcast dedup` on what `pastcast ingest` wrote from the sample corpus, with and without
a persistent index."""

import polars as pl
import pytest
from click.testing import CliRunner

import pastcast.curate.dedup_files as dedup_files_module
from pastcast.cli import main as cli
from pastcast.curate.dedup import DedupConfig
from pastcast.curate.dedup_files import dedup_files
from pastcast.curate.dedup_index import DedupIndex
from pastcast.curate.ingest import ingest_paths
from warcs import SAMPLE


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    out = tmp_path_factory.mktemp("ingest")
    ingest_paths(sorted((SAMPLE / "warc").glob("*.warc.gz")), out, workers=1)
    return out


def _run(*args):
    result = CliRunner().invoke(cli, ["dedup", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result.output


def test_dedup_writes_kept_articles_and_every_removed_copy(ingested, tmp_path):
    output = _run(ingested, "--out", tmp_path / "d")
    articles = pl.read_parquet(tmp_path / "d" / "articles.parquet")
    drops = pl.read_parquet(tmp_path / "d" / "drops.parquet")
    total = pl.read_parquet(ingested / "articles.parquet").height
    assert articles.height + drops.height == total
    assert {"near_duplicate", "exact_duplicate"} <= set(drops["reason"])
    assert "near_duplicate" in output and f"{total} articles in" in output
    # every removed copy names a kept article of the same cluster, no later (a copy dated only
    # by its crawl counting a day after its crawl: curate.dedup)
    kept = articles.select("article_id", "dup_cluster", "published_at", "date_source")
    detail = drops.with_columns(pl.col("detail").str.extract(r"kept=(\S+)").alias("article_id"),
                                pl.col("detail").str.extract(r"cluster=(\S+)").alias("cluster"))
    joined = detail.join(kept, on="article_id", how="left")
    assert joined["dup_cluster"].null_count() == 0
    assert (joined["dup_cluster"] == joined["cluster"]).all()
    removed = pl.read_parquet(ingested / "articles.parquet").select(
        pl.col("article_id").alias("item_id"), pl.col("published_at").alias("removed_published"),
        pl.col("date_source").alias("removed_source"))
    joined = joined.join(removed, on="item_id")
    def effective(time, source):
        return pl.when(pl.col(source) == "crawl").then(pl.col(time) + pl.duration(days=1)).otherwise(pl.col(time))

    assert joined.select((effective("published_at", "date_source")
                          <= effective("removed_published", "removed_source")).all()).item()
    copies = articles.filter(pl.col("dup_count") > 1)
    assert copies.height > 0 and (copies["dup_domains"].list.len() >= 1).all()


def test_with_a_state_a_rerun_gives_the_same_answer_and_adds_nothing(ingested, tmp_path):
    state = tmp_path / "state"
    first = _run(ingested, "--out", tmp_path / "a", "--state", state)
    assert "index: 0 ->" in first
    _run(ingested, "--out", tmp_path / "b", "--state", state)
    a = pl.read_parquet(tmp_path / "a" / "articles.parquet").sort("article_id")
    b = pl.read_parquet(tmp_path / "b" / "articles.parquet").sort("article_id")
    assert a.equals(b)
    index = DedupIndex(state, DedupConfig().minhash)
    assert index.count() == pl.read_parquet(ingested / "articles.parquet").height
    index.close()


def test_bad_inputs_and_other_settings_are_clear_errors(ingested, tmp_path):
    result = CliRunner().invoke(cli, ["dedup", str(tmp_path / "missing"), "--out", str(tmp_path / "o")])
    assert result.exit_code != 0 and "no articles Parquet file" in result.output
    _run(ingested, "--out", tmp_path / "a", "--state", tmp_path / "s")
    result = CliRunner().invoke(cli, ["dedup", str(ingested), "--out", str(tmp_path / "o"),
                                      "--state", str(tmp_path / "s"), "--num-perm", "64", "--bands", "16"])
    assert result.exit_code != 0 and "MinHash settings" in result.output


def test_an_interrupted_run_leaves_the_index_unchanged(ingested, tmp_path, monkeypatch):
    def broken_merge(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(dedup_files_module, "merge_parquet", broken_merge)
    with pytest.raises(OSError):
        dedup_files([ingested], tmp_path / "o", tmp_path / "s")
    index = DedupIndex(tmp_path / "s", DedupConfig().minhash)
    assert index.count() == 0
    index.close()
    assert not (tmp_path / "o" / "articles.parquet").exists()


def test_every_syndicated_copy_in_the_sample_goes_to_its_original(ingested, tmp_path):
    """The sample corpus marks each syndicated copy (`syndicated_from`), lightly edited: a
    shorter standfirst, a sentence or a quote cut. Each one ingested beside its original must be
    dropped in favour of the original, which was published first (unless the original states no
    date of its own and a copy states one within a day of its crawl: that copy is kept then)."""
    meta = {}
    for path in (SAMPLE.parent / "sample_src" / "articles").glob("*.md"):
        header = path.read_text(encoding="utf-8").split("\n\n", 1)[0]
        fields = dict(line.split(": ", 1) for line in header.splitlines() if ": " in line)
        meta[f"https://{fields['domain']}{fields['path']}"] = fields
    articles = pl.read_parquet(ingested / "articles.parquet")
    source = {a: meta[u]["id"] for a, u in zip(articles["article_id"], articles["url"]) if u in meta}
    when = dict(articles.select("article_id", pl.when(pl.col("date_source") == "crawl")
                                .then(pl.col("published_at") + pl.duration(days=1))
                                .otherwise(pl.col("published_at"))).iter_rows())
    article_of = {s: a for a, s in source.items()}
    _run(ingested, "--out", tmp_path / "d")
    drops = pl.read_parquet(tmp_path / "d" / "drops.parquet")
    kept_for = {i: d.split()[0].removeprefix("kept=") for i, d in zip(drops["item_id"], drops["detail"])}
    pairs = [(f["id"], f["syndicated_from"]) for f in meta.values() if f.get("syndicated_from")]
    checked = 0
    for copy, original in pairs:
        if copy in article_of and original in article_of:
            checked += 1
            if when[article_of[copy]] < when[article_of[original]]:  # an undated original crawled late
                assert kept_for.get(article_of[original]) == article_of[copy], (copy, original)
            else:
                assert kept_for.get(article_of[copy]) == article_of[original], (copy, original)
    assert checked >= 15
