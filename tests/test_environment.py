import dataclasses
import json
from datetime import date

import pytest

from evalkit import article, question, ts, write_snapshot
from pastcast.evaluate.environment import OpenQuestion, ReplayEnvironment
from pastcast.evaluate.scoring import InvalidForecast

SECRET = "Zephyrine Quorvath"  # appears in no article, so nothing public may ever show it


@pytest.fixture
def snap(tmp_path):
    articles = [
        article("early", "Harbor board vote set", "The harbor board will vote on a chair.", ts("2024-01-02")),
        article("late", "Harbor board vote result", "The harbor board chose a chair.", ts("2024-01-06")),
    ]
    questions = [
        question("q1", "Who will chair the harbor board?", SECRET, "2024-01-02", "2024-01-05",
                 answer_aliases=["Z. Quorvath"], background="A vote is due."),
        question("q2", "Which team wins the cup?", "Reds", "2024-01-04", "2024-01-08", answer_type="organisation",
                 candidate_outcomes=["Reds", "Blues"]),
    ]
    return write_snapshot(tmp_path / "snap", articles, questions, "2024-01-01", "2024-01-08")


def test_clock(snap):
    env = ReplayEnvironment(snap)
    assert env.today == date(2024, 1, 1) and env.n_days == 8 and not env.done
    for _ in range(8):
        env.advance()
    assert env.done and env.today == date(2024, 1, 9)
    with pytest.raises(RuntimeError):
        env.advance()
    env = ReplayEnvironment(snap, start=date(2024, 1, 3), end=date(2024, 1, 4))
    assert env.today == date(2024, 1, 3) and env.n_days == 2


def test_window_defaults_to_question_dates_without_manifest_window(snap):
    (snap / "manifest.json").write_text(json.dumps({"name": "x", "version": "v0"}))
    env = ReplayEnvironment(snap)
    assert (env.start, env.end) == (date(2024, 1, 2), date(2024, 1, 8))


def test_open_questions_follow_the_clock_and_carry_no_answer(snap):
    env = ReplayEnvironment(snap)
    seen = {}
    while not env.done:
        seen[env.today.day] = [q.question_id for q in env.open_questions()]
        env.advance()
    # q1 open Jan 2..4 (resolves Jan 5), q2 open Jan 4..7 (resolves Jan 8)
    assert seen == {1: [], 2: ["q1"], 3: ["q1"], 4: ["q1", "q2"], 5: ["q2"], 6: ["q2"], 7: ["q2"], 8: []}
    env = ReplayEnvironment(snap, start=date(2024, 1, 2))
    (q,) = env.open_questions()
    assert type(q) is OpenQuestion
    fields = {f.name for f in dataclasses.fields(q)}
    assert fields == {"question_id", "title", "background", "resolution_criteria", "answer_type",
                      "candidate_outcomes", "open_date", "resolution_date"}
    assert not hasattr(q, "answer") and not hasattr(q, "answer_aliases")
    assert SECRET not in repr(q) and "Quorvath" not in repr(q)


def test_no_public_path_to_an_unresolved_answer(snap):
    env = ReplayEnvironment(snap, start=date(2024, 1, 4))  # q1 still open
    public = {}
    for name in dir(env):
        if name.startswith("_") or name in {"advance", "submit", "sleep", "sleep_until"}:
            continue
        value = getattr(env, name)
        if name in ("search", "search_posts"):
            value = value("harbor board chair vote", k=50)
        elif name in ("is_open", "market_consensus"):
            value = value("q1")
        elif name == "articles_published":
            value = value(date(2024, 1, 1), date(2030, 1, 1))
        elif name == "published_matching":
            value = value("harbor board chair vote", env.today, 50)
        elif callable(value):
            value = value()
        public[name] = value
    assert "Quorvath" not in repr(public)
    assert env.resolved() == []
    # no public handle on the ungated index or on the snapshot folder holding the answers
    assert not {"index", "snapshot_dir", "answers", "questions"} & set(public)


def test_resolved_reveals_answers_from_resolution_day(snap):
    env = ReplayEnvironment(snap, start=date(2024, 1, 5))
    (r,) = env.resolved()
    assert (r.question_id, r.answer, r.answer_aliases) == ("q1", SECRET, ("Z. Quorvath",))
    env.advance(3)
    assert [r.question_id for r in env.resolved()] == ["q1", "q2"]


def test_search_is_gated_at_today(snap):
    env = ReplayEnvironment(snap)
    assert env.search("harbor board") == []
    env.advance()  # Jan 2
    assert [h.article_id for h in env.search("harbor board")] == ["early"]
    env.advance(4)  # Jan 6
    assert {h.article_id for h in env.search("harbor board")} == {"early", "late"}


def test_submit_validates_and_records(snap):
    env = ReplayEnvironment(snap, start=date(2024, 1, 2))
    with pytest.raises(InvalidForecast, match="not open"):
        env.submit("q2", {"Reds": 0.5})  # opens Jan 4
    with pytest.raises(InvalidForecast, match="not open") as unknown:
        env.submit("nope", {"Reds": 0.5})  # the same answer as a future question: ids tell no future
    with pytest.raises(InvalidForecast) as future:
        env.submit("q2", {"Reds": 0.5})
    assert str(unknown.value).replace("'nope'", "ID") == str(future.value).replace("'q2'", "ID")
    with pytest.raises(InvalidForecast, match="placeholder"):
        env.submit("q1", {"Unknown": 0.5})
    with pytest.raises(InvalidForecast, match="sum"):
        env.submit("q1", {"A B": 0.6, "C D": 0.6})
    assert env.ledger == ()
    e = env.submit("q1", {"Ana Ruiz": 0.6, "Bo Li": 0.2})
    assert (e.question_id, e.date, dict(e.forecast)) == ("q1", date(2024, 1, 2), {"Ana Ruiz": 0.6, "Bo Li": 0.2})
    env.advance(2)
    env.submit("q1", {"Bo Li": 0.7})  # a revision is a new entry, the old one stays
    assert [(x.date.day, list(x.forecast)) for x in env.ledger] == [(2, ["Ana Ruiz", "Bo Li"]), (4, ["Bo Li"])]
    env.advance()  # Jan 5: q1 resolved, closed for forecasts
    with pytest.raises(InvalidForecast, match="not open"):
        env.submit("q1", {"Bo Li": 0.7})
    assert isinstance(env.ledger, tuple) and len(env.ledger) == 2


def test_search_windows_and_counts_never_pass_today(snap):
    env = ReplayEnvironment(snap, start=date(2024, 1, 4))
    everything = env.search("harbor board chair vote", k=50)
    assert env.search("harbor board chair vote", k=50, until=date(2030, 1, 1)) == everything  # capped at today
    since = env.search("harbor board chair vote", k=50, since=date(2024, 1, 4))
    assert all(h.published_at.date() >= date(2024, 1, 4) for h in since)
    assert {h.article_id for h in since} <= {h.article_id for h in everything}
    assert env.articles_published(date(2024, 1, 1), date(2030, 1, 1)) == env.articles_published(
        date(2024, 1, 1), date(2024, 1, 4))
    assert env.articles_published(date(2024, 1, 5), date(2024, 1, 3)) == 0
