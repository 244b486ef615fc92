"""The naive baselines (``uniform``, ``base-rate``): at least 0 on the questions of their kind,
the base rate above it on a family that mostly comes out one way, and never a look ahead."""

import json
from datetime import date, timedelta

import polars as pl
import pytest

from evalkit import article, question, ts, write_snapshot
from pastcast.evaluate import get_agent, run_eval
from pastcast.evaluate.batch import BASELINES
from pastcast.evaluate.naive import is_binary

START = date(2024, 3, 1)


def _ferry_snapshot(root):
    """20 yes/no questions of one template family, one opening each day after the one before
    resolved; 18 of them came out No."""
    articles = [article("a0", "Ferry timetable", "The Port Ellis ferry keeps its winter timetable.", ts(START))]
    questions = []
    for i in range(20):
        opens = START + timedelta(days=2 * i)
        questions.append(question(
            f"ferry-{i:02d}", f"Will the Port Ellis ferry be cancelled on {opens + timedelta(days=2):%B %d, %Y}?",
            "Yes" if i in (4, 13) else "No", opens.isoformat(), (opens + timedelta(days=2)).isoformat(),
            answer_type="binary", candidate_outcomes=["Yes", "No"], source_kind="market", category="transport"))
    end = START + timedelta(days=42)
    return write_snapshot(root, articles, questions, START.isoformat(), end.isoformat(), name="ferry")


def _ledger(run_dir):
    return [json.loads(line) for line in (run_dir / "ledger.jsonl").read_text().splitlines()]


def test_the_naive_baselines_are_bundled_and_run_by_default():
    assert {"uniform", "base-rate"} <= set(BASELINES)
    assert get_agent("uniform").name == "uniform" and get_agent("base-rate").name == "base-rate"


def test_base_rate_beats_uniform_on_a_skewed_family_and_learns_only_from_revealed_answers(tmp_path):
    snap = _ferry_snapshot(tmp_path / "ferry")
    uniform = run_eval(snap, "uniform", tmp_path / "uniform")
    base = run_eval(snap, "base-rate", tmp_path / "base")
    assert uniform.summary["mean_bss"] == pytest.approx(0.5)  # 0.5 each on two options: BSS 0.5
    assert base.summary["mean_bss"] > uniform.summary["mean_bss"] > 0
    ledger = _ledger(base.out_dir)
    first = {}
    for entry in ledger:
        first.setdefault(entry["question_id"], entry)
    # the first question has no history: one half; later ones lean No as No answers come in
    assert first["ferry-00"]["forecast"] == {"Yes": 0.5, "No": 0.5}
    assert first["ferry-10"]["forecast"]["No"] > 0.7
    # only answers revealed before the day of the forecast count: ferry-01 opens the day
    # ferry-00 resolves, when that answer is public but not yet before the day
    assert first["ferry-01"]["forecast"] == {"Yes": 0.5, "No": 0.5}
    assert first["ferry-02"]["forecast"]["No"] > 0.5


@pytest.mark.parametrize("agent", ["uniform", "base-rate"])
def test_every_naive_baseline_scores_at_least_zero_on_its_kind_on_the_sample(demo_snapshot, tmp_path, agent):
    run = run_eval(demo_snapshot, agent, tmp_path / agent)
    scores = run.scores
    assert scores.height > 0
    forecast = scores.filter(pl.col("forecast_made"))
    assert forecast.height > 0, "the sample has questions with options"
    assert forecast["bss"].mean() >= 0
    # questions it could not forecast (free-form, no options) score 0, as abstaining does
    assert (scores.filter(~pl.col("forecast_made"))["bss"] == 0).all()
    for entry in _ledger(run.out_dir):
        assert abs(sum(entry["forecast"].values()) - 1.0) < 1e-6


def test_a_yes_no_question_is_told_by_its_type_or_options():
    from pastcast.evaluate.environment import OpenQuestion

    def q(answer_type, options):
        return OpenQuestion("q", "Will it?", "", "", answer_type, tuple(options), START, START)

    assert is_binary(q("binary", ())) and is_binary(q("option", ("YES", "no")))
    assert not is_binary(q("option", ("Yes", "No", "Maybe"))) and not is_binary(q("person", ()))
