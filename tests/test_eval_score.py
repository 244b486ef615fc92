import json
from collections import defaultdict
from datetime import date

import polars as pl
import pytest
from click.testing import CliRunner
from polars.testing import assert_frame_equal

from evalkit import article, question, ts, write_snapshot
from pastcast.cli import main as cli
from pastcast.evaluate import run_eval
from pastcast.evaluate.external import score_external


def _snapshot(root):
    a = [article("m1", "Port Ellis mayor race", "Maria Santos leads the Port Ellis mayor race.", ts("2024-01-02"))]
    q = [
        question("q-mayor", "Who will win the Port Ellis mayor race?", "Maria Santos", "2024-01-02", "2024-01-08",
                 category="politics"),
        question("q-cup", "Which team will win the cup final?", "Blues", "2024-01-03", "2024-01-09",
                 answer_type="organisation", answer_aliases=["The Blues"], category="sport", source_kind="market"),
        # opens before the replay window starts
        question("q-infl", "What will Ardenia inflation be?", "4.5%", "2023-12-28", "2024-01-10",
                 answer_type="number", category="economy"),
    ]
    return write_snapshot(root / "tiny" / "v2", a, q, "2024-01-01", "2024-01-10", name="tiny", version="v2")


def _line(qid, day, forecast, **kw):
    return json.dumps({"question_id": qid, "date": day, "forecast": forecast, **kw})


LINES = [
    _line("q-mayor", "2024-01-02", {"Maria Santos": 0.6, "John Park": 0.3}),  # 1 ok
    _line("q-mayor", "2024-01-05", {"Maria Santos": 0.8}, agent="mybot"),  # 2 ok
    _line("q-mayor", "2024-01-08", {"Maria Santos": 1.0}),  # 3 on the resolution date
    _line("q-cup", "2024-01-02", {"Blues": 0.9}),  # 4 before it opens
    _line("q-nope", "2024-01-04", {"Blues": 0.9}),  # 5 unknown question
    _line("q-cup", "2024-01-04", {"Other": 0.5}),  # 6 placeholder
    _line("q-cup", "2024-01-04", {"Reds": 0.7, "Blues": 0.6}),  # 7 sums to 1.3
    "this is not json",  # 8
    _line("q-cup", "2024-13-01", {"Blues": 0.5}),  # 9 bad date
    _line("q-cup", "2024-01-04", {"Reds": 0.3, "Blues": 0.6}),  # 10 ok
    "",  # 11 blank: skipped
    _line("q-mayor", "2024-01-03", {"John Park": 0.5}),  # 12 ok, earlier than line 2: sorted in
    _line("q-infl", "2023-12-30", {"4.5%": 0.5}),  # 13 open, but before the replay window
    _line("q-infl", "2024-01-06", {"4.5%": 0.7, "5%": 0.2}, agent="otherbot"),  # 14 another agent
    _line("q-infl", "2024-01-06", {"4.5%": 0.7, "5%": 0.2}),  # 15 ok
    json.dumps(["q-cup"]),  # 16 not an object
    json.dumps({"question_id": "q-cup", "date": "2024-01-05"}),  # 17 no forecast
]
EXPECTED_REJECTED = {
    3: "on_or_after_resolution", 4: "before_open", 5: "unknown_question", 6: "invalid_forecast",
    7: "invalid_forecast", 8: "malformed", 9: "malformed", 13: "outside_window", 14: "agent_mismatch",
    16: "malformed", 17: "malformed",
}
ACCEPTED = [1, 12, 10, 2, 15]  # in date order


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("snapshots")
    _snapshot(root)
    return root


