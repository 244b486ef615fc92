"""The library pipeline without Dagster: damaged input, resumable ingest, drops as data."""

import shutil

import polars as pl

from pastcast import pipeline
from warcs import SAMPLE


def _first_sample_warc():
    return sorted((SAMPLE / "warc").glob("*.warc.gz"))[0]


def test_a_truncated_warc_keeps_the_records_before_the_damage(tmp_path):
    source = _first_sample_warc()
    data = source.read_bytes()
    corpus = tmp_path / "corpus" / "warc"
    corpus.mkdir(parents=True)
    (corpus / "truncated.warc.gz").write_bytes(data[: int(len(data) * 0.6)])
    report = pipeline.ingest(sorted(corpus.iterdir()), tmp_path / "work")
    assert report.drops.get("read/truncated_file") == 1
    drops = pl.read_parquet(tmp_path / "work" / "drops" / "ingest.parquet")
    detail = drops.filter(pl.col("reason") == "truncated_file")["detail"].item()
    assert "truncated.warc.gz" in detail and "byte" in detail
    full = pipeline.ingest([source], tmp_path / "work-full")
    assert 0 < report.rows_out < full.rows_out
    kept = pl.read_parquet(report.outputs["articles_raw"])["url"].to_list()
    complete = pl.read_parquet(full.outputs["articles_raw"])["url"].to_list()
    assert kept == complete[: len(kept)]  # exactly the records before the damage


def test_ingest_resumes_from_finished_file_parts(tmp_path, monkeypatch):
    from pastcast.curate import ingest as ingest_module

    warc_dir = tmp_path / "warc"
    warc_dir.mkdir()
    for p in sorted((SAMPLE / "warc").glob("*.warc.gz"))[:3]:
        shutil.copy(p, warc_dir)
    files = sorted(warc_dir.iterdir())
    # interrupted after two files: only they are finished
    first = pipeline.ingest(files[:2], tmp_path / "work", workers=1)
    seen = []
    real = ingest_module._ingest_file
    monkeypatch.setattr(ingest_module, "_ingest_file",
                        lambda pool, limit, path, *a: seen.append(path.name) or real(pool, limit, path, *a))
    again = pipeline.ingest(files, tmp_path / "work", workers=1)
    assert seen == [files[2].name]  # the finished files were not read again
    assert again.extra["files_resumed"] == 2 and again.rows_out > first.rows_out
    fresh = pipeline.ingest(files, tmp_path / "fresh", workers=1)
    assert pl.read_parquet(again.outputs["articles_raw"]).equals(pl.read_parquet(fresh.outputs["articles_raw"]))


def test_every_stage_accounts_for_its_input(demo_snapshot):
    folder = demo_snapshot  # pipeline.run_all of the sample; its work folder is beside the snapshots
    reports = {p.stem: pl.read_json(p) for p in (demo_snapshot.parents[2] / "work" / "reports").glob("*.json")}
    assert reports
    for stage, report in reports.items():
        row = report.row(0, named=True)
        dropped = sum(v for v in row["drops"].values() if v is not None)
        assert row["rows_out"] + dropped == row["rows_in"], stage
    assert (folder / "manifest.json").is_file()


def test_corpus_market_and_social_dumps_by_format_and_the_market_horizon(tmp_path):
    from datetime import timedelta

    from assets._resources import PastcastStorage
    from pastcast.questions.markets import MarketQuestionConfig

    corpus = tmp_path / "corpus"
    shutil.copytree(SAMPLE, corpus)
    (corpus / "markets" / "notes.json").write_text("{}")  # no format in its name or folder
    files = pipeline.CorpusFiles.discover(corpus)
    assert list(files.markets) == ["manifold"] and list(files.social) == ["reddit"]
    assert [p.name for p in files.unknown_markets] == ["notes.json"]
    work = tmp_path / "work"
    report = pipeline.import_markets(files.markets, work, files.unknown_markets)
    assert report.drops == {"markets/unknown_format": 1} and report.extra["table_rows"] == 10
    markets = pl.read_parquet(work / "markets.parquet")
    config = PastcastStorage(market_horizon_days=10).market_questions()
    assert config == MarketQuestionConfig(horizon_days=10, numeric_buckets=5)
    from pastcast.questions.markets import market_questions

    questions, _ = market_questions(markets, config)
    assert questions.height > 0
    for q in questions.iter_rows(named=True):
        assert q["open_date"] >= q["resolution_date"] - timedelta(days=10)
