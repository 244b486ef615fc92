"""Answers known early: a report that the outcome is settled or confirmed ahead of its formal date
("the board confirmed on Monday that X will take over as chief executive next month") counts
as the answer being known, whoever it is attributed to ("Finance ministry sources confirmed on
Wednesday that X will be named governor", "X will take over, people familiar with the decision
said", ", selon des sources", "，消息人士称"); hedged previews ("is among the favourites", "could
be named", "is tipped to") do not, attributed or not; and the answer must be the one the
sentence settles, not the predecessor, the loser or the announcer.

Two labelled sets (sentence, answer, aliases, label settled / hedged / unrelated, language,
topic; written for these tests, blind to the rule): ``tests/data/early_answers.jsonl`` and
``tests/data/early_answers_attributed.jsonl`` (reports attributed to sources, with the same
attributions on hedged previews: attribution alone must not decide). Their labels follow the
current policy: attribution is no hedge (four sentences of the first set were relabelled hedged
-> settled when it changed: ``tests/data/early_answers_relabel.jsonl``). Each set is split in two
halves by a hash of the sentence: the rule was written against the tune halves, the held-out
halves measure it. Bounds, not counts: precision >= 0.95 on each half (of sentences the rule
calls settled, at least 95% are), at most 5% of hedged previews called settled, recall bounds a
little under what was measured (bench/README.md, "Early answers")."""

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

DATA = Path(__file__).resolve().parent / "data"


