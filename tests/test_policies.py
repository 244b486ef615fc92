"""Wake-up policies in the replay harness: every day, cron, the agent's own sleep, a keyword
watcher (an erroring watcher wakes the agent), and the deadline guard."""

import json
from datetime import date

import pytest

from evalkit import article, question, ts, write_snapshot
from pastcast.evaluate.policies import Cron, DeadlineGuard, EveryDay, Sleep, Watcher, parse_policy
from pastcast.evaluate.runner import run_eval

START, END = "2024-01-01", "2024-01-20"


@pytest.fixture(scope="module")
def snap(tmp_path_factory):
    articles = [article("h3", "Harbour vote", "The harbour board votes on the new quay.", ts("2024-01-03")),
                article("x5", "Weather", "Rain across the north.", ts("2024-01-05")),
                article("h9", "Harbour board", "The harbour board chose Ana Ruiz as chair.", ts("2024-01-09"))]
    questions = [question("q-early", "Who will chair the harbour board?", "Ana Ruiz", "2024-01-02", "2024-01-08"),
                 question("q-late", "Who will run the port authority?", "Bo Lind", "2024-01-02", "2024-01-18")]
    return write_snapshot(tmp_path_factory.mktemp("p") / "s", articles, questions, START, END)


class Recorder:
    """Forecasts every open question when awake and sleeps ``nap`` days (when given)."""

    name = "recorder"

    def __init__(self, nap: int | None = None):
        self.nap, self.woke = nap, []

    def act(self, env):
        self.woke.append(env.today)
        for q in env.open_questions():
            env.submit(q.question_id, {"Ana Ruiz": 0.6})
        if self.nap:
            env.sleep(self.nap)


def _run(snap, tmp_path, policy, agent=None, **kw):
    agent = agent or Recorder()
    kw.setdefault("force", True)  # the same policy twice in one test replaces its run
    result = run_eval(snap, agent, tmp_path / policy.name.replace("+", "_"), policy=policy, **kw)
    return agent, result


def test_every_day_and_cron(snap, tmp_path):
    agent, result = _run(snap, tmp_path, EveryDay())
    assert len(agent.woke) == 20 and result.run["wakes"] == 20 and result.run["policy"] == "daily"
    agent, result = _run(snap, tmp_path, Cron(every_days=7))
    assert agent.woke == [date(2024, 1, 1), date(2024, 1, 8), date(2024, 1, 15)]
    assert result.run["wake_reasons"] == {"schedule": 3}
    agent, _ = _run(snap, tmp_path, Cron(weekdays=(0,)))  # Mondays: 1, 8, 15 January 2024
    assert agent.woke == [date(2024, 1, 1), date(2024, 1, 8), date(2024, 1, 15)]


def test_the_agent_chooses_its_sleep(snap, tmp_path):
    agent, result = _run(snap, tmp_path, Sleep(), Recorder(nap=4))
    assert agent.woke == [date(2024, 1, d) for d in (1, 5, 9, 13, 17)]
    lazy, _ = _run(snap, tmp_path / "lazy", Sleep(), Recorder())  # no sleep asked: tomorrow
    assert len(lazy.woke) == 20


def test_a_watcher_wakes_on_new_matching_articles_and_when_it_breaks(snap, tmp_path):
    agent, result = _run(snap, tmp_path, Watcher(("harbour",)))
    assert agent.woke == [date(2024, 1, 1), date(2024, 1, 3), date(2024, 1, 9)]
    assert result.run["wake_reasons"] == {"first day": 1, "new article matching 'harbour'": 2}

    class BrokenIndex:
        def search(self, *a, **kw):
            raise OSError("index unreadable")

    broken, result = _run(snap, tmp_path / "broken", Watcher(("harbour",)), index=BrokenIndex())
    assert len(broken.woke) == 20  # every day, never silenced
    assert result.run["wake_reasons"]["watcher error"] == 19


def test_the_deadline_guard_wakes_before_an_unforecast_question_closes(snap, tmp_path):
    agent, result = _run(snap, tmp_path, Cron(every_days=30))
    assert agent.woke == [date(2024, 1, 1)]  # before any question opened
    assert result.run["closed_without_forecast"] == 2
    guarded, result = _run(snap, tmp_path, DeadlineGuard(Cron(every_days=30), days=1))
    # forced on q-early's last open day; that wake forecast q-late too, so no later wake
    assert guarded.woke == [date(2024, 1, 1), date(2024, 1, 7)]
    assert result.run["wake_reasons"] == {"deadline": 1, "schedule": 1}
    assert result.run["closed_without_forecast"] == 0 and result.run["policy"] == "cron+deadline1"


def test_policies_parse_from_the_command_line_form():
    assert isinstance(parse_policy("daily"), EveryDay)
    assert parse_policy("cron:3").every_days == 3 and parse_policy("cron:mon,thu").weekdays == (0, 3)
    assert parse_policy("watcher:election, rate").keywords == ("election", "rate")
    assert parse_policy("sleep", deadline_days=2).name == "sleep+deadline2"
    for bad in ("hourly", "cron:often", "watcher:"):
        with pytest.raises(ValueError):
            parse_policy(bad)


def test_a_sleeping_run_resumes_with_its_requested_wake(snap, tmp_path):
    class Crashing(Recorder):
        def act(self, env):
            if env.today == date(2024, 1, 9):
                raise KeyboardInterrupt
            super().act(env)

    out = tmp_path / "r"
    with pytest.raises(KeyboardInterrupt):
        run_eval(snap, Crashing(nap=4), out, policy=Sleep())
    progress = json.loads((out / ".progress.json").read_text())
    assert progress["requested_wake"] == "2024-01-09" and len(progress["wakes"]) == 2
    resumed_agent = Recorder(nap=4)
    resumed = run_eval(snap, resumed_agent, out, policy=Sleep(), resume=True)
    assert resumed_agent.woke == [date(2024, 1, d) for d in (9, 13, 17)]
    assert resumed.run["wakes"] == 5


def test_cli_policy_option(snap, tmp_path):
    from click.testing import CliRunner

    from pastcast.cli import main

    result = CliRunner().invoke(main, ["eval", "run", "--snapshot", str(snap), "--agent", "abstain",
                                       "--out", str(tmp_path / "cli"), "--policy", "cron:7", "--deadline-guard", "1"])
    assert result.exit_code == 0, result.output
    run = json.loads((tmp_path / "cli" / "run.json").read_text())
    assert run["policy"] == "cron+deadline1" and run["closed_without_forecast"] == 2
    bad = CliRunner().invoke(main, ["eval", "run", "--snapshot", str(snap), "--agent", "abstain",
                                    "--out", str(tmp_path / "bad"), "--policy", "hourly"])
    assert bad.exit_code != 0 and "unknown policy" in bad.output
