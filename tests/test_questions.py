from datetime import date, datetime, timezone

import pytest

from pastcast.questions.extractive import GenerateConfig, find_outcome, generate_extractive
from pastcast.questions.markets import MarketQuestionConfig, market_question_problems, market_questions
from pastcast.text import contains_phrase, normalise
from pastcast.questions.validate import leaks_in_own_text, validate_questions
from pastcast.schemas import ARTICLES, MARKETS, QUESTIONS, frame


@pytest.mark.parametrize("sentence, title, answer", [
    ("Ana Ruiz won the Kestrel Bay mayoral election on Sunday, taking 54% of the vote.",
     "Who will win the Kestrel Bay mayoral election?", "Ana Ruiz"),
    ("On Saturday, Portmere United beat Halvard Rovers 2-1 to win the Veloria Cup final.",
     "Which team will win the Veloria Cup final?", "Portmere United"),
    ("Tomas Berg was elected leader of the Green Union on Tuesday after a tight ballot.",
     "Who will be elected leader of the Green Union?", "Tomas Berg"),
    ("The Veloria Athletics Federation chose Drennick to host the 2028 National Games.",
     "Which city will the Veloria Athletics Federation choose to host the 2028 National Games?",
     "Drennick"),
    ("Solvane Energy appointed Mara Lind as its new chief executive, the company said.",
     "Who will Solvane Energy appoint as its chief executive?", "Mara Lind"),
    ("Mara Lind was appointed governor of the Central Bank of Veloria on Friday.",
     "Who will be appointed governor of the Central Bank of Veloria?", "Mara Lind"),
    ("The Central Bank of Veloria raised its benchmark rate to 4.25 per cent on Thursday.",
     "At what level will the Central Bank of Veloria set its benchmark rate in {month}?", "4.25%"),
    ("Nell Oduya has won the Halvard Prize for Literature, beating two established writers.",
     "Who will win the Halvard Prize for Literature?", "Nell Oduya"),
    ("Quiet Engines won the best film award at the Veloria Film Awards on Sunday.",
     "Which film will win the best film award at the Veloria Film Awards?", "Quiet Engines"),
    ("Orvane Foxes defeated Saltmere Seahawks 24-17 in the Harbour Shield final on Sunday.",
     "Which team will win the Harbour Shield final?", "Orvane Foxes"),
    ("Brightwater Energy selected Hollin Cross as the site of its 1.8 billion mark battery factory.",
     "Where will Brightwater Energy put its 1.8 billion mark battery factory?", "Hollin Cross"),
    ("The Low Pay Commission set its recommended minimum wage at 14.20 marks an hour on Tuesday.",
     "At what level will the Low Pay Commission set its recommended minimum wage in {month}?",
     "14.20 marks an hour"),
    ("Annual consumer price inflation fell to 2.9% in January, the National Statistics Office said.",
     "What will annual consumer price inflation for January be, as reported by the National "
     "Statistics Office?", "2.9%"),
])
def test_outcome_reports_become_questions(sentence, title, answer):
    outcome = find_outcome(sentence)
    assert (outcome.title, outcome.answer) == (title, answer)
    assert not contains_phrase(outcome.title, outcome.answer)


@pytest.mark.parametrize("sentence", [
    "The weather was fine on Sunday, and the market square was busy.",
    "Ana Ruiz won praise for her speech on Sunday.",  # no event: not an outcome report
    "Voters will choose between Ana Ruiz and Tomas Berg in March.",
    # two semi-final winners reach a final: no single answer to ask for
    "Kestrel Bay Rovers defeated Brennick Athletic 3-1 on Sunday to reach the Veloria Cup final.",
])
def test_text_without_an_outcome_report_yields_nothing(sentence):
    assert find_outcome(sentence) is None


def _article(i, day, title, text):
    return {"article_id": f"a{i}", "url": f"https://n.example/{i}", "domain": "n.example",
            "title": title, "text": text, "published_at": datetime(2026, 3, day, 9, tzinfo=timezone.utc),
            "crawled_at": datetime(2026, 3, day, 12, tzinfo=timezone.utc), "word_count": 50}


