"""The LLM path against a real OpenAI-protocol HTTP server on loopback: litellm's own client
makes every request. Scripted replies cover valid answers, malformed JSON, 429 with
Retry-After, 500s and slow responses; the tests assert the retries, drops, cache, concurrency
limit and budget stop."""

import json
import time
from datetime import date

import polars as pl
import pytest

from evalkit import article, ts
from openai_server import OpenAIServer, Reply, completion, error, tool_reply
from pastcast.llm import LLMClient, LLMSettings, load_prompt, parse_json
from pastcast.questions.llm_generate import (SCHEMAS, GeneratedQuestions, LLMGenerateConfig, SelectConfig,
                                             generate_llm, select_articles)
from pastcast.schemas import ARTICLES, QUESTIONS, frame

MODEL = "openai/test-model"  # an OpenAI-compatible server with no known price


def _article(i: int, day: str = "2026-03-08", winner: str | None = None) -> dict:
    winner = winner or f"Candidate {chr(65 + i % 26)}{i}"
    text = (f"{winner} won the Kestrel Bay mayoral election on Sunday, the electoral office said. "
            f"Turnout was 61 percent. The count in district {i} finished late.")
    row = article(f"a{i:04d}", f"{winner} wins Kestrel Bay mayoral election", text, ts(day, 21))
    return row | {"dup_cluster": f"a{i:04d}"}


def _winner(body: dict) -> str:
    user = body["messages"][1]["content"]
    return user.split("Title: ", 1)[1].split(" wins Kestrel Bay", 1)[0]


def generation(body: dict) -> str:
    w = _winner(body)
    return json.dumps({"reports_outcome": True, "questions": [{
        "title": "Who will win the 2026 Kestrel Bay mayoral election?",
        "background": "Kestrel Bay elects its mayor in March 2026.",
        "resolution_criteria": "The winner according to the electoral office.",
        "answer": w, "answer_aliases": [], "answer_type": "person",
        "resolution_date": "2026-03-08", "evidence": f"{w} won the Kestrel Bay mayoral election"}]})


def check(body: dict) -> str:
    w = _winner(body)
    return json.dumps({"keep": True, "best": 0, "title": "Who will win the 2026 Kestrel Bay mayoral election?",
                       "background": "Kestrel Bay elects its mayor in March 2026.",
                       "resolution_criteria": "The winner according to the electoral office.",
                       "answer": w, "answer_aliases": [], "answer_type": "person",
                       "resolution_date": "2026-03-08", "rewrote": [], "reason": ""})


def is_check(body: dict) -> bool:
    return "You review candidate questions" in body["messages"][0]["content"]


def happy(body: dict, n: int) -> Reply:
    return completion(check(body) if is_check(body) else generation(body), 100, 20)


def _settings(server, tmp_path, **kw) -> LLMSettings:
    kw = {"concurrency": 4, "backoff_base": 0.01, "backoff_cap": 2.0, "timeout": 5.0,
          "cache_dir": tmp_path / "cache", **kw}
    return LLMSettings(model=MODEL, api_base=server.url, api_key="test-key", **kw)


CONFIG = LLMGenerateConfig(select=SelectConfig(per_day=None))


def _articles(n: int) -> pl.DataFrame:
    return frame([_article(i) for i in range(n)], ARTICLES)


