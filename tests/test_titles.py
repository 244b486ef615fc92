"""Titles a forecaster reads (issue 37, item 3): platform labels off, group labels kept as words,
a probability request asked as the yes/no question it is; never empty, idempotent, the rest of
the title kept as written in any script."""

import random
import re
from datetime import datetime, timezone
from pathlib import Path

import polars as pl
import pytest

from pastcast.questions.markets import market_questions
from pastcast.questions.titles import PLATFORM_LABELS, ReaderTitle, reader_title, reader_titles
from pastcast.schemas import MARKET_PRICES, MARKETS, QUESTIONS, frame
from warcs import SHARED

# questions in several scripts, each a yes/no question
CORES = [
    "Will Joe Biden win the U.S. 2024 Democratic presidential nomination?",
    "Will the CDC confirm a human case of H5N1 by July 1, 2024?",
    "Кто станет мэром Казани в 2026 году?",
    "2026年の東京都知事選挙で誰が勝つか？",
    "Wird die EZB den Leitzins im März 2026 senken?",
    "هل سيفوز الحزب بالانتخابات في 2026؟",
    "Will Armenia qualify for the Grand Final? (Armenia)",
    "Will Sha'Carri Richardson win gold at Paris 2024?🥇🏃‍♀️",
    "Will Will Smith win an Oscar in 2026?",
    "Will the index close -5% lower [before June 13th]?",
]
PLATFORM = ["[Metaculus]", "[Manifold]", "[Polymarket]", "[Single Market]", "[LIQUIDITY ADDED]", "(Metaculus)",
            "[Kalshi]", "[Short Fuse]", "[INFER]", "【Polymarket】", "[ Manifold Markets ]", "[Market Index]"]
GROUPS = ["[Eurovision 2024]", "[AI]", "[2024 Formula 1 Season]", "[Выборы 2026]", "[AI [safety]]"]
JOINS = [" ", "  ", " - ", ": ", " | ", ""]


def _titles(n: int, seed: int = 37) -> list[tuple[str, str, list[str], list[str]]]:
    """(title, its core, platform labels in front and after, group labels in front)."""
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        core = rnd.choice(CORES)
        front = rnd.sample(PLATFORM, rnd.randint(0, 2))
        groups = rnd.sample(GROUPS, rnd.randint(0, 1))
        back = rnd.sample(PLATFORM, rnd.randint(0, 2))
        lead = [*front, *groups] if rnd.random() < 0.5 else [*groups, *front]
        title = "".join(f"{label}{rnd.choice(JOINS) or ' '}" for label in lead) + core
        title += "".join(f"{rnd.choice(JOINS)}{label}" for label in back)
        out.append((title, core, front + back, groups))
    return out


@pytest.mark.parametrize("answer_type", ["binary", "person", None])
def test_platform_labels_come_off_at_both_ends_and_group_labels_stay_as_words(answer_type):
    for title, core, platforms, groups in _titles(400):
        read = reader_title(title, answer_type)
        assert isinstance(read, ReaderTitle) and read.original == title
        assert read.title.strip() and read.title.endswith(core), (title, read.title)
        assert sorted(read.removed) == sorted(platforms), (title, read.removed)
        for label in platforms:  # none left where a label was
            assert not read.title.startswith(label) and not read.title.endswith(label)
        if groups:  # "[Eurovision 2024] Will ...?" reads "Eurovision 2024: Will ...?", brackets flattened
            words = " ".join(re.sub(r"[\[\]]", " ", groups[0]).split())
            assert read.title == f"{words}: {core}"
        else:
            assert read.title == core
        assert read.changed == (title != core) and not read.rewritten


def test_reading_twice_changes_nothing_and_a_title_is_never_empty():
    rnd = random.Random(3)
    pieces = PLATFORM + GROUPS + CORES + ["", " ", "?", "[", "]", "(", ")", "[]", "What is the probability that",
                                          " will ", "x", "【", "】", "（", "）", "［Kalshi］", ":", " - ", " -", "|",
                                          "\n",
                                          "(Armenia)", "[What is the probability that]", "How likely is it that "]
    for _ in range(5000):
        title = "".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 6)))
        for answer_type in ("binary", "option"):
            once = reader_title(title, answer_type)
            twice = reader_title(once.title, answer_type)
            assert twice.title == once.title and not twice.changed, (title, once.title, twice.title)
            if re.search(r"\w", title):
                assert re.search(r"\w", once.title), (title, once.title)
            if not once.changed:
                assert once.title == title and not once.removed  # untouched to the character


