from datetime import date

import numpy as np
import polars as pl
import pytest

from pastcast.evaluate.environment import LedgerEntry
from pastcast.evaluate.metrics import (
    aggregate_forecast,
    aggregate_forecasts,
    bootstrap_ci,
    by_group,
    calibration,
    calibration_pairs,
    ece,
    final_forecasts,
    paired,
    peer_relative,
    summary_metrics,
    truth_mass,
)
from pastcast.evaluate.runner import score_questions
from pastcast.evaluate.scoring import InvalidForecast, brier_skill_score

D = date


# -- truth mass ---------------------------------------------------------------------------

def test_truth_mass_counts_only_the_first_match():
    # both "Ana Ruiz" (more specific) and "Ruiz" match the answer "Ruiz": only the first counts,
    # as in BSS, where "Ruiz" is scored as a wrong outcome
    f = {"Ana Ruiz": 0.5, "Ruiz": 0.2, "Park": 0.1}
    assert truth_mass(f, "Ruiz") == 0.5
    assert truth_mass({"Ruiz": 0.2, "Ana Ruiz": 0.5}, "Ruiz") == 0.2
    assert brier_skill_score(f, "Ruiz") == pytest.approx(1 - (0.25 + 0.04 + 0.01))


def test_truth_mass_aliases_no_match_and_abstention():
    assert truth_mass({"Park": 0.3, "Bob Smith": 0.6}, "Robert Smith", ["Bob Smith"]) == 0.6
    assert truth_mass({"Park": 0.3, "Bob Smith": 0.6}, "Robert Smith") == 0.0  # alias needed
    # an alias and the answer both submitted: the first one submitted is the truth
    assert truth_mass({"Bob Smith": 0.4, "Robert Smith": 0.3}, "Robert Smith", ["Bob Smith"]) == 0.4
    assert truth_mass({"Park": 0.9}, "Ruiz") == 0.0
    assert truth_mass({}, "Ruiz") == 0.0
    with pytest.raises(InvalidForecast):
        truth_mass({"Ruiz": 0.7, "Park": 0.7}, "Ruiz")


# -- calibration --------------------------------------------------------------------------

PAIRS = [(0.2, False), (0.4, True), (0.6, True), (0.8, True), (1.0, False)]


def test_calibration_table_by_hand():
    t = calibration(PAIRS, bins=2)
    assert t.columns == ["bin_lo", "bin_hi", "n", "mean_p", "hit_rate"]
    rows = t.to_dicts()
    assert [(r["bin_lo"], r["bin_hi"], r["n"]) for r in rows] == [(0.0, 0.5, 2), (0.5, 1.0, 3)]
    assert rows[0]["mean_p"] == pytest.approx(0.3) and rows[0]["hit_rate"] == pytest.approx(0.5)
    assert rows[1]["mean_p"] == pytest.approx(0.8) and rows[1]["hit_rate"] == pytest.approx(2 / 3)
    # ten bins: empty bins are left out, 1.0 falls in the last bin, 0.2 in [0.2, 0.3)
    t10 = calibration(PAIRS)
    assert t10["bin_lo"].to_list() == pytest.approx([0.2, 0.4, 0.6, 0.8, 0.9])
    assert calibration([]).height == 0


def test_ece_by_hand():
    # 2/5 * |0.3 - 0.5| + 3/5 * |0.8 - 2/3| = 0.08 + 0.08
    assert ece(PAIRS, bins=2) == pytest.approx(0.16)
    assert ece([(0.7, True), (0.7, False), (0.7, True)], bins=10) == pytest.approx(abs(0.7 - 2 / 3))
    assert ece([]) == 0.0


def _questions():
    return pl.DataFrame({
        "question_id": ["q1", "q2", "q3"],
        "answer": ["Ruiz", "Blues", "Lee"],
        "answer_aliases": [[], ["The Blues"], []],
        "open_date": [D(2024, 1, 1)] * 3,
        "resolution_date": [D(2024, 1, 5), D(2024, 1, 6), D(2024, 1, 6)],
        "category": ["politics", "sport", "politics"],
        "source_kind": ["news", "market", "news"],
    })


