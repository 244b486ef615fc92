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


@pytest.mark.parametrize("where, sentence", [
    ("background", "If there is no clear consensus, I will resolve it based on my judgement using any material "
                   "released by OpenAI."),
    ("background", "Resolves based on my subjective opinion of the news."),
    ("background", "The creator will use their judgment to determine if this criterion is met."),
    ("background", "The creator states they will resolve based on the spirit of the question."),
    ("resolution_criteria", "Please see THIS COMMENT from the 2026 market for more guidance about what a YES "
                            "resolution might look like."),
    ("resolution_criteria", "Resolves NO if no files are presented in the comments by the closing time."),
])
def test_a_question_its_creator_settles_is_flagged_with_the_sentence_that_says_so(where, sentence):
    text = f"Resolves Yes if the council approves the plan by March 2026, as announced. {sentence} Thanks!"
    got = dict(question_flags({**CLEAN, where: text}))
    assert "resolves_on_creator_comment" in got
    detail = got["resolves_on_creator_comment"]
    assert sentence.rstrip(".")[:60] in detail and "council" not in detail and "Thanks" not in detail
    assert detail.startswith("criteria: " if where == "resolution_criteria" else "background: ")


@pytest.mark.parametrize("text", [
    "Resolves to the person named, as announced by Norhaven Rail.",
    # the platform's own rule, not a person's judgement
    "If the result is disputed, Metaculus admins will resolve the question at their discretion, as announced.",
    # updates the creator appended are shown to the forecaster: not a pointer elsewhere
    "Update 2025-06-21 (PST) (AI summary of creator comment): a single strike is not enough, as announced.",
    "Comment if you have any questions or news, as announced by the board in March 2026.",
])
def test_a_source_or_a_shown_update_is_not_a_creator_comment(text):
    assert "resolves_on_creator_comment" not in flags_of(resolution_criteria=text, background=text)


def test_creator_comment_flags_keep_every_question_and_skip_other_languages():
    settled = {**CLEAN, "question_id": "settled", "background": "I will resolve this based on my own judgement."}
    qs = frame([CLEAN, settled], QUESTIONS)
    table = quality_flags(qs)
    assert table.filter(pl.col("flag") == "resolves_on_creator_comment")["question_id"].to_list() == ["settled"]
    assert quality_summary(qs, table)["by_flag"]["resolves_on_creator_comment"] == 1
    ru = {"title": "Кто станет мэром Казани в 2026 году?", "answer": "Иван Петров",
          "resolution_criteria": "По данным избирательной комиссии.",
          "background": "I will resolve by my judgement."}
    assert "resolves_on_creator_comment" not in flags_of(**ru)


def test_a_group_label_in_front_of_the_title_is_read_past():
    assert "yes_no_mismatch" in flags_of(title="Norhaven Rail: Will a new chief executive be named in March 2026?")
    assert "yes_no_mismatch" in flags_of(title="[Norhaven Rail] Will a new chief executive be named in March 2026?")
    assert "yes_no_mismatch" in flags_of(title="Eurovision 2026: Who will win in May 2026?", answer="Yes",
                                         answer_type="binary")