@pytest.mark.parametrize("title", ["[Metaculus]", "[Metaculus] [Single Market]", "[Metaculus] [AI]",
                                   "[AI] [Metaculus]", "[AI]", "(Metaculus) ?", "", "   ", "[[Metaculus]]",
                                   "[Metaculus] (2024)"])
def test_a_title_of_labels_only_is_left_whole(title):
    read = reader_title(title, "binary")
    assert read.title == title and not read.removed and not read.changed


def test_nested_and_unclosed_brackets():
    assert reader_title("[Metaculus [mirror]] Will it rain in Oslo on 1 May 2026?").removed \
        == ["[Metaculus [mirror]]"]  # platform words and nothing else, however bracketed
    assert reader_title("[[Metaculus]] Will it rain?").title == "Will it rain?"
    assert reader_title("[Metaculus, Short Fuse] Will it rain?").title == "Will it rain?"
    assert reader_title("[Eurovision [2024]] Will Armenia qualify?").title == "Eurovision 2024: Will Armenia qualify?"
    assert reader_title("[Polymarket 2024] Will it rain?").title == "Polymarket 2024: Will it rain?"  # a group
    unclosed = "[Metaculus Will it rain in Oslo on 1 May 2026?"
    assert reader_title(unclosed).title == unclosed
    assert reader_title("Will it rain? [see description]").title == "Will it rain? [see description]"
    assert reader_title("Will it rain? (read description)").title == "Will it rain? (read description)"
    # a leading parenthesis is text, not a label, unless it names a platform
    assert reader_title("(Un)official: will it rain?").title == "(Un)official: will it rain?"


@pytest.mark.parametrize("title, question", [
    ("What is the probability that the daily average temperature at the French weather station at Abbeville "
     "will be higher on 2024-07-28 than on 2024-07-21?",
     "Will the daily average temperature at the French weather station at Abbeville be higher on 2024-07-28 "
     "than on 2024-07-21?"),
    ("What's the probability that Ana Ruiz will win the Kestrel Bay election?",
     "Will Ana Ruiz win the Kestrel Bay election?"),
    ("What is the chance that the Fed will cut rates in March 2026?", "Will the Fed cut rates in March 2026?"),
    ("How likely is it that Will Smith will win an Oscar?", "Will Will Smith win an Oscar?"),
    ("What is the likelihood the ECB will  cut in 2026?", "Will the ECB  cut in 2026?"),
    ("[Metaculus] What are the odds that SpaceX will land on Mars by 2030? [LIQUIDITY ADDED]",
     "Will SpaceX land on Mars by 2030?"),
    ("[Weather] What is the probability that Oslo will see snow on 1 May 2026?",
     "Weather: Will Oslo see snow on 1 May 2026?"),
])
def test_a_probability_request_with_a_yes_no_answer_is_asked_as_a_yes_no_question(title, question):
    read = reader_title(title, "binary")
    assert read.title == question and read.rewritten
    for other in ("option", "number", None):  # another answer type: the probability wording stays
        assert "probability" not in title or "probability" in reader_title(title, other).title
        assert not reader_title(title, other).rewritten


@pytest.mark.parametrize("title", [
    "What is the probability of a recession in 2026?",  # no "will" to turn around
    "What is the probability that the index closes higher on 2026-03-01?",
    "What is the probability that will?",
])
def test_a_probability_request_without_a_will_is_left_alone(title):
    assert reader_title(title, "binary").title == title


def test_the_platform_vocabulary_is_the_readers_platforms():
    from pastcast.sources.forecastbench import MARKET_SOURCES
    from pastcast.sources.markets import MARKET_FORMATS

    assert set(MARKET_FORMATS) | MARKET_SOURCES <= PLATFORM_LABELS


def _question(qid: str, title: str, answer_type: str = "binary", **more) -> dict:
    return {"question_id": qid, "title": title, "answer": "Yes", "answer_type": answer_type, **more}


def test_reader_titles_on_a_frame_keeps_the_original_and_is_idempotent():
    prob = "What is the probability that Oslo will see snow on 1 May 2026?"
    qs = frame([_question("a", "[Metaculus] Will it rain in Oslo on 1 May 2026?"), _question("b", prob),
                _question("c", prob, "option"), _question("d", "Will it rain?"), _question("e", None)], QUESTIONS)
    once = reader_titles(qs)
    assert once.columns == qs.columns and once.schema == qs.schema and once.height == qs.height
    got = dict(zip(once["question_id"], zip(once["title"], once["original_title"])))
    assert got == {"a": ("Will it rain in Oslo on 1 May 2026?", "[Metaculus] Will it rain in Oslo on 1 May 2026?"),
                   "b": ("Will Oslo see snow on 1 May 2026?", prob), "c": (prob, None),
                   "d": ("Will it rain?", None), "e": (None, None)}
    assert reader_titles(once).equals(once)
    # a frame without the column (a peer importer's own columns) gets it; no answer_type: not yes/no
    bare = reader_titles(pl.DataFrame({"title": ["[Polymarket] Will it rain?", prob]}))
    assert bare.to_dicts() == [{"title": "Will it rain?", "original_title": "[Polymarket] Will it rain?"},
                               {"title": prob, "original_title": None}]