def test_generation_writes_questions_and_a_rerun_makes_no_request(tmp_path):
    articles = frame([_article(0), _article(1),
                      article("p", "Preview: who could win the cup final?", "The final is on Sunday. "
                              "Pundits predict a close match; the Rovers are expected to win.", ts("2026-03-07"))],
                     ARTICLES)
    with OpenAIServer(happy) as server:
        first = generate_llm(articles, _settings(server, tmp_path), CONFIG)
        assert len(server.requests) == 4  # two articles, two passes each; the preview is not sent
        second = generate_llm(articles, _settings(server, tmp_path), CONFIG)
        assert len(server.requests) == 4  # everything from the cache
    assert first.questions.equals(second.questions) and dict(first.questions.schema) == QUESTIONS
    q = first.questions.sort("source_ids").row(0, named=True)
    assert q["answer"] == "Candidate A0" and q["source_ids"] == ["a0000"]
    assert (q["open_date"], q["resolution_date"]) == (date(2026, 2, 8), date(2026, 3, 8))
    gen, chk = load_prompt("question_generate"), load_prompt("question_check")
    assert q["generator"] == f"llm:{MODEL}/question_generate@{gen.sha256[:12]}+question_check@{chk.sha256[:12]}"
    assert dict(zip(first.drops["item_id"], first.drops["reason"])) == {"p": "not_outcome_report"}
    assert first.usage.requests == 4 and first.usage.cache_hits == 0 and first.usage.tokens == 4 * 120
    assert first.usage.cost_known is False  # no price for a local model: tokens only
    assert second.usage.requests == 0 and second.usage.cache_hits == 4 and second.usage.tokens == 0
    assert set(second.ledger["status"]) == {"cached"} and set(first.ledger["status"]) == {"ok"}
    # the request used JSON mode and the prompt's parameters
    body = server.requests[0]
    assert body["response_format"] == {"type": "json_object"} and body["temperature"] == gen.temperature


def test_429_with_retry_after_and_500_are_retried(tmp_path):
    def script(body, n):
        if n == 0:
            return error(429, "slow down", {"Retry-After": "0.3"})
        if n == 1:
            return error(500, "boom")
        return happy(body, n)

    with OpenAIServer(script) as server:
        started = time.perf_counter()
        result = generate_llm(_articles(1), _settings(server, tmp_path, concurrency=1), CONFIG)
        elapsed = time.perf_counter() - started
    assert result.questions.height == 1 and result.drops.is_empty()
    assert len(server.requests) == 4 and result.usage.requests == 4
    assert result.ledger["attempts"].to_list() == [3, 1]  # generation needed three requests
    assert elapsed >= 0.3  # Retry-After was honoured


def test_retries_give_up_after_max_attempts_and_bad_requests_are_not_retried(tmp_path):
    def script(body, n):
        return error(503, "overloaded") if _winner(body).endswith("0") else error(400, "bad request")

    articles = frame([_article(0, winner="Ana Ruiz0"), _article(1, winner="Bo Lind1")], ARTICLES)
    with OpenAIServer(script) as server:
        result = generate_llm(articles, _settings(server, tmp_path, max_attempts=3), CONFIG)
        by_winner = [_winner(b) for b in server.requests]
    assert by_winner.count("Ana Ruiz0") == 3 and by_winner.count("Bo Lind1") == 1
    assert set(result.drops["reason"]) == {"llm_error"} and result.drops.height == 2
    assert result.questions.is_empty()


def test_malformed_json_gets_one_repair_then_a_drop(tmp_path):
    def script(body, n):
        winner = _winner(body)
        repairing = len(body["messages"]) > 2
        if winner.startswith("Fixed") and not is_check(body):
            return completion(generation(body) if repairing else "{not json")
        if winner.startswith("Broken") and not is_check(body):
            return completion('{"reports_outcome": "perhaps"}')  # valid JSON, wrong schema, twice
        if winner.startswith("Fenced") and not is_check(body):
            return completion(f"```json\n{generation(body)}\n```")
        return happy(body, n)

    articles = frame([_article(0, winner="Fixed One"), _article(1, winner="Broken Two"),
                      _article(2, winner="Fenced Three")], ARTICLES)
    with OpenAIServer(script) as server:
        result = generate_llm(articles, _settings(server, tmp_path), CONFIG)
    assert sorted(result.questions["answer"]) == ["Fenced Three", "Fixed One"]
    (d,) = result.drops.iter_rows(named=True)
    assert (d["item_id"], d["reason"]) == ("a0001", "invalid_json") and "reports_outcome" in d["detail"]
    repairs = [b for b in server.requests if len(b["messages"]) == 4]
    assert len(repairs) == 2  # one for Fixed, one for Broken; none for the fenced reply
    assert "not valid JSON for the required schema" in repairs[0]["messages"][3]["content"]


