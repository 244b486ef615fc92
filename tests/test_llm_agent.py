"""The bundled LLM agent through litellm against the loopback OpenAI server: it calls tools
(list, search, forecast, note, sleep), a rejected forecast comes back as the tool's error, its
notes carry over, the budget stops it, and a rerun is answered from the cache."""

import json

from evalkit import article, question, ts, write_snapshot
from openai_server import OpenAIServer, tool_reply
from pastcast.evaluate.llm_agent import LLMAgent
from pastcast.evaluate.policies import Sleep
from pastcast.evaluate.runner import run_eval
from pastcast.llm import LLMSettings


def script(body, n):
    messages = body["messages"]
    tools_seen = [m for m in messages if m["role"] == "tool"]
    if not tools_seen:  # a new day: look around
        return tool_reply([("list_questions", {}), ("search", {"query": "harbour board chair", "k": 3})])
    if len(tools_seen) == 2:  # then a bad forecast, a good one, a note and a nap
        return tool_reply([("forecast", {"question_id": "q1", "forecast": {"Unknown": 0.5}}),
                           ("forecast", {"question_id": "q1", "forecast": {"Ana Ruiz": 0.7, "Bo Lind": 0.2}}),
                           ("note", {"text": "Ruiz looks likely"}), ("sleep", {"days": 2})])
    return tool_reply([], "done for today")


def _snap(tmp_path):
    return write_snapshot(tmp_path / "s", [article("a1", "Harbour board", "Ana Ruiz leads the race to chair the "
                                                   "harbour board.", ts("2024-01-02"))],
                          [question("q1", "Who will chair the harbour board?", "Ana Ruiz", "2024-01-02", "2024-01-06")],
                          "2024-01-01", "2024-01-06")


def test_the_llm_agent_uses_its_tools_and_is_cached(tmp_path):
    snap = _snap(tmp_path)
    with OpenAIServer(script) as server:
        settings = LLMSettings(model="openai/test-model", api_base=server.url, api_key="k",
                               cache_dir=tmp_path / "cache", backoff_base=0.01, max_tokens=100_000)
        agent = LLMAgent(settings)
        result = run_eval(snap, agent, tmp_path / "run", policy=Sleep())
        first = len(server.requests)
        again = run_eval(snap, LLMAgent(settings), tmp_path / "again", policy=Sleep())
        assert len(server.requests) == first  # the same conversation: every turn from the cache
    # woke on 01-01 (nothing open: the model lists, searches, forecasts into an error), 01-03, 01-05
    ledger = [json.loads(line) for line in (tmp_path / "run" / "ledger.jsonl").read_text().splitlines()]
    assert [(e["date"], e["forecast"]) for e in ledger] == [
        ("2024-01-03", {"Ana Ruiz": 0.7, "Bo Lind": 0.2}), ("2024-01-05", {"Ana Ruiz": 0.7, "Bo Lind": 0.2})]
    assert result.run["wakes"] == 3 and result.run["llm"]["requests"] == first == 9
    assert result.run["llm"]["tokens"] == 9 * 60 and result.run["llm"]["cost_usd"] is None
    assert agent.notes[-1].endswith("Ruiz looks likely") and len(agent.notes) == 3
    # rejected forecasts went back to the model as errors it could read
    day1 = [m["content"] for m in server.requests[2]["messages"] if m["role"] == "tool"]
    assert sum("is not open on 2024-01-01" in r for r in day1) == 2  # nothing was open yet
    day3 = [m["content"] for m in server.requests[5]["messages"] if m["role"] == "tool"]
    assert day3[2].startswith("error: placeholder outcome 'Unknown'") and day3[3] == "recorded for q1 on 2024-01-03"
    assert day3[5] == "next wake 2024-01-05"
    assert again.scores.equals(result.scores)
    assert abs(result.scores["bss"][0] - (1 - (0.3 ** 2 + 0.2 ** 2))) < 1e-12


def test_the_budget_stops_the_agent_and_keeps_its_forecasts(tmp_path):
    snap = _snap(tmp_path)
    with OpenAIServer(script) as server:
        settings = LLMSettings(model="openai/test-model", api_base=server.url, api_key="k",
                               cache_dir=tmp_path / "cache", backoff_base=0.01, max_tokens=300)
        agent = LLMAgent(settings)
        result = run_eval(snap, agent, tmp_path / "run")
        assert len(server.requests) == 5  # 300 tokens = 5 turns of 60
    assert agent.out_of_budget and result.run["llm"]["out_of_budget"] is True
    assert result.run["forecasts_submitted"] >= 1  # the 01-02 forecast, made before it ran out
