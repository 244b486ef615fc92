import json
from datetime import date, timedelta

import polars as pl
import pytest

from evalkit import article, question, ts, write_snapshot
from pastcast import __version__
from pastcast.evaluate import AbstainAgent, RetrievalAgent, get_agent, render_leaderboard, run_eval
from pastcast.evaluate.agents import extract_candidates
from pastcast.evaluate.environment import OpenQuestion
from pastcast.evaluate.leaderboard import leaderboard
from pastcast.matching import normalise
from pastcast.search.index import Hit
from pastcast.evaluate.scoring import time_weighted_bss


def _snapshot(root):
    a = []
    # mayoral race: before it resolves (Jan 10), Maria Santos leads in most coverage
    for i, day in enumerate(["2024-01-02", "2024-01-03", "2024-01-05", "2024-01-07"]):
        a.append(article(f"m{i}", "Port Ellis mayor race", "Maria Santos leads the Port Ellis mayor race, polls show.", ts(day)))
    a.append(article("m9", "Port Ellis mayor race tightens", "John Park gains in the Port Ellis mayor race.", ts("2024-01-04")))
    # cup final: Blues named as favourites more often than Reds
    a += [article(f"c{i}", "Cup final preview", "The Blues are favourites for the cup final." if i % 3 else "The Reds look sharp before the cup final.", ts(f"2024-01-0{2 + i}")) for i in range(6)]
    # inflation figure
    a.append(article("i1", "Inflation forecast", "Economists expect inflation of 4.5% in the Ardenia inflation report.", ts("2024-01-03")))
    a.append(article("i2", "Inflation outlook", "Ardenia inflation seen at 4.5% by banks; some say 5%.", ts("2024-01-05")))
    # the only article about the lighthouse keeper comes after that question resolved
    a.append(article("l1", "Lighthouse keeper appointed", "Tomas Ferro named Greywick lighthouse keeper.", ts("2024-01-09")))
    q = [
        question("q-mayor", "Who will win the Port Ellis mayor race?", "Maria Santos", "2024-01-02", "2024-01-10", category="politics"),
        question("q-cup", "Which team will win the cup final?", "Blues", "2024-01-02", "2024-01-09", answer_type="organisation",
                 candidate_outcomes=["Reds", "Blues"], category="sport", source_kind="market"),
        question("q-infl", "What will Ardenia inflation be in the report?", "4.5%", "2024-01-03", "2024-01-10",
                 answer_type="number", answer_aliases=["4.5 percent"], category="economy"),
        question("q-keeper", "Who will be appointed Greywick lighthouse keeper?", "Tomas Ferro", "2024-01-02", "2024-01-08"),
        question("q-binary", "Will the Port Ellis mayor race go to a runoff?", "No", "2024-01-02", "2024-01-10",
                 answer_type="binary", candidate_outcomes=["Yes", "No"]),
    ]
    return write_snapshot(root, a, q, "2024-01-01", "2024-01-10", name="tiny", version="v3")


@pytest.fixture(scope="module")
def snap(tmp_path_factory):
    return _snapshot(tmp_path_factory.mktemp("snap") / "tiny")


