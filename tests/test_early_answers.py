"""Answers known early: a report that the outcome is settled or confirmed ahead of its formal date
("the board confirmed on Monday that X will take over as chief executive next month") counts
as the answer being known; hedged previews ("is among the favourites", "could be named") do
not; and the answer must be the one the sentence settles, not the predecessor, the loser or the
announcer.

The labelled set ``tests/data/early_answers.jsonl`` (sentence, answer, aliases, label settled /
hedged / unrelated, language, topic; written for this test) is split in two halves by a hash
of the sentence: the rule was written against the tune half, the held-out half measures it.
Bounds, not counts: precision >= 0.95 on each half (of sentences the rule calls settled, at
least 95% are), recall bounds a little under what was measured (bench/README.md, "Early
answers")."""

import hashlib
import json
import re
from datetime import date
from pathlib import Path

import pytest

from evalkit import article, question, ts
from openai_server import OpenAIServer, completion
from pastcast.llm import LLMSettings, load_prompt
from pastcast.questions.filter import FilterConfig, filter_questions
from pastcast.questions.revision import LLMJudge, RevisionConfig, is_settled, revise_resolution_dates
from pastcast.questions.revision.lexical import settles
from pastcast.questions.validate import ValidateConfig
from pastcast.schemas import ARTICLES, QUESTIONS, frame
from pastcast.search.index import ArticleIndex

DATA = Path(__file__).resolve().parent / "data" / "early_answers.jsonl"
ROWS = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]


def half(sentence: str) -> str:
    """The deterministic split: the parity of the sentence's sha256."""
    return "tune" if int(hashlib.sha256(sentence.encode("utf-8")).hexdigest(), 16) % 2 == 0 else "held-out"


def names(row: dict) -> list[str]:
    return [row["answer"], *row.get("aliases", [])]


def scores(rows: list[dict]) -> dict:
    called = [r for r in rows if settles(r["sentence"], names(r))]
    settled = [r for r in rows if r["label"] == "settled"]
    tp = sum(r["label"] == "settled" for r in called)
    hedged = [r for r in rows if r["label"] == "hedged"]
    return {"precision": tp / len(called) if called else 1.0, "recall": tp / len(settled),
            "called": len(called), "settled": len(settled),
            "hedged_called": sum(settles(r["sentence"], names(r)) for r in hedged), "hedged": len(hedged)}


HALVES = {h: [r for r in ROWS if half(r["sentence"]) == h] for h in ("tune", "held-out")}


def test_the_labelled_set():
    assert len(ROWS) >= 150 and len({r["sentence"] for r in ROWS}) == len(ROWS)
    assert {r["label"] for r in ROWS} == {"settled", "hedged", "unrelated"}
    assert {"en", "de", "fr", "es", "ru", "zh"} <= {r["language"] for r in ROWS}
    assert len({r["topic"] for r in ROWS}) >= 6
    for h, rows in HALVES.items():  # both halves hold every kind
        assert len(rows) >= 0.4 * len(ROWS), h
        assert {r["label"] for r in rows} == {"settled", "hedged", "unrelated"}, h
    # the same sentences always land in the same half
    assert [half(r["sentence"]) for r in ROWS] == [half(r["sentence"]) for r in ROWS[::-1]][::-1]


@pytest.mark.parametrize("name,min_recall", [("tune", 0.9), ("held-out", 0.8)])
def test_precision_and_recall_on_each_half(name, min_recall):
    s = scores(HALVES[name])
    assert s["precision"] >= 0.95, s
    assert s["recall"] >= min_recall, s
    # hedged previews leave dates alone: at most 5% of them are called settled
    assert s["hedged_called"] <= 0.05 * s["hedged"], s


@pytest.mark.parametrize("lang", ["de", "fr", "es", "ru", "zh"])
def test_each_language_has_settled_reports_found_and_no_hedge_taken(lang):
    rows = [r for r in ROWS if r["language"] == lang]
    assert any(settles(r["sentence"], names(r)) for r in rows if r["label"] == "settled")
    assert not [r["sentence"] for r in rows if r["label"] != "settled" and settles(r["sentence"], names(r))]


