"""The market consensus in the replay: each day sees only prices set before that day ended,
the market agent forecasts with it, and runs report the crowd beside the agent."""

import json
from datetime import date, datetime, timedelta, timezone

import polars as pl
import pytest

from evalkit import article, question, ts, write_snapshot
from pastcast.evaluate.consensus import MarketConsensus, end_of_day
from pastcast.evaluate.environment import ReplayEnvironment
from pastcast.evaluate.leaderboard import leaderboard, render_leaderboard
from pastcast.evaluate.runner import run_eval

START, END = "2026-02-25", "2026-03-12"
CUP = [  # (time, P(Yes)) of a binary market; the question is open 03-01 .. 03-09
    (ts("2026-02-27", 10), 0.30),
    (ts("2026-03-02", 23, 59, 59), 0.40),  # the last second of 03-02: visible on 03-02
    (ts("2026-03-03", 0), 0.55),  # midnight: visible from 03-03, not on 03-02
    (ts("2026-03-06", 12), 0.70),
    (ts("2026-03-09", 18), 0.95),
    (ts("2026-03-10", 8), 1.00),  # resolution day: never shown to a forecaster
]
MAYOR = [  # (time, outcome, price) of a multiple-choice market
    (ts("2026-03-02", 9), "Ana Ruiz", 0.5),
    (ts("2026-03-02", 9), "Ben Ode", 0.3),
    (ts("2026-03-04", 9), "Ana Ruiz", 0.8),  # Ben's stale price: the sum passes 1
    (ts("2026-03-05", 9), "Cai Lem", 0.1),
]


def _snapshot(tmp_path):
    markets = [
        {"market_id": "m:cup", "platform": "manifold", "question": "Will the final go to extra time?",
         "outcome_type": "binary", "outcomes": ["Yes", "No"], "status": "resolved",
         "created_at": ts("2026-02-20"), "resolved_at": ts("2026-03-10", 8), "resolution": "Yes"},
        {"market_id": "m:mayor", "platform": "manifold", "question": "Who will be mayor?",
         "outcome_type": "multiple_choice", "outcomes": ["Ana Ruiz", "Ben Ode", "Cai Lem"],
         "status": "resolved", "created_at": ts("2026-02-20"), "resolved_at": ts("2026-03-08"),
         "resolution": "Ana Ruiz"},
    ]
    prices = ([{"market_id": "m:cup", "ts": t, "outcome": "Yes", "price": p} for t, p in CUP]
              + [{"market_id": "m:mayor", "ts": t, "outcome": o, "price": p} for t, o, p in MAYOR])
    questions = [
        question("cup", "Will the final go to extra time?", "Yes", "2026-03-01", "2026-03-10",
                 answer_type="binary", candidate_outcomes=["Yes", "No"], source_kind="market",
                 source_ids=["m:cup"]),
        question("mayor", "Who will be mayor?", "Ana Ruiz", "2026-03-01", "2026-03-08",
                 answer_type="option", candidate_outcomes=["Ana Ruiz", "Ben Ode", "Cai Lem"],
                 source_kind="market", source_ids=["m:mayor"]),
        question("news", "Who will chair the board?", "Dee Fox", "2026-03-01", "2026-03-09"),
    ]
    articles = [article("a1", "Board", "The board meets soon to choose a chair.", ts("2026-02-26"))]
    return write_snapshot(tmp_path / "snap", articles, questions, START, END, markets=markets, prices=prices)


def _expected_yes(day: date) -> float | None:
    """Independently: the last P(Yes) set strictly before midnight after ``day``."""
    cutoff = datetime(day.year, day.month, day.day, tzinfo=timezone.utc) + timedelta(days=1)
    visible = [p for t, p in CUP if t < cutoff]
    return visible[-1] if visible else None


def test_each_day_sees_only_prices_set_before_it_ended(tmp_path):
    env = ReplayEnvironment(_snapshot(tmp_path))
    seen = {}
    while not env.done:
        forecast = env.market_consensus("cup")
        if env.is_open("cup"):
            expected = _expected_yes(env.today)
            assert forecast == {"Yes": expected, "No": pytest.approx(1 - expected)}, env.today
            seen[env.today] = forecast["Yes"]
        else:
            assert forecast is None, f"closed on {env.today} but the consensus was shown"
        assert env.market_consensus("news") is None  # no market behind it
        env.advance()
    assert seen[date(2026, 3, 2)] == 0.40 and seen[date(2026, 3, 3)] == 0.55
    assert seen[date(2026, 3, 1)] == 0.30 and seen[date(2026, 3, 9)] == 0.95
    assert 1.00 not in seen.values()  # the resolution-day price never reaches a forecaster
    assert set(seen) == {date(2026, 3, d) for d in range(1, 10)}


