"""Yes/no questions through every check (issue 35): a yes/no question's outcome is its event, so
its own text reporting the event is a self leak, another question's text reporting it is a
cross leak, and "Will X happen by D?" answered Yes is known on the first day an article reports
X (answered No, when one reports X can no longer happen). A planted corpus in Latin script and in
Chinese; clean questions of both kinds keep their dates; the audit counts what each step
examined and skipped, by kind, in ``filter.json``, ``audit.md`` and the manifest.

The rule's precision and recall on labelled sentences: ``tests/data/yes_no_reports.jsonl``
(written for this test by someone who had not seen the rule; 6 languages), split in halves by a
hash of the sentence, the rule written against the tune half (bench/README.md, "Yes/no
questions"). Bounds, not counts."""

import hashlib
import json
from datetime import date
from pathlib import Path

import polars as pl
import pytest

from evalkit import article, question, ts
from openai_server import OpenAIServer, completion
from pastcast.llm import LLMSettings
from pastcast.questions.filter import FilterConfig, filter_questions, write_filter_run
from pastcast.questions.revision import LLMJudge, revise_resolution_dates
from pastcast.questions.revision.event_reports import report
from pastcast.questions.revision.events import YesNoEvent
from pastcast.questions.validate import ValidateConfig
from pastcast.schemas import ARTICLES, QUESTIONS, frame
from pastcast.search.index import ArticleIndex

DATA = Path(__file__).resolve().parent / "data" / "yes_no_reports.jsonl"
ROWS = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
FILLER = "The council met on Tuesday to discuss bus lanes, library hours and the harbour wall."


def half(sentence: str) -> str:
    return "tune" if int(hashlib.sha256(sentence.encode("utf-8")).hexdigest(), 16) % 2 == 0 else "held-out"


CRITERIA = "As reported by the news by the resolution date."


def yes_no(qid: str, title: str, answer: str, open_date: str, resolution: str, **kw) -> dict:
    return question(qid, title, answer, open_date, resolution, answer_type="binary",
                    **{"resolution_criteria": CRITERIA, **kw})


def event_of(title: str, answer: str = "Yes") -> YesNoEvent:
    return YesNoEvent.of({"title": title, "answer": answer, "answer_type": "binary",
                          "open_date": date(2025, 1, 1), "resolution_date": date(2026, 1, 1)})


# -- reading a title ------------------------------------------------------------------------

@pytest.mark.parametrize("title,kind", [
    ("Will the board of Halden Energy approve the merger with Norvik by the end of June 2025?", "event"),
    ("Will annual inflation in Estoria exceed 5% by June 2025?", "threshold"),
    ("Will Jane Doe still be chief executive of Halden on 31 December 2025?", "state"),
    ("Will 2025 be the hottest year on record?", "state"),
    ("Will WSM's market close price on 2025-06-01 be higher than its market close price on 2025-01-01?", "state"),
    ("Wird der Bundestag den Haushalt bis Ende 2025 billigen?", "event"),
    ("Подпишет ли Путин закон о бюджете до конца 2025 года?", "event"),
    ("南澜国的年通胀率会在2025年6月前超过5%吗？", "threshold"),
])
def test_a_yes_no_title_is_read_as_its_event(title, kind):
    ev = event_of(title)
    assert ev is not None and ev.kind == kind
    assert "2025" not in ev.terms and ev.terms or ev.names  # the deadline is not the event


def test_what_settles_each_answer_early():
    assert event_of("Will X sign the deal by June 2025?", "Yes").sought == "event"
    assert event_of("Will X sign the deal by June 2025?", "No").sought == "impossible"
    assert event_of("Will inflation exceed 5% by June 2025?", "Yes").sought == "crossing"
    # a state on a day is known on that day when it holds; its end settles a No
    assert event_of("Will Jane Doe still be CEO of Halden on 31 December 2025?", "Yes").sought is None
    assert event_of("Will Jane Doe still be CEO of Halden on 31 December 2025?", "No").sought == "impossible"
    # a name, not a yes/no answer: not an event
    assert YesNoEvent.of({"title": "Who will win?", "answer": "Lina Okafor", "answer_type": "person"}) is None


