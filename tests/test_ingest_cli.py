"""`pastcast ingest`: local files, globs and a Common Crawl listing served on loopback."""

import functools
import gzip
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import polars as pl
import pytest
from click.testing import CliRunner

from pastcast.cli import main as cli
from warcs import SAMPLE

COLUMNS = {"url", "title", "text", "published_at", "date_source", "crawled_at", "warc_record_id"}


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def cc_server(tmp_path, monkeypatch):
    """The sample WARC files in Common Crawl's layout, served by a real HTTP server."""
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    month = tmp_path / "www" / "crawl-data" / "CC-NEWS" / "2026" / "01"
    month.mkdir(parents=True)
    names = []
    for path in sorted((SAMPLE / "warc").glob("*.warc.gz")):
        shutil.copy(path, month / path.name)
        names.append(f"crawl-data/CC-NEWS/2026/01/{path.name}")
    (month / "warc.paths.gz").write_bytes(gzip.compress("".join(n + "\n" for n in names).encode()))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(tmp_path / "www")))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/crawl-data/CC-NEWS/2026/01/warc.paths.gz"
    httpd.shutdown()
    httpd.server_close()


def test_ingest_local_glob_writes_the_contract_files(tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["ingest", str(SAMPLE / "warc" / "*.warc.gz"), "--out", str(out),
                                      "--workers", "2"])
    assert result.exit_code == 0, result.output
    articles = pl.read_parquet(out / "articles.parquet")
    assert COLUMNS <= set(articles.columns) and articles.height >= 150
    drops = pl.read_parquet(out / "drops.parquet")
    assert {"item_id", "stage", "reason", "detail"} <= set(drops.columns)
    assert "read/not_html" in result.output and "articles/s" in result.output


def test_undated_pages_are_kept_dated_by_their_crawl_unless_asked_to_drop_them(tmp_path):
    files = sorted(str(p) for p in (SAMPLE / "warc").glob("*.warc.gz"))
    runner = CliRunner()
    kept, dropped = tmp_path / "kept", tmp_path / "dropped"
    assert runner.invoke(cli, ["ingest", *files, "--out", str(kept), "--workers", "1"]).exit_code == 0
    result = runner.invoke(cli, ["ingest", *files, "--out", str(dropped), "--workers", "1", "--undated", "drop"])
    assert result.exit_code == 0, result.output
    with_crawl = pl.read_parquet(kept / "articles.parquet").filter(pl.col("date_source") == "crawl")
    assert with_crawl.height > 0 and (with_crawl["published_at"] == with_crawl["crawled_at"]).all()
    gone = pl.read_parquet(dropped / "drops.parquet").filter(pl.col("reason").is_in(["no_date", "implausible_date"]))
    assert sorted(gone["item_id"]) == sorted(f"{w}#{r}" for w, r in with_crawl.select("warc_file", "warc_record_id").rows())
    assert "no_date" in result.output
    bad = runner.invoke(cli, ["ingest", *files, "--out", str(tmp_path / "bad"), "--undated", "guess"])
    assert bad.exit_code == 2 and "guess" in bad.output


def test_ingest_over_http_from_a_listing_matches_local(tmp_path, cc_server):
    local, remote = tmp_path / "local", tmp_path / "remote"
    runner = CliRunner()
    assert runner.invoke(cli, ["ingest", str(SAMPLE / "warc" / "*.warc.gz"), "--out", str(local),
                               "--workers", "1"]).exit_code == 0
    result = runner.invoke(cli, ["ingest", cc_server, "--out", str(remote), "--workers", "1"])
    assert result.exit_code == 0, result.output
    a = pl.read_parquet(local / "articles.parquet")
    b = pl.read_parquet(remote / "articles.parquet")
    assert a.equals(b)
    assert not any((remote / "spool").glob("*.warc.gz"))  # spooled copies deleted once ingested


def test_ingest_reports_bad_input_clearly(tmp_path):
    result = CliRunner().invoke(cli, ["ingest", str(tmp_path / "missing.warc.gz"), "--out", str(tmp_path / "o")])
    assert result.exit_code != 0 and "missing.warc.gz" in result.output