# A hedge added to a settled report makes it a hedged one, in every language of the set.
HEDGED_SUFFIX = {"en": ", sources said.", "de": ", berichten Insider.", "fr": ", selon des sources.",
                 "es": ", según fuentes.", "ru": ", сообщают источники.", "zh": "，消息人士称。"}


def test_a_hedge_added_to_any_settled_report_undoes_it():
    found = [r for r in ROWS if r["language"] in HEDGED_SUFFIX and settles(r["sentence"], names(r))]
    assert len(found) >= 80
    for r in found:
        hedged = r["sentence"].rstrip(".。") + HEDGED_SUFFIX[r["language"]]
        assert not settles(hedged, names(r)), hedged


def test_will_replaced_by_a_modal_is_a_preview():
    found = [r for r in ROWS if r["language"] == "en" and re.search(r"\bwill (?:take|become|be named|succeed)\b",
                                                                    r["sentence"]) and settles(r["sentence"], names(r))]
    assert len(found) >= 8
    for r in found:
        for modal in ("could", "might", "is expected to", "is tipped to", "hopes to"):
            s = re.sub(r"\bwill (take|become|be named|succeed)\b", rf"{modal} \1", r["sentence"], count=1)
            assert not settles(s, names(r)), s


ROLES = [  # (sentence, the answer it settles, a name it does not settle)
    ("The board confirmed on Monday that Priya Raman will take over as chief executive next month, succeeding "
     "Daniel Osei.", "Priya Raman", "Daniel Osei"),
    ("Tariq Nasser will take over from Joan Whitfield as head of the agency in June.", "Tariq Nasser",
     "Joan Whitfield"),
    ("Jürgen Haas confirmed on Tuesday that Petra Vogt will take over as finance chief.", "Petra Vogt", "Jürgen Haas"),
    ("Fiona Grant won the by-election, defeating Owen Tully by 2,300 votes.", "Fiona Grant", "Owen Tully"),
    ("Halden Logistics agreed to appoint Ingrid Solberg as chair.", "Ingrid Solberg", "Halden Logistics"),
    ("Anna Weber übernimmt den Vorsitz von Hans Becker.", "Anna Weber", "Hans Becker"),
    ("Aïcha Benali succédera à Pierre Garnier en septembre.", "Aïcha Benali", "Pierre Garnier"),
    ("Carmen Ibáñez sucederá a Javier Ortega en junio.", "Carmen Ibáñez", "Javier Ortega"),
    ("Совет директоров подтвердил, что Анна Смирнова займёт пост, который покидает Павел Орлов.", "Анна Смирнова",
     "Павел Орлов"),
    ("张伟将接替刘洋出任首席执行官。", "张伟", "刘洋"),
]


@pytest.mark.parametrize("sentence,answer,other", ROLES)
def test_the_answer_must_be_the_one_the_sentence_settles(sentence, answer, other):
    assert settles(sentence, [answer])
    assert not settles(sentence, [other])
    assert not settles(sentence, ["Someone Else"])


def test_aliases_and_the_answer_itself_are_not_read_as_hedges():
    assert settles("The jury found Marcus Bell not guilty on Thursday.", ["not guilty"])
    assert settles("Braga are champions after Porto's draw.", ["Sporting Braga", "Braga"])
    assert not settles("Braga could be champions after Porto's draw.", ["Sporting Braga", "Braga"])


def test_is_settled_reads_the_sentence_whoever_it_is_about():
    assert is_settled("The board confirmed on Monday that Priya Raman will take over as chief executive next month.")
    assert is_settled("Kofi Mensah is set to become governor of the central bank.")
    assert not is_settled("Kofi Mensah is tipped to become governor of the central bank.")
    assert not is_settled("Priya Raman is among the favourites to take over as chief executive.")


# -- the revision step ------------------------------------------------------------------------

TITLE = "Who will be appointed chief executive of Norvale Energy in 2026?"
FILLER = "Norvale Energy reported quarterly revenue on Tuesday. Its shares were little changed."


