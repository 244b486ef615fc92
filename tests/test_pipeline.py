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
    assert report.drops.get("read/corrupt_record") == 1
    drops = pl.read_parquet(tmp_path / "work" / "drops" / "ingest.parquet")
    detail = drops.filter(pl.col("reason") == "corrupt_record")["detail"].item()
    assert "truncated.warc.gz" in detail and "byte" in detail
    full = pipeline.ingest([source], tmp_path / "work-full")
    assert 0 < report.rows_out < full.rows_out
    kept = pl.read_parquet(tmp_path / "work" / "articles_raw.parquet")["url"].to_list()
    complete = pl.read_parquet(tmp_path / "work-full" / "articles_raw.parquet")["url"].to_list()
    assert kept == complete[: len(kept)]  # exactly the records before the damage


def test_ingest_resumes_from_finished_file_parts(tmp_path, monkeypatch):
    warc_dir = tmp_path / "warc"
    warc_dir.mkdir()
    files = [shutil.copy(p, warc_dir) for p in sorted((SAMPLE / "warc").glob("*.warc.gz"))[:2]]
    first = pipeline.ingest([warc_dir / p.name for p in map(type(warc_dir), files)], tmp_path / "work")
    calls = []
    monkeypatch.setattr(pipeline, "ingest_warc", lambda *a, **k: calls.append(a) or (_ for _ in ()).throw(
        AssertionError("a finished file was ingested again")))
    again = pipeline.ingest(sorted(warc_dir.iterdir()), tmp_path / "work")
    assert calls == [] and again.rows_out == first.rows_out


def test_every_stage_accounts_for_its_input(tmp_path):
    folder = pipeline.run_all(SAMPLE, tmp_path / "work", tmp_path / "snapshots", "t")
    reports = {p.stem: pl.read_json(p) for p in (tmp_path / "work" / "reports").glob("*.json")}
    for stage, report in reports.items():
        row = report.row(0, named=True)
        dropped = sum(v for v in row["drops"].values() if v is not None)
        assert row["rows_out"] + dropped == row["rows_in"], stage
    assert (folder / "manifest.json").is_file()
