"""A market question's answer is revealed no earlier than it is certain: deadlines named in its
title, and markets that close before their event (issue 17, item 5)."""

from datetime import date, datetime, timezone

import polars as pl
import pytest

from pastcast.questions.deadlines import known_from, named_deadline
from pastcast.questions.markets import market_questions
from pastcast.schemas import MARKETS, frame
from warcs import SHARED, needs_shared

REF = date(2024, 6, 1)


@pytest.mark.parametrize("title, expected", [
    ("Will Scotland leave the United Kingdom before 2025?", ("by", date(2025, 1, 1))),
    ("Will Lionel Messi retire before the end of 2024?", ("by", date(2025, 1, 1))),
    ("Will any country leave NATO in 2025?", ("by", date(2026, 1, 1))),
    ("Will an AI system solve a Millennium Prize Problem before July 2025?", ("by", date(2025, 7, 1))),
    ("Will Musk step down by the end of March 2025?", ("by", date(2025, 4, 1))),
    ("Will Nicolás Maduro be president of Venezuela on 11 January 2025?", ("on", date(2025, 1, 12))),
    ("Will Elon Musk be the richest person in the world on December 31, 2025?", ("on", date(2026, 1, 1))),
    ("Will Google have the top AI model on December 31?", ("on", date(2025, 1, 1))),  # the next Dec 31
    ("Will Ethereum hit $7,000 by December 31?", ("by", date(2025, 1, 1))),
    ("Will a testing center issue a certificate between 1 April 2024 and 31 March 2025?", ("by", date(2025, 4, 1))),
    ("By 31 December 2024, will enriched uranium be found?", ("by", date(2025, 1, 1))),
    ("Will Gold close at $2,700-2,800 at the end of 2025?", ("on", date(2026, 1, 1))),
    # found by a review: "on or before" is the day after; EOY; "of YEAR"; halves, quarters, ISO
    ("Will X happen on or before June 30, 2025?", ("by", date(2025, 7, 1))),
    ("Half-Life 3 confirmed by EOY?", ("by", date(2025, 1, 1))),
    ("Will Superman be the top grossing movie of 2025?", ("on", date(2026, 1, 1))),
    ("Will X happen by mid-2025?", ("by", date(2025, 7, 1))),
    ("Will X happen in Q3 2025?", ("by", date(2025, 10, 1))),
    ("Will X ship by 2025-06-30?", ("by", date(2025, 7, 1))),
    ("Will the index be higher on 2024-07-28 than on 2024-07-21?", ("on", date(2024, 7, 29))),
    # the latest date counts, not the first
    ("Will the champion, crowned in July 2024, keep the title in 2026?", ("by", date(2027, 1, 1))),
])
def test_deadlines_named_in_titles(title, expected):
    assert named_deadline(title, REF) == expected


def test_explicit_deadlines_only_when_strict():
    title = "Following its launch in March 2024, will Starship reach orbit?"
    assert named_deadline(title, REF) == ("by", date(2024, 4, 1))
    assert named_deadline(title, REF, strict=True) is None  # "in March 2024" may date another event
    assert named_deadline("Will X happen before 2025?", REF, strict=True) == ("by", date(2025, 1, 1))


@pytest.mark.parametrize("title", [
    "Will USA top the Olympic Medal Table at Paris 2024?",  # an event, no date
    "Will Australia win the 2026 FIFA World Cup?",  # a year naming an edition
    "Will Michael Penix win the 2025–26 NFL MVP award?",
    "Will Ding Liren repeat as World Chess Champion?",
])
def test_titles_without_a_deadline(title):
    assert named_deadline(title, REF) is None


def test_an_event_up_to_a_deadline_is_certain_after_it_only_when_it_did_not_happen():
    assert known_from("by", date(2025, 1, 1), "No") == date(2025, 1, 1)
    assert known_from("by", date(2025, 1, 1), "Yes") is None  # it happened: may be known earlier
    assert known_from("on", date(2025, 1, 12), "Yes") == date(2025, 1, 12)


def _utc(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=timezone.utc)