def _revise(tmp_path, body: str, answer: str = "Priya Raman", judge=None, **q):
    rows = [article("noise", "Norvale results", FILLER, ts("2026-02-02")),
            article("a1", "Norvale Energy chief executive", body, ts("2026-03-09", 10))]
    articles = frame(rows, ARTICLES)
    questions = frame([question("q1", TITLE, answer, q.pop("open_date", "2026-01-05"),
                                q.pop("resolution_date", "2026-03-30"), **q)], QUESTIONS)
    index = ArticleIndex.build(articles, tmp_path / "idx")
    return revise_resolution_dates(questions, index, articles, RevisionConfig(), judge)


@pytest.mark.parametrize("body,answer,moved", [
    ("The board confirmed on Monday that Priya Raman will take over as chief executive of Norvale Energy next "
     "month.", "Priya Raman", True),
    ("Priya Raman is set to become chief executive of Norvale Energy when Daniel Osei retires.", "Priya Raman", True),
    ("Norvale Energy agreed to appoint Priya Raman as chief executive, effective in April.", "Priya Raman", True),
    ("Priya Raman is among the favourites to become chief executive of Norvale Energy.", "Priya Raman", False),
    ("Sources say Priya Raman may be appointed chief executive of Norvale Energy.", "Priya Raman", False),
    ("Priya Raman is one of three candidates to be appointed chief executive of Norvale Energy.", "Priya Raman", False),
    # the predecessor is no answer the sentence settles
    ("The board confirmed that Priya Raman will take over as chief executive of Norvale Energy, succeeding "
     "Daniel Osei.", "Daniel Osei", False),
    # other scripts, for the mention part
    ("The board confirmed on Monday that Анна Смирнова will take over as chief executive of Norvale Energy next "
     "month.", "Анна Смирнова", True),
    ("The board confirmed on Monday that 张伟 will take over as chief executive of Norvale Energy next month.",
     "张伟", True),
])
def test_the_step_moves_the_date_only_for_a_settled_report(tmp_path, body, answer, moved):
    result = _revise(tmp_path, body, answer)
    q = result.kept.row(0, named=True)
    assert q["resolution_date"] == (date(2026, 3, 9) if moved else date(2026, 3, 30))
    assert (q["revision_evidence"] == ["a1"]) == moved
    assert len(result.evidence) == int(moved)


def _judge_server(reveals: bool):
    def script(body: dict, n: int):
        system, user = body["messages"][0]["content"], body["messages"][1]["content"]
        assert "AHEAD OF ITS FORMAL DATE" in system and "is among the favourites" in system
        assert "Passage: The board confirmed on Monday that Priya Raman will take over" in user
        return completion(json.dumps({"reveals": reveals, "reason": "confirmed in advance" if reveals else "no"}))
    return OpenAIServer(script)


@pytest.mark.parametrize("reveals", [True, False])
def test_the_llm_judge_is_told_the_rule_and_decides_an_advance_report(tmp_path, reveals):
    prompt = load_prompt("leak_judge")
    assert "confirmed on Monday that X will take over" in prompt.system
    body = "The board confirmed on Monday that Priya Raman will take over as chief executive of Norvale Energy."
    with _judge_server(reveals) as server:
        settings = LLMSettings(model="openai/test-model", api_base=server.url, api_key="k", concurrency=2,
                               backoff_base=0.01, timeout=5.0, cache_dir=tmp_path / "cache")
        with LLMJudge(settings) as judge:
            result = _revise(tmp_path, body, judge=judge)
        assert len(server.requests) == 1
    q = result.kept.row(0, named=True)
    assert (result.judged, result.judge_rejected) == (1, 0 if reveals else 1)
    assert q["resolution_date"] == (date(2026, 3, 9) if reveals else date(2026, 3, 30))
    if reveals:
        assert "decided by LLM judge (openai/test-model): confirmed in advance" in result.evidence[0].detail


# -- the goal (written last, not tuned on) ----------------------------------------------------

