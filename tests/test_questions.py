from datetime import date, datetime, timezone

import pytest

from pastcast.questions.extractive import GenerateConfig, find_outcome, generate_extractive
from pastcast.questions.markets import market_questions
from pastcast.text import contains_phrase, normalise
from pastcast.questions.validate import leaks_in_own_text, validate_questions
from pastcast.schemas import ARTICLES, MARKETS, frame


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
         "created_at": t(1), "resolved_at": t(20), "resolution": "Halvard Rovers"},
        {"market_id": "m2", "platform": "manifold", "question": "Will it rain?", "outcome_type": "binary",
         "outcomes": ["Yes", "No"], "created_at": t(1), "resolved_at": t(20), "resolution": None},
        {"market_id": "m3", "platform": "manifold", "question": "Will it snow?", "outcome_type": "binary",
         "outcomes": ["Yes", "No"], "created_at": t(1), "resolved_at": None, "resolution": None},
    ], MARKETS)
    questions, drops = market_questions(markets)
    assert questions["answer"].to_list() == ["Halvard Rovers"]
    assert questions["candidate_outcomes"].to_list() == [["Portmere United", "Halvard Rovers"]]
    assert dict(zip(drops["item_id"], drops["reason"])) == {"m2": "cancelled_or_ambiguous", "m3": "unresolved"}


def test_normalise_drops_accents_and_spells_out_percent():
    assert normalise("  Émile  Zola's 3.75% rate. ") == "emile zolas 3 75 percent rate"
    assert contains_phrase("The bank set 3.75% today", "3.75%")
    assert not contains_phrase("Anaheim", "Ana")