def test_generation_dates_and_background_never_leak_the_answer():
    articles = frame([
        _article(1, 1, "Race for mayor", "The Kestrel Bay mayoral election is on 29 March. "
                 "Turnout is expected to be high. Ana Ruiz leads the polls."),
        _article(2, 29, "Ruiz wins", "Ana Ruiz won the Kestrel Bay mayoral election on Sunday. "
                 "She took 54% of the vote."),
        _article(3, 30, "Ruiz wins (copy)", "Ana Ruiz won the Kestrel Bay mayoral election on Sunday. "
                 "She took 54% of the vote, officials said."),
        _article(4, 30, "Weather", "Rain is expected across the north on Monday and Tuesday."),
    ], ARTICLES)
    questions, drops = generate_extractive(articles, GenerateConfig(horizon_days=28))
    assert questions.height == 2 and drops["item_id"].to_list() == ["a1", "a4"]
    assert set(drops["reason"]) == {"no_outcome_report"}
    q = questions.row(0, named=True)
    assert q["resolution_date"] == date(2026, 3, 29) and q["open_date"] == date(2026, 3, 1)
    assert q["background"].startswith("As reported on 2026-03-01: The Kestrel Bay mayoral election is on 29 March.")
    assert "Ruiz" not in q["background"] and q["source_ids"] == ["a2"]

    kept, vdrops = validate_questions(questions)
    assert kept.height == 1 and kept["source_ids"].to_list() == [["a2", "a3"]]
    assert vdrops["reason"].to_list() == ["duplicate_question"]


def test_validation_drops_self_leaks_and_short_windows():
    base = {"title": "Who will win the Veloria Cup final?", "background": "", "answer": "Portmere United",
            "answer_aliases": ["Portmere"], "resolution_criteria": "Resolves to the winner.",
            "candidate_outcomes": [], "open_date": date(2026, 3, 1), "resolution_date": date(2026, 3, 29),
            "source_ids": ["a1"]}
    from pastcast.schemas import QUESTIONS
    questions = frame([
        base | {"question_id": "ok"},
        base | {"question_id": "leak", "title": "Will Portmere win the Veloria Cup final?"},
        base | {"question_id": "short", "title": "Who will win the Veloria Shield?",
                "open_date": date(2026, 3, 27)},
        base | {"question_id": "vague", "title": "Who will win the Veloria Trophy?", "answer": "Unknown"},
    ], QUESTIONS)
    kept, drops = validate_questions(questions)
    assert kept["question_id"].to_list() == ["ok"]
    assert dict(zip(drops["item_id"], drops["reason"])) == {
        "leak": "answer_in_question", "short": "short_window", "vague": "placeholder_answer"}
    assert leaks_in_own_text(questions) == ["leak"]


def test_market_questions_keep_options_and_drop_cancelled():
    t = lambda d: datetime(2026, 3, d, tzinfo=timezone.utc)  # noqa: E731
    markets = frame([
        {"market_id": "m1", "platform": "manifold", "question": "Who will win the Veloria Cup?",
         "outcome_type": "multiple_choice", "outcomes": ["Portmere United", "Halvard Rovers"],
         "status": "resolved", "created_at": t(1), "resolved_at": t(20), "resolution": "Halvard Rovers"},
        {"market_id": "m2", "platform": "manifold", "question": "Will it rain?", "outcome_type": "binary",
         "outcomes": ["Yes", "No"], "status": "cancelled", "created_at": t(1), "resolved_at": t(20)},
        {"market_id": "m3", "platform": "manifold", "question": "Will it snow?", "outcome_type": "binary",
         "outcomes": ["Yes", "No"], "status": "open", "created_at": t(1)},
        {"market_id": "m4", "platform": "manifold", "question": "Will it hail?", "outcome_type": "binary",
         "outcomes": ["Yes", "No"], "status": "ambiguous", "created_at": t(1), "resolved_at": t(20),
         "resolution_value": 0.4},
        {"market_id": "m5", "platform": "manifold", "question": "Will it fog?", "outcome_type": "binary",
         "outcomes": ["Yes", "No"], "status": "resolved", "created_at": t(15), "resolved_at": t(20),
         "resolution": "No"},
    ], MARKETS)
    questions, drops = market_questions(markets)
    assert questions["answer"].to_list() == ["Halvard Rovers"]
    assert questions["candidate_outcomes"].to_list() == [["Portmere United", "Halvard Rovers"]]
    assert questions["source_ids"].to_list() == [["m1"]]
    assert dict(zip(drops["item_id"], drops["reason"])) == {
        "m2": "cancelled", "m3": "unresolved", "m4": "ambiguous_resolution", "m5": "short_window"}
    # a horizon opens the question later than the market's creation
    later, _ = market_questions(markets, MarketQuestionConfig(horizon_days=10))
    assert later["open_date"].to_list() == [date(2026, 3, 10)]


