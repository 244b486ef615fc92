"""Near-duplicate questions (the same event asked twice) merge into the earliest-opened one."""

import random
from datetime import date, timedelta

import pytest

from pastcast.questions import question_dedup
from pastcast.questions.question_dedup import QuestionDedupConfig, merge_duplicates
from test_leakage import question, questions, synthetic_questions

MAYOR_OPTIONS = ["Ana Ruiz", "Tomas Berg", "Lina Okafor"]
D = date(2026, 1, 5)


def _news_mayor(**kw):
    return question("news-mayor", "Who will be elected mayor of Kestrel Bay in 2026?", "Lina Okafor",
                    open_date=date(2026, 2, 8), resolution_date=date(2026, 3, 8),
                    background="Ruiz, 57, of the Civic Alliance, is seeking a second term.",
                    sources=["art-1", "art-2"], **kw)


def _market_mayor(**kw):
    kw = {"open_date": date(2026, 1, 28), "resolution_date": date(2026, 3, 9), **kw}
    return question("market-mayor", "Who will win the 2026 Kestrel Bay mayoral election?", "Lina Okafor",
                    source="market", options=MAYOR_OPTIONS, sources=["manifold:R5q"],
                    aliases=["L. Okafor"], **kw)


def _merges(result):
    return sorted((e.question_id, e.other_question_id) for e in result.evidence if e.action == "merge")


def test_news_and_market_questions_of_one_event_merge_into_the_earliest():
    result = merge_duplicates(questions(_news_mayor(), _market_mayor()))
    assert [(d.item_id, d.stage, d.reason, d.detail) for d in result.drops] == [
        ("news-mayor", "dedup", "duplicate_question", "kept=market-mayor")]
    (kept,) = result.kept.iter_rows(named=True)
    assert kept["question_id"] == "market-mayor"
    assert kept["title"] == "Who will win the 2026 Kestrel Bay mayoral election?"  # its own text
    assert kept["source_ids"] == ["manifold:R5q", "art-1", "art-2"]
    assert kept["answer_aliases"] == ["L. Okafor"]  # the same answer adds no alias
    assert kept["resolution_date"] == date(2026, 3, 9)
    (ev,) = result.evidence
    assert (ev.question_id, ev.other_question_id, ev.action, ev.reason, ev.stage) == (
        "news-mayor", "market-mayor", "merge", "duplicate_question", "dedup")
    assert "resolves earlier (2026-03-08 < 2026-03-09)" in ev.detail
    assert result.kept.schema == questions(_news_mayor()).schema


def test_ties_keep_the_market_question_and_aliases_union():
    news = _news_mayor(aliases=["Okafor"])
    news["open_date"] = date(2026, 1, 28)
    news["resolution_date"] = date(2026, 3, 9)
    market = _market_mayor()
    market["answer"] = "Lina Okafour"  # a typo of the same answer: matches both ways
    result = merge_duplicates(questions(news, market))
    assert _merges(result) == [("news-mayor", "market-mayor")]
    (kept,) = result.kept.iter_rows(named=True)
    assert kept["answer_aliases"] == ["L. Okafor", "Lina Okafor", "Okafor"]
    # the same day and kind: the smaller id
    a = {**news, "question_id": "b-news"}
    b = {**news, "question_id": "a-news", "source_ids": ["art-9"]}
    assert _merges(merge_duplicates(questions(a, b))) == [("b-news", "a-news")]


def test_one_person_two_offices_stays_two_questions():
    mayor = _news_mayor()
    year_later = question("governor", "Who will be elected governor of the Saltmere region in 2027?",
                          "Lina Okafor", open_date=date(2027, 2, 1), resolution_date=date(2027, 3, 7))
    # the same person in the same weeks, another office: the titles differ
    chair = question("chair", "Who will chair the Green Veloria party conference?", "Lina Okafor",
                     open_date=date(2026, 2, 10), resolution_date=date(2026, 3, 12))
    # a close title, but another city
    other_city = question("other-city", "Who will be elected mayor of Larkhaven in 2026?", "Lina Okafor",
                          open_date=date(2026, 2, 8), resolution_date=date(2026, 3, 8))
    result = merge_duplicates(questions(mayor, year_later, chair, other_city))
    assert result.drops == [] and result.evidence == [] and result.kept.height == 4


def test_same_answer_far_apart_in_time_is_another_event():
    jan = question("rate-jan", "At what level will the Bank of Veloria set its benchmark rate?", "3.50%",
                   kind="number", open_date=date(2026, 1, 1), resolution_date=date(2026, 1, 22))
    mar = {**jan, "question_id": "rate-mar", "open_date": date(2026, 2, 5),
           "resolution_date": date(2026, 3, 5)}
    assert merge_duplicates(questions(jan, mar)).drops == []
    near = {**mar, "resolution_date": date(2026, 2, 1)}
    assert _merges(merge_duplicates(questions(jan, near))) == [("rate-mar", "rate-jan")]
    assert _merges(merge_duplicates(questions(jan, near), QuestionDedupConfig(max_days_apart=5))) == []