@pytest.mark.parametrize("title,sentence,outcome", [
    ("Will the board of Halden Energy approve the merger with Norvik by June 2025?",
     "The board of Halden Energy approved the merger with Norvik on Tuesday, the company said.", "event"),
    ("Will the UAW endorse Kamala Harris for president by July 2024?", "UAW endorses Harris", "event"),
    ("Will the Geneva summit on water rights take place by June 2025?",
     "The Geneva summit on water rights was called off on Monday, organisers said.", "impossible"),
    ("Will annual inflation in Estoria exceed 5% by June 2025?",
     "Annual inflation in Estoria rose to 5.6% in May, the statistics office said.", "crossing"),
    ("Wird der Bundestag den Haushalt bis Ende 2025 billigen?", "Der Bundestag hat den Haushalt am Freitag gebilligt.",
     "event"),
    ("Подпишет ли Путин закон о бюджете до конца 2025 года?", "Путин подписал закон о бюджете в среду.", "event"),
    # a passive title: the participle itself, after an auxiliary
    ("Will Jane Doe be appointed chief executive of Halden by June 2025?",
     "Jane Doe was appointed chief executive of Halden on Monday.", "event"),
    ("Will Jane Doe be named chief executive of Halden by June 2025?",
     "Jane Doe was named chief executive of Halden on Monday.", "event"),
    ("Will the mpox outbreak in Veloria be declared over by June 2025?",
     "The mpox outbreak in Veloria was declared over on Monday.", "event"),
    # a free-form answer's hedge word that is the event's own ("qualify", "talks")
    ("Will Scotland qualify for the 2026 FIFA World Cup by December 2025?",
     "Scotland qualified for the 2026 FIFA World Cup on Tuesday.", "event"),
    ("Will Russia and Ukraine hold direct peace talks by June 2025?",
     "Russia and Ukraine held direct peace talks in Istanbul on Friday.", "event"),
    # a threshold in another scale than its report
    ("Will Bitcoin exceed $100K by June 2025?", "Bitcoin rose to $101,000 on Monday.", "crossing"),
    # an auxiliary before the verb, an irregular participle
    ("Emmanuel Macron va-t-il dissoudre l'Assemblée nationale d'ici fin 2025 ?",
     "Emmanuel Macron a dissous l'Assemblée nationale dimanche soir.", "event"),
])
def test_reports_of_the_outcome_are_found(title, sentence, outcome):
    ev = event_of(title, "No" if outcome == "impossible" else "Yes")
    found = report(sentence, ev, ev.outcomes, headline=not sentence.endswith("."))
    assert found is not None and found.outcome == outcome


@pytest.mark.parametrize("title,sentence", [
    ("Will the board of Halden Energy approve the merger with Norvik by June 2025?",
     "The board of Halden Energy is expected to approve the merger with Norvik next week."),
    ("Will the board of Halden Energy approve the merger with Norvik by June 2025?",
     "The board of Halden Energy did not approve the merger with Norvik on Tuesday."),
    ("Will the board of Halden Energy approve the merger with Norvik by June 2025?",
     "The board of Halden Energy approved the merger with Norvik in 2019."),  # another year
    ("Will the Bank of Veloria cut its benchmark rate by June 2025?",
     "The Bank of Veloria held its benchmark rate at 3.5% on Thursday."),  # another action
    ("Will the mpox outbreak in Veloria be declared over by June 2025?",
     "Veloria declared a new mpox outbreak on Monday."),  # "declared over" is another action
    ("Will annual inflation in Estoria exceed 5% by June 2025?",
     "Annual inflation in Estoria rose to 4.8% in May, the statistics office said."),
    ("Will annual inflation in Estoria exceed 5% by June 2025?",
     "Annual inflation in Estoria is forecast to reach 5.5% in May."),
    ("Wird der Bundestag den Haushalt bis Ende 2025 billigen?", "Der Bundestag könnte den Haushalt am Freitag billigen."),
    # another quantity in the same unit: a market value is no price
    ("Will Bitcoin exceed $100,000 by June 2025?", "Bitcoin's market capitalisation stood at $1.9 trillion in May."),
    # a forecast, and a delay that leaves the deadline open, are no calling off
    ("Will US inflation exceed 5% by December 2025?", "The Federal Reserve said US inflation will not exceed 5% in 2025."),
    ("Will Apple launch the Vision Pro in China by December 2025?",
     "Apple postponed the Vision Pro launch in China by two weeks."),
    # a completion marker about another verb ("the merger plan has been submitted")
    ("南澜能源董事会会在2025年5月31日前批准与北湾电力的合并吗？", "南澜能源董事会表示，与北湾电力的合并计划已经提交股东大会审议。"),
])
def test_previews_other_actions_and_other_periods_are_no_report(title, sentence):
    ev = event_of(title)
    assert report(sentence, ev, ev.outcomes) is None


