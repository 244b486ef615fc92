"""pastcast.snapshot_checks (the blocking checks that gate LATEST) and `pastcast snapshot check`,
on small snapshots written with the real snapshot writer."""

import json
from datetime import date, datetime, timedelta, timezone

import polars as pl
import pytest
from click.testing import CliRunner

from pastcast.cli import main as cli
from pastcast.io import sha256_file
from pastcast.schemas import ARTICLES, DROPS, MARKETS, QUESTIONS, frame
from pastcast.snapshot import HISTORY, MANIFEST, latest_version, read_manifest, write_snapshot
from pastcast.snapshot_checks import (BLOCKING, CRAWL_SLACK, articles_within_crawl_bounds, ids_are_unique,
                                      manifest_matches_files, publish_if_sound, run_blocking_checks)
from pastcast.store import part_path, read_table, table_entry, table_files

WINDOW = (date(2026, 2, 1), date(2026, 2, 28))
NAME = "checked"


def ts(day: str, hour: int = 12) -> datetime:
    d = date.fromisoformat(day)
    return datetime(d.year, d.month, d.day, hour, tzinfo=timezone.utc)


def article(article_id: str, published: datetime, crawled: datetime | None = None, text: str = "") -> dict:
    text = text or f"Report {article_id}: the council met and discussed the harbour budget at length."
    return {"article_id": article_id, "url": f"https://news.example/{article_id}", "canonical_url": None,
            "domain": "news.example", "title": f"Report {article_id}", "text": text, "language": "en",
            "published_at": published, "date_source": "meta", "date_confidence": 1.0,
            "crawled_at": crawled or published, "warc_file": "x.warc.gz", "warc_record_id": article_id,
            "content_hash": article_id, "dup_cluster": article_id, "word_count": len(text.split()),
            "dup_count": 1, "dup_domains": ["news.example"]}


def question(question_id: str, title: str, answer: str, open_date: str, resolution_date: str, **kw) -> dict:
    row = {"question_id": question_id, "title": title, "background": "", "resolution_criteria": "",
           "answer": answer, "answer_aliases": [], "answer_type": "person", "candidate_outcomes": [],
           "open_date": date.fromisoformat(open_date), "resolution_date": date.fromisoformat(resolution_date),
           "original_resolution_date": date.fromisoformat(resolution_date), "revision_evidence": [],
           "source_kind": "news", "source_ids": [], "generator": "synthetic", "category": "politics"}
    row.update(kw)
    return row


def clean_tables() -> dict:
    articles = [
        article("a1", ts("2026-02-03")),
        article("a2", ts("2026-02-10", 9), ts("2026-02-10", 11),
                text="Harbour authority names Marguerite Okonkwo as its new chief executive."),
        article("a3", ts("2026-02-06", 23), ts("2026-02-06", 1)),  # dated 22 hours after its crawl: slack
    ]
    questions = [
        question("q1", "Who will be named chief executive of the harbour authority?", "Marguerite Okonkwo",
                 "2026-02-01", "2026-02-10", original_resolution_date=date(2026, 2, 20),
                 revision_evidence=["a2"]),
        question("q2", "Who will win the Northfield mayoral election?", "Theodore Vance",
                 "2026-02-02", "2026-02-15"),
        question("q3", "Which team will win the regional cup final?", "Harbour Rovers",
                 "2026-02-05", "2026-02-21", answer_type="option", source_kind="market", source_ids=["m1"],
                 candidate_outcomes=["Harbour Rovers", "Valley United"], category="sport"),
    ]
    markets = [{"market_id": "m1", "platform": "manifold", "question": "Regional cup final winter",
                "background": "", "resolution_criteria": "", "outcome_type": "multiple_choice",
                "outcomes": ["Harbour Rovers", "Valley United"], "status": "resolved",
                "created_at": ts("2026-02-04"), "close_at": ts("2026-02-20"), "resolved_at": ts("2026-02-21"),
                "resolution": "Harbour Rovers", "resolution_value": None, "range_min": None,
                "range_max": None, "log_scale": None, "url": "https://manifold.example/m1"}]
    drops = [{"item_id": "a9", "item_kind": "article", "stage": "dedup", "reason": "exact_duplicate",
              "detail": "kept=a1 cluster=a1"}]
    return {"articles": frame(articles, ARTICLES), "questions": frame(questions, QUESTIONS),
            "markets": frame(markets, MARKETS), "drops": frame(drops, DROPS)}


def snapshot(root, tables=None, publish=False):
    return write_snapshot(tables or clean_tables(), root, NAME, WINDOW, publish=publish)


def with_article(extra: dict) -> dict:
    tables = clean_tables()
    tables["articles"] = pl.concat([tables["articles"], frame([extra], ARTICLES)])
    return tables


def outcomes(folder) -> dict:
    return {o.name: o for o in run_blocking_checks(folder)}