@pytest.fixture(scope="module")
def runs(snap, tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    ticks = []
    retrieval = run_eval(snap, RetrievalAgent(), out / "retrieval", progress=lambda i, n, d: ticks.append((i, n, d)))
    abstain = run_eval(snap, "abstain", out / "abstain")
    return retrieval, abstain, ticks


def _ledger(run_dir):
    return [json.loads(line) for line in (run_dir / "ledger.jsonl").read_text().splitlines()]


def test_outputs_written(runs, snap):
    retrieval, _, ticks = runs
    d = retrieval.out_dir
    assert sorted(p.name for p in d.iterdir()) == [".lock", "daily.parquet", "ledger.jsonl", "run.json", "scores.parquet"]  # no temp files; the empty lock file stays
    daily = pl.read_parquet(d / "daily.parquet")
    assert daily.height == 10 and daily["date"].to_list()[0] == date(2024, 1, 1)
    assert daily["submissions"].sum() == len(_ledger(d)) and daily["open_questions"].max() == 5
    assert json.loads((d / "run.json").read_text())["agent_config"]["k"] == 20  # the retrieval agent's settings
    search = json.loads((d / "run.json").read_text())["search"]
    assert search["searches"] > 0 and 0 < search["p50_ms"] <= search["p99_ms"] <= search["max_ms"]
    run = json.loads((d / "run.json").read_text())
    assert run["snapshot"] == {"name": "tiny", "version": "v3", "path": str(snap.resolve())}
    assert run["agent"] == "retrieval" and run["code_version"] == __version__
    assert run["window"] == {"start": "2024-01-01", "end": "2024-01-10"} and run["days"] == 10
    assert run["started"] <= run["finished"]
    assert set(run["summary"]) >= {"questions", "forecast", "mean_bss", "accuracy"}
    scores = pl.read_parquet(d / "scores.parquet")
    assert scores.height == 5 and set(scores["question_id"]) == {"q-mayor", "q-cup", "q-infl", "q-keeper", "q-binary"}
    assert {"question_id", "bss", "accuracy", "time_weighted_bss", "forecast_made", "n_forecasts", "category", "source_kind"} <= set(scores.columns)
    assert ticks[0] == (0, 10, date(2024, 1, 1)) and ticks[-1] == (10, 10, date(2024, 1, 10)) and len(ticks) == 11


def test_retrieval_beats_abstain(runs):
    retrieval, abstain, _ = runs
    summary = dict(abstain.summary)
    metrics = summary.pop("metrics")
    assert summary == {"questions": 5, "forecast": 0, "mean_bss": 0.0, "accuracy": 0.0,
                               "time_weighted_bss": 0.0, "market_questions": 0}
    assert metrics["ece"] == 0.0 and metrics["mean_truth_mass"] == 0.0  # no forecast, no pairs
    assert retrieval.summary["metrics"]["ci95"]["bss"][0] <= retrieval.summary["mean_bss"] <= \
        retrieval.summary["metrics"]["ci95"]["bss"][1]
    assert _ledger(abstain.out_dir) == []
    by_q = {r["question_id"]: r for r in retrieval.scores.iter_rows(named=True)}
    for qid in ("q-mayor", "q-cup", "q-infl"):
        assert by_q[qid]["forecast_made"] and by_q[qid]["accuracy"] == 1.0 and by_q[qid]["bss"] > 0, by_q[qid]
    assert retrieval.summary["mean_bss"] > abstain.summary["mean_bss"]
    assert retrieval.summary["accuracy"] == pytest.approx(3 / 5)
    # BSS over ALL questions: the two it did not forecast count as 0
    assert retrieval.summary["mean_bss"] == pytest.approx(sum(r["bss"] for r in by_q.values()) / 5)


def test_no_future_information_in_the_ledger(runs, snap):
    retrieval, _, _ = runs
    questions = {r["question_id"]: r for r in pl.read_parquet(snap / "questions.parquet").iter_rows(named=True)}
    ledger = _ledger(retrieval.out_dir)
    assert ledger and all(e["agent"] == "retrieval" for e in ledger)
    for e in ledger:
        q, d = questions[e["question_id"]], date.fromisoformat(e["date"])
        assert q["open_date"] <= d < q["resolution_date"]
    # the keeper's name is only published after that question resolved: never forecast
    assert not any(e["question_id"] == "q-keeper" for e in ledger)
    assert not any("Ferro" in o for e in ledger for o in e["forecast"])
    # binary questions are skipped by the retrieval baseline
    assert not any(e["question_id"] == "q-binary" for e in ledger)
    # the mayor forecast from Jan 2 only knows Jan 2 coverage (Park's gain is on Jan 4)
    first = next(e for e in ledger if e["question_id"] == "q-mayor")
    assert first["date"] == "2024-01-02" and "Maria Santos" in first["forecast"]


def test_time_weighted_matches_ledger(runs, snap):
    retrieval, _, _ = runs
    ledger = [e for e in _ledger(retrieval.out_dir) if e["question_id"] == "q-cup"]
    hist = [(date.fromisoformat(e["date"]), e["forecast"]) for e in ledger]
    row = retrieval.scores.filter(pl.col("question_id") == "q-cup").row(0, named=True)
    assert row["n_forecasts"] == len(ledger)
    assert row["time_weighted_bss"] == pytest.approx(time_weighted_bss(hist, "Blues", [], date(2024, 1, 2), date(2024, 1, 9)))
    assert 0 < row["time_weighted_bss"] <= row["bss"] + 1e-9  # early days are weaker or equal


def test_leaderboard(runs):
    retrieval, abstain, _ = runs
    df = leaderboard([abstain.out_dir, retrieval.out_dir])
    assert df.columns[:7] == ["agent", "snapshot", "questions", "forecast", "mean_bss", "accuracy", "time_weighted_bss"]
    assert df["agent"].to_list() == ["retrieval", "abstain"]
    assert df["snapshot"].to_list() == ["tiny@v3", "tiny@v3"]
    assert df.row(1, named=True)["mean_bss"] == 0.0 and df.row(0, named=True)["forecast"] == 3
    text = render_leaderboard(df)
    assert "retrieval" in text and "abstain" in text and "tiny@v3" in text
    assert text.index("retrieval") < text.index("abstain")


def test_user_agent_by_import_path(snap, tmp_path, monkeypatch):
    (tmp_path / "my_agents.py").write_text(
        "class Oracle:\n"
        "    name = 'oracle-ish'\n"
        "    def act(self, env):\n"
        "        for q in env.open_questions():\n"
        "            if q.question_id == 'q-mayor':\n"
        "                env.submit(q.question_id, {'Maria Santos': 0.8, 'John Park': 0.1})\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    agent = get_agent("my_agents:Oracle")
    result = run_eval(snap, agent, tmp_path / "run")
    row = result.scores.filter(pl.col("question_id") == "q-mayor").row(0, named=True)
    assert row["bss"] == pytest.approx(1 - (0.2**2 + 0.1**2))
    assert row["n_forecasts"] == 8  # submitted every open day, Jan 2..9
    assert result.run["agent"] == "oracle-ish"
    with pytest.raises(ValueError, match="unknown agent"):
        get_agent("nonsense")
    with pytest.raises(ValueError, match="cannot load"):
        get_agent("my_agents:Missing")
    assert isinstance(get_agent("abstain"), AbstainAgent) and get_agent("retrieval", k=5).k == 5


def test_retrieval_forecast_shape():
    q = OpenQuestion("q", "Who will be the next Prime Minister of Freedonia?", "", "", "person", (), date(2024, 1, 1), date(2024, 2, 1))
    hits = [
        Hit("a", "Freedonia vote", ts("2024-01-05"), 3.0, "", "Prime Minister candidate Ana Ruiz leads Bo Lin. Ana Ruiz rallies."),
        Hit("b", "Freedonia vote", ts("2024-01-04"), 2.0, "", "Ana Ruiz and Bo Lin debate; Cy Wu and Di Moss trail."),
        Hit("c", "Freedonia vote", ts("2024-01-03"), 1.0, "", "Ana Ruiz, Cy Wu and Eve Tan campaign."),
    ]
    f = RetrievalAgent().forecast(q, hits, date(2024, 1, 5))
    assert list(f)[0] == "Ana Ruiz" and len(f) == 3
    assert 0.5 <= sum(f.values()) <= 0.9 + 1e-9
    assert f["Ana Ruiz"] > max(v for k, v in f.items() if k != "Ana Ruiz")
    assert not any("Minister" in o or "Freedonia" in o for o in f)
    assert RetrievalAgent().forecast(q, [], date(2024, 1, 5)) == {}


def test_extract_candidates_drops_question_words():
    exclude = {normalise(w) for w in "Who will chair the Bank of Ardenia?".split()}
    found = extract_candidates("Bank of Ardenia chair Ana Ruiz met Élodie Durand on Monday.", "person", exclude)
    assert found == {"Ana Ruiz", "Élodie Durand"}
    assert extract_candidates("Turnout hit 61.5% in 2024, 3,200 votes", "number", {"2024"}) == {"61.5%", "3,200 votes"}


def test_retrieval_credits_the_more_specific_span():
    # "Rival" starts a sentence, so the extractor sees "Rival John Park"; the bare "John Park"
    # elsewhere is folded into it (a more specific outcome still matches "John Park").
    q = OpenQuestion("q", "Who will win the mayor race?", "", "", "person", (), date(2024, 1, 1), date(2024, 2, 1))
    hits = [
        Hit("a", "Race", ts("2024-01-05"), 1.0, "", "Maria Santos campaigns. Rival John Park trails."),
        Hit("b", "Race", ts("2024-01-05"), 1.0, "", "John Park gains."),
        Hit("c", "Race", ts("2024-01-05"), 1.0, "", "John Park debates."),
    ]
    f = RetrievalAgent().forecast(q, hits, date(2024, 1, 5))
    assert list(f) == ["Rival John Park", "Maria Santos"]
    assert f["Rival John Park"] == pytest.approx(3 * f["Maria Santos"])


def test_agent_instance_can_be_reused_across_runs(snap, tmp_path):
    agent = RetrievalAgent()
    first = run_eval(snap, agent, tmp_path / "one")
    second = run_eval(snap, agent, tmp_path / "two")
    assert _ledger(first.out_dir) == _ledger(second.out_dir) != []
    assert first.summary == second.summary


def test_retrieval_never_submits_placeholders():
    q = OpenQuestion("q", "Which party wins?", "", "", "option", ("Greens", "Other"), date(2024, 1, 1), date(2024, 2, 1))
    hits = [Hit("a", "Poll", ts("2024-01-05"), 1.0, "", "Other parties trail; other voters undecided. Greens lead.")]
    assert list(RetrievalAgent().forecast(q, hits, date(2024, 1, 5))) == ["Greens"]


class _CrashingRetrieval(RetrievalAgent):
    """The retrieval baseline, killed on a given simulated day (a crash, a pre-emption)."""

    def __init__(self, crash_on: date):
        super().__init__()
        self.crash_on = crash_on

    def act(self, env):
        if env.today == self.crash_on:
            raise KeyboardInterrupt("killed")
        super().act(env)


@pytest.mark.parametrize("crash_on", [date(2024, 1, 2), date(2024, 1, 5), date(2024, 1, 9)])
def test_a_resumed_run_scores_exactly_as_an_uninterrupted_one(runs, snap, tmp_path, crash_on):
    retrieval, _, _ = runs
    out = tmp_path / "resumed"
    with pytest.raises(KeyboardInterrupt):
        run_eval(snap, _CrashingRetrieval(crash_on), out)
    assert not (out / "ledger.jsonl").exists() and (out / ".ledger.jsonl.partial").exists()
    assert json.loads((out / ".progress.json").read_text())["last_day"] == (crash_on - timedelta(days=1)).isoformat()
    asked = []

    class Counting(RetrievalAgent):
        def act(self, env):
            asked.append(env.today)
            super().act(env)

    resumed = run_eval(snap, Counting(), out, resume=True)
    assert asked[0] == crash_on  # the finished days were not asked again
    assert resumed.run["resumed"] is True and not (out / ".progress.json").exists()
    assert resumed.scores.equals(retrieval.scores)
    assert _ledger(out) == _ledger(retrieval.out_dir)  # same forecasts, same days, once each
    assert resumed.summary["mean_bss"] == retrieval.summary["mean_bss"]


def test_resume_refuses_another_agents_run(snap, tmp_path):
    out = tmp_path / "r"
    with pytest.raises(KeyboardInterrupt):
        run_eval(snap, _CrashingRetrieval(date(2024, 1, 4)), out)
    with pytest.raises(ValueError, match="unfinished run of agent 'retrieval'"):
        run_eval(snap, "abstain", out, resume=True)
