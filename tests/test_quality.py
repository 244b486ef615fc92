"""The question quality audit: each flag fires on its case and stays quiet on a clean question;
the table reaches the filter's output, the audit report and the snapshot (issue 17, item 8)."""

import polars as pl
import pytest

from evalkit import question
from pastcast.questions.quality import FLAGS, quality_flags, quality_summary, question_flags, render_quality
from pastcast.schemas import QUESTIONS, frame
from pastcast.store import read_table

CLEAN = question("clean", "Who will be appointed chief executive of Norhaven Rail in March 2026?", "Ana Ruiz",
                 "2026-02-01", "2026-03-20", resolution_criteria="Resolves to the person named, as announced "
                 "by Norhaven Rail.")


def flags_of(**changes) -> set[str]:
    return {f for f, _ in question_flags({**CLEAN, **changes})}


def test_a_clean_question_carries_no_flag():
    assert flags_of() == set()
    binary = {"title": "Will the council approve the harbour plan by March 2026?", "answer": "Yes",
              "answer_type": "binary", "candidate_outcomes": ["Yes", "No"]}
    assert flags_of(**binary) == set()
    assert flags_of(title="What is the probability that the index closes higher on 2026-03-01 than on "
                          "2026-02-01?", answer="No", answer_type="binary", candidate_outcomes=["Yes", "No"]) == set()


@pytest.mark.parametrize("changes, flag", [
    ({"resolution_criteria": "Resolves to the person who gets the job in March 2026."}, "no_source_of_truth"),
    ({"resolution_criteria": "Resolves to either the chair or the deputy, as announced in March 2026."},
     "several_answers_accepted"),
    ({"title": "Who will eventually lead Norhaven Rail?", "resolution_criteria": "As announced by the board."},
     "vague_time_frame"),
    ({"candidate_outcomes": ["Ana Ruiz"]}, "sole_candidate"),
    ({"candidate_outcomes": ["Bo Lind", "Cy Marsh"]}, "answer_not_an_option"),
    ({"answer": "Yes", "answer_type": "binary"}, "yes_no_mismatch"),
    ({"title": "Will Norhaven Rail appoint a new chief executive in March 2026?"}, "yes_no_mismatch"),
])
def test_each_flag_fires_on_its_case(changes, flag):
    assert flag in flags_of(**changes)


def test_questions_in_other_languages_are_not_flagged_for_english_wording():
    ru = {"title": "Кто станет мэром Казани в 2026 году?", "answer": "Иван Петров",
          "resolution_criteria": "По данным избирательной комиссии."}
    assert flags_of(**ru) == set()
    assert "sole_candidate" in flags_of(**ru, candidate_outcomes=["Иван Петров"])  # structure: any language


def test_table_summary_and_report_agree():
    bad = {**CLEAN, "question_id": "bad", "resolution_criteria": "Resolves to whoever it is."}
    qs = frame([CLEAN, bad], QUESTIONS)
    table = quality_flags(qs)
    assert set(table.columns) == {"question_id", "flag", "detail"} and set(table["flag"]) <= set(FLAGS)
    summary = quality_summary(qs, table)
    assert summary["questions"] == 2 and summary["flagged"] == 1 and summary["unflagged_share"] == 0.5
    report = "\n".join(render_quality(qs, table))
    assert "## Question quality" in report and "50.0%" in report and "(`bad`)" in report


def test_the_quality_table_is_in_the_filter_output_and_the_snapshot(demo_snapshot):
    from pastcast.snapshot_checks import manifest_matches_files

    folder = demo_snapshot
    quality = read_table(folder, "question_quality")
    questions = read_table(folder, "questions")
    assert set(quality["question_id"]) <= set(questions["question_id"])
    assert "## Question quality" in (folder / "audit.md").read_text(encoding="utf-8")
    assert manifest_matches_files(folder).passed


def test_the_llm_pass_flags_what_the_model_rejects_through_the_real_client(tmp_path):
    """Against the loopback OpenAI-compatible server: litellm's request and the JSON reply run
    as with a hosted model; a 'no' is a flag with the model's reason, a broken reply no flag."""
    import json

    from openai_server import OpenAIServer, completion
    from pastcast.llm import LLMSettings
    from pastcast.questions.quality_llm import llm_quality_flags

    vague = {**CLEAN, "question_id": "vague", "title": "Who will matter most at Norhaven Rail in 2026?"}
    broken = {**CLEAN, "question_id": "broken", "title": "Who will chair Norhaven Rail's board in 2026?"}

    def script(body, n):
        user = body["messages"][1]["content"]
        if "matter most" in user:
            return completion(json.dumps({"verifiable": False, "unambiguous": False,
                                          "reason": "'matter most' has no agreed measure"}))
        if "board" in user:
            return completion("not json")
        return completion(json.dumps({"verifiable": True, "unambiguous": True, "reason": ""}))

    with OpenAIServer(script) as server:
        settings = LLMSettings(model="openai/test-model", api_base=server.url, api_key="k",
                               cache_dir=tmp_path / "cache", backoff_base=0.01)
        qs = frame([CLEAN, vague, broken], QUESTIONS)
        flags = llm_quality_flags(qs, settings)
        assert server.requests  # the real client reached the server
    got = {(r["question_id"], r["flag"]) for r in flags.iter_rows(named=True)}
    assert {("vague", "llm_unverifiable"), ("vague", "llm_ambiguous")} <= got
    assert not any(q == "clean" for q, _ in got)
    assert ("broken", "llm_no_verdict") in got
    summary = quality_summary(qs, flags)
    assert summary["flagged"] == 1 and summary["by_flag"]["llm_no_verdict"] == 1  # no verdict is no flag
    assert "matter most" in "\n".join(render_quality(qs, flags))


def test_the_llm_pass_needs_a_model():
    from evalkit import article, ts
    from pastcast.questions.filter import FilterConfig, filter_questions
    from pastcast.schemas import ARTICLES

    arts = frame([article("a", "News", "Nothing happened.", ts("2026-02-01"))], ARTICLES)
    with pytest.raises(ValueError, match="needs an LLM"):
        filter_questions(frame([CLEAN], QUESTIONS), arts, FilterConfig(quality_llm=True))