def test_a_clean_snapshot_passes_every_blocking_check(tmp_path):
    folder = snapshot(tmp_path)
    got = outcomes(folder)
    assert list(got) == list(BLOCKING)
    failed = {n: o.examples for n, o in got.items() if not o.passed}
    assert failed == {}
    assert all(o.problems == 0 for o in got.values())
    assert got["revised_dates_have_evidence"].metadata == {"revised": 1}
    assert got["ids_are_unique"].as_dict() == {"passed": True, "problems": 0, "examples": []}


@pytest.mark.parametrize("after, passes", [
    (timedelta(days=2), False),
    (timedelta(days=1, hours=1), False),
    (CRAWL_SLACK, True),
    (timedelta(days=1), True),
    (timedelta(hours=5), True),
    (timedelta(0), True),
    (-timedelta(days=300), True),
])
def test_articles_dated_after_their_crawl(tmp_path, after, passes):
    crawled = ts("2026-02-12", 8)
    folder = snapshot(tmp_path, with_article(article("late", crawled + after, crawled)))
    got = articles_within_crawl_bounds(folder)
    assert got.passed is passes
    if not passes:
        assert got.problems == 1 and got.examples[0].startswith("late: published")
        assert outcomes(folder)["ids_are_unique"].passed  # only the crawl bound fails


@pytest.mark.parametrize("field", ["published_at", "crawled_at"])
def test_undated_articles_fail_the_crawl_bounds(tmp_path, field):
    row = article("undated", ts("2026-02-12"))
    row[field] = None
    got = articles_within_crawl_bounds(snapshot(tmp_path, with_article(row)))
    assert not got.passed and got.examples[0].startswith("undated:")


def test_duplicated_question_id_fails_ids_are_unique(tmp_path):
    tables = clean_tables()
    q = tables["questions"]
    tables["questions"] = pl.concat([q, q.filter(pl.col("question_id") == "q2")])
    got = ids_are_unique(snapshot(tmp_path, tables))
    assert not got.passed and got.problems == 1
    assert got.examples == ["questions.question_id 'q2' appears 2 times"]


def test_duplicated_or_missing_article_id_fails_ids_are_unique(tmp_path):
    tables = with_article(article("a1", ts("2026-02-04")))
    tables["articles"] = pl.concat([tables["articles"], frame([article(None, ts("2026-02-05"))], ARTICLES)])
    got = ids_are_unique(snapshot(tmp_path, tables))
    assert not got.passed and got.problems == 2
    assert "articles.article_id 'a1' appears 2 times" in got.examples
    assert "articles.article_id None appears 1 times" in got.examples


def _replace_table(folder, table: str, df: pl.DataFrame) -> None:
    """Store a table as a new part as written (no schema applied) and name it in the manifest,
    so only its schema differs."""
    tmp = folder.parent / "new.parquet"
    df.write_parquet(tmp)
    sha = sha256_file(tmp)
    target = folder.parent / part_path(table, sha)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp.replace(target)
    manifest = read_manifest(folder)
    part = {"key": "all", "path": part_path(table, sha), "rows": df.height, "bytes": target.stat().st_size,
            "sha256": sha}
    manifest["tables"][table] = {**manifest["tables"][table], **table_entry([part])}
    (folder / MANIFEST).write_text(json.dumps(manifest))


def test_an_extra_column_fails_manifest_matches_files(tmp_path):
    folder = snapshot(tmp_path)
    articles = read_table(folder, "articles")
    _replace_table(folder, "articles", articles.with_columns(pl.lit("x").alias("sneaky")))
    got = manifest_matches_files(folder)
    assert not got.passed and got.problems == 1
    assert got.examples[0].startswith("articles: columns") and "sneaky" in got.examples[0]
    assert not any("sha256" in e or "rows" in e for e in got.examples)


def test_a_retyped_column_fails_manifest_matches_files(tmp_path):
    folder = snapshot(tmp_path)
    questions = read_table(folder, "questions")
    _replace_table(folder, "questions", questions.with_columns(pl.col("open_date").cast(pl.String)))
    got = manifest_matches_files(folder)
    assert not got.passed and got.problems == 1
    assert got.examples[0].startswith("questions.open_date: type String")
    assert got.examples[0].endswith("schema says Date")


def test_a_tampered_file_fails_manifest_matches_files(tmp_path):
    folder = snapshot(tmp_path)
    path = table_files(folder, "drops")[0]
    drops = pl.read_parquet(path)
    path.chmod(0o644)
    pl.concat([drops, drops]).write_parquet(path)  # manifest left alone
    got = manifest_matches_files(folder)
    assert not got.passed
    assert "drops: sha256 differs from the manifest" in got.examples
    assert "drops: 2 rows, manifest says 1" in got.examples