@pytest.mark.parametrize("title,state", [
    ("Will Bangladesh hold the general election before June 30, 2025?", False),  # a limit: an event
    ("Wird die Regierung das Heizungsgesetz noch vor Juni 2025 verabschieden?", False),
    ("Will Jane Doe still be CEO of Halden on 31 December 2025?", True),
])
def test_a_limit_makes_an_event_whatever_its_words(title, state):
    assert (event_of(title).kind == "state") == state


def test_what_happened_before_a_question_opened_is_no_report_of_it():
    """A question's background and an earlier occurrence ("again") report nothing of its
    outcome: the question was written knowing them."""
    opened = {"answer_type": "binary", "answer": "Yes", "open_date": date(2025, 4, 1),
              "resolution_date": date(2025, 7, 1)}
    ev = YesNoEvent.of({**opened, "title": "Will the Fed raise interest rates by June 30, 2025?"})
    assert report("The Fed raised interest rates in March 2025.", ev, ev.outcomes, question_text=True) is None
    assert report("The Fed raised interest rates on 3 June.", ev, ev.outcomes, question_text=True) is not None
    again = YesNoEvent.of({**opened, "title": "Will the Fed raise interest rates again by June 30, 2025?"})
    assert again.repeat and report("The Fed raised interest rates.", again, again.outcomes, question_text=True) is None


def test_the_revision_does_not_take_an_earlier_occurrence_for_the_outcome(tmp_path):
    articles = frame([article("march", "Fed raises interest rates", "The Fed raised interest rates on Wednesday.",
                              ts("2025-03-19")),
                      article("n1", "Harbour notes", FILLER, ts("2025-05-02"))], ARTICLES)
    q = yes_no("again", "Will the Fed raise interest rates again by June 30, 2025?", "Yes", "2025-04-01", "2025-07-01")
    result = revise_resolution_dates(frame([q], QUESTIONS), None, articles)
    assert not result.drops and result.kept["resolution_date"].to_list() == [date(2025, 7, 1)]


def test_yes_no_answers_are_read_as_validation_reads_them():
    from pastcast.questions.revision.events import is_yes_no

    assert is_yes_no({"answer": "Yes."}) and is_yes_no({"answer": " no "}) and not is_yes_no({"answer": "Anna Berg"})
    assert not is_yes_no({"answer": None}) and not is_yes_no({"answer": 1})


def test_the_cross_leak_search_reads_only_hosts_that_can_report_the_outcome():
    """Questions sharing a name ("Trump") are many; a host is read for a question's outcome only
    when its text holds that question's verb (or one settling it), a calling-off cue, or a
    figure for a threshold."""
    from pastcast.questions.leak_index import QuestionIndex
    from pastcast.questions.leak_probes import probe_of

    rows = [yes_no("a", "Will Trump sign the budget bill by June 30, 2025?", "Yes", "2025-03-01", "2025-07-01"),
            yes_no("b", "Will Trump visit Canada by June 30, 2025?", "No", "2025-03-01", "2025-07-01"),
            yes_no("c", "Will Trump visit Greenland by June 30, 2025?", "No", "2025-03-01", "2025-07-01",
                   background="Trump signed the budget bill in May."),
            yes_no("d", "Will Trump fire the Fed chair by June 30, 2025?", "No", "2025-03-01", "2025-07-01",
                   background="The trip to Ottawa was called off.")]
    index = QuestionIndex(rows)
    found = index.probe_candidates(probe_of(rows[0]))
    assert 2 in found and 1 not in found  # "signed" in c's text; b holds neither verb nor cue
    assert 3 in index.probe_candidates(probe_of(rows[1]))  # d's calling-off cue