def test_numeric_and_date_markets_are_bucketed_over_their_range():
    t = lambda d: datetime(2026, 1, d, tzinfo=timezone.utc)  # noqa: E731
    base = {"platform": "metaculus", "status": "resolved", "created_at": t(1), "resolved_at": t(30)}
    markets = frame([
        base | {"market_id": "n1", "question": "What will the rate be?", "outcome_type": "numeric",
                "resolution_value": 41.0, "range_min": 0.0, "range_max": 100.0},
        base | {"market_id": "n2", "question": "How many visitors?", "outcome_type": "numeric",
                "resolution_value": 5.0e6, "range_min": 1.0e3, "range_max": 1.0e7, "log_scale": True},
        base | {"market_id": "d1", "question": "When will the bridge open?", "outcome_type": "date",
                "resolution_value": datetime(2026, 5, 2, tzinfo=timezone.utc).timestamp(),
                "range_min": datetime(2026, 1, 1, tzinfo=timezone.utc).timestamp(),
                "range_max": datetime(2026, 12, 31, tzinfo=timezone.utc).timestamp()},
        base | {"market_id": "n3", "question": "What will it cost?", "outcome_type": "numeric",
                "resolution_value": 3.0},
        base | {"market_id": "n4", "question": "Above the range?", "outcome_type": "numeric",
                "resolution_value": 250.0, "range_min": 0.0, "range_max": 100.0},
    ], MARKETS)
    questions, drops = market_questions(markets, MarketQuestionConfig(numeric_buckets=5))
    by_title = {q["title"]: q for q in questions.iter_rows(named=True)}
    rate = by_title["What will the rate be?"]
    assert rate["candidate_outcomes"] == ["below 20", "20 to under 40", "40 to under 60", "60 to under 80", "80 or more"]
    assert rate["answer"] == "40 to under 60" and rate["answer_type"] == "range"
    visitors = by_title["How many visitors?"]
    assert visitors["candidate_outcomes"][0] == "below 6,310" and visitors["answer"] == "1,580,000 or more"
    bridge = by_title["When will the bridge open?"]
    assert bridge["answer"] == "2026-03-14 to 2026-05-25" and bridge["candidate_outcomes"][0] == "before 2026-03-14"
    assert by_title["Above the range?"]["answer"] == "80 or more"  # open end bucket
    assert dict(zip(drops["item_id"], drops["reason"])) == {"n3": "numeric_without_range"}
    off, off_drops = market_questions(markets, MarketQuestionConfig(numeric_buckets=0))
    assert off.is_empty() and set(off_drops["reason"]) == {"numeric_market"}


def test_normalise_drops_accents_and_spells_out_percent():
    assert normalise("  Émile  Zola's 3.75% rate. ") == "emile zolas 3 75 percent rate"
    assert contains_phrase("The bank set 3.75% today", "3.75%")
    assert not contains_phrase("Anaheim", "Ana")


def test_market_question_check_catches_answers_revealed_before_the_market_resolved():
    t = lambda d: datetime(2026, 3, d, tzinfo=timezone.utc)  # noqa: E731
    markets = frame([
        {"market_id": "m1", "platform": "manifold", "question": "Who will win the Veloria Cup?",
         "outcome_type": "multiple_choice", "outcomes": ["Portmere United", "Halvard Rovers"],
         "status": "resolved", "created_at": t(1), "resolved_at": t(20), "resolution": "Halvard Rovers"},
        {"market_id": "m2", "platform": "manifold", "question": "Will it rain?", "outcome_type": "binary",
         "outcomes": ["Yes", "No"], "status": "open", "created_at": t(1)},
    ], MARKETS)
    questions, _ = market_questions(markets)
    assert market_question_problems(questions, markets) == []
    (good,) = questions.iter_rows(named=True)
    planted = frame([
        good | {"question_id": "early", "resolution_date": date(2026, 3, 19)},
        good | {"question_id": "before", "open_date": date(2026, 2, 27)},
        good | {"question_id": "open", "source_ids": ["m2"]},
        good | {"question_id": "gone", "source_ids": ["m9"]},
        good | {"question_id": "odd", "answer": "Kestrel Bay"},
    ], QUESTIONS)
    problems = market_question_problems(planted, markets)
    assert [p.split(":")[0] for p in problems] == ["early", "before", "open", "gone", "odd"]
    assert "before the market resolved on 2026-03-20" in problems[0]