def test_a_slow_response_times_out_and_is_retried(tmp_path):
    def script(body, n):
        return Reply(**{**happy(body, n).__dict__, "delay": 4.0}) if n == 0 else happy(body, n)

    # the timeout leaves a loaded machine's fast replies room; the slow one is far past it
    with OpenAIServer(script) as server:
        result = generate_llm(_articles(1), _settings(server, tmp_path, timeout=1.5, concurrency=1), CONFIG)
    assert result.questions.height == 1 and len(server.requests) == 3
    assert result.ledger["attempts"].to_list() == [2, 1]


def test_requests_in_flight_never_exceed_the_concurrency_limit(tmp_path):
    with OpenAIServer(happy, latency=0.15) as server:
        result = generate_llm(_articles(24), _settings(server, tmp_path, concurrency=4), CONFIG)
    assert result.questions.height == 24 and len(server.requests) == 48
    assert server.max_in_flight == 4  # the calls overlapped, never beyond the limit


def test_a_token_budget_stops_the_run_and_keeps_finished_work(tmp_path):
    with OpenAIServer(happy, latency=0.05) as server:
        result = generate_llm(_articles(40), _settings(server, tmp_path, concurrency=2, max_tokens=1000), CONFIG)
    per_request = 120
    assert result.usage.tokens >= 1000
    assert result.usage.tokens <= 1000 + 2 * per_request  # at most the requests in flight when it ran out
    reasons = result.drops["reason"].value_counts().sort("reason").rows()
    assert ("budget_exhausted", 40 - result.questions.height) in reasons
    # 9 or 10 requests started before the books showed 1,000 tokens: 4 or 5 articles finished
    assert result.questions.height in (4, 5) and len(server.requests) == result.usage.requests
    assert result.questions.height + result.drops.height == 40  # every article accounted for


def test_a_cost_budget_needs_a_price(tmp_path):
    with OpenAIServer(happy) as server:
        with pytest.raises(ValueError, match="no known price"):
            LLMClient(_settings(server, tmp_path, max_cost_usd=1.0), SCHEMAS)
        # with a price (e.g. a self-hosted model's own accounting) the cost budget applies
        priced = _settings(server, tmp_path, max_cost_usd=0.0005, price_per_million=(1.0, 5.0), concurrency=1)
        result = generate_llm(_articles(10), priced, CONFIG)
    per_request = 100 * 1.0e-6 + 20 * 5.0e-6  # $0.0002
    assert result.usage.cost_known and result.usage.cost_usd == pytest.approx(3 * per_request)
    assert result.usage.cost_usd <= 0.0005 + per_request
    assert result.questions.height == 1 and "budget_exhausted" in set(result.drops["reason"])