def test_numbers_and_yes_no_need_near_identical_titles():
    rate = "At what level will the Bank of Veloria set its benchmark rate in January 2026?"
    qs = [
        question("veloria", rate, "3.50%", kind="number"),
        question("norhaven", rate.replace("Veloria", "Norhaven"), "3.50%", kind="number"),
        question("feb", rate.replace("January", "February"), "3.50%", kind="number"),
        question("below", "Will Veloria's annual CPI inflation for January 2026 be below 3.0%?", "Yes",
                 kind="binary", options=["Yes", "No"]),
        question("above", "Will Veloria's annual CPI inflation for January 2026 be above 3.0%?", "Yes",
                 kind="binary", options=["Yes", "No"]),
        question("below-3.5", "Will Veloria's annual CPI inflation for January 2026 be below 3.5%?", "Yes",
                 kind="binary", options=["Yes", "No"]),
        question("cut", "Will the Bank of Veloria cut its benchmark rate at its 5 March 2026 meeting?",
                 "Yes", kind="binary", options=["Yes", "No"]),
    ]
    assert merge_duplicates(questions(*qs)).drops == []
    # the same binary question from two sources (punctuation, case and a typo aside)
    copy = question("below-copy", "Will Veloria’s annual CPI inflaton for January, 2026 be below 3%?",
                    "Yes", kind="binary", options=["Yes", "No"], source="market",
                    open_date=D + timedelta(days=2))
    result = merge_duplicates(questions(*qs, copy))
    assert _merges(result) == [("below-copy", "below")]
    assert result.kept.height == len(qs)



def test_two_binary_questions_with_different_titles_stay_separate():
    a = question("hold", "Will the Civic Alliance hold Saltmere North in the March 2026 by-election?", "No",
                 kind="binary", options=["Yes", "No"], source="market")
    b = question("turnout", "Will turnout in the Saltmere North by-election exceed 40% in March 2026?", "No",
                 kind="binary", options=["Yes", "No"], source="market")
    assert merge_duplicates(questions(a, b)).drops == []


def test_different_answers_never_merge():
    a = question("author", "Who will win the 2026 Halvard Prize for Literature?", "Nell Oduya")
    b = question("novel", "Which novel will win the 2026 Halvard Prize for Literature?", "Glass Harbour",
                 kind="option", source="market", options=["The Salt Road", "Winter Ledger", "Glass Harbour"])
    assert merge_duplicates(questions(a, b)).drops == []


def test_duplicates_are_not_chained_through_merged_questions():
    # b duplicates a and c duplicates b, but c is not a duplicate of a (too far apart)
    a = question("a", "Who will win the 2026 Veloria Cup?", "Aldermoor United",
                 open_date=date(2026, 1, 1), resolution_date=date(2026, 3, 1))
    b = {**a, "question_id": "b", "open_date": date(2026, 1, 2), "resolution_date": date(2026, 3, 12)}
    c = {**a, "question_id": "c", "open_date": date(2026, 1, 3), "resolution_date": date(2026, 3, 24)}
    result = merge_duplicates(questions(a, b, c))
    assert _merges(result) == [("b", "a")]
    assert sorted(result.kept["question_id"]) == ["a", "c"]


def test_planted_duplicates_at_scale():
    rows, _ = synthetic_questions(3000, seed=5)
    rng = random.Random(3)
    expected = set()
    for q in rng.sample([r for r in rows if r["answer_type"] in ("person", "organisation")], 150):
        copy = {**q, "question_id": q["question_id"] + "-m", "source_kind": "market",
                "title": q["title"].replace("Who will win", "Who will be the winner of")
                                   .replace("Which company will", "What company will"),
                "background": "A market on the same event.", "source_ids": ["market:" + q["question_id"]],
                "open_date": q["open_date"] + timedelta(days=rng.choice([-3, 2])),
                "resolution_date": q["resolution_date"] + timedelta(days=rng.choice([-2, 0, 1]))}
        rows.append(copy)
        first, second = sorted([q, copy], key=lambda r: (r["open_date"], r["resolution_date"],
                                                         r["source_kind"] != "market"))
        expected.add((second["question_id"], first["question_id"]))
    result = merge_duplicates(questions(*rows))
    assert set(_merges(result)) == expected
    assert result.kept.height == 3000
    kept = {r["question_id"]: r for r in result.kept.iter_rows(named=True)}
    for dropped, keeper in expected:
        base = keeper.removesuffix("-m")
        assert sorted(kept[keeper]["source_ids"]) == ["market:" + base, "src-" + base]