def test_a_question_s_own_terms_are_no_report():
    """Criteria written to define the outcome ("resolves Yes if ...", "would not count") report
    nothing, whatever their verbs."""
    ev = event_of("Will POPCAT reach $1b first?")
    assert report('This market will resolve to "Yes" if POPCAT reaches $1b FDV before other cat memecoins.',
                  ev, ev.outcomes, question_text=True) is None
    ev = event_of("Will any country leave NATO in 2025?", "No")
    assert report("A country's exit from NATO's integrated military command will not be sufficient to resolve "
                  "this market.", ev, ev.outcomes, question_text=True) is None


# -- the labelled set -----------------------------------------------------------------------

def _scores(rows: list[dict]) -> dict[str, tuple[int, int, int]]:
    """Per label, (called, correct, labelled)."""
    out = {}
    for label, outcomes in (("reports_event", ("event", "crossing")), ("reports_impossible", ("impossible",))):
        called = correct = labelled = 0
        for r in rows:
            ev = YesNoEvent.of({"title": r["title"], "answer": r["answer"], "answer_type": "binary",
                                "open_date": date(2025, 1, 1), "resolution_date": date(2026, 1, 1)})
            got = report(r["sentence"], ev, ev.outcomes, headline=not r["sentence"].rstrip().endswith(
                (".", "。", "!", "»", '"', "”"))) if ev else None
            hit = got is not None and got.outcome in outcomes
            called += hit
            correct += hit and r["label"] == label
            labelled += r["label"] == label
        out[label] = (called, correct, labelled)
    return out


def test_the_labelled_set():
    assert len(ROWS) >= 200 and len({r["sentence"] for r in ROWS}) == len(ROWS)
    assert {"en", "de", "fr", "es", "ru", "zh"} <= {r["language"] for r in ROWS}
    assert {r["label"] for r in ROWS} == {"reports_event", "reports_impossible", "neither"}


@pytest.mark.parametrize("name,min_precision,min_event_recall", [("tune", 0.75, 0.35), ("held-out", 0.7, 0.45)])
def test_precision_and_recall_on_each_half(name, min_precision, min_event_recall):
    """Bounds under what bench/README.md reports: missing a leak costs more than revising a date
    a little early, so recall is what grows; precision stays high enough that a revision is
    rarely wrong."""
    scores = _scores([r for r in ROWS if half(r["sentence"]) == name])
    called, correct, labelled = scores["reports_event"]
    assert correct / called >= min_precision and correct / labelled >= min_event_recall, scores
    called, correct, labelled = scores["reports_impossible"]
    assert called and correct / called >= 0.6, scores


# -- the filter on a planted corpus ----------------------------------------------------------

