"""Naming the answer among every option known in advance is no leak; singling it out is, in
any language (the self-leak step and the blocking snapshot check share the rule)."""

import pytest

from evalkit import question
from pastcast.questions.candidate_lists import listed_among_others
from pastcast.questions.leakage import self_leak_mentions, self_leaks
from pastcast.schemas import QUESTIONS, frame

LISTED = [
    ("Bids were submitted by Korsholm, Estvale and Tarnby; the council votes in March.", "Estvale"),
    ("Bids were submitted by Korsholm, Tarnby and Estvale. The council votes in March.", "Estvale"),
    ("Three cities bid: Korsholm, Tarnby, Estvale.", "Estvale"),
    ("Korsholm, Estvale und Tarnby haben sich beworben.", "Estvale"),
    ("Korsholm, Estvale et Tarnby sont candidates.", "Estvale"),
    ("Se presentaron Korsholm, Estvale y Tarnby.", "Estvale"),
    ("Кандидаты: Корсхольм, Эствале и Тарнби.", "Эствале"),
    ("候选城市有科尔斯霍尔姆、埃斯特瓦莱和塔恩比。", "埃斯特瓦莱"),
]
SINGLED_OUT = [
    ("Estvale, the clear favourite, submitted a bid; Korsholm and Tarnby also bid.", "Estvale"),
    ("Insiders say Estvale has won the vote.", "Estvale"),
    ("Estvale submitted a bid.", "Estvale"),
    ("Estvale is expected to win, ahead of Korsholm and Tarnby.", "Estvale"),
    ("The vote, held in Estvale, decides the host.", "Estvale"),
    ("Korsholm, Estvale und Tarnby bewerben sich; Estvale gilt als Favorit.", "Estvale"),
    ("Эствале — фаворит, Корсхольм и Тарнби отстают.", "Эствале"),
    ("据报道，张伟已经当选。", "张伟"),
    ("科尔斯霍尔姆、埃斯特瓦莱和塔恩比竞争，埃斯特瓦莱获胜。", "埃斯特瓦莱"),
    ("Who will win the Veloria Cup, Port Alder Rovers?", "Port Alder Rovers"),  # a comma is no list
    ("Estvale, Korsholm's rival, bid for the Games.", "Estvale"),
]


def _first(text, answer):
    start = text.index(answer)
    return listed_among_others(text, start, start + len(answer))


@pytest.mark.parametrize("text, answer", LISTED)
def test_an_answer_listed_among_the_options_is_no_leak(text, answer):
    assert _first(text, answer)


@pytest.mark.parametrize("text, answer", SINGLED_OUT)
def test_an_answer_singled_out_is_a_leak(text, answer):
    q = question("q", "Which city will host the 2027 Veloria Games?", answer, "2026-02-01", "2026-03-08",
                 answer_type="location", background=text)
    assert self_leak_mentions(q)


@pytest.mark.parametrize("text, answer", LISTED)
def test_a_listed_answer_is_no_self_leak(text, answer):
    q = question("q", "Which city will host the 2027 Veloria Games?", answer, "2026-02-01", "2026-03-08",
                 answer_type="location", background=text)
    assert self_leak_mentions(q) == []


def test_a_later_sentence_singling_out_a_listed_answer_is_a_leak():
    q = question("q", "Which city will host the 2027 Veloria Games?", "Estvale", "2026-02-01", "2026-03-08",
                 answer_type="location",
                 background="Bids were submitted by Korsholm, Estvale and Tarnby. Estvale is the clear favourite.")
    (field, mention), = self_leak_mentions(q)
    assert field == "background" and q["background"][mention.start:mention.end] == "Estvale"
    assert mention.start > q["background"].index("Tarnby")


def test_the_self_leak_step_keeps_a_candidate_list_and_drops_a_favourite():
    title = "Which city will host the 2027 Veloria Games?"
    clean = question("clean", title, "Estvale", "2026-02-01", "2026-03-08", answer_type="location",
                     background="Bids were submitted by Korsholm, Estvale and Tarnby; the council votes in March.")
    favourite = question("fav", title.replace("2027", "2028"), "Estvale", "2026-02-01", "2026-03-08",
                         answer_type="location",
                         background="Bids were submitted by Korsholm, Estvale and Tarnby; Estvale is the "
                                    "clear favourite.")
    result = self_leaks(frame([clean, favourite], QUESTIONS))
    assert list(result.kept["question_id"]) == ["clean"]
    assert [(d.item_id, d.reason) for d in result.drops] == [("fav", "answer_in_own_text")]