def _same_result(a, b):
    assert [(d.item_id, d.reason, d.detail) for d in a.drops] == [(d.item_id, d.reason, d.detail) for d in b.drops]
    assert a.evidence == b.evidence
    assert a.kept.to_dicts() == b.kept.to_dicts()


def test_a_nightly_build_replays_the_last_grouping_and_compares_only_its_new_questions(tmp_path, monkeypatch):
    from pastcast.questions import question_dedup
    from pastcast.questions.row_memo import RowMemo

    read = []  # the positions a replay reads as rows
    real_rows_at = question_dedup.rows_at
    monkeypatch.setattr(question_dedup, "rows_at", lambda df, at: read.append(len(at)) or real_rows_at(df, at))

    # enough questions that the answers' common words ("Holdings") stay the same as days are added
    rows, _ = synthetic_questions(1500, seed=11)
    cutoff = date(2026, 11, 1)
    old = [r for r in rows if r["open_date"] < cutoff]
    rng = random.Random(4)
    new = [r for r in rows if r["open_date"] >= cutoff]
    for q in rng.sample([r for r in old if r["answer_type"] == "person"], 20):  # later copies of old events
        new.append({**q, "question_id": q["question_id"] + "-late", "open_date": cutoff + timedelta(days=3),
                    "resolution_date": q["resolution_date"], "source_ids": ["late:" + q["question_id"]],
                    "title": q["title"].replace("Who will win", "Who will be the winner of")})
    path = tmp_path / "rows.parquet"
    memo = RowMemo(path)
    _same_result(merge_duplicates(questions(*old), memo=memo), merge_duplicates(questions(*old)))
    memo.save()
    assert memo.replayed == 0

    memo = RowMemo(path)
    replayed = merge_duplicates(questions(*old, *new), memo=memo)
    assert memo.replayed == 1
    full = merge_duplicates(questions(*old, *new))
    _same_result(replayed, full)
    assert sum(1 for e in full.evidence if e.question_id.endswith("-late")) >= 15  # the new copies merged
    memo.save()

    # the next night's questions, all resolving within weeks: the old ones resolving months
    # before them are neither compared nor read as rows
    later = [{**q, "question_id": q["question_id"] + "-next", "open_date": date(2026, 12, 20),
              "resolution_date": date(2027, 1, 10), "title": q["title"] + " (again)"} for q in new[:5]]
    memo, read[:] = RowMemo(path), []
    replayed = merge_duplicates(questions(*old, *new, *later), memo=memo)
    assert memo.replayed == 1 and read and read[0] < len(old) / 2, read
    _same_result(replayed, merge_duplicates(questions(*old, *new, *later)))
    memo.save()

    # a question that sorts before the old ones: the grouping can change, so a full pass
    early = {**old[0], "question_id": "early", "open_date": date(2025, 12, 1)}
    memo = RowMemo(path)
    again = merge_duplicates(questions(*old, *new, *later, early), memo=memo)
    assert memo.replayed == 0
    _same_result(again, merge_duplicates(questions(*old, *new, *later, early)))


# --- issue 37: swapped roles and another polarity are other events -----------------------------

def _pair(title_a, title_b, answer="No", kind="binary"):
    return questions(question("a", title_a, answer, kind=kind, source="market", open_date=D,
                              resolution_date=D + timedelta(days=40)),
                     question("b", title_b, answer, kind=kind, source="market", open_date=D + timedelta(days=1),
                              resolution_date=D + timedelta(days=40)))