def _planted() -> tuple[list[dict], list[dict]]:
    """Questions and articles: each planted problem once, in Latin script and in Chinese, and
    clean questions of both kinds."""
    articles = [article(f"n{i}", f"Harbour notes {i}", FILLER, ts(f"2025-03-0{i}")) for i in range(1, 6)]
    # the weeks before the questions open, in both scripts: the corpus could have named what they name
    articles += [article(f"f{i}", f"Harbour notes, February {i}", FILLER, ts(f"2025-02-{i + 10}")) for i in range(12)]
    articles += [article(f"zf{i}", f"东港市议会纪要{i}", "东港市议会周二讨论了公交线路和图书馆的开放时间。",
                         ts(f"2025-02-{i + 10}")) for i in range(12)]
    # a title first reported six weeks after the questions open, then widely
    articles += [article(f"orchard{i}", "Keene releases 'The Glass Orchard'",
                         f"Marla Keene's new album 'The Glass Orchard' came out on Friday ({i}).", ts(f"2025-04-1{i}"))
                 for i in range(3)]
    articles += [article(f"zorchard{i}", "新专辑《玻璃果园》发行", f"歌手金玛拉的新专辑《玻璃果园》周五发行（{i}）。",
                         ts(f"2025-04-1{i}")) for i in range(3)]
    articles += [
        # the event reported 20 days before the deadline (2025-06-01): known from 2025-05-12
        article("merger", "Halden board approves Norvik merger",
                "The board of Halden Energy approved the merger with Norvik on Monday, the company said.",
                ts("2025-05-12")),
        # a No known early: the summit called off
        article("summit", "Geneva summit called off",
                "The Geneva summit on water rights was called off on Wednesday, organisers said.", ts("2025-04-16")),
        article("zh-merger", "南澜能源董事会批准合并", "南澜能源董事会周一正式批准与北湾电力的合并方案。", ts("2025-05-12")),
        # a free-form answer known early, attributed to sources
        article("lind", "Lind to lead central bank",
                "Finance ministry sources confirmed on Wednesday that Tomas Lind will be named governor of the "
                "central bank next month.", ts("2025-02-26")),
    ]
    questions = [
        yes_no("merger", "Will the board of Halden Energy approve the merger with Norvik by 31 May 2025?", "Yes",
               "2025-03-01", "2025-06-01"),
        yes_no("summit", "Will the Geneva summit on water rights take place by 31 May 2025?", "No",
               "2025-03-01", "2025-06-01"),
        yes_no("zh-merger", "南澜能源董事会会在2025年5月31日前批准与北湾电力的合并吗？", "Yes", "2025-03-01", "2025-06-01"),
        # its own background reports its outcome
        yes_no("self", "Will Ostrana ratify the Coastal Accord by 30 June 2025?", "Yes", "2025-03-01", "2025-07-01",
               background="Ostrana ratified the Coastal Accord on 2 March, its parliament said."),
        yes_no("zh-self", "青川队会在2025年6月前签下前锋李浩然吗？", "No", "2025-03-01", "2025-07-01",
               background="青川队已宣布放弃引进前锋李浩然。"),
        # another question's text reports this one's outcome
        yes_no("leaker", "Will the Veloria Senate pass the water bill by 30 June 2025?", "Yes", "2025-03-01",
               "2025-07-01"),
        question("host", "Who will sign the water bill into law?", "Anna Brix", "2025-03-01", "2025-07-01",
                 background="After the Veloria Senate passed the water bill on 3 March, it goes to the president.",
                 answer_type="person", resolution_criteria=CRITERIA),
        # clean ones: nothing reports them
        yes_no("clean", "Will Tarnby host the 2026 Nordic Games by 30 June 2025?", "No", "2025-03-01", "2025-07-01",
               background="Tarnby is one of three cities bidding for the Games."),
        yes_no("zh-clean", "东港市会在2025年6月底前开通地铁三号线吗？", "Yes", "2025-03-01", "2025-07-01"),
        question("governor", "Who will be named governor of the central bank?", "Tomas Lind", "2025-01-15",
                 "2025-03-20", answer_type="person", resolution_criteria=CRITERIA),
        question("free-clean", "Who will win the 2025 Kestrel Bay mayoral election?", "Lina Okafor", "2025-03-01",
                 "2025-07-01", answer_type="person", resolution_criteria=CRITERIA),
        # a later fact in the text: the album is first reported six weeks after this opens
        question("later", "Which album will win the 2025 Veloria Music Prize?", "Northern Lines", "2025-03-01",
                 "2025-07-01", answer_type="title", resolution_criteria=CRITERIA,
                 background="Marla Keene's 'The Glass Orchard' is among the contenders."),
        yes_no("zh-later", "《玻璃果园》会在2025年6月底前获得东港音乐奖吗？", "No", "2025-03-01", "2025-07-01",
               resolution_criteria="以新闻报道为准。"),
    ]
    return articles, questions


@pytest.fixture(scope="module")
def planted_run(tmp_path_factory):
    articles, questions = _planted()
    window = ValidateConfig(window_start=date(2025, 1, 1), window_end=date(2025, 12, 31))
    run = filter_questions(frame(questions, QUESTIONS), frame(articles, ARTICLES), FilterConfig(validate=window))
    out = tmp_path_factory.mktemp("filtered")
    write_filter_run(run, out)
    return run, out


def _kept(run, qid: str) -> dict | None:
    rows = run.questions.filter(pl.col("question_id") == qid)
    return rows.row(0, named=True) if rows.height else None


