"""The whole product on the bundled sample corpus: Dagster assets -> snapshot -> evaluation."""

from __future__ import annotations

import json
from datetime import timedelta

import dagster as dg
import polars as pl
import pytest
from click.testing import CliRunner

from assets._resources import PastcastStorage
from pastcast.cli import main as cli
from pastcast.evaluate.agents import get_agent
from pastcast.evaluate.runner import run_eval
from pastcast.text import contains_phrase
from pastcast.snapshot import read_manifest, resolve, verify
from pastcast.store import read_table
from pipelines.build import build_corpus, corpus_days
from pipelines.definitions import defs
from warcs import SAMPLE


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("e2e")
    storage = PastcastStorage(corpus_dir=str(SAMPLE), work_dir=str(root / "work"),
                              snapshots_dir=str(root / "snapshots"), snapshot_name="sample")
    with dg.DagsterInstance.ephemeral() as instance:
        results = build_corpus(defs, instance, resources={"storage": storage})
    return root, results, corpus_days(storage)


def test_every_asset_materializes_and_the_blocking_checks_pass(built):
    root, results, crawl_days = built
    assert len(results) == 2 and all(r.success for r in results)
    events = [e for r in results for e in r.get_asset_materialization_events()]
    materialized = {e.asset_key.to_user_string() for e in events}
    assert materialized == {"articles_raw", "articles", "article_corpus", "markets", "posts", "news_questions",
                            "market_questions", "question_candidates", "questions", "snapshot", "latest_snapshot"}
    # one run covered every crawl day of the sample: a materialization per day and daily asset
    for key in ("articles_raw", "articles", "news_questions"):
        days = {e.partition for e in events if e.asset_key.to_user_string() == key}
        assert len(days) == (crawl_days[-1] - crawl_days[0]).days + 1 and min(days) == "2026-01-05", key
    assert len({r.run_id for r in results}) == 2
    checks = {(c.asset_key.to_user_string(), c.check_name): c for r in results for c in r.get_asset_check_evaluations()}
    blocking = {name for (asset, name), c in checks.items() if asset == "snapshot" and c.severity.value == "ERROR"}
    assert blocking == {"manifest_matches_files", "ids_are_unique", "articles_within_crawl_bounds",
                        "no_answer_in_own_text", "no_answer_in_other_questions", "revised_dates_have_evidence",
                        "market_questions_follow_their_markets", "inputs_read_whole", "tables_kept_their_rows"}
    assert all(checks[("snapshot", name)].passed for name in blocking)
    # warnings on the stages: the sample has crawl days without files in the one range run; the
    # input check names them (they are empty partitions, not built days), the others agree
    inputs = checks[("articles_raw", "input_files")]
    assert not inputs.passed and inputs.severity.value == "WARN"
    assert inputs.metadata["examples"].value.startswith("2026-01-06: no WARC file in ")
    assert checks[("articles", "date_coverage")].passed
    assert checks[("articles_raw", "drop_rates_in_usual_range")].passed
    missing = checks[("snapshot", "no_missing_days")]
    assert missing.passed and "2026-01-06" in missing.metadata["days_without_files"].value


def test_snapshot_is_complete_and_matches_its_manifest(built):
    root, _, _ = built
    folder = resolve("sample", root / "snapshots")
    assert verify(folder) == []
    manifest = read_manifest(folder)
    rows = {t: info["rows"] for t, info in manifest["tables"].items()}
    assert rows["articles"] >= 100 and rows["questions"] >= 15
    assert rows["markets"] >= 8 and rows["market_prices"] > 0 and rows["posts"] > 0
    reasons = set(manifest["drops_by_reason"])
    # the sample exercises each of these on purpose
    for expected in ("read/not_html", "read/http_status", "dedup/exact_duplicate",
                     "dedup/near_duplicate", "social/deleted_body"):
        assert expected in reasons, expected
    assert {"ingest", "dedup", "markets", "social", "generate", "filter"} <= set(manifest["stage_counts"])
    assert set(manifest["files"]) == {"audit.md"} and (folder / "audit.md").read_text().startswith("# ")
    assert manifest["llm"]["requests"] == 0 and manifest["llm"]["cost_usd"] == 0.0  # offline build


def test_articles_are_dated_within_crawl_bounds_and_questions_are_sound(built):
    root, _, _ = built
    folder = resolve("sample", root / "snapshots")
    articles = read_table(folder, "articles")
    assert articles.filter(pl.col("published_at") > pl.col("crawled_at") + timedelta(days=1)).is_empty()
    assert articles["article_id"].is_unique().all()
    questions = read_table(folder, "questions")
    assert questions["question_id"].is_unique().all()
    assert set(questions["source_kind"]) == {"news", "market"}
    published = dict(zip(articles["article_id"], articles["published_at"]))
    for q in questions.iter_rows(named=True):
        assert q["open_date"] < q["resolution_date"]
        if q["source_kind"] == "news":
            assert published[q["source_ids"][0]].date() == q["resolution_date"]
            if not q["candidate_outcomes"]:
                for field in ("title", "background", "resolution_criteria"):
                    assert not contains_phrase(q[field], q["answer"]), (q["question_id"], field)


def test_retrieval_baseline_beats_abstaining_on_the_sample(built, tmp_path):
    root, _, _ = built
    folder = resolve("sample", root / "snapshots")
    results = {name: run_eval(folder, get_agent(name), tmp_path / name).summary
               for name in ("abstain", "retrieval")}
    assert results["abstain"]["mean_bss"] == 0
    assert results["retrieval"]["mean_bss"] > 0.05
    assert results["retrieval"]["forecast"] >= 5


def test_cli_lists_snapshots_and_runs_an_evaluation(built, tmp_path):
    root, _, _ = built
    runner = CliRunner()
    listed = runner.invoke(cli, ["snapshot", "list", "--root", str(root / "snapshots")])
    assert listed.exit_code == 0 and "sample" in listed.output and "v1" in listed.output
    run_dir = tmp_path / "run"
    ran = runner.invoke(cli, ["eval", "run", "--snapshot", "sample", "--root", str(root / "snapshots"),
                              "--agent", "abstain", "--out", str(run_dir)])
    assert ran.exit_code == 0, ran.output
    assert "abstain" in ran.output
    scores = pl.read_parquet(run_dir / "scores.parquet")
    assert {"question_id", "bss", "accuracy", "time_weighted_bss"} <= set(scores.columns)
    assert json.loads((run_dir / "run.json").read_text())["agent"] == "abstain"
    missing = runner.invoke(cli, ["eval", "run", "--snapshot", "nope", "--root", str(root / "snapshots"),
                                  "--agent", "abstain", "--out", str(tmp_path / "x")])
    assert missing.exit_code != 0 and "no snapshot" in missing.output and "Traceback" not in missing.output