def _history(root) -> list[dict]:
    path = root / NAME / HISTORY
    return [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []


def test_publish_if_sound_moves_latest_only_when_all_pass(tmp_path):
    first = snapshot(tmp_path)
    assert latest_version(tmp_path, NAME) is None
    got = publish_if_sound(first)
    assert all(o.passed for o in got)
    assert latest_version(tmp_path, NAME) == "v1"
    (entry,) = _history(tmp_path)
    assert entry["version"] == "v1" and entry["previous"] is None
    assert entry["checks"] == {name: "passed" for name in BLOCKING}

    crawled = ts("2026-02-12")
    planted = snapshot(tmp_path, with_article(article("late", crawled + timedelta(days=2), crawled)))
    assert planted.name == "v2"
    got = publish_if_sound(planted)
    assert [o.name for o in got if not o.passed] == ["articles_within_crawl_bounds"]
    assert latest_version(tmp_path, NAME) == "v1"
    assert len(_history(tmp_path)) == 1

    assert snapshot(tmp_path).name == "v1"  # v1's very tables again: no new version
    publish_if_sound(snapshot(tmp_path))  # publishing the version LATEST names: no move logged
    assert len(_history(tmp_path)) == 1
    third = snapshot(tmp_path, with_article(article("fresh", crawled - timedelta(days=1), crawled)))
    assert read_manifest(third)["parent_version"] == "v1"  # the unpublished v2 is nobody's parent
    publish_if_sound(third)
    assert latest_version(tmp_path, NAME) == "v3"
    assert [(e["version"], e["previous"]) for e in _history(tmp_path)] == [("v1", None), ("v3", "v1")]


def test_cli_check_passes_a_clean_snapshot_and_publishes_on_request(tmp_path):
    snapshot(tmp_path)
    runner = CliRunner()
    result = runner.invoke(cli, ["snapshot", "check", f"{NAME}/v1", "--root", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "every blocking check passed" in result.output
    assert all(name in result.output for name in BLOCKING)
    assert latest_version(tmp_path, NAME) is None  # without --publish nothing moves
    result = runner.invoke(cli, ["snapshot", "check", f"{NAME}/v1", "--root", str(tmp_path), "--publish"])
    assert result.exit_code == 0, result.output
    assert latest_version(tmp_path, NAME) == "v1"
    assert len(_history(tmp_path)) == 1


def test_cli_check_fails_a_planted_snapshot_and_names_the_check(tmp_path):
    snapshot(tmp_path, publish=True)  # v1, LATEST
    crawled = ts("2026-02-12")
    planted = snapshot(tmp_path, with_article(article("late", crawled + timedelta(days=2), crawled)))
    runner = CliRunner()
    for args in ([f"{NAME}/v2"], [str(planted), "--publish"]):
        result = runner.invoke(cli, ["snapshot", "check", *args, "--root", str(tmp_path)])
        assert result.exit_code == 1, result.output
        assert "articles_within_crawl_bounds" in result.output and "FAILED" in result.output
        assert "late: published" in result.output
        assert "every blocking check passed" not in result.output
    assert latest_version(tmp_path, NAME) == "v1"
    assert len(_history(tmp_path)) == 1


def test_a_snapshot_written_before_columns_were_added_passes_manifest_matches_files(tmp_path):
    folder = snapshot(tmp_path)
    articles = read_table(folder, "articles")
    _replace_table(folder, "articles", articles.drop("published_local_date", "published_utc_offset_minutes"))
    questions = read_table(folder, "questions")
    _replace_table(folder, "questions", questions.drop("answer_type_original"))
    assert manifest_matches_files(folder).passed
    # only columns added later may be missing
    _replace_table(folder, "questions", questions.drop("answer_type_original", "category"))
    got = manifest_matches_files(folder)
    assert not got.passed and "questions: columns" in got.examples[0]


def test_leak_checks_on_a_child_version_look_at_what_changed_and_still_catch_new_pairs(tmp_path):
    from pastcast.snapshot_checks import no_answer_in_other_questions, no_answer_in_own_text

    parent = snapshot(tmp_path)
    assert all(o.passed for o in publish_if_sound(parent))
    tables = clean_tables()
    # a new question whose text names q2's answer (an old, unchanged question's): a new pair
    leaky = question("q4", "Will Theodore Vance hold the Northfield mayoralty through 2026?", "Yes",
                     "2026-02-03", "2026-02-25", answer_type="binary")
    tables["questions"] = pl.concat([tables["questions"], frame([leaky], QUESTIONS)])
    child = snapshot(tmp_path, tables)
    for full in (False, True):
        other = no_answer_in_other_questions(child, full=full)
        assert not other.passed and any("q2" in e and "q4" in e for e in other.examples)
    # incremental: only the new question is looked at; in full, all four
    assert no_answer_in_other_questions(child, full=False).metadata["checked"] == 1
    assert no_answer_in_own_text(child, full=True).metadata["checked"] == 4
    # a question whose own text gained its answer is a changed row: caught incrementally too
    tables = clean_tables()
    tables["questions"] = tables["questions"].with_columns(
        pl.when(pl.col("question_id") == "q2").then(pl.lit("Theodore Vance is standing again."))
        .otherwise(pl.col("background")).alias("background"))
    own = no_answer_in_own_text(snapshot(tmp_path, tables), full=False)
    assert not own.passed and own.metadata["checked"] == 1 and own.examples[0].startswith("q2")