def test_planted_yes_no_problems_are_caught_in_both_scripts(planted_run):
    run, _ = planted_run
    dropped = {(d.item_id, d.stage, d.reason) for d in run.drops}
    assert ("self", "self_leak", "outcome_in_own_text") in dropped
    assert ("zh-self", "self_leak", "outcome_in_own_text") in dropped
    assert ("leaker", "cross_leak", "answer_in_other_question") in dropped or \
        ("host", "cross_leak", "answer_in_other_question") in dropped
    # "by D" resolved Yes: the date moves to the day an article reports the event (20 days early)
    assert _kept(run, "merger")["resolution_date"] == date(2025, 5, 12)
    assert _kept(run, "merger")["original_resolution_date"] == date(2025, 6, 1)
    assert _kept(run, "merger")["revision_evidence"] == ["merger"]
    assert _kept(run, "zh-merger")["resolution_date"] == date(2025, 5, 12)
    # resolved No: known from the day the event could no longer happen
    assert _kept(run, "summit")["resolution_date"] == date(2025, 4, 16)
    # the free-form answer attributed to sources moves its date too
    assert _kept(run, "governor")["resolution_date"] == date(2025, 2, 26)
    evidence = {e.question_id: e for e in run.evidence if e.action in ("drop", "revise")}
    assert "Ostrana ratified the Coastal Accord" in evidence["self"].spans[0]
    assert "approve" in evidence["merger"].spans[0] and "Norvik" in evidence["merger"].spans[0]


def test_a_title_first_reported_after_a_question_opens_opens_it_later(planted_run):
    run, _ = planted_run
    for qid in ("later", "zh-later"):
        q = _kept(run, qid)
        reopened = [e for e in run.evidence if e.question_id == qid and e.action == "reopen"]
        dropped = [d for d in run.drops if d.item_id == qid and d.stage == "temporal_leak"]
        assert (q is not None and q["open_date"] == date(2025, 4, 10) and reopened) or dropped, qid
        if reopened:
            assert reopened[0].article_ids[0].endswith("orchard0") and reopened[0].dates[0] == "2025-04-10"
            assert "Glass Orchard" in reopened[0].detail or "玻璃果园" in reopened[0].detail


def test_clean_questions_of_both_kinds_keep_their_dates(planted_run):
    run, _ = planted_run
    for qid, resolves in (("clean", date(2025, 7, 1)), ("zh-clean", date(2025, 7, 1)), ("free-clean", date(2025, 7, 1))):
        q = _kept(run, qid)
        assert q is not None and q["resolution_date"] == resolves and q["open_date"] == date(2025, 3, 1), qid


def test_the_audit_counts_what_every_step_examined_by_kind(planted_run):
    run, out = planted_run
    record = json.loads((out / "filter.json").read_text())
    coverage = record["coverage"]
    for step in ("self_leak", "revision", "cross_leak"):
        assert coverage[step]["binary"]["examined"] > 0, step  # yes/no questions are examined
        for kind, counts in coverage[step].items():
            assert set(counts) == {"examined", "skipped", "skipped_reasons"}
            assert counts["skipped"] == sum(counts["skipped_reasons"].values())
    # every question a step was handed is counted once, examined or skipped
    for stage in run.stages:
        counted = sum(c["examined"] + c["skipped"] for c in coverage[stage["stage"]].values())
        assert counted == stage["in"], stage
    assert set(record["coverage_by_source"]["validate"]) == {"news", "market", "imported"}
    # the template stage groups market questions only: these are news questions, each skipped with why
    template = coverage["template_cap"]
    assert sum(c["skipped"] for c in template.values()) == run.stages[-1]["in"] > 0
    assert {r for c in template.values() for r in c["skipped_reasons"]} == {"not_a_market_question"}
    audit = (out / "audit.md").read_text()
    assert "## What each step examined" in audit and "| self_leak | binary |" in audit
    assert "Verifiable and unambiguous, over the questions every rule examined" in audit


