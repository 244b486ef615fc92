"""Runs scored against each other, called directly (``pastcast eval compare`` and ``eval
aggregate`` print these results): paired comparison, peer-relative BSS and the aggregate of
the final forecasts, checked against a hand computation."""

import json
from datetime import date

import pytest

from evalkit import article, question, ts, write_snapshot
from pastcast.evaluate.aggregate import aggregate_runs, compare_runs, read_ledger
from pastcast.evaluate.external import score_external
from pastcast.evaluate.policies import Cron
from pastcast.evaluate.runner import run_eval


class Fixed:
    name = "fixed"

    def act(self, env):
        for q in env.open_questions():
            env.submit(q.question_id, {"Ana Ruiz": 0.5})


def snapshot(root, name="s"):
    return write_snapshot(root / name, [article("a1", "Board", "The board meets.", ts("2024-01-02"))],
                          [question("q1", "Who will chair the board?", "Ana Ruiz", "2024-01-02", "2024-01-05"),
                           question("q2", "Who will run the port?", "Bo Lind", "2024-01-03", "2024-01-06")],
                          "2024-01-01", "2024-01-06")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("agg")
    snap = snapshot(root)
    fixed = run_eval(snap, Fixed(), root / "fixed")
    weekly = run_eval(snap, Fixed(), root / "weekly", policy=Cron(every_days=7))  # wakes before anything opens
    abstain = run_eval(snap, "abstain", root / "abstain")
    return root, snap, [str(fixed.out_dir), str(weekly.out_dir), str(abstain.out_dir)]


def test_aggregate_by_hand(runs):
    _, snap, dirs = runs
    result = aggregate_runs(dirs)
    assert result.snapshot.resolve() == snap.resolve()
    # fixed scores 1 - (0.5 - 1)^2 = 0.75 on q1 and 1 - (0.5^2 + 1) = -0.25 on q2; the others 0
    assert [(p.run, p.agent) for p in result.peers] == [(dirs[0], "fixed"), (dirs[1], "fixed"), (dirs[2], "abstain")]
    assert [p.mean_bss for p in result.peers] == pytest.approx([0.25, 0.0, 0.0])
    # fixed: mean(0.75 - 0, -0.25 - 0); the others: mean(0 - 0.75 / 2, 0 + 0.25 / 2)
    assert [p.peer_relative_bss for p in result.peers] == pytest.approx([0.25, -0.125, -0.125])
    # the aggregate: one agent of three put 0.5 on "Ana Ruiz", so 1/6, dated the day before resolution
    assert [(e.question_id, e.date) for e in result.entries] == [("q1", date(2024, 1, 4)), ("q2", date(2024, 1, 5))]
    assert all(e.forecast == pytest.approx({"Ana Ruiz": 0.5 / 3}) for e in result.entries)
    # q1: 1 - (5/6)^2 = 11/36; q2: 1 - ((1/6)^2 + 1) = -1/36
    assert result.scores["bss"].to_list() == pytest.approx([11 / 36, -1 / 36])
    assert result.mean_bss == pytest.approx(5 / 36)


def test_the_written_aggregate_scores_the_same_with_eval_score(runs, tmp_path):
    _, snap, dirs = runs
    result = aggregate_runs(dirs)
    path = result.write_forecasts(tmp_path / "agg.jsonl")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [list(line) for line in lines] == [["question_id", "date", "forecast", "agent"]] * 2
    assert {line["agent"] for line in lines} == {"aggregate"}
    external = score_external(snap, path, tmp_path / "scored")
    assert not external.rejected
    assert external.scores["bss"].mean() == pytest.approx(result.mean_bss)
    assert read_ledger(tmp_path / "scored") == external.accepted


def test_one_run_has_no_peer_relative_score(runs):
    _, _, dirs = runs
    result = aggregate_runs(dirs[:1])
    assert [p.peer_relative_bss for p in result.peers] == [None]
    # a single run's aggregate is its own final forecasts
    assert result.scores["bss"].to_list() == pytest.approx([0.75, -0.25])


def test_runs_of_different_snapshots_are_refused(runs):
    root, _, dirs = runs
    other = run_eval(snapshot(root, "other"), "abstain", root / "other-run")
    with pytest.raises(ValueError, match="different snapshots"):
        aggregate_runs([dirs[0], str(other.out_dir)])


def test_compare_runs_by_hand(runs):
    _, _, dirs = runs
    results = compare_runs(dirs[0], dirs[2])
    assert [r["metric"] for r in results] == ["bss", "accuracy", "time_weighted_bss"]
    bss = results[0]
    assert (bss["n"], bss["wins"], bss["ties"], bss["losses"]) == (2, 1, 0, 1)
    assert bss["mean_diff"] == pytest.approx(0.25)
