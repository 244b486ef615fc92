"""Candidate lists are not leaks, singled-out answers are (issue 17, item 7): the rule of
``pastcast.questions.candidate_lists`` in self and cross leak checks, in several languages, the
same in the filter and the blocking snapshot check; every mention looked at by position."""

import json
from datetime import date
from pathlib import Path

import pytest

from evalkit import article, question, ts
from pastcast.questions.filter import FilterConfig, filter_questions
from pastcast.questions.leakage import cross_leaks, leaks_in_snapshot, self_leak_mentions
from pastcast.questions.validate import ValidateConfig
from pastcast.schemas import ARTICLES, QUESTIONS, frame
from pastcast.text.mentions import Doc, all_mentions, needle_for

HELD_OUT = Path(__file__).parent / "data" / "candidate_lists_heldout.jsonl"
WINDOW = ValidateConfig(window_start=date(2026, 1, 1), window_end=date(2026, 3, 31))
BIDS = "Bids were submitted by Korsholm, Estvale and Tarnby; the council votes in March."


def host(text: str, answer: str, kind: str = "person") -> dict:
    """A question whose background is ``text`` (a person: the surname rule applies too)."""
    return question("q", "Who will be chosen?", answer, "2026-02-01", "2026-03-08",
                    background=text, resolution_criteria="As announced by the council.", answer_type=kind)


def clean(q: dict) -> bool:
    return not self_leak_mentions(q)


# The cases the rule was written against (the tuning half); the held-out file is only reported.
LISTED = [
    (BIDS, "Estvale"), (BIDS, "Tarnby"), (BIDS, "Korsholm"),
    ("The candidates are Anna Berg and Tomas Lind.", "Lind"),
    ("Shortlist: The Salt Road (Mirela Voss), Winter Ledger (Tobias Arkwright), Glass Harbour (Nell Oduya).",
     "Nell Oduya"),
    ("Shortlist: The Salt Road (Mirela Voss), Winter Ledger (Tobias Arkwright), Glass Harbour (Nell Oduya).",
     "Glass Harbour"),
    ("Which of Korsholm, Estvale or Tarnby will host the Games?", "Estvale"),
    ("Die Kandidaten sind Anna Berg, Jonas Weber und Lea Koch.", "Jonas Weber"),
    ("Les candidats sont Marie Dubois, Paul Martin et Léa Petit.", "Paul Martin"),
    ("Los candidatos son Ana Ruiz, Luis Gómez y Eva Díaz.", "Eva Díaz"),
    ("Кандидаты: Иван Петров, Анна Смирнова и Олег Козлов.", "Анна Смирнова"),
    ("候选人有张伟、李娜和王芳。", "李娜"),
]
SINGLED_OUT = [
    ("Estvale, the clear favourite, bid against Korsholm and Tarnby.", "Estvale"),
    (BIDS + " Insiders say Estvale has won.", "Estvale"),  # a later sentence singles it out
    ("The medals went to Ana Ruiz, Bo Lind and Cy Marsh.", "Bo Lind"),  # results, not candidates
    ("The CEO of Globex and Initech attended.", "Globex"),  # "of" joins no list
    ("Bids came from Korsholm, Tarnby and Estvale, whose bid the committee praised.", "Estvale"),
    ("Korsholm won the vote over Estvale and Tarnby.", "Estvale"),
    ("Estvale submitted a bid.", "Estvale"),  # alone
    ("Die Kandidaten sind Anna Berg, Jonas Weber und Lea Koch; Favoritin ist Berg.", "Anna Berg"),
    ("Les candidats sont Marie Dubois, Paul Martin et Léa Petit, et Paul Martin a remporté le vote.", "Paul Martin"),
    ("Кандидаты: Иван Петров, Анна Смирнова и Олег Козлов. Фаворит — Петров.", "Иван Петров"),
    ("候选人有张伟、李娜和王芳，其中李娜是热门。", "李娜"),
    ("Candidates: Oda Berg, Finn Ask (endorsed by the mayor) and Mia Holm.", "Finn Ask"),  # detail on it alone
    # found by a review after the held-out run (tuning cases since): a clause after a semicolon,
    # rankings, tallies, eliminations, the answer named twice, choice verbs in Chinese
    ("Bids were submitted by Korsholm, Estvale and Tarnby; Estvale hosts in 2030.", "Estvale"),
    ("The candidates are Korsholm, Tarnby and Nordby; Estvale gets the Games.", "Estvale"),
    ("Of the bids, Estvale, Korsholm and Tarnby, in that order, drew the most votes.", "Estvale"),
    ("The bidders, in order of votes: Estvale, Korsholm and Tarnby.", "Estvale"),
    ("Final tally among the bids: Estvale 41, Korsholm 30 and Tarnby 12.", "Estvale"),
    ("Of the finalists Korsholm, Estvale and Tarnby, Korsholm and Tarnby were eliminated.", "Estvale"),
    ("Between Korsholm, Estvale and Tarnby, Estvale got the nod.", "Estvale"),
    ("候选城市为Korsholm、Estvale和Tarnby，国际奥委会选定Estvale。", "Estvale"),
    # a second review: eliminations in another sentence, labels and counts on the items
    ("Korsholm and Tarnby withdrew. Candidates were Korsholm, Estvale and Tarnby.", "Estvale"),
    ("Candidates were Korsholm, Estvale and Tarnby. Korsholm and Tarnby have since bowed out.", "Estvale"),
    ("Bids: Korsholm (Rejected), Estvale (Accepted) and Tarnby (Rejected).", "Estvale"),
    ("Candidates Korsholm, Estvale and Tarnby got 12, 60 and 8 votes respectively.", "Estvale"),
    ("Bewerber waren Korsholm, Estvale und Tarnby; Korsholm und Tarnby zogen zurück.", "Estvale"),
    ("Les candidats sont Korsholm, Estvale et Tarnby, mais Korsholm et Tarnby ont abandonné.", "Estvale"),
    ("Los candidatos son Korsholm, Estvale y Tarnby, pero Korsholm y Tarnby se retiraron.", "Estvale"),
    ("候选城市为Korsholm、Estvale和Tarnby，但Korsholm和Tarnby已放弃申办。", "Estvale"),
]