def _load(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


ROWS = _load("early_answers.jsonl")
ATTRIBUTED = _load("early_answers_attributed.jsonl")
RELABELLED = _load("early_answers_relabel.jsonl")
SETS = {"early_answers": ROWS, "attributed": ATTRIBUTED}


def half(sentence: str) -> str:
    """The deterministic split: the parity of the sentence's sha256."""
    return "tune" if int(hashlib.sha256(sentence.encode("utf-8")).hexdigest(), 16) % 2 == 0 else "held-out"


def names(row: dict) -> list[str]:
    return [row["answer"], *row.get("aliases", [])]


def called(row: dict) -> bool:
    return settles(row["sentence"], names(row))


def scores(rows: list[dict]) -> dict:
    found = [r for r in rows if called(r)]
    settled = [r for r in rows if r["label"] == "settled"]
    tp = sum(r["label"] == "settled" for r in found)
    hedged = [r for r in rows if r["label"] == "hedged"]
    return {"precision": tp / len(found) if found else 1.0, "recall": tp / len(settled),
            "called": len(found), "settled": len(settled),
            "hedged_called": sum(r["label"] == "hedged" for r in found), "hedged": len(hedged)}


HALVES = {(name, h): [r for r in rows if half(r["sentence"]) == h] for name, rows in SETS.items()
          for h in ("tune", "held-out")}
LANGUAGES = ("en", "de", "fr", "es", "ru", "zh")


@pytest.mark.parametrize("name", SETS)
def test_the_labelled_sets(name):
    rows = SETS[name]
    assert len(rows) >= 150 and len({r["sentence"] for r in rows}) == len(rows)
    assert {r["label"] for r in rows} == {"settled", "hedged", "unrelated"}
    assert set(LANGUAGES) <= {r["language"] for r in rows}
    for h in ("tune", "held-out"):  # both halves hold every kind
        part = HALVES[name, h]
        assert len(part) >= 0.4 * len(rows), h
        assert {r["label"] for r in part} == {"settled", "hedged", "unrelated"}, h
    # the same sentences always land in the same half
    assert [half(r["sentence"]) for r in rows] == [half(r["sentence"]) for r in rows[::-1]][::-1]


def test_the_first_set_is_relabelled_for_the_attribution_policy():
    labels = {r["sentence"]: r["label"] for r in ROWS}
    assert len(RELABELLED) == 4
    for r in RELABELLED:
        assert (r["old_label"], r["new_label"]) == ("hedged", "settled")
        assert labels[r["sentence"]] == r["new_label"], r["sentence"]


@pytest.mark.parametrize("name,part,min_recall", [
    ("early_answers", "tune", 0.95), ("early_answers", "held-out", 0.85),
    ("attributed", "tune", 0.95), ("attributed", "held-out", 0.45),
])
def test_precision_and_recall_on_each_half(name, part, min_recall):
    s = scores(HALVES[name, part])
    assert s["precision"] >= 0.95, s
    assert s["recall"] >= min_recall, s
    # hedged previews leave dates alone: at most 5% of them are called settled
    assert s["hedged_called"] <= 0.05 * s["hedged"], s


@pytest.mark.parametrize("lang", ["de", "fr", "es", "ru", "zh"])
def test_each_language_has_settled_reports_found_and_no_hedge_taken(lang):
    rows = [r for r in ROWS if r["language"] == lang]
    assert any(called(r) for r in rows if r["label"] == "settled")
    assert not [r["sentence"] for r in rows if r["label"] != "settled" and called(r)]


# recall over both halves of the attributed set, a little under what was measured
ATTRIBUTED_RECALL = {"en": 0.9, "de": 0.6, "fr": 0.65, "es": 0.7, "ru": 0.6, "zh": 0.6}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_language_finds_attributed_reports_and_takes_no_attributed_hedge(lang):
    rows = [r for r in ATTRIBUTED if r["language"] == lang]
    settled = [r for r in rows if r["label"] == "settled"]
    for h in ("tune", "held-out"):  # found in each half, not only where the words were tuned
        assert any(called(r) for r in settled if half(r["sentence"]) == h), h
    assert sum(map(called, settled)) >= ATTRIBUTED_RECALL[lang] * len(settled)
    assert not [r["sentence"] for r in rows if r["label"] != "settled" and called(r)]


# Attributions appended to a settled report: who says it never undoes it, in every language.
ATTRIBUTIONS = {
    "en": [", sources said.", ", according to people familiar with the matter.",
           ", two people familiar with the decision said.", ", the ministry said in a statement late on Tuesday.",
           ", a person briefed on the talks said."],
    "de": [", berichten Insider.", ", hieß es aus Regierungskreisen.", ", sagten mit der Sache vertraute Personen."],
    "fr": [", selon des sources.", ", a-t-on appris de source proche du dossier.",
           ", ont indiqué des personnes proches du dossier."],
    "es": [", según fuentes.", ", según personas familiarizadas con el asunto.",
           ", confirmaron fuentes del ministerio."],
    "ru": [", сообщают источники.", ", сообщили источники в правительстве.", ", пишет газета «Ведомости»."],
    "zh": ["，消息人士称。", "，知情人士透露。"],
}


def test_an_attribution_added_to_a_settled_report_leaves_it_settled():
    found = [r for r in ROWS + ATTRIBUTED if r["language"] in ATTRIBUTIONS and called(r)]
    assert len(found) >= 150
    for r in found:
        for attribution in ATTRIBUTIONS[r["language"]]:
            attributed = r["sentence"].rstrip(".。") + attribution
            assert settles(attributed, names(r)), attributed


MODALS = ("could", "might", "is expected to", "is tipped to", "hopes to")


def test_will_replaced_by_a_modal_is_a_preview_attributed_or_not():
    found = [r for r in ROWS + ATTRIBUTED if r["language"] == "en" and called(r)
             and re.search(r"\bwill (?:take|become|be named|succeed)\b", r["sentence"])]
    assert len(found) >= 8
    for r in found:
        for modal in MODALS:
            s = re.sub(r"\bwill (take|become|be named|succeed)\b", rf"{modal} \1", r["sentence"], count=1)
            for variant in (s, s.rstrip(".") + ", sources said.", "Sources said " + s):
                assert not settles(variant, names(r)), variant


A = ["Tomas Lind"]


@pytest.mark.parametrize("sentence", [
    "Finance ministry sources confirmed on Wednesday that Tomas Lind will be named governor of the central bank "
    "next month.",
    "Sources confirmed that Tomas Lind will be named governor of the central bank.",
    "The ministry said in a statement late on Tuesday that Tomas Lind had been chosen to lead the central bank.",
    "Tomas Lind will be named governor of the central bank next month, sources said.",
    "Tomas Lind, the ministry confirmed on Wednesday, will be named governor of the central bank.",
    "According to people familiar with the decision, Tomas Lind will take over as governor of the central bank.",
    "A person familiar with the decision, who asked not to be named, said Tomas Lind will become governor.",
    "People familiar with the decision said Tomas Lind would take over as governor of the central bank.",
    "Tomas Lind has reportedly been chosen to succeed Ida Berg as governor of the central bank.",
    "Nach Informationen aus Regierungskreisen soll Tomas Lind neuer Gouverneur der Zentralbank werden.",
    "Tomas Lind prendra la tête de la banque centrale en avril, selon des sources proches du dossier.",
    "Según fuentes del ministerio, Tomas Lind sería el elegido para dirigir el banco central.",
    "Источники подтвердили в среду, что Tomas Lind возглавит центральный банк.",
    "消息人士称，Tomas Lind将出任央行行长。",
])
def test_a_settled_report_counts_whoever_it_is_attributed_to(sentence):
    assert settles(sentence, A)


@pytest.mark.parametrize("sentence", [
    "Finance ministry sources said on Wednesday that Tomas Lind could be named governor of the central bank.",
    "Tomas Lind is expected to be named governor of the central bank, sources said.",
    "According to people familiar with the matter, Tomas Lind is the frontrunner to become governor.",
    "People familiar with the talks said Tomas Lind is on a shortlist of three for the governor's job.",
    # a frame that is itself a doubt or a forecast is no attribution: its words count
    "The ministry denied reports that Tomas Lind will be named governor of the central bank.",
    "Officials did not confirm that Tomas Lind will be named governor of the central bank.",
    "Analysts said Tomas Lind will be named governor of the central bank.",
    "The government is expected to announce on Friday that Tomas Lind will take over as governor.",
    "Tomas Lind will be named governor of the central bank, according to rumours in the ministry.",
    # reported speech reads as the indicative, but a condition stays a condition
    "Sources said Tomas Lind would take over as governor if parliament approves the nomination.",
    "Tomas Lind would take over as governor of the central bank.",
    "Nach Informationen aus Regierungskreisen könnte Tomas Lind neuer Gouverneur der Zentralbank werden.",
    "Selon des sources proches du dossier, Tomas Lind pourrait prendre la tête de la banque centrale.",
    "Según fuentes del ministerio, Tomas Lind podría dirigir el banco central.",
    "По данным источников, Tomas Lind может возглавить центральный банк.",
    "消息人士称，Tomas Lind可能出任央行行长。",
])
def test_a_hedged_preview_stays_one_whoever_it_is_attributed_to(sentence):
    assert not settles(sentence, A)


@pytest.mark.parametrize("sentence,answer", [
    # the announcer in a frame is not the one the report settles
    ("Ida Berg confirmed on Tuesday that Tomas Lind will take over as governor.", "Ida Berg"),
    ("According to Ida Berg, Tomas Lind will take over as governor.", "Ida Berg"),
    ("Tomas Lind will take over as governor, Ida Berg told reporters.", "Ida Berg"),
    ("Selon Ida Berg, Tomas Lind prendra la tête de la banque centrale.", "Ida Berg"),
    # a verb of saying with a name for object is the outcome, not a frame to set aside
    ("After a long search, Norvale Bank confirmed Tomas Lind as its new finance director.", "Norvale Bank"),
])
def test_an_announcer_is_no_answer(sentence, answer):
    assert not settles(sentence, [answer])
    assert settles(sentence, A)


def test_a_pronoun_after_a_frame_stands_for_its_source():
    assert settles("Vireo Health said in a regulatory filing on Monday that it had completed the purchase of "
                   "Ashgrove Clinics.", ["Vireo Health"])
    assert settles("The board informed Tomas Lind that he will take over as governor.", A)
    assert not settles("The board informed Ida Berg that Tomas Lind will take over as governor.", ["Ida Berg"])


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


def test_goal_sources_confirming_an_appointment_move_the_date_to_their_report(tmp_path):
    """Issue 35: an agent reading the 25 February report knows the answer due on 20 March."""
    report = ("Finance ministry sources confirmed on Wednesday that Tomas Lind will be named governor of the "
              "central bank next month.")
    articles = frame([article("fx", "Currency markets", "The krona edged up against the euro.", ts("2026-02-10")),
                      article("gov", "Central bank governor", report, ts("2026-02-25", 11))], ARTICLES)
    q = question("gov", "Who will be named governor of the central bank?", "Tomas Lind", "2025-12-01", "2026-03-20")
    result = revise_resolution_dates(frame([q], QUESTIONS), ArticleIndex.build(articles, tmp_path / "idx"), articles,
                                     RevisionConfig())
    [row] = result.kept.iter_rows(named=True)
    assert row["resolution_date"] == date(2026, 2, 25) and row["original_resolution_date"] == date(2026, 3, 20)
    assert row["revision_evidence"] == ["gov"]


if __name__ == "__main__":  # the new rule's figures of bench/README.md, "Early answers"
    for (name, part), rows in HALVES.items():
        s = scores(rows)
        unrelated = [r for r in rows if r["label"] == "unrelated"]
        print(f"{name} {part}, {len(rows)} sentences: precision {s['precision']:.3f} ({s['called']} called settled), "
              f"recall {s['recall']:.3f} of {s['settled']} settled; hedged called settled "
              f"{s['hedged_called']}/{s['hedged']}, unrelated {sum(map(called, unrelated))}/{len(unrelated)}")
        for r in rows:
            if r["label"] == "settled" and not called(r):
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
    assert settles(sentence, ["Anna Weber"]) is settled
