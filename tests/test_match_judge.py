"""The optional LLM judge of answer matching, against the loopback OpenAI server: only
outcomes the rules reject but that may name the answer are judged, accepted ones score as the
truth, every verdict is logged, and a rerun asks nothing."""

import json

from evalkit import article, question, ts, write_snapshot
from openai_server import OpenAIServer, completion
from pastcast.evaluate.judge import worth_judging
from pastcast.evaluate.runner import run_eval
from pastcast.llm import LLMSettings


class Guess:
    name = "guess"

    def act(self, env):
        for q in env.open_questions():
            env.submit(q.question_id, {"L. Okafor": 0.8, "Okafor": 0.1, "Bo Lind": 0.05})


def test_the_judge_accepts_a_more_specific_form_and_logs_every_verdict(tmp_path):
    snap = write_snapshot(tmp_path / "s", [article("a1", "Vote", "Kestrel Bay votes.", ts("2024-01-02"))],
                          [question("q1", "Who will be elected mayor of Kestrel Bay?", "Lina Okafor",
                                    "2024-01-02", "2024-01-05")], "2024-01-01", "2024-01-05")

    def script(body, n):  # initials + surname: the same person; the bare surname: vaguer
        outcome = body["messages"][1]["content"].split("Submitted outcome: ", 1)[1].strip()
        return completion(json.dumps({"match": outcome == "L. Okafor", "reason": "checked"}))

    with OpenAIServer(script) as server:
        settings = LLMSettings(model="openai/test-model", api_base=server.url, api_key="k",
                               cache_dir=tmp_path / "cache", backoff_base=0.01)
        plain = run_eval(snap, Guess(), tmp_path / "plain")
        judged = run_eval(snap, Guess(), tmp_path / "judged", judge=settings)
        asked = len(server.requests)
        again = run_eval(snap, Guess(), tmp_path / "again", judge=settings)
        assert len(server.requests) == asked == 2  # "L. Okafor" and "Okafor"; "Bo Lind" shares nothing
    # without the judge nothing matches: 1 - (0.64 + 0.01 + 0.0025 + 1)
    assert plain.scores["bss"][0] == 1 - (0.8 ** 2 + 0.1 ** 2 + 0.05 ** 2 + 1)
    # "L. Okafor" is the truth now: 1 - ((0.8 - 1)^2 + 0.1^2 + 0.05^2)
    assert abs(judged.scores["bss"][0] - (1 - (0.04 + 0.01 + 0.0025))) < 1e-12
    assert judged.run["match_judge"] == "openai/test-model" and judged.run["judge_accepted"] == 1
    verdicts = [json.loads(line) for line in (tmp_path / "judged" / "match_verdicts.jsonl").read_text().splitlines()]
    assert {(v["outcome"], v["match"]) for v in verdicts} == {("L. Okafor", True), ("Okafor", False)}
    assert again.scores.equals(judged.scores)


def test_only_plausible_outcomes_are_judged():
    assert worth_judging("L. Okafor", ["Lina Okafor"]) and worth_judging("USA", ["United States of America"])
    assert worth_judging("Lina Okafour", ["Lina Okafor"])
    assert not worth_judging("Bo Lind", ["Lina Okafor"]) and not worth_judging("Unknown", ["Lina Okafor"])