LEDGER = [
    LedgerEntry("q1", D(2024, 1, 1), {"Park": 0.9}),
    LedgerEntry("q1", D(2024, 1, 3), {"Ana Ruiz": 0.5, "Ruiz": 0.2}),  # final for q1
    LedgerEntry("q1", D(2024, 1, 5), {"Park": 1.0}),  # on the resolution date: ignored
    LedgerEntry("q2", D(2024, 1, 2), {"Reds": 0.4, "The Blues": 0.6}),
    # q3: abstained
]


def test_final_forecasts_and_pairs():
    final = final_forecasts(_questions(), LEDGER)
    assert final == {"q1": {"Ana Ruiz": 0.5, "Ruiz": 0.2}, "q2": {"Reds": 0.4, "The Blues": 0.6}}
    assert calibration_pairs(_questions(), LEDGER) == [(0.5, True), (0.2, False), (0.4, False), (0.6, True)]


# -- breakdowns, bootstrap, paired ---------------------------------------------------------

def _scores(bss, ids=None, cats=None):
    ids = ids or [f"q{i}" for i in range(len(bss))]
    return pl.DataFrame({"question_id": ids, "bss": bss, "accuracy": [1.0 if b > 0.5 else 0.0 for b in bss],
                         "time_weighted_bss": [b / 2 for b in bss],
                         "category": cats or ["x"] * len(bss)})


def test_by_group():
    s = _scores([1.0, 0.0, -1.0, 0.6], cats=["a", "a", "b", None])
    g = by_group(s, "category").to_dicts()
    assert g == [
        {"category": "a", "mean_bss": 0.5, "accuracy": 0.5, "time_weighted_bss": 0.25, "n": 2},
        {"category": "b", "mean_bss": -1.0, "accuracy": 0.0, "time_weighted_bss": -0.5, "n": 1},
        {"category": None, "mean_bss": 0.6, "accuracy": 1.0, "time_weighted_bss": 0.3, "n": 1},
    ]
    with pytest.raises(ValueError):
        by_group(s, "nope")


def test_bootstrap_ci_deterministic_and_contains_mean():
    values = np.random.default_rng(1).normal(0.2, 0.5, size=200)
    lo, hi = bootstrap_ci(values)
    assert (lo, hi) == bootstrap_ci(values, seed=0) == bootstrap_ci(list(values))
    assert bootstrap_ci(values, seed=1) != (lo, hi)
    assert lo < values.mean() < hi
    # roughly mean +- 1.96 * sd / sqrt(n)
    half = 1.96 * values.std() / np.sqrt(values.size)
    assert hi - lo == pytest.approx(2 * half, rel=0.15)
    assert bootstrap_ci([0.3]) == (0.3, 0.3)
    assert bootstrap_ci(pl.Series([1.0, 1.0, 1.0])) == (1.0, 1.0)
    lo_m, hi_m = bootstrap_ci(values, stat=np.median, n=500)
    assert lo_m < np.median(values) < hi_m
    with pytest.raises(ValueError):
        bootstrap_ci([])


def test_paired_only_shared_questions():
    a = _scores([1.0, 0.5, 0.0, 0.9], ids=["q1", "q2", "q3", "q4"])
    b = _scores([0.5, 0.5, 0.2, 0.1], ids=["q1", "q2", "q3", "q9"])
    p = paired(a, b)
    assert (p["n"], p["wins"], p["ties"], p["losses"]) == (3, 1, 1, 1)
    assert p["mean_diff"] == pytest.approx((0.5 + 0 - 0.2) / 3)
    assert p["mean_a"] == pytest.approx(0.5) and p["mean_b"] == pytest.approx(0.4)
    lo, hi = p["ci"]
    assert lo <= p["mean_diff"] <= hi
    assert paired(a, b, metric="time_weighted_bss")["mean_diff"] == pytest.approx(0.1 / 2)
    assert paired(a, b.filter(pl.col("question_id") == "q9"))["n"] == 0


# -- market aggregate and peer-relative ----------------------------------------------------