YES_NO, PERSON = ("No", "binary"), ("Ana Ruiz", "person")
# each pair answered alike, and merged by the other rules alone: the same words for a yes/no
# answer (an English "not" is a stop word), nested ones for a named answer
DISTINCT = [
    # roles swapped: the shared names in the other order
    ("Will Israel carry out a deadly attack within Iran before May 1, 2024?",
     "Will Iran carry out a deadly attack within Israel before May 1, 2024?", YES_NO),
    ("Will Brazil beat Argentina in the Copa America final in 2026?",
     "Will Argentina beat Brazil in the Copa America final in 2026?", YES_NO),
    ("Wird Israel vor Mai 2026 den Iran angreifen?", "Wird Iran vor Mai 2026 den Israel angreifen?", YES_NO),
    ("Нападёт ли Израиль на Иран до мая 2026 года?", "Нападёт ли Иран на Израиль до мая 2026 года?", YES_NO),
    ("Who will be Veloria's ambassador to Kestrel in 2026?", "Who will be Kestrel's ambassador to Veloria in 2026?",
     PERSON),
    ("Qui sera l'ambassadeur de la Veloria en Kestrel en 2026 ?",
     "Qui sera l'ambassadeur de la Kestrel en Veloria en 2026 ?", PERSON),
    # another polarity: a negation in one title only, or of another kind
    ("Will Lina Okafor win the 2026 Kestrel Bay mayoral election?",
     "Will Lina Okafor not win the 2026 Kestrel Bay mayoral election?", YES_NO),
    ("Who will win a seat in the 2026 Kestrel Bay council election?",
     "Who won't win a seat in the 2026 Kestrel Bay council election?", PERSON),
    ("Who will win a seat in the 2026 Kestrel Bay council election?",
     "Who will fail to win a seat in the 2026 Kestrel Bay council election?", PERSON),
    ("Who will not win a seat in the 2026 Kestrel Bay council election?",
     "Who will never win a seat in the 2026 Kestrel Bay council election?", PERSON),
    ("Wer wird 2026 einen Sitz im Rat von Kestrel Bay gewinnen?",
     "Wer wird 2026 keinen Sitz im Rat von Kestrel Bay gewinnen?", PERSON),
    ("¿Quién ganará un escaño en el consejo de Kestrel Bay en 2026?",
     "¿Quién no ganará un escaño en el consejo de Kestrel Bay en 2026?", PERSON),
    ("Qui gagnera un siège au conseil de Kestrel Bay en 2026 ?",
     "Qui ne gagnera jamais un siège au conseil de Kestrel Bay en 2026 ?", PERSON),
    ("Кто получит место в совете Кестрел-Бэй в 2026 году?", "Кто не получит место в совете Кестрел-Бэй в 2026 году?",
     PERSON),
    ("谁将在2026年赢得凯斯特尔湾议会的席位？", "谁将在2026年没有赢得凯斯特尔湾议会的席位？", PERSON),
]


@pytest.mark.parametrize("title_a, title_b, answer", DISTINCT)
def test_swapped_roles_and_another_polarity_never_merge(title_a, title_b, answer, monkeypatch):
    pair = _pair(title_a, title_b, *answer)
    assert merge_duplicates(pair).drops == []
    # the other rules alone merge them: the new rule is what keeps them apart
    monkeypatch.setattr(question_dedup, "distinct_events", lambda ta, tb: None)
    assert _merges(merge_duplicates(pair)) == [("b", "a")]


@pytest.mark.parametrize("title_a, title_b, answer", [
    # joined names are one group: their order says nothing about roles
    ("Will Trump and Biden debate before June 30, 2024?", "Will Biden and Trump debate before June 30, 2024?", YES_NO),
    ("Will Germany vs Greece end in a draw in June 2026?", "Will Greece vs Germany end in a draw in June 2026?",
     YES_NO),
    ("Who will win the 2026 final of Veloria and Kestrel?", "Who will win the 2026 Kestrel and Veloria final?", PERSON),
    # a clause moved is no exchange of roles
    ("Per Coinbase, will Bitcoin hit $100,000 by June 2026?", "Will Bitcoin hit $100,000 by June 2026 per Coinbase?",
     YES_NO),
    ("At the Paris Olympics, will Simone Biles win gold in 2024?",
     "Will Simone Biles win gold at the Paris Olympics in 2024?", YES_NO),
    # the same order and the same negations; "No. 1" and an A-not-A question deny nothing
    ("Will Israel not attack Iran before May 2026?", "Will Israel not attack Iran before May 2026?", YES_NO),
    ("Will Nvidia be No. 1 by market cap in June 2026?", "Will Nvidia be No. 1 by market cap in June, 2026?", YES_NO),
    ("Wer wird 2026 keinen Sitz im Rat von Kestrel Bay gewinnen?",
     "Wer wird keinen Sitz im Rat von Kestrel Bay 2026 gewinnen?", PERSON),
    ("Кто не получит место в совете Кестрел-Бэй в 2026 году?", "Кто не получит место в совете Кестрел-Бэй в 2026 г.?",
     PERSON),
])
def test_joined_names_and_the_same_polarity_still_merge(title_a, title_b, answer):
    assert _merges(merge_duplicates(_pair(title_a, title_b, *answer))) == [("b", "a")]


def test_words_that_look_like_negations_deny_nothing():
    from pastcast.questions.event_roles import negation_kinds

    for title in ("特朗普会不会赢得2024年大选？", "他是不是下一任市长？", "Will Nvidia be No. 1 in 2026?", "Will it rise to no 5?",
                  "Will the non-profit convert in 2026?", "Will X happen, yes or no?"):
        assert not negation_kinds(title), title
    for title, kind in (("特朗普不会赢得大选", "not"), ("Will there be no recession in 2026?", "not"),
                        ("Will X never win?", "never"), ("Will X fail to win?", "fail"), ("Wird X nicht gewinnen?", "not")):
        assert kind in negation_kinds(title), title