OPTIONS = ["Korsholm", "Estvale", "Tarnby"]


@pytest.mark.parametrize("background, criteria", [
    ("Estvale will host the 2030 Games, not Korsholm.", ""),
    ("The IOC chose Estvale over Korsholm and Tarnby.", ""),
    ("Estvale is the host city. Korsholm and Tarnby lost out.", ""),
    ("", "This market resolves to Estvale. Korsholm and Tarnby are listed for completeness."),
    ("Candidates were Korsholm, Estvale and Tarnby.", "Korsholm and Tarnby withdrew their bids."),
])
def test_a_questions_own_options_excuse_nothing(background, criteria):
    """The options a question lists (a market's) do not excuse its text: only a candidate list
    in the text does (a second review found outcomes passed through the former shortcut)."""
    q = {**host(background, "Estvale", "place"), "resolution_criteria": criteria, "candidate_outcomes": OPTIONS}
    assert not clean(q)


def test_a_question_listing_its_own_options_still_leaks_when_it_singles_one_out():
    q = {**host("Estvale, the clear favourite, has won against Tarnby.", "Estvale", "place"),
         "candidate_outcomes": ["Estvale", "Tarnby"]}
    assert not clean(q)
    assert clean({**q, "background": "The council chooses between Estvale and Tarnby in March."})


@pytest.mark.parametrize("text, answer", LISTED)
def test_an_answer_listed_among_the_candidates_is_no_self_leak(text, answer):
    assert clean(host(text, answer))


@pytest.mark.parametrize("text, answer", SINGLED_OUT)
def test_an_answer_singled_out_is_a_self_leak(text, answer):
    assert not clean(host(text, answer))


def test_every_mention_counts_by_position_an_earlier_surname_included():
    # the exact name stands in the list; an earlier sentence names the surname alone as winner
    text = "Weber has already won, insiders say. Die Kandidaten sind Anna Berg, Jonas Weber und Lea Koch."
    doc, needle = Doc(text), needle_for("Jonas Weber", (), "person")
    spans = [m.span for m in all_mentions(doc, needle)]
    assert spans == ["Weber", "Jonas Weber"]  # in text order, whatever rule found them
    assert not clean(host(text, "Jonas Weber"))


