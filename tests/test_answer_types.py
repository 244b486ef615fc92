"""Answer types: a vocabulary with synonyms mapped, never a drop for a spelling."""

from datetime import date

import polars as pl
import pytest
from click.testing import CliRunner

from evalkit import article, question, ts
from pastcast.cli import main
from pastcast.questions.llm_generate import CheckedQuestion, GeneratedQuestions
from pastcast.questions.validate import validate
from pastcast.schemas import ARTICLES, QUESTIONS, frame
from pastcast.text.answer_types import (ANSWER_TYPE_SYNONYMS, ANSWER_TYPES, answer_type_original,
                                        canonical_answer_type, canonical_types)


@pytest.mark.parametrize("label,expected", [
    ("organization", "organisation"), ("Organisation", "organisation"), ("ORG", "organisation"),
    ("company", "organisation"), ("football club", "organisation"), ("space probe", "other"), ("club", "organisation"),
    ("location", "place"), ("GPE", "place"), ("city", "place"), ("Countries", "place"),
    ("work of art", "title"), ("WORK_OF_ART", "title"), ("work-of-art", "title"), ("film", "title"),
    ("Yes/No", "binary"), ("Yes or No", "binary"), ("true/false", "binary"), ("percentage", "number"),
    ("Person", "person"), ("companies", "organisation"), ("Company name", "organisation"),
    ("Name of the company", "organisation"), ("Team name", "organisation"), ("Country name", "place"),
    ("person name", "person"), ("name", "other"),
    ("", "other"), (None, "other"), ("flavour of the month", "other"),
])
def test_labels_map_to_the_vocabulary(label, expected):
    assert canonical_answer_type(label) == expected


def test_every_synonym_maps_to_its_own_type_and_no_label_to_two():
    seen = {}
    for type_, labels in ANSWER_TYPE_SYNONYMS.items():
        assert type_ in ANSWER_TYPES
        for label in labels:
            assert canonical_answer_type(label) == type_, label
            assert seen.setdefault(label, type_) == type_, f"{label!r} is listed under two types"


def test_the_original_label_is_kept_only_when_it_is_not_a_type_name():
    assert answer_type_original("organisation") is None
    assert answer_type_original("organization") == "organization"
    assert answer_type_original("Space probe") == "Space probe"


def test_a_user_list_of_types_accepts_synonyms_and_rejects_unknown_labels():
    assert canonical_types(["organization", "location"]) == {"organisation", "place"}
    with pytest.raises(ValueError, match="unknown answer type 'flavour'"):
        canonical_types(["flavour"])


def _clean(qid: str, answer_type: str, answer: str) -> dict:
    return question(qid, f"Who or what will be named the winner of the {qid} award in March 2026?",
                    answer, "2026-02-01", "2026-03-10", answer_type=answer_type,
                    resolution_criteria="Resolves to the winner named by the jury.")


def test_validation_keeps_clean_questions_of_every_spelling_and_records_the_label():
    rows = [_clean("org", "organization", "Northwind Traders"), _clean("loc", "location", "Lisbon"),
            _clean("art", "work of art", "The Salt Road"), _clean("odd", "space probe", "Voyager")]
    result = validate(frame(rows, QUESTIONS))
    assert result.drops == []
    kept = {r["question_id"]: r for r in result.kept.iter_rows(named=True)}
    assert {q: (r["answer_type"], r["answer_type_original"]) for q, r in kept.items()} == {
        "org": ("organisation", "organization"), "loc": ("place", "location"),
        "art": ("title", "work of art"), "odd": ("other", "space probe")}


def test_the_llm_schema_accepts_any_label():
    reply = {"reports_outcome": True, "questions": [
        {"title": "Which company will win the tender?", "answer": "Northwind", "answer_type": "organization"}]}
    assert GeneratedQuestions.model_validate(reply).questions[0].answer_type == "organization"
    assert CheckedQuestion.model_validate({"keep": True, "answer_type": "work of art"}).answer_type == "work of art"


def test_questions_filter_keeps_clean_questions_typed_organization_location_and_work_of_art(tmp_path):
    rows = [_clean("org", "organization", "Northwind Traders"), _clean("loc", "location", "Lisbon"),
            _clean("art", "work of art", "The Salt Road")]
    qfile, adir = tmp_path / "q.parquet", tmp_path / "articles"
    frame(rows, QUESTIONS).write_parquet(qfile)
    adir.mkdir()
    frame([article("a1", "Jury meets", "The jury met in February to draw up a shortlist.",
                   ts("2026-02-02"))], ARTICLES).write_parquet(adir / "articles.parquet")
    result = CliRunner().invoke(main, ["questions", "filter", "--questions", str(qfile), "--articles", str(adir),
                                       "--out", str(tmp_path / "out"), "--window-start", "2026-01-01",
                                       "--window-end", "2026-03-31"])
    assert result.exit_code == 0, result.output
    kept = pl.read_parquet(tmp_path / "out" / "questions.parquet")
    assert sorted(kept["answer_type"]) == ["organisation", "place", "title"]
    drops = pl.read_parquet(tmp_path / "out" / "drops.parquet")
    assert "answer_type_not_allowed" not in set(drops["reason"])
    narrowed = CliRunner().invoke(main, ["questions", "filter", "--questions", str(qfile), "--articles", str(adir),
                                         "--out", str(tmp_path / "narrow"), "--window-start", "2026-01-01",
                                         "--window-end", "2026-03-31", "--answer-types", "organization"])
    assert narrowed.exit_code == 0, narrowed.output
    assert pl.read_parquet(tmp_path / "narrow" / "questions.parquet")["question_id"].to_list() == ["org"]
    bad = CliRunner().invoke(main, ["questions", "filter", "--questions", str(qfile), "--articles", str(adir),
                                    "--out", str(tmp_path / "bad"), "--answer-types", "flavour"])
    assert bad.exit_code != 0 and "unknown answer type 'flavour'" in bad.output
    assert date(2026, 3, 10) in kept["resolution_date"].to_list()
