"""The wheel, installed on its own, is a working library and CLI: it holds ``pastcast`` (with its
prompts as package data) and no top-level ``assets`` or ``pipelines`` (the Dagster code location
stays in the checkout), and ``pastcast questions generate --generator llm`` run from a folder
outside the checkout finds its prompts and writes questions against the loopback OpenAI server.

Offline: the wheel is built with the project venv's setuptools (``--no-build-isolation``) from
a copy of the checkout, installed with ``--no-deps`` into a fresh venv, and the third-party
packages come from the project venv through a ``.pth`` path line (which adds a folder to
``sys.path`` without running the ``.pth`` files in it, so the checkout's editable finder stays
off and the wheel's copy of pastcast is the one that runs)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import tomllib
import zipfile
from pathlib import Path

import polars as pl
import pytest

from openai_server import OpenAIServer
from test_llm import MODEL, _articles, happy

ROOT = Path(__file__).resolve().parents[1]
# Not sources: environments, caches, build leftovers and outputs of earlier runs.
NOT_SOURCES = shutil.ignore_patterns(".git", ".venv", "venv", "__pycache__", "*.pyc", "build", "dist", "*.egg-info",
                                     ".pytest_cache", ".dagster", ".pastcast", ".pastcast-cache", ".bench-cache",
                                     "snapshots", "runs", "data")
LIMIT = 900  # seconds per step: a hung step fails instead of blocking CI; never a speed check


def _run(args: list[str], **kw) -> subprocess.CompletedProcess:
    done = subprocess.run(args, capture_output=True, text=True, timeout=LIMIT, **kw)
    assert done.returncode == 0, f"{args[:4]}... exited {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", "PYTHONUSERBASE")}
    return {**env, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONNOUSERSITE": "1", **extra}


@pytest.mark.slow
def test_the_wheel_alone_installs_the_library_and_cli_with_its_prompts(tmp_path):
    started = time.perf_counter()
    import setuptools

    major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
    assert (major, minor) >= (70, 1), (f"setuptools {setuptools.__version__} has no bdist_wheel of its own: "
                                       "reinstall the venv (make venv) for the test extra's setuptools")

    # 1. build the wheel from a copy of the checkout (an in-tree build would leave build/ behind)
    src, dist = tmp_path / "src", tmp_path / "dist"
    shutil.copytree(ROOT, src, ignore=NOT_SOURCES)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
          "--wheel-dir", str(dist), str(src)], env=_clean_env())
    (wheel,) = dist.glob("pastcast-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        top_level = zf.read(next(n for n in names if n.endswith(".dist-info/top_level.txt"))).decode().split()
        shipped = {n: zf.read(n) for n in names if n.startswith("pastcast/prompts/")}
    assert {n.split("/")[0] for n in names} == {"pastcast", wheel.name.split("-py3")[0] + ".dist-info"}
    assert top_level == ["pastcast"]  # no assets, no pipelines, no corpus
    assert not [n for n in names if n.startswith(("assets/", "pipelines/", "corpora/", "tests/"))]
    for prompt in ("question_generate", "question_check", "agent"):  # byte for byte the checkout's
        assert shipped[f"pastcast/prompts/{prompt}.toml"] == (ROOT / "pastcast" / "prompts" / f"{prompt}.toml").read_bytes()

    # 2. a fresh venv outside the checkout, the wheel alone, the dependencies by path
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], env=_clean_env())
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)],
         env=_clean_env())
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     env=_clean_env()).stdout.strip())
    assert site.is_relative_to(venv)
    (site / "project_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    work = tmp_path / "work"  # the working directory: not the checkout, nothing of it on sys.path
    (work / "dedup").mkdir(parents=True)
    _articles(3).write_parquet(work / "dedup" / "articles.parquet")
    env = _clean_env(PASTCAST_CACHE=str(tmp_path / "cache"), LITELLM_LOCAL_MODEL_COST_MAP="True",
                     PASTCAST_LLM_API_KEY="test-key", no_proxy="127.0.0.1,localhost", NO_PROXY="127.0.0.1,localhost")
    env.pop("PASTCAST_LLM_MODEL", None)
    probe = _run([str(python), "-c", "\n".join([
        "import importlib.util, json, sys",
        "import pastcast, pastcast.llm",
        "print(json.dumps({'file': pastcast.__file__, 'prompts': str(pastcast.llm.PROMPTS_DIR),",
        "    'hash': pastcast.llm.load_prompt('question_generate').sha256,",
        "    'editable': [m for m in sys.modules if m.startswith('__editable__')],",
        "    'code_location': [m for m in ('assets', 'pipelines') if importlib.util.find_spec(m)]}))"])],
        cwd=work, env=env)
    found = json.loads(probe.stdout)
    assert Path(found["file"]).is_relative_to(site), found  # the wheel's copy, not the checkout's
    assert Path(found["prompts"]).is_relative_to(site) and found["editable"] == [] and found["code_location"] == []
    generate_hash = hashlib.sha256((ROOT / "pastcast" / "prompts" / "question_generate.toml").read_bytes()).hexdigest()
    assert found["hash"] == generate_hash  # the same hash as in the checkout: same bytes, same computation

    # 3. the installed CLI generates questions with the LLM: the prompts were found
    cli = venv / "bin" / "pastcast"
    with OpenAIServer(happy) as server:
        result = _run([str(cli), "questions", "generate", "--generator", "llm", "--articles", "dedup", "--out", "q",
                       "--model", MODEL, "--api-base", server.url, "--concurrency", "2", "--max-tokens", "100000"],
                      cwd=work, env=env)
        assert len(server.requests) == 6  # two prompts for each of three articles
        systems = {b["messages"][0]["content"].split("\n", 1)[0] for b in server.requests}
    assert "3 articles -> 3 questions" in result.stdout, result.stdout
    questions = pl.read_parquet(work / "q" / "questions.parquet")
    assert questions.height == 3 and set(questions["answer"]) == {"Candidate A0", "Candidate B1", "Candidate C2"}
    assert questions["generator"].str.contains(f"question_generate@{generate_hash[:12]}").all()
    first_lines = {tomllib.loads((ROOT / "pastcast" / "prompts" / f"{p}.toml").read_text())["system"].split("\n", 1)[0]
                   for p in ("question_generate", "question_check")}
    assert systems == first_lines  # both passes rendered from the shipped prompt files
    print(f"wheel build, install and CLI run: {time.perf_counter() - started:.1f} s")