def test_the_goal_case_through_the_filter_and_the_snapshot_check():
    """A clean question whose background lists all the candidates is kept; the same question
    with the answer singled out as the favourite is dropped, by the filter and by the blocking
    snapshot check alike."""
    listed = question("listed", "Which city will host the 2027 Veloria Games?", "Estvale", "2026-02-01", "2026-03-08",
                      background=BIDS, resolution_criteria="Resolves to the city the council chooses.",
                      answer_type="place", source_ids=["src-listed"])
    favourite = {**listed, "question_id": "favourite", "source_ids": ["src-favourite"],
                 "title": "Which city will host the 2027 Orvane Games?",
                 "background": "Bids were submitted by Korsholm, Estvale and Tarnby; Estvale, the clear "
                               "favourite, presented last."}
    articles = frame([article("a1", "Council to vote", "The council votes on the host city in March.",
                              ts("2026-02-01"))], ARTICLES)
    run = filter_questions(frame([listed, favourite], QUESTIONS), articles, FilterConfig(validate=WINDOW))
    assert set(run.questions["question_id"]) == {"listed"}
    assert {(d.item_id, d.stage, d.reason) for d in run.drops} == {("favourite", "self_leak", "answer_in_own_text")}
    assert leaks_in_snapshot(frame([listed], QUESTIONS)) == {}
    assert set(leaks_in_snapshot(frame([favourite], QUESTIONS))) == {"favourite"}


def test_cross_leaks_follow_the_same_rule():
    asked = question("asked", "Which city will host the 2027 Veloria Games?", "Estvale", "2026-02-01", "2026-03-08",
                     resolution_criteria="Resolves to the city chosen.", answer_type="place")
    lists = question("lists", "How many council votes will the winning 2027 bid receive?", "31", "2026-02-01",
                     "2026-03-08", background=BIDS, resolution_criteria="The official count.", answer_type="number")
    singles = {**lists, "question_id": "singles",
               "background": "Estvale, the clear favourite, is one of three bidders."}
    assert not cross_leaks(frame([asked, lists], QUESTIONS)).drops
    assert [d.reason for d in cross_leaks(frame([asked, singles], QUESTIONS)).drops] == ["answer_in_other_question"]
    assert set(leaks_in_snapshot(frame([asked, lists], QUESTIONS))) == set()
    assert set(leaks_in_snapshot(frame([asked, singles], QUESTIONS))) == {"asked"}


def test_another_questions_options_name_the_answer_alone():
    """A market's options are the candidates of its own contest, not of this one: an option
    naming the answer counts, as before."""
    asked = question("asked", "Who will chair the budget committee?", "Lina Okafor", "2026-02-01", "2026-03-08",
                     resolution_criteria="The chair named.", answer_type="person")
    market = question("market", "Who will win the mayoral race?", "Tomas Berg", "2026-02-01", "2026-03-08",
                      resolution_criteria="The winner.", candidate_outcomes=["Lina Okafor", "Tomas Berg"])
    assert [d.item_id for d in cross_leaks(frame([asked, market], QUESTIONS)).drops]


def test_held_out_cases_never_let_a_leak_through():
    """Cases written apart and never tuned on: of the mentions the rule calls listed, every one
    is (a leak let through costs more than a question lost); most real lists are recognised."""
    rows = [json.loads(line) for line in HELD_OUT.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= 30 and {r["language"] for r in rows} >= {"en", "de", "fr", "es", "ru", "zh"}
    called = [(r, clean(host(r["text"], r["answer"]))) for r in rows]
    let_through = [r["text"] for r, listed in called if listed and not r["listed"]]
    assert let_through == []
    lists = [listed for r, listed in called if r["listed"]]
    assert sum(lists) / len(lists) >= 0.75


def test_a_name_typed_binary_is_still_checked_for_leaks():
    q = {**host("Anna Berg won the 2026 Orrin Prize.", "Anna Berg"), "answer_type": "binary"}
    assert not clean(q)
    assert set(leaks_in_snapshot(frame([q], QUESTIONS))) == {"q"}
    assert clean({**q, "answer": "Yes"})  # a yes/no answer is never looked for
