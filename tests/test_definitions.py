"""The Dagster code location loads, and the library never imports Dagster."""

import re
from datetime import date
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_definitions_load_with_every_asset_check_and_job():
    import dagster as dg

    import assets._partitions as partitions
    from pipelines.definitions import defs

    graph = defs.resolve_asset_graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert keys == {"articles_raw", "articles", "article_corpus", "markets", "posts", "news_questions",
                    "market_questions", "question_candidates", "questions", "snapshot", "latest_snapshot",
                    "evaluation"}
    daily = {k.to_user_string() for k in graph.get_all_asset_keys() if graph.get(k).partitions_def is not None}
    assert daily == {"articles_raw", "articles", "news_questions"}
    for key in daily:
        node = graph.get(dg.AssetKey(key))
        assert node.partitions_def.start.date().isoformat() == partitions.START_DATE  # the corpus's first day
        assert node.backfill_policy.max_partitions_per_run is None  # a range of days is one run
    # every writer is in the writers' pool (held per run by the shipped instance config) and has a
    # single-run backfill policy (a range of days is one build from any launcher, the CLI included)
    for key in keys - {"evaluation"}:
        node = graph.get(dg.AssetKey(key))
        assert node.pools == {"pastcast_store"}, key
        assert node.backfill_policy is not None and node.backfill_policy.max_partitions_per_run is None, key
    assert not graph.get(dg.AssetKey("evaluation")).pools  # it reads a published version, beside a build
    instance = yaml.safe_load((ROOT / "deploy" / "dagster.yaml").read_text())
    assert instance["concurrency"]["pools"] == {"granularity": "run", "default_limit": 1}
    checks = {(c.asset_key.to_user_string(), c.name): graph.get_check_spec(c) for c in graph.asset_check_keys}
    blocking = {name for (asset, name), spec in checks.items() if spec.blocking}
    assert blocking == {"manifest_matches_files", "ids_are_unique", "articles_within_crawl_bounds",
                        "no_answer_in_own_text", "no_answer_in_other_questions", "revised_dates_have_evidence",
                        "market_questions_follow_their_markets", "inputs_read_whole", "tables_kept_their_rows"}
    assert all(asset == "snapshot" for (asset, name), spec in checks.items() if spec.blocking)
    assert {("articles_raw", "drop_rates_in_usual_range"), ("articles", "drop_rates_in_usual_range"),
            ("articles", "date_coverage"), ("snapshot", "no_missing_days"),
            ("questions", "news_questions_in_window")} <= set(checks)
    assert {j.name for j in defs.jobs} == {"build_news", "import_dumps", "build_snapshot", "evaluate_snapshot",
                                             "snapshot_gc"}
    assert {s.name for s in defs.schedules} == {"nightly_rebuild"}
    assert {s.name for s in defs.sensors} == {"new_warc_files", "changed_dumps", "evaluate_new_snapshots"}


def test_every_step_that_touches_the_outside_world_retries_with_backoff():
    import dagster as dg

    from pipelines.definitions import defs

    for assets_def in defs.assets:
        for key in assets_def.keys:
            policy = assets_def.op.retry_policy
            assert policy is not None and policy.max_retries >= 1, key
            assert policy.backoff == dg.Backoff.EXPONENTIAL and policy.jitter == dg.Jitter.PLUS_MINUS, key


def test_dagster_definitions_validate_passes_on_the_workspace():
    out = subprocess.run([str(Path(sys.executable).parent / "dagster"), "definitions", "validate",
                          "-w", "workspace.yaml"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Validation successful" in out.stdout + out.stderr


def test_the_executor_is_chosen_by_configuration(monkeypatch):
    import dagster as dg
    import pytest

    from assets._executors import executor_from_env

    monkeypatch.setenv("PASTCAST_EXECUTOR", "multiprocess")
    chosen = executor_from_env()  # Dagster's multiprocess-or-in-process, in process by default
    assert chosen.name == dg.multi_or_in_process_executor.name
    monkeypatch.setenv("PASTCAST_EXECUTOR", "dask")
    assert executor_from_env().name == "dask"
    monkeypatch.setenv("PASTCAST_EXECUTOR", "spark")
    with pytest.raises(ValueError, match="PASTCAST_EXECUTOR='spark'"):
        executor_from_env()


def test_workspace_and_pyproject_point_at_the_same_module():
    workspace = yaml.safe_load((ROOT / "workspace.yaml").read_text())
    module = workspace["load_from"][0]["python_module"]["module_name"]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert module == pyproject["tool"]["dagster"]["module_name"] == "pipelines.definitions"


def test_the_library_never_imports_dagster():
    offenders = [str(p) for p in (ROOT / "pastcast").rglob("*.py")
                 if re.search(r"^\s*(import dagster|from dagster)", p.read_text(), re.M)]
    assert offenders == []
    # ...and importing all of it does not pull Dagster in indirectly.
    code = ("import sys, pkgutil, importlib, pastcast\n"
            "for m in pkgutil.walk_packages(pastcast.__path__, 'pastcast.'): importlib.import_module(m.name)\n"
            "print(any(n == 'dagster' or n.startswith('dagster.') for n in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_production_instance_config_in_the_readme_loads(tmp_path):
    """The README's dagster.yaml, less its Postgres storage (dagster-postgres is not installed
    here), is a valid instance config with the run tag limit and the pool limit it describes."""
    import dagster as dg

    readme = (ROOT / "README.md").read_text()
    block = readme.split("`$DAGSTER_HOME/dagster.yaml`:\n\n  ```yaml\n", 1)[1].split("  ```", 1)[0]
    config = yaml.safe_load("\n".join(line[2:] for line in block.splitlines()))
    assert config.pop("storage")["postgres"]["postgres_url"] == {"env": "DAGSTER_PG_URL"}
    (tmp_path / "dagster.yaml").write_text(yaml.safe_dump(config))
    with dg.DagsterInstance.from_config(str(tmp_path)) as instance:
        concurrency = instance.get_concurrency_config()
    assert concurrency.run_queue_config.tag_concurrency_limits == [
        {"key": "pastcast/writes", "limit": 1}, {"key": "pastcast/llm", "value": "true", "limit": 1}]
    assert concurrency.pool_config.default_pool_limit == 1
    from pipelines.jobs import LLM_TAGS, build_news_job

    from pipelines.jobs import WRITES_TAGS

    assert build_news_job.tags == {**LLM_TAGS, **WRITES_TAGS}  # the tags the limits name
    assert LLM_TAGS == {"pastcast/llm": "true"} and WRITES_TAGS == {"pastcast/writes": "store"}


def test_the_daily_partitions_start_where_the_corpus_starts(tmp_path, monkeypatch):
    """Not on a fixed 2016 date: the catalog counts the corpus's days (PASTCAST_START_DATE wins)."""
    import assets._partitions as partitions
    from pastcast.pipeline import first_crawl_day

    import os

    if "PASTCAST_START_DATE" not in os.environ:
        corpus = os.environ.get("PASTCAST_CORPUS_DIR", "corpora/sample")
        assert partitions.DAILY.start.date() == first_crawl_day(corpus) > date(2016, 8, 1)
    monkeypatch.setenv("PASTCAST_START_DATE", "2026-02-01")
    assert partitions.start_date() == "2026-02-01"
    monkeypatch.delenv("PASTCAST_START_DATE")
    monkeypatch.setenv("PASTCAST_CORPUS_DIR", str(tmp_path / "empty"))
    assert partitions.start_date() == partitions.CC_NEWS_START  # no file yet