def test_settings_come_from_options_then_environment(monkeypatch):
    monkeypatch.setenv("PASTCAST_LLM_MODEL", "openai/from-env")
    monkeypatch.setenv("PASTCAST_LLM_API_BASE", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("PASTCAST_LLM_API_KEY", "secret")
    s = LLMSettings.from_env(concurrency=3)
    assert (s.model, s.api_base, s.api_key, s.concurrency) == ("openai/from-env", "http://127.0.0.1:9/v1", "secret", 3)
    assert LLMSettings.from_env(model="gpt-4o-mini").model == "gpt-4o-mini"
    assert s.public()["api_key"] == "***"
    monkeypatch.setenv("PASTCAST_LLM_MAX_TOKENS", "5000")
    monkeypatch.setenv("PASTCAST_LLM_MAX_COST", "2.5")
    budgeted = LLMSettings.from_env(max_tokens=100)
    assert (budgeted.max_tokens, budgeted.max_cost_usd) == (100, 2.5)  # the option wins
    monkeypatch.delenv("PASTCAST_LLM_MODEL")
    with pytest.raises(ValueError, match="PASTCAST_LLM_MODEL"):
        LLMSettings.from_env()


def test_parse_json_and_selection_rules():
    good = json.dumps({"reports_outcome": False})
    assert parse_json(f"```json\n{good}\n```", GeneratedQuestions).reports_outcome is False
    rows = [_article(i) for i in range(3)] + [_article(3) | {"dup_cluster": "a0000"}]
    rows += [article("op", "Opinion: what the election means", "Analysis of what could happen next.",
                     ts("2026-03-08"))]
    selected, drops = select_articles(frame(rows, ARTICLES), SelectConfig(per_day=2))
    assert selected.height == 2
    assert sorted((d.item_id, d.reason) for d in drops) == [
        ("a0002", "day_limit"), ("a0003", "cluster_limit"), ("op", "not_outcome_report")]


def test_cli_questions_generate_with_the_llm_then_from_the_cache(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from pastcast.cli import main

    articles_dir = tmp_path / "dedup"
    articles_dir.mkdir()
    _articles(3).write_parquet(articles_dir / "articles.parquet")
    monkeypatch.setenv("PASTCAST_LLM_API_KEY", "test-key")
    monkeypatch.setenv("PASTCAST_CACHE", str(tmp_path / "cache"))
    with OpenAIServer(happy) as server:
        args = ["questions", "generate", "--articles", str(articles_dir), "--out", str(tmp_path / "q"),
                "--model", MODEL, "--api-base", server.url, "--concurrency", "2", "--max-tokens", "100000"]
        first = CliRunner().invoke(main, args)
        again = CliRunner().invoke(main, args)
        assert len(server.requests) == 6
    assert first.exit_code == 0, first.output
    assert "3 articles -> 3 questions (1.000 per article)" in first.output
    assert "LLM: 6 requests, 0 cache hits, 720 tokens" in first.output and "cost unknown" in first.output
    assert "LLM: 0 requests, 6 cache hits, 0 tokens" in again.output
    out = tmp_path / "q"
    assert sorted(p.name for p in out.iterdir()) == ["drops.parquet", "generate.json", "llm_ledger.parquet",
                                                     "questions.parquet"]
    summary = json.loads((out / "generate.json").read_text())
    assert summary["generator"] == "llm" and summary["settings"]["llm"]["api_key"] == "***"
    assert pl.read_parquet(out / "questions.parquet").height == 3


def test_cli_questions_generate_offline(tmp_path):
    from click.testing import CliRunner

    from pastcast.cli import main
    from warcs import SAMPLE

    articles_dir = tmp_path / "a"
    articles_dir.mkdir()
    _articles(2).write_parquet(articles_dir / "articles.parquet")
    result = CliRunner().invoke(main, ["questions", "generate", "--articles", str(articles_dir),
                                       "--out", str(tmp_path / "q"), "--generator", "extractive"])
    assert result.exit_code == 0, result.output
    questions = pl.read_parquet(tmp_path / "q" / "questions.parquet")
    drops = pl.read_parquet(tmp_path / "q" / "drops.parquet")
    assert questions.height + drops.height >= 2 and "generator: extractive" in result.output
    assert not (tmp_path / "q" / "llm_ledger.parquet").exists()
    no_model = CliRunner().invoke(main, ["questions", "generate", "--articles", str(articles_dir), "--out",
                                         str(tmp_path / "x"), "--generator", "llm"], env={"PASTCAST_LLM_MODEL": ""})
    assert no_model.exit_code != 0 and "PASTCAST_LLM_MODEL" in no_model.output
    no_articles = CliRunner().invoke(main, ["questions", "generate", "--articles", str(SAMPLE), "--out",
                                            str(tmp_path / "x")])
    assert no_articles.exit_code != 0 and "no articles at" in no_articles.output


def test_the_daily_asset_generates_one_day_with_the_llm_and_reports_its_cost(tmp_path):
    import dagster as dg

    from assets._resources import PastcastStorage, QuestionGenerator
    from assets.questions import news_questions

    from pastcast.daily import day_dir

    work = tmp_path / "work"
    for day, rows in ((date(2026, 3, 8), [_article(0), _article(1)]), (date(2026, 3, 9), [_article(2, day="2026-03-09")])):
        (day_dir(work, day) / "dedup").mkdir(parents=True)  # two crawl days, deduplicated
        frame(rows, ARTICLES).write_parquet(day_dir(work, day) / "dedup" / "articles.parquet")
    with OpenAIServer(happy) as server:
        resources = {"storage": PastcastStorage(work_dir=str(work)),
                     "generator": QuestionGenerator(generator="llm", model=MODEL, api_base=server.url,
                                                    api_key="k", max_tokens=100_000, concurrency=2,
                                                    cache_dir=str(tmp_path / "cache"))}
        with dg.DagsterInstance.ephemeral() as instance:
            first = dg.materialize([news_questions], partition_key="2026-03-08", resources=resources,
                                   instance=instance)
            again = dg.materialize([news_questions], partition_key="2026-03-08", resources=resources,
                                   instance=instance)
        assert len(server.requests) == 4  # the two articles of 03-08, once
    meta = first.get_asset_materialization_events()[0].materialization.metadata
    # the LLM's use is the run's (run/...); the day's partition has its own articles and questions
    assert meta["run/llm/requests"].value == 4 and meta["run/llm/tokens"].value == 480
    assert meta["run/llm/cost_usd"].value == "unknown" and meta["dagster/row_count"].value == 2
    assert meta["articles"].value == 2 and meta["questions"].value == 2
    assert again.get_asset_materialization_events()[0].materialization.metadata["run/llm/requests"].value == 0
    day = work / "questions" / "news" / "day=2026-03-08"
    assert pl.read_parquet(day / "questions.parquet").height == 2
    assert pl.read_parquet(day / "llm_ledger.parquet").height == 4
    assert not (work / "questions" / "news" / "day=2026-03-09").exists()  # another partition


def test_a_priced_model_gets_a_json_schema_and_its_cost_from_litellm(tmp_path):
    # gpt-4o-mini is in litellm's local price map and supports response schemas; the requests
    # still go to the loopback server through api_base.
    with OpenAIServer(happy) as server:
        settings = LLMSettings(model="gpt-4o-mini", api_base=server.url, api_key="k", cache_dir=tmp_path / "c",
                               max_cost_usd=1.0, backoff_base=0.01)
        result = generate_llm(_articles(1), settings, CONFIG)
        body = server.requests[0]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == "GeneratedQuestions"
    assert "reports_outcome" in json.dumps(body["response_format"]["json_schema"]["schema"])
    assert result.usage.cost_known and 0 < result.usage.cost_usd < 0.001  # 2 x (100 in, 20 out) tokens
    assert result.ledger["cost_usd"].sum() == pytest.approx(result.usage.cost_usd)


def test_only_the_llm_client_imports_litellm():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    importers = sorted(str(p.relative_to(root)) for d in ("pastcast", "assets", "pipelines")
                       for p in (root / d).rglob("*.py")
                       if re.search(r"^\s*(import litellm|from litellm)", p.read_text(), re.M))
    assert importers == ["pastcast/llm/client.py"]


def test_prompts_are_package_data_hashed_from_their_bytes(tmp_path):
    """The prompts ship inside the package (a wheel has them): found with importlib.resources,
    each hashed from its file's bytes, the same from any folder it is read from."""
    import hashlib
    from importlib.resources import files
    from pathlib import Path

    import pastcast
    from pastcast.llm import PROMPTS_DIR

    shipped = files("pastcast") / "prompts"
    assert str(PROMPTS_DIR) == str(shipped) and str(shipped).startswith(str(Path(pastcast.__file__).parent))
    names = sorted(p.name.removesuffix(".toml") for p in shipped.iterdir() if p.name.endswith(".toml"))
    assert {"agent", "answer_match", "difficulty_probe", "leak_judge", "question_check",
            "question_generate"} <= set(names)
    for name in names:
        raw = (shipped / f"{name}.toml").read_bytes()
        prompt = load_prompt(name)
        assert prompt.sha256 == hashlib.sha256(raw).hexdigest()
        (tmp_path / f"{name}.toml").write_bytes(raw)
        assert load_prompt(name, tmp_path) == load_prompt(name, str(tmp_path)) == prompt


def test_retries_wait_as_the_shared_policy_says_without_sleeping(tmp_path):
    """429 with Retry-After as an HTTP date, then in seconds, then a 500 without one: the
    injected sleep records the waits (the date seen from now; full jitter below the ceiling)."""
    import asyncio
    from datetime import datetime, timedelta, timezone
    from email.utils import format_datetime

    from pydantic import BaseModel

    class Echo(BaseModel):
        ok: bool

    (tmp_path / "echo.toml").write_text('name = "echo"\nversion = "1"\nschema = "Echo"\n'
                                        'system = "Reply with JSON."\nuser = "Say $what."\n')
    soon = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=40), usegmt=True)

    def script(body, n):
        if n == 0:
            return error(429, "slow down", {"Retry-After": soon})
        if n == 1:
            return error(429, "slow down", {"Retry-After": "2.5"})
        if n == 2:
            return error(500, "boom")
        return completion('{"ok": true}')

    waits = []

    async def sleep(seconds):
        waits.append(seconds)

    with OpenAIServer(script) as server:
        client = LLMClient(_settings(server, tmp_path, backoff_base=0.5, backoff_cap=60.0), {"Echo": Echo},
                           sleep=sleep)
        result = asyncio.run(client.call("x", load_prompt("echo", tmp_path), {"what": "ok"}))
        client.close()
    assert result.ok and result.value.ok and len(server.requests) == 4
    assert client.ledger[0]["attempts"] == 4 and client.usage.requests == 4
    assert 30 < waits[0] <= 40 and waits[1] == 2.5 and 0 <= waits[2] <= 0.5 * 2 ** 2
    assert len(waits) == 3