def test_multiple_choice_consensus_uses_last_price_per_outcome_and_keeps_the_sum_at_most_one(tmp_path):
    snap = _snapshot(tmp_path)
    questions = pl.read_parquet(snap / "questions.parquet")
    consensus = MarketConsensus.from_snapshot(snap, questions)
    assert consensus.forecast("mayor", date(2026, 3, 1)) is None  # no price yet
    assert consensus.forecast("mayor", date(2026, 3, 3)) == {"Ana Ruiz": 0.5, "Ben Ode": 0.3}
    on_4th = consensus.forecast("mayor", date(2026, 3, 4))
    assert on_4th == {"Ana Ruiz": pytest.approx(0.8 / 1.1), "Ben Ode": pytest.approx(0.3 / 1.1)}
    assert sum(consensus.forecast("mayor", date(2026, 3, 5)).values()) == pytest.approx(1.0)
    assert end_of_day(date(2026, 3, 2)) == ts("2026-03-03", 0)


def test_market_agent_forecasts_the_consensus_and_runs_report_the_crowd(tmp_path):
    snap = _snapshot(tmp_path)
    market = run_eval(snap, "market", tmp_path / "market")
    ledger = [json.loads(line) for line in (tmp_path / "market" / "ledger.jsonl").read_text().splitlines()]
    cup = [(e["date"], e["forecast"]["Yes"]) for e in ledger if e["question_id"] == "cup"]
    # one submission per move of the consensus, each on the first day it was visible
    assert cup == [("2026-03-01", 0.30), ("2026-03-02", 0.40), ("2026-03-03", 0.55),
                   ("2026-03-06", 0.70), ("2026-03-09", 0.95)]
    assert {e["question_id"] for e in ledger} == {"cup", "mayor"}  # never the news question
    scores = market.scores.sort("question_id")
    assert scores.filter(pl.col("question_id") == "news")["crowd_bss"].to_list() == [None]
    market_rows = scores.filter(pl.col("crowd_bss").is_not_null())
    # the crowd line is the market agent's own score on the same questions
    assert market_rows["bss"].to_list() == pytest.approx(market_rows["crowd_bss"].to_list())
    assert market_rows["time_weighted_bss"].to_list() == pytest.approx(market_rows["crowd_time_weighted_bss"].to_list())
    assert market.summary["market_questions"] == 2

    abstain = run_eval(snap, "abstain", tmp_path / "abstain")
    crowd = abstain.summary["crowd"]
    assert crowd["agent_mean_bss"] == 0.0 and crowd["crowd_mean_bss"] == pytest.approx(
        market.summary["crowd"]["crowd_mean_bss"])
    assert crowd["crowd_mean_bss"] > 0  # the crowd was right on both
    board = leaderboard([tmp_path / "abstain", tmp_path / "market"])
    assert board["agent"].to_list() == ["market", "abstain"]
    assert board["crowd_bss"].to_list() == pytest.approx([crowd["crowd_mean_bss"]] * 2)
    rendered = render_leaderboard(board)
    assert "crowd BSS" in rendered and f"{crowd['crowd_mean_bss']:+.3f}" in rendered


def test_posts_are_searchable_from_their_created_at_on(tmp_path):
    def post(pid, text, created):
        return {"post_id": pid, "platform": "reddit", "kind": "comment", "community": "veloria",
                "created_at": created, "author_hash": None, "text": text, "url": None,
                "parent_id": None, "score": 1}

    posts = [post("reddit:t1_a", "Rovers fans expect extra time in the cup final", ts("2026-03-02", 23, 59, 59)),
             post("reddit:t1_b", "Extra time confirmed, the cup final goes on", ts("2026-03-03", 0))]
    snap = write_snapshot(tmp_path / "snap", [article("a1", "Cup", "The cup final is near.", ts("2026-02-26"))],
                          [question("q", "Will the cup final go to extra time?", "Yes", "2026-03-01", "2026-03-10")],
                          START, END, posts=posts)
    env = ReplayEnvironment(snap)
    found = {}
    while not env.done:
        found[env.today] = [h.article_id for h in env.search_posts("cup final extra time", k=5)]
        env.advance()
    assert found[date(2026, 3, 1)] == []
    assert found[date(2026, 3, 2)] == ["reddit:t1_a"]  # the last second of the day counts
    assert sorted(found[date(2026, 3, 3)]) == ["reddit:t1_a", "reddit:t1_b"]
    assert not (snap / "index-posts").exists()  # built in the user's cache, never trusted from the snapshot