def test_market_questions_read_clean_titles_and_keep_the_market_text():
    t = lambda d: datetime(2026, 3, d, tzinfo=timezone.utc)  # noqa: E731
    base = {"platform": "manifold", "status": "resolved", "created_at": t(1), "resolved_at": t(20),
            "outcome_type": "binary", "outcomes": ["Yes", "No"], "resolution": "Yes"}
    written = {
        "m1": "[Single Market] Will Joe Biden win the Veloria primary?",
        "m2": "What is the probability that the daily average temperature at Abbeville will be higher on "
              "2026-03-20 than on 2026-03-01?",
        "m3": "[Eurovision 2026] Will Armenia qualify for the final? [LIQUIDITY ADDED]",
        "m4": "Will it snow in Oslo on 2026-03-10?",
    }
    markets = frame([base | {"market_id": k, "question": v} for k, v in written.items()]
                    + [base | {"market_id": "m5", "question": "What is the probability that X will win? (Armenia)",
                               "outcome_type": "multiple_choice", "outcomes": ["Armenia", "Malta"],
                               "resolution": "Malta"}], MARKETS)
    questions, drops = market_questions(markets)
    assert drops.is_empty() and questions.columns == list(QUESTIONS)
    by = {q["source_ids"][0]: q for q in questions.iter_rows(named=True)}
    assert by["m1"]["title"] == "Will Joe Biden win the Veloria primary?"
    assert by["m2"]["title"].startswith("Will the daily average temperature at Abbeville be higher")
    assert by["m3"]["title"] == "Eurovision 2026: Will Armenia qualify for the final?"
    assert by["m5"]["title"] == "What is the probability that X will win? (Armenia)"  # not yes/no: as written
    for mid, q in by.items():
        original = written.get(mid, q["title"])
        assert q["original_title"] == (original if q["title"] != original else None)
        assert not q["title"].startswith("[") and "LIQUIDITY" not in q["title"]
    assert markets["question"].to_list()[:4] == list(written.values())  # the market keeps its own text


FORECASTBENCH = SHARED / "markets" / "forecastbench"


@pytest.mark.skipif(not FORECASTBENCH.is_dir(), reason=f"real ForecastBench dumps not present at {FORECASTBENCH}")
def test_real_forecastbench_questions_read_without_platform_labels_or_probability_requests():
    from pastcast.questions.titles import _PROBABILITY, _leading, _trailing, _is_platform
    from pastcast.sources.forecastbench import read_forecastbench

    imported = read_forecastbench(sorted(Path(FORECASTBENCH).glob("*.json")))
    markets = imported.frame("markets", MARKETS).sort("market_id")
    prices = imported.frame("market_prices", MARKET_PRICES).sort("market_id", "ts", "outcome")
    questions, _ = market_questions(markets, prices=prices)
    assert questions.height > 1000

    def labelled(title: str) -> bool:
        lead, tail = _leading(title.strip()), _trailing(title.strip())
        return bool(lead and _is_platform(lead[0]) or tail and _is_platform(tail[1]))

    rows = questions.select("title", "original_title", "answer_type").to_dicts()
    assert not [r["title"] for r in rows if labelled(r["title"])]
    assert not [r["title"] for r in rows if r["answer_type"] == "binary" and _PROBABILITY.match(r["title"])]
    changed = [r for r in rows if r["original_title"] is not None]
    # the dumps carry both kinds: some titles changed, each keeping its original, and no other
    assert changed and all(r["original_title"] != r["title"] for r in changed)
    assert any(_PROBABILITY.match(r["original_title"]) for r in changed)
    assert all(reader_title(r["title"], r["answer_type"]).title == r["title"] for r in rows)


def test_a_questions_table_written_before_the_column_reads_it_as_null(tmp_path):
    from pastcast.schemas import conform, scan_parts

    qs = reader_titles(frame([_question("a", "[Metaculus] Will it rain?")], QUESTIONS))
    old = tmp_path / "old.parquet"
    qs.drop("original_title").write_parquet(old)
    assert conform(pl.read_parquet(old), QUESTIONS, "questions")["original_title"].to_list() == [None]
    assert scan_parts([old], QUESTIONS).collect()["original_title"].to_list() == [None]