def test_litellm_logs_through_python_logging_quiet_by_default():
    import logging
    import os

    from litellm import _logging as litellm_logging

    from pastcast.llm import LITELLM_LOGGERS, _litellm

    _litellm()
    for name in LITELLM_LOGGERS:
        logger = logging.getLogger(name)
        assert litellm_logging.handler not in logger.handlers  # no direct writes to stdout/stderr
        assert logger.propagate and litellm_logging._secret_filter in logger.filters
        if not os.environ.get("LITELLM_LOG"):
            assert logger.level == logging.ERROR and not logger.isEnabledFor(logging.WARNING)


def test_a_long_llm_agent_replay_runs_on_one_event_loop(tmp_path, caplog, capfd):
    """Thirty days of wakes, three turns each, against the loopback server: litellm's logging
    worker never sees its event loop change within the run, so it never warns "LoggingWorker:
    event loop changed" (it did once a turn, a new loop per call), even with its logs on."""
    import logging

    from evalkit import question, write_snapshot
    from pastcast.evaluate.llm_agent import LLMAgent
    from pastcast.evaluate.runner import run_eval

    snap = write_snapshot(tmp_path / "s", [article("a1", "Harbour board", "Ana Ruiz leads the race to chair "
                                                   "the harbour board.", ts("2024-01-02"))],
                          [question("q1", "Who will chair the harbour board?", "Ana Ruiz", "2024-01-02",
                                    "2024-01-29")], "2024-01-01", "2024-01-30")

    def script(body, n):
        tools_seen = sum(m["role"] == "tool" for m in body["messages"])
        if tools_seen == 0:
            return tool_reply([("list_questions", {}), ("search", {"query": "harbour board", "k": 3})])
        if tools_seen == 2:
            return tool_reply([("forecast", {"question_id": "q1", "forecast": {"Ana Ruiz": 0.7, "Bo Lind": 0.2}})])
        return tool_reply([], "done for today")

    with OpenAIServer(script) as server:
        settings = LLMSettings(model=MODEL, api_base=server.url, api_key="k", cache_dir=tmp_path / "cache",
                               backoff_base=0.01, max_tokens=1_000_000)
        warm = LLMClient(settings, {})  # what earlier tests left in litellm's worker goes first
        warm.run(warm.flush_logging())
        warm.close()
        capfd.readouterr()
        caplog.clear()
        caplog.set_level(logging.DEBUG, logger="LiteLLM")
        with LLMAgent(settings) as agent:
            result = run_eval(snap, agent, tmp_path / "run")
        assert len(server.requests) == 30 * 3
    assert result.run["wakes"] == 30 and result.run["llm"]["requests"] == 90
    assert result.run["forecasts_submitted"] >= 1
    litellm_records = [r for r in caplog.records if r.name.startswith("LiteLLM")]
    assert litellm_records  # its logs were on and captured: the check below can see a warning
    changed = [r for r in litellm_records if "event loop changed" in r.getMessage().lower()]
    assert not [r for r in changed if r.levelno >= logging.WARNING]
    assert len(changed) <= 1  # at most the move onto the run's one loop, with nothing to carry
    assert "event loop changed" not in capfd.readouterr().err.lower()