def market(market_id: str, question: str, created: str, close: str, resolved: str, resolution: str) -> dict:
    return {"market_id": market_id, "platform": "forecastbench", "question": question, "background": "",
            "resolution_criteria": "Resolves as the source resolves.", "outcome_type": "binary",
            "outcomes": ["Yes", "No"], "status": "resolved", "created_at": _utc(created),
            "close_at": _utc(close), "resolved_at": _utc(resolved), "resolution": resolution}


def test_market_questions_reveal_answers_when_certain():
    rows = [
        # Metaculus closes before the Games; the copy's resolution day is the close day
        market("forecastbench:metaculus:7664", "Will USA top the Olympic Medal Table at Paris 2024?",
               "2024-05-01", "2024-07-25T23:00:00", "2024-07-25", "Yes"),
        # the close reaches the deadline: kept, revealed the day after the deadline
        market("forecastbench:metaculus:1", "Will Scotland leave the United Kingdom before 2025?",
               "2024-09-01", "2024-12-31T09:00:00", "2024-12-31", "No"),
        # a Yes up to a deadline may be known early: the date stays
        market("forecastbench:manifold:2", "Will Kamala Harris be the Democratic Nominee for President in 2024?",
               "2024-06-01", "2024-11-05T16:59:59", "2024-08-05", "Yes"),
        # a state on a named day: known the day after, whatever the answer
        market("forecastbench:infer:3", "Will Nicolás Maduro be president of Venezuela on 11 January 2025?",
               "2024-10-01", "2025-01-11T05:00:00", "2025-01-11", "Yes"),
    ]
    questions, drops = market_questions(frame(rows, MARKETS))
    by_market = {q["source_ids"][0]: q for q in questions.iter_rows(named=True)}
    assert set(by_market) == {"forecastbench:metaculus:1", "forecastbench:manifold:2", "forecastbench:infer:3"}
    assert drops.filter(pl.col("item_id") == "forecastbench:metaculus:7664")["reason"].to_list() == [
        "resolution_date_unknown"]
    assert by_market["forecastbench:metaculus:1"]["resolution_date"] == date(2025, 1, 1)
    assert by_market["forecastbench:manifold:2"]["resolution_date"] == date(2024, 8, 5)
    assert by_market["forecastbench:infer:3"]["resolution_date"] == date(2025, 1, 12)
    for q in questions.iter_rows(named=True):
        assert q["original_resolution_date"] == q["resolution_date"]  # no revision yet


@needs_shared
def test_no_real_forecastbench_answer_is_revealed_before_its_named_deadline_or_event():
    from pastcast.sources.forecastbench import read_forecastbench

    markets = read_forecastbench(sorted((SHARED / "markets" / "forecastbench").glob("*.json"))).frame(
        "markets", MARKETS)
    questions, drops = market_questions(markets)
    early = []
    for q in questions.iter_rows(named=True):
        deadline = named_deadline(q["title"], q["open_date"])
        known = known_from(*deadline, q["answer"]) if deadline else None
        if known and q["resolution_date"] < known:
            early.append(q["title"])
    assert early == []
    assert "Will USA top the Olympic Medal Table at Paris 2024?" not in set(questions["title"])
    # the raw sets did reveal answers early: the check is not vacuous
    moved = questions.join(markets.select("market_id", pl.col("resolved_at").dt.date().alias("raw")),
                           left_on=pl.col("source_ids").list.first(), right_on="market_id")
    assert moved.filter(pl.col("resolution_date") > pl.col("raw")).height >= 10


def test_a_side_clause_date_does_not_excuse_a_metaculus_close():
    """The latest date counts: a Metaculus copy closing just after a side clause's date, with
    the question's own deadline a year later, is dropped, not revealed a year early."""
    title = "After the ceasefire signed on January 19, 2025, will fighting resume in 2025?"
    assert named_deadline(title, date(2025, 1, 1)) == ("by", date(2026, 1, 1))
    assert named_deadline(title, date(2025, 1, 1), strict=True) is None
    rows = [market("forecastbench:metaculus:9", title, "2025-01-01", "2025-01-20T00:00:00", "2025-01-20", "Yes")]
    questions, drops = market_questions(frame(rows, MARKETS))
    assert questions.is_empty() and drops["reason"].to_list() == ["resolution_date_unknown"]
    assert named_deadline("Will X remain CEO through 2025?", REF) == ("on", date(2026, 1, 1))  # a state
