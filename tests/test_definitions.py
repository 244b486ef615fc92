"""The Dagster code location loads, and the library never imports Dagster."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_definitions_load_with_every_asset_check_and_job():
    import dagster as dg

    from pipelines.definitions import defs

    keys = {k.to_user_string() for k in defs.resolve_asset_graph().get_all_asset_keys()}
    assert keys == {"articles_raw", "articles", "markets", "posts", "news_questions", "market_questions",
                    "question_candidates", "questions", "snapshot"}
    news = defs.resolve_asset_graph().get(dg.AssetKey("news_questions"))
    assert news.partitions_def is not None and news.partitions_def.start.date().isoformat() == "2016-08-01"
    assert news.pools == {"llm"}  # LLM-bound steps share a concurrency pool
    assert defs.resolve_job_def("build_snapshot") is not None
    checks = {c.name for c in defs.resolve_asset_graph().asset_check_keys}
    assert {"manifest_matches_files", "no_answer_in_own_text", "no_answer_in_other_questions",
            "revised_dates_have_evidence", "market_questions_follow_their_markets"} <= checks


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