def _filter(body: str, open_date: str):
    d = date(2026, 4, 6)  # the formal appointment day
    articles = [article("board", "Brenholt Shipping names its next chief", body, ts("2026-03-16", 9)),  # 3 weeks before
                article("other", "Port volumes", "Container volumes at the port rose in February.", ts("2026-02-10"))]
    q = question("ceo", "Who will be appointed chief executive of Brenholt Shipping?", "Ottilie Varga",
                 open_date, d.isoformat(), resolution_criteria="The person the board formally appoints.",
                 source_ids=["formal"])
    window = ValidateConfig(window_start=date(2026, 1, 1), window_end=date(2026, 6, 30))
    return filter_questions(frame([q], QUESTIONS), frame(articles, ARTICLES), FilterConfig(validate=window))


def test_goal_a_confirmed_appointment_three_weeks_early_moves_the_date_or_drops_the_question():
    confirmed = ("The board confirmed on Monday that Ottilie Varga will take over as chief executive "
                 "next month, ending a search that began in the autumn.")
    run = _filter(confirmed, "2026-02-01")
    [q] = run.questions.iter_rows(named=True)
    assert q["resolution_date"] == date(2026, 3, 16) and q["original_resolution_date"] == date(2026, 4, 6)
    assert q["revision_evidence"] == ["board"]
    # too little window left before the report: dropped, the evidence kept
    late = _filter(confirmed, "2026-03-12")
    assert late.questions.is_empty()
    assert [(d.item_id, d.stage, d.reason) for d in late.drops] == [("ceo", "revision", "answer_known_early")]
    assert [e.article_ids for e in late.evidence if e.stage == "revision"] == [("board",)]
    # a hedged preview leaves the date alone
    preview = "Ottilie Varga is among the favourites to take over as chief executive next month."
    [q] = _filter(preview, "2026-02-01").questions.iter_rows(named=True)
    assert q["resolution_date"] == date(2026, 4, 6) and not q["revision_evidence"]


if __name__ == "__main__":  # the figures of bench/README.md, "Early answers"
    for name, rows in HALVES.items():
        s = scores(rows)
        unrelated = [r for r in rows if r["label"] == "unrelated"]
        print(f"{name:9} {len(rows):3} sentences: precision {s['precision']:.3f} ({s['called']} called settled), "
              f"recall {s['recall']:.3f} of {s['settled']} settled; hedged called settled "
              f"{s['hedged_called']}/{s['hedged']}, unrelated "
              f"{sum(settles(r['sentence'], names(r)) for r in unrelated)}/{len(unrelated)}")
        for r in rows:
            if r["label"] == "settled" and not settles(r["sentence"], names(r)):
                print(f"    missed ({r['language']}): {r['sentence']}")


# Found by a review after the labelled set was scored: tuning cases since, never counted in it.
@pytest.mark.parametrize("sentence, settled", [
    ("The company announced the appointment of Anna Weber as chief executive, effective March 1.", True),
    ("Anna Weber will be formally appointed chief executive at the March 1 meeting.", True),
    ("Anna Weber will assume the role of chief executive on March 1.", True),
    ("Anna Weber will take the reins as chief executive in March.", True),
    ("The club has hired Anna Weber as head coach; she starts next month.", True),
    ("President-elect Anna Weber will be sworn in on January 20.", True),
    ("Supporters say Anna Weber will become chief executive.", False),
    ("Critics fear Anna Weber will become chief executive.", False),
    ("Anna Weber will take over as chief executive, pending shareholder approval.", False),
    ("Anna Weber wird wohl neue Vorstandschefin.", False),
    # a second review
    ("Anna Weber became mayor on Monday.", True),
    ("Anna Weber took office as mayor on Monday.", True),
    ("The prize went to Anna Weber.", True),
    ("This year's winner is Anna Weber.", True),
    ("Globex tapped Anna Weber as chief executive.", True),
    ("The last remaining rival conceded to Anna Weber.", True),
    ("Analysts say Anna Weber will become chief executive.", False),
    ("Anna Weber is set to become chief executive once regulators sign off.", False),
])
def test_review_cases(sentence, settled):
    from pastcast.questions.revision.lexical import settles

    assert settles(sentence, ["Anna Weber"]) is settled
