"""`pastcast markets import` and `pastcast social import`: the command-line contract, and every
real dump under ../shared/data imported with each record either in a table or in drops."""

import json

import polars as pl
import pytest
import zstandard
from click.testing import CliRunner

from pastcast.cli import main
from pastcast.imports import expand_inputs, formats_in
from pastcast.schemas import DROPS, MARKET_PRICES, MARKETS, POSTS
from warcs import SAMPLE, SHARED, needs_shared

SOCIAL = {"reddit": ["reddit_pushshift", "reddit_pushshift_importer"], "hn": ["hn"], "bluesky": ["bluesky"]}


def _run(*args):
    result = CliRunner().invoke(main, list(map(str, args)))
    assert result.exit_code == 0, result.output
    return result


def _books_balance(out):
    summary = json.loads((out / "import.json").read_text())
    for kind, c in summary["records"].items():
        assert c["read"] == c["kept"] + c["dropped"], (kind, c)
    drops = pl.read_parquet(out / "drops.parquet")
    assert dict(drops.schema) == DROPS
    assert sum(c["dropped"] for c in summary["records"].values()) == drops.height
    assert drops.filter(pl.col("reason").is_null() | (pl.col("reason") == "")).is_empty()
    return summary, drops


@needs_shared
def test_markets_import_forecastbench_writes_the_contract_files(tmp_path):
    out = tmp_path / "fb"
    result = _run("markets", "import", "--format", "forecastbench", SHARED / "markets" / "forecastbench", "--out", out)
    assert sorted(p.name for p in out.iterdir()) == ["drops.parquet", "import.json", "market_prices.parquet",
                                                     "markets.parquet"]
    markets, prices = pl.read_parquet(out / "markets.parquet"), pl.read_parquet(out / "market_prices.parquet")
    assert dict(markets.schema) == MARKETS and dict(prices.schema) == MARKET_PRICES
    summary, drops = _books_balance(out)
    assert summary["rows"] == {"markets": markets.height, "market_prices": prices.height}
    assert summary["records"]["question"] == {"read": 700, "kept": 700, "dropped": 0}
    assert "markets/combination_question" in result.output and f"markets {markets.height:,}" in result.output
    assert set(prices["market_id"]) <= set(markets["market_id"])


@needs_shared
@pytest.mark.parametrize("fmt", sorted(SOCIAL))
def test_every_real_social_dump_imports_with_every_record_accounted_for(tmp_path, fmt):
    folders = [SHARED / "social" / name for name in SOCIAL[fmt]]
    out = tmp_path / fmt
    _run("social", "import", "--format", fmt, *folders, "--out", out)
    posts = pl.read_parquet(out / "posts.parquet")
    assert dict(posts.schema) == POSTS and posts.height > 0
    summary, drops = _books_balance(out)
    assert len(summary["inputs"]) == len(expand_inputs(folders))
    assert posts["post_id"].n_unique() == posts.height
    assert posts.filter(pl.col("created_at").is_null() | (pl.col("text").str.strip_chars() == "")).is_empty()
    assert (posts["platform"] == fmt).all()


def test_sample_corpus_dumps_are_found_by_format():
    markets, unknown = formats_in(SAMPLE / "markets", ["manifold", "polymarket"])
    assert list(markets) == ["manifold"] and unknown == []
    social, unknown = formats_in(SAMPLE / "social", ["reddit", "hn", "bluesky"])
    assert list(social) == ["reddit"] and unknown == []


def test_import_errors_name_the_problem(tmp_path):
    missing = CliRunner().invoke(main, ["markets", "import", "--format", "manifold", str(tmp_path / "nope.json"),
                                        "--out", str(tmp_path / "o")])
    assert missing.exit_code != 0 and "nope.json does not exist" in missing.output
    bad_format = CliRunner().invoke(main, ["social", "import", "--format", "myspace", "x", "--out", "o"])
    assert bad_format.exit_code != 0 and "myspace" in bad_format.output


def test_social_import_of_the_sample_reddit_dump(tmp_path):
    out = tmp_path / "r"
    _run("social", "import", "--format", "reddit", SAMPLE / "social", "--out", out)
    summary, drops = _books_balance(out)
    posts = pl.read_parquet(out / "posts.parquet")
    assert posts.height + drops.height == summary["records"]["post"]["read"]


@needs_shared
def test_social_import_streams_in_parts_with_the_same_result(tmp_path):
    from pastcast.imports import import_social

    dump = SHARED / "social" / "reddit_pushshift" / "reddit_data.zst"
    whole = import_social("reddit", [dump], tmp_path / "whole")
    parts = import_social("reddit", [dump], tmp_path / "parts", part_rows=7)  # 1,007 lines: ~150 parts
    for name in ("posts", "drops"):
        a, b = pl.read_parquet(whole.paths[name]), pl.read_parquet(parts.paths[name])
        assert a.equals(b) and a.height == whole.rows[name]
    assert parts.counts == whole.counts and parts.drops_by_reason == whole.drops_by_reason
    assert sorted(p.name for p in (tmp_path / "parts").iterdir()) == ["drops.parquet", "import.json", "posts.parquet"]
    # input order: the posts appear as the lines of the dump do
    with open(dump, "rb") as fh:
        lines = zstandard.ZstdDecompressor(max_window_size=2**31).stream_reader(fh).read().splitlines()
    dropped = set(pl.read_parquet(whole.paths["drops"])["item_id"])
    in_file = [f"reddit:t1_{json.loads(line)['id']}" for line in lines if line.strip()]
    assert pl.read_parquet(whole.paths["posts"])["post_id"].to_list() == [i for i in in_file if i not in dropped]