def test_a_step_that_cannot_judge_a_question_says_why():
    """A one-character answer cannot be located in any text: every leak step skips it, with its
    reason, and the audit counts it apart."""
    q = question("one", "Which gate will the 2025 final be played behind?", "B", "2025-03-01", "2025-07-01",
                 answer_type="other", resolution_criteria=CRITERIA)
    run = filter_questions(frame([q], QUESTIONS), frame([article("a", "t", FILLER, ts("2025-03-02"))], ARTICLES),
                           FilterConfig(validate=ValidateConfig(window_start=date(2025, 1, 1),
                                                                window_end=date(2025, 12, 31))))
    for step in ("self_leak", "revision", "cross_leak"):
        assert run.coverage[step]["by_kind"]["free_form"]["skipped_reasons"] == {"answer_not_locatable": 1}, step


def test_the_llm_judge_rules_on_yes_no_questions_with_the_same_rule(tmp_path, monkeypatch):
    """The judge sees what a yes/no answer means and its verdict decides: the prompt (version 3)
    states the yes/no rule, the request carries the question's meaning of Yes."""
    monkeypatch.setenv("PASTCAST_CACHE", str(tmp_path / "cache"))
    articles, questions = _planted()
    articles = frame(articles, ARTICLES)
    index = ArticleIndex.build(articles, tmp_path / "idx")
    merger = frame([q for q in questions if q["question_id"] == "merger"], QUESTIONS)
    seen = []

    def reply(body: dict, n: int):
        seen.append(body)
        return completion(json.dumps({"reveals": False, "reason": "a plan, not the approval"}))

    with OpenAIServer(reply) as server:
        settings = LLMSettings(model="openai/test-model", api_base=server.url, api_key="k", backoff_base=0.01,
                               timeout=5.0, cache_dir=tmp_path / "cache")
        with LLMJudge(settings) as judge:
            result = revise_resolution_dates(merger, index, articles, judge=judge)
    assert seen, "the judge was asked"
    system, user = seen[0]["messages"][0]["content"], seen[0]["messages"][1]["content"]
    assert "YES/NO QUESTION" in system
    assert "the answer Yes means the event this question asks about happened" in user
    assert result.kept["resolution_date"].to_list() == [date(2025, 6, 1)]  # rejected: the date stands
    assert result.judge_rejected >= 1


def test_a_built_snapshot_s_manifest_holds_the_filter_s_coverage(demo_snapshot):
    """`pastcast build` records, beside the filter stage's counts in the manifest, what every step
    examined and skipped by question kind: the sample's yes/no questions through the leak checks
    and the revision."""
    manifest = json.loads((demo_snapshot / "manifest.json").read_text())
    record = manifest["stage_counts"]["filter"]["extra"]
    for step in ("validate", "self_leak", "dedup", "revision", "cross_leak", "template_cap"):
        assert set(record["coverage"][step]) >= {"binary", "free_form"}, step
    assert record["coverage"]["self_leak"]["binary"]["examined"] > 0
    assert record["coverage"]["revision"]["binary"]["examined"] > 0
    assert record["coverage"]["cross_leak"]["binary"]["examined"] > 0
    assert set(record["coverage_by_source"]["revision"]) == {"news", "market", "imported"}


from warcs import SHARED  # noqa: E402

REAL_TITLES = SHARED / "markets"


@pytest.mark.skipif(not (REAL_TITLES / "autocast").is_dir() or not (REAL_TITLES / "forecastbench").is_dir(),
                    reason=f"real third-party data not present at {SHARED} (fresh clone)")
def test_every_real_title_is_read_without_error():
    """Every title of the real ForecastBench and Autocast sets (about 2,000, people-written, all
    shapes) is read as a yes/no event, and its own text read for a report, without an error;
    a real title once raised one (a passive with no content word)."""
    titles = []
    for path in sorted((REAL_TITLES / "forecastbench").glob("*-*.json")):
        titles += [q["question"] for q in json.loads(path.read_text()).get("questions", [])]  # not resolution sets
    titles += [q["question"] for q in json.loads((REAL_TITLES / "autocast" / "autocast_competition_test_set.json")
                                                 .read_text())]
    read = 0
    for title in titles:
        for answer in ("Yes", "No"):
            ev = YesNoEvent.of({"title": title, "answer": answer, "open_date": date(2024, 1, 1),
                                "resolution_date": date(2025, 1, 1)})
            if ev is not None:
                report(title, ev, ev.outcomes, question_text=True)
                read += 1
    assert len(titles) > 1500 and read > len(titles)  # nearly every title names an event