@pytest.fixture(scope="module")
def scored(root, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("score")
    forecasts = tmp / "forecasts.jsonl"
    forecasts.write_text("\n".join(LINES) + "\n")
    out = tmp / "run"
    result = CliRunner().invoke(cli, ["eval", "score", "--snapshot", "tiny/v2", "--root", str(root),
                                      "--forecasts", str(forecasts), "--out", str(out)])
    assert result.exit_code == 0, result.output + repr(result.exception)
    return out, result


def test_files_and_rejections(scored, root):
    out, result = scored
    assert sorted(p.name for p in out.iterdir()) == [".lock", "ledger.jsonl", "rejected.jsonl", "run.json", "scores.parquet"]
    rejected = [json.loads(x) for x in (out / "rejected.jsonl").read_text().splitlines()]
    assert {r["line"]: r["reason"] for r in rejected} == EXPECTED_REJECTED
    by_line = {r["line"]: r for r in rejected}
    assert "placeholder" in by_line[6]["detail"] and "sum to 1.3" in by_line[7]["detail"]
    assert by_line[5]["question_id"] == "q-nope" and by_line[8]["question_id"] is None
    ledger = [json.loads(x) for x in (out / "ledger.jsonl").read_text().splitlines()]
    assert [(e["question_id"], e["date"]) for e in ledger] == [
        (json.loads(LINES[n - 1])["question_id"], json.loads(LINES[n - 1])["date"]) for n in ACCEPTED]
    assert all(e["agent"] == "mybot" for e in ledger)  # the first agent a line names

    run = json.loads((out / "run.json").read_text())
    assert run["agent"] == "mybot"
    assert run["snapshot"] == {"name": "tiny", "version": "v2", "path": str((root / "tiny" / "v2").resolve())}
    assert run["window"] == {"start": "2024-01-01", "end": "2024-01-10"}
    assert run["accepted"] == 5 and run["rejected"] == 11
    assert run["rejected_by_reason"] == {"agent_mismatch": 1, "before_open": 1, "invalid_forecast": 2, "malformed": 4,
                                         "on_or_after_resolution": 1, "outside_window": 1, "unknown_question": 1}
    assert {"questions", "mean_bss", "accuracy", "time_weighted_bss", "metrics"} <= set(run["summary"])
    assert {"mean_truth_mass", "ece", "calibration", "by_category", "ci95"} <= set(run["summary"]["metrics"])
    assert run["summary"]["metrics"]["mean_truth_mass"] == pytest.approx((0.8 + 0.6 + 0.7) / 3)
    assert "5 forecasts accepted, 11 rejected" in result.output
    assert "mybot" in result.output  # the leaderboard line


class Replay:
    """Submits given forecasts through the environment on their days."""

    def __init__(self, name, lines):
        self.name = name
        self.plan = defaultdict(list)
        for raw in lines:
            obj = json.loads(raw)
            self.plan[date.fromisoformat(obj["date"])].append((obj["question_id"], obj["forecast"]))

    def act(self, env):
        for qid, forecast in self.plan.get(env.today, []):
            env.submit(qid, forecast)


def test_scores_equal_eval_run(scored, root, tmp_path):
    out, _ = scored
    external = pl.read_parquet(out / "scores.parquet")
    ran = run_eval(root / "tiny" / "v2", Replay("mybot", [LINES[n - 1] for n in ACCEPTED]), tmp_path / "env")
    assert_frame_equal(external, ran.scores)
    assert_frame_equal(external, pl.read_parquet(tmp_path / "env" / "scores.parquet"))
    assert (out / "ledger.jsonl").read_text() == (tmp_path / "env" / "ledger.jsonl").read_text()
    assert {"question_id", "bss", "accuracy", "time_weighted_bss"} <= set(external.columns)
    row = external.filter(pl.col("question_id") == "q-mayor").row(0, named=True)
    assert row["bss"] == pytest.approx(1 - 0.04) and row["n_forecasts"] == 3 and row["accuracy"] == 1.0
    run = json.loads((out / "run.json").read_text())
    assert run["summary"]["mean_bss"] == pytest.approx(ran.summary["mean_bss"])


def test_agent_option_and_default(root, tmp_path):
    forecasts = tmp_path / "f.jsonl"
    forecasts.write_text(LINES[0] + "\n" + LINES[1] + "\n")
    r = score_external(root / "tiny" / "v2", forecasts, tmp_path / "a", agent="mybot")
    assert r.run["agent"] == "mybot" and r.run["accepted"] == 2
    r = score_external(root / "tiny" / "v2", forecasts, tmp_path / "b", agent="someone")
    assert r.run["agent"] == "someone" and [x.reason for x in r.rejected] == ["agent_mismatch"]
    forecasts.write_text(LINES[0] + "\n")
    r = score_external(root / "tiny" / "v2", forecasts, tmp_path / "c")
    assert r.run["agent"] == "external" and not r.rejected
    assert (tmp_path / "c" / "rejected.jsonl").read_text() == ""
