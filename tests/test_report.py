"""The static HTML report: one file with the leaderboard (95% intervals), matplotlib's inline
SVG charts and a per-question table, whose daily score series matches a hand computation.
tests/test_report_browser.py opens one of 1,000 questions in a real headless Chromium."""

from datetime import date

import pytest
from click.testing import CliRunner

from evalkit import article, question, ts, write_snapshot
from pastcast.cli import main
from pastcast.evaluate.policies import Cron
from pastcast.evaluate.report import daily_scores, render_report
from pastcast.evaluate.runner import run_eval


class Fixed:
    name = "fixed"

    def act(self, env):
        for q in env.open_questions():
            env.submit(q.question_id, {"Ana Ruiz": 0.5})


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("rep")
    snap = write_snapshot(root / "s", [article("a1", "Board", "The board meets.", ts("2024-01-02"))],
                          [question("q1", "Who will chair the board?", "Ana Ruiz", "2024-01-02", "2024-01-05",
                                    category="business"),
                           question("q2", "Who will run the port?", "Bo Lind", "2024-01-03", "2024-01-06",
                                    category="economy")], "2024-01-01", "2024-01-06")
    fixed = run_eval(snap, Fixed(), root / "fixed")
    weekly = run_eval(snap, Fixed(), root / "weekly", policy=Cron(every_days=7))
    abstain = run_eval(snap, "abstain", root / "abstain")
    return root, [fixed.out_dir, weekly.out_dir, abstain.out_dir]


def test_daily_scores_by_hand(runs):
    _, dirs = runs
    # BSS of {"Ana Ruiz": 0.5}: 1 - (0.5 - 1)^2 = 0.75 on q1; 1 - (0.25 + 1) = -0.25 on q2
    assert daily_scores(dirs[0]) == [(date(2024, 1, 2), 0.75), (date(2024, 1, 3), 0.25),
                                     (date(2024, 1, 4), 0.25), (date(2024, 1, 5), -0.25)]
    # woke only on 01-01, before anything opened: every open day scores 0
    assert {s for _, s in daily_scores(dirs[1])} == {0.0}


def test_report_is_one_self_contained_file(runs, tmp_path):
    _, dirs = runs
    page = render_report(dirs, "Sample report")
    assert page.startswith("<!doctype html>") and "http://www.w3.org/2000/svg" in page
    assert "<link" not in page and "src=" not in page  # nothing fetched: it opens from disk
    # leaderboard, time, calibration, by category, by source, and wakes (the weekly run woke less)
    assert page.count("<svg") == 6 and "wakes (days the agent acted)" in page
    leaderboard_rows = page.split("<h2>Leaderboard</h2>")[1].split("</table>")[0].count("<tr>")
    assert leaderboard_rows == 4  # header and three runs
    for text in ("Sample report", "fixed (fixed)", "abstain (abstain)", "business", "economy", "ECE",
                 "95% interval", "Brier skill score"):
        assert text in page, text
    # the per-question table: each question once with its truth and each run's final forecast
    questions = page.split('id=questions')[1]
    assert questions.count('<tr><td class="t q" title=') == 2 and "Ana Ruiz 0.50" in questions
    assert ">Bo Lind<" in questions  # the truth of q2, which no run named
    result = CliRunner().invoke(main, ["eval", "report", *map(str, dirs), "--out", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "r.html").read_text().count("<svg") == 6


def test_effort_is_charted_only_when_the_runs_differ_in_it(runs):
    _, dirs = runs
    page = render_report([dirs[0], dirs[2]], "Daily runs")  # both woke every day, no LLM cost
    assert "no chart of effort against score" in page and page.count("<svg") == 5


def test_intervals_cover_the_mean_and_narrow_with_more_questions():
    import numpy as np

    from pastcast.evaluate.report_data import mean_interval

    rng = np.random.default_rng(1)
    few, many = rng.normal(0.2, 0.3, 40), rng.normal(0.2, 0.3, 4000)
    for values in (few, many):
        lo, hi = mean_interval(values)
        assert lo < values.mean() < hi
    assert (mean_interval(many)[1] - mean_interval(many)[0]) < (mean_interval(few)[1] - mean_interval(few)[0]) / 3
    assert mean_interval(np.array([0.5])) == (0.5, 0.5) and mean_interval(np.array([])) == (0.0, 0.0)


def test_daily_scores_from_the_ledger_match_daily_parquet(runs, tmp_path):
    import shutil

    _, dirs = runs
    old = tmp_path / "old"
    shutil.copytree(dirs[0], old)
    (old / "daily.parquet").unlink()  # a run written before daily.parquet existed
    assert daily_scores(old) == daily_scores(dirs[0])


def test_cli_compare_and_aggregate(runs, tmp_path):
    import json

    _, dirs = runs
    compare = CliRunner().invoke(main, ["eval", "compare", str(dirs[0]), str(dirs[2])])
    assert compare.exit_code == 0, compare.output
    # fixed vs abstain on 2 questions: BSS +0.75 and -0.25 against 0 -> one win, one loss
    assert "1 / 0 / 1" in compare.output and "+0.250" in compare.output
    agg = CliRunner().invoke(main, ["eval", "aggregate", *map(str, dirs), "--out", str(tmp_path / "agg.jsonl")])
    assert agg.exit_code == 0, agg.output
    lines = [json.loads(line) for line in (tmp_path / "agg.jsonl").read_text().splitlines()]
    # only "fixed" forecast ({"Ana Ruiz": 0.5}); the weekly one woke before anything opened and
    # abstain never does: each absent agent counts as 0 mass
    assert len(lines) == 2 and all(list(l["forecast"]) == ["Ana Ruiz"] for l in lines)
    assert all(abs(l["forecast"]["Ana Ruiz"] - 0.5 / 3) < 1e-12 for l in lines)
    assert "(aggregate)" in agg.output and "peer-relative" in agg.output


def test_an_agent_without_forecasts_has_no_calibration_and_zero_has_no_minus_sign(runs):
    from pastcast.evaluate.leaderboard import signed

    _, dirs = runs
    page = render_report(dirs, "Sample report")
    assert "abstain (abstain) no forecast" in page and "abstain (abstain) 0.000" not in page
    assert "-0.000" not in page
    assert signed(-0.0) == "+0.000" and signed(-0.00004) == "+0.000" and signed(-0.25) == "-0.250"