FINALS = {
    "A": {"q1": {"Santos": 0.6, "Park": 0.4}, "q2": {"Blues": 1.0}},
    "B": {"q1": {"SANTOS": 0.9}},  # no forecast on q2: contributes 0 there
    "C": {"q1": {"Park": 0.5, "Lee": 0.2}, "q2": {"Reds": 0.6, "Blues": 0.3}},
}
ANSWERS = {"q1": "Santos", "q2": "Blues"}


def test_aggregate_by_hand():
    agg = aggregate_forecasts(FINALS)
    assert list(agg) == ["q1", "q2"]
    assert list(agg["q1"]) == ["Santos", "Park", "Lee"]  # by probability, first spelling names the pool
    assert agg["q1"] == pytest.approx({"Santos": 1.5 / 3, "Park": 0.9 / 3, "Lee": 0.2 / 3})
    assert agg["q2"] == pytest.approx({"Blues": 1.3 / 3, "Reds": 0.6 / 3})
    assert brier_skill_score(agg["q1"], "Santos") == pytest.approx(1 - (0.25 + 0.09 + (0.2 / 3) ** 2))


def test_aggregate_keeps_top_five_and_renormalises_only_above_one():
    agg = aggregate_forecast([{o: 0.2 for o in "abcde"}, {"f": 0.9}])
    assert list(agg) == ["f", "a", "b", "c", "d"]  # "e" ties with a-d but is seen last
    assert agg == pytest.approx({"f": 0.45, "a": 0.1, "b": 0.1, "c": 0.1, "d": 0.1})
    # a sum above one (only possible when fewer agents than forecasts are declared) is renormalised
    assert aggregate_forecast([{"x": 0.8}, {"x": 0.4, "y": 0.4}], n_agents=1) == pytest.approx({"x": 0.75, "y": 0.25})
    assert aggregate_forecast([None, {}]) == {}


def test_peer_relative_by_hand():
    scores = {}
    for agent, finals in FINALS.items():
        bss = [brier_skill_score(finals.get(q, {}), ANSWERS[q]) for q in ("q1", "q2")]
        scores[agent] = pl.DataFrame({"question_id": ["q1", "q2"], "bss": bss})
    assert scores["A"]["bss"].to_list() == pytest.approx([0.68, 1.0])
    assert scores["B"]["bss"].to_list() == pytest.approx([0.99, 0.0])
    assert scores["C"]["bss"].to_list() == pytest.approx([-0.29, 0.15])
    pr = peer_relative(scores)
    # A: q1 0.68 - (0.99 - 0.29)/2 = 0.33, q2 1 - 0.15/2 = 0.925
    assert pr["A"] == pytest.approx((0.33 + 0.925) / 2)
    assert pr["B"] == pytest.approx((0.795 - 0.575) / 2)
    assert pr["C"] == pytest.approx((-1.125 - 0.35) / 2)
    assert sum(pr.values()) == pytest.approx(0.0)
    with pytest.raises(ValueError):
        peer_relative({"A": scores["A"]})


# -- one run -------------------------------------------------------------------------------

def test_summary_metrics():
    q = _questions()
    scores = score_questions(q, LEDGER, D(2024, 1, 1), D(2024, 1, 6))
    m = summary_metrics(scores, LEDGER, q)
    assert set(m) == {"mean_truth_mass", "calibration", "calibration_pairs", "ece", "by_category",
                      "by_source_kind", "ci95"}
    assert m["mean_truth_mass"] == pytest.approx((0.5 + 0.6 + 0.0) / 3)
    assert m["calibration_pairs"] == 4
    # pairs (0.5 T) (0.2 F) (0.4 F) (0.6 T): one per bin, |p - hit| = 0.5, 0.2, 0.4, 0.4
    assert m["ece"] == pytest.approx((0.5 + 0.2 + 0.4 + 0.4) / 4)
    assert [r["n"] for r in m["calibration"]] == [1, 1, 1, 1]
    assert {r["category"]: r["n"] for r in m["by_category"]} == {"politics": 2, "sport": 1}
    assert {r["source_kind"]: r["n"] for r in m["by_source_kind"]} == {"news": 2, "market": 1}
    lo, hi = m["ci95"]["bss"]
    assert lo <= float(scores["bss"].mean()) <= hi
    assert set(m["ci95"]) == {"bss", "accuracy", "time_weighted_bss"}
