"""The retrieval baseline's candidates are whole names and numbers with units, and it searches
only for what it can forecast, once a query a day."""

from datetime import date

from evalkit import article, question, ts, write_snapshot
from pastcast.evaluate.agents import RetrievalAgent
from pastcast.evaluate.candidates import extract_candidates, hit_text, is_title_case
from pastcast.evaluate.environment import ReplayEnvironment
from pastcast.search.keywords import keywords
from warcs import needs_shared


def test_a_title_case_headline_gives_no_name_fragments_and_possessives_are_cut():
    headline = "Donna Kelce Calls Taylor Swift's Engagement a Dream"
    assert is_title_case(headline)
    body = "Taylor Swift's fans cheered as Travis Kelce spoke; Donna Kelce said little."
    found = extract_candidates(hit_text(headline, body), "person", set())
    assert found == {"Taylor Swift", "Travis Kelce", "Donna Kelce"}
    # a headline in sentence case still counts
    assert "Ana Ruiz" in extract_candidates(hit_text("Ana Ruiz wins the vote", "Turnout was high."), "person", set())


def test_numbers_keep_their_units_and_bare_counts_or_years_only_when_asked():
    text = "On Nov. 11, 2023, the jobless rate rose to 4.1%, up 0.2 percentage points; 5 states and 3,200 people"
    rate = extract_candidates(text, "number", set(), "What will the U.S. unemployment rate be in December?")
    assert rate == {"4.1%", "0.2 percentage points", "3,200 people"}
    assert not {"11,", "11", "2023,", "2023", "5"} & rate
    counts = extract_candidates(text, "number", set(), "How many states will report a rise?")
    assert {"5", "11"} <= counts and "2023" not in counts
    assert "2023" in extract_candidates(text, "year", set())
    assert extract_candidates("It cost $5 billion and €3.5m.", "number", set()) >= {"$5 billion", "€3.5m"}
    # scripts written without spaces put the number right after a character; a code is not one
    assert extract_candidates("北京经济增长了5.2%。", "number", set()) == {"5.2%"}
    assert extract_candidates("Рост составил 3,5 %; Airbus A320 и 7%", "number", set()) >= {"7%"}
    assert not {c for c in extract_candidates("Airbus A320 flew 12 km", "number", set()) if "320" in c}


def test_binary_questions_are_not_searched_and_a_query_is_searched_once_a_day(tmp_path):
    title = "Who will chair the Port Ellis harbour board?"
    articles = [article("a1", "Harbour board", "Ana Ruiz is expected to chair the Port Ellis harbour board.",
                        ts("2024-01-02"))]
    questions = [
        question("q1", title, "Ana Ruiz", "2024-01-02", "2024-01-09"),
        question("q2", title, "Ana Ruiz", "2024-01-02", "2024-01-09", source_kind="market"),  # the same query
        question("q3", "Will the Port Ellis harbour board meet in public?", "No", "2024-01-02", "2024-01-09",
                 answer_type="binary", candidate_outcomes=["Yes", "No"]),
    ]
    snap = write_snapshot(tmp_path / "snap", articles, questions, "2024-01-01", "2024-01-09")
    env = ReplayEnvironment(snap)
    env.advance(2)  # 2024-01-03: all three open
    assert len(env.open_questions()) == 3
    RetrievalAgent().act(env)
    assert env.search_latency()["searches"] == 1  # one query for q1 and q2, none for q3
    submitted = {e.question_id for e in env.ledger}
    assert submitted == {"q1", "q2"} and all(list(e.forecast)[0] == "Ana Ruiz" for e in env.ledger)
    assert keywords(title)  # the query is not empty


def test_a_sentence_start_is_not_a_name_by_itself():
    from pastcast.evaluate.candidates import name_candidates

    found = name_candidates("Shortly before noon, Russia struck Kyiv. Die SVP will punkten. Russia said so.", set())
    assert "Shortly" not in found and "Die SVP" not in found
    assert {"SVP", "Kyiv", "Russia"} <= found  # "Russia" starts a sentence but is capitalised inside one too
    assert "Nvidia" in name_candidates("Nvidia chief executive Jensen Huang spoke of Nvidia today.", set())


def test_german_nouns_after_an_article_and_apostrophe_suffixes():
    from pastcast.evaluate.candidates import name_candidates

    german = name_candidates("Viele Eltern in der Stadt Lienz schickten die Kinder nicht zu den USA.", set())
    assert not found_words(german, "Stadt") and "Kinder" not in german and {"Lienz", "USA"} <= german
    turkish = name_candidates("Orman yangını dün İzmir'in Bornova ve Bursa'nın Osmangazi ilçelerinde çıktı.", set())
    assert {"İzmir", "Bornova", "Bursa", "Osmangazi"} <= turkish
    french = name_candidates("Reçue mardi à l’Elysée, la secrétaire de la CGT parla à O'Neill.", set())
    assert {"Elysée", "CGT", "O'Neill"} <= french


def found_words(found: set[str], word: str) -> set[str]:
    return {f for f in found if word in f.split()}


@needs_shared
def test_on_the_held_out_labelled_excerpts_the_extractor_beats_the_plain_capitalised_runs():
    """bench/candidates.py's gold (hand labels on 177 real pages, one a publisher): on the half
    of publishers no rule was chosen on, pastcast's names are more precise and score a higher F1
    than every capitalised run; its quantities are more precise than every number."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    import candidates as bench

    rows = [r for r in bench.gold_rows() if r["half"] == "heldout"]
    assert len(rows) >= 60 and len({r["file"].split("/")[0] for r in rows}) >= 15  # countries
    for kind in ("names", "quantities"):
        plain, ours = bench.score(rows, kind, bench._plain), bench.score(rows, kind, bench._pastcast)
        assert ours["precision"] > plain["precision"] and ours["f1"] > plain["f1"], kind
