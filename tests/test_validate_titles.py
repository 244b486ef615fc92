"""A title is a question whatever tail a market writes after its question mark (issue 37): an
option in brackets, a tag, emoji, a note after a dash; words after the mark make a statement."""

from datetime import date

import pytest

from pastcast.questions.validate import ValidateConfig, is_question, validate
from test_leakage import question, questions

QUESTIONS = [
    # real market titles (consistency-forecasting's Manifold and Metaculus sets)
    "Which of these countries will qualify for the Grand Final in Eurovision 2024? (Armenia)",
    "Will Sha'Carri Richardson win a gold medal at the 2024 Paris Olympic Games?🥇🏃‍♀️[LIQUIDITY ADDED]",
    "Will Poland 🇵🇱 beat Turkey 🇹🇷 on Mon, Jun 10, 2024? - Men's International Friendly ⚽",
    "Will Valve announce Half-Life 3 during Not-E3? [Before June 13th]",
    "Will \"Twisters\" (2024) have a Rotten Tomatoes critics score of at least 75%? (\"Certified Fresh\")",
    "Will the linked market get at least 377 traders by end of July 15? (78 more!)",
    "Will X win?!",
    "Will X win? (is it likely? yes)",  # a mark inside the brackets too
    # other scripts: the full-width mark and brackets, the Arabic and Greek marks
    "谁将赢得2026年的市长选举？（选项：林）",
    "2026年の市長選挙で誰が勝つでしょうか？【速報】",
    "من سيفوز بالانتخابات البلدية عام 2026؟ 🗳️",
    "Ποιος θα κερδίσει τις εκλογές του 2026\u037e (Αθήνα)",
    "Кто победит на выборах мэра в 2026 году? (Москва)",
    "Wer gewinnt die Bürgermeisterwahl 2026? – Stichwahl am 12. April",
    # no question mark at all, but an opening only a question has
    "Will the United States win gold in both Men's and Women's 5v5 basketball at the Paris Olympics",
    "Will the Silver close above $30.50 on August 9th, 2024. (According to Kitco.com)",
    "[Short fuse] Will Geert Wilders' PVV get at least 9 seats in the European Parliament",
    "¿Quién ganará las elecciones municipales de 2026",
    "Est-ce que Lina Okafor gagnera l'élection de 2026",
    "Will Lina Okafor win the 2026 election? 2026",  # digits after the mark
    "Will Lina Okafor win the 2026 election? 100%",
]
STATEMENTS = [
    "Rates unchanged? Markets expect a cut in March 2026.",  # a question mark mid-title, then a sentence
    'Apple launches "What?" campaign in March 2026',
    "利率不变？市场预计2026年3月降息。",
    "¿Sorpresa? El banco central bajará los tipos en 2026.",
    "Tasse invariate? Il mercato si aspetta un taglio nel 2026.",
    "The Fed will cut rates in March 2026.",
    "Logan Sargeant has 2 or more track limit lap time deletions at the 2024 Austrian Grand Prix",
    "May 2026 inflation above 3%",  # "May" the month, not the modal
    "Have your say on the 2026 budget",
    "How the Fed will decide in 2026",
    "Biden resigns (?)",  # a mark inside brackets asks nothing
    "Biden is old (really?)",
    "Will X win? - Says the analyst who was right last year and the year before",  # a sentence, not a note
    "Can't stop the music: Eurovision returns in 2026",  # headlines open with "can", "is"
    "Is Biden's age a problem, says poll",
    "?" + "(" * 5000 + "a",
]


@pytest.mark.parametrize("title", QUESTIONS)
def test_a_question_with_a_tail_is_a_question(title):
    assert is_question(title)


@pytest.mark.parametrize("title", STATEMENTS)
def test_a_statement_holding_a_question_mark_is_not(title):
    assert not is_question(title)


def test_validate_keeps_tailed_market_titles_and_drops_statements():
    rows = [question(f"q{i}", t, "Yes", kind="binary", source="market", open_date=date(2026, 1, 1))
            for i, t in enumerate(QUESTIONS)]
    rows += [question(f"s{i}", t, "Yes", kind="binary", source="market", open_date=date(2026, 1, 1))
             for i, t in enumerate(STATEMENTS)]
    result = validate(questions(*rows), ValidateConfig())
    reasons = {d.item_id: d.reason for d in result.drops}
    assert not {qid for qid, r in reasons.items() if qid.startswith("q") and r == "not_a_question"}
    assert {f"s{i}" for i in range(len(STATEMENTS))} <= {qid for qid, r in reasons.items() if r == "not_a_question"}
    # the mark's tail does not make a past-tense title about the future
    past = validate(questions(question("past", "Did someone shoot at the rally? (July 13th)", "Yes", kind="binary",
                                       source="market")), ValidateConfig())
    assert [d.reason for d in past.drops] == ["not_about_future"]
