"""`pastcast snapshot export`: a snapshot as an OpenForesight split and as FutureSim's browsable
news tree; export then import gives the same questions back."""

from __future__ import annotations

import json
from datetime import date, timedelta, timezone

import polars as pl
import pytest
from click.testing import CliRunner

from evalkit import article, question, ts
from pastcast.cli import main
from pastcast.questions.peers.openforesight import OPENFORESIGHT_COLUMNS
from pastcast.schemas import ARTICLES, QUESTIONS, frame
from pastcast.search.visibility import not_archive
from pastcast.snapshot import write_snapshot
from pastcast.snapshot import copy_version
from pastcast.store import read_table, table_files
from warcs import SAMPLE


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo snapshot, built from the bundled sample corpus the way `make demo`'s stages do."""
    root = tmp_path_factory.mktemp("demo")
    result = run("build", "--corpus", SAMPLE, "--work", root / "work", "--snapshots", root / "snapshots")
    assert result.exit_code == 0, result.output
    return root / "snapshots"


def test_openforesight_export_then_import_gives_the_same_questions(demo, tmp_path):
    exported = run("snapshot", "export", "sample", "--root", demo, "--format", "openforesight",
                   "--out", tmp_path / "of")
    assert exported.exit_code == 0, exported.output
    assert sorted(p.name for p in (tmp_path / "of").iterdir()) == ["export.json", "test-00000-of-00001.parquet"]
    split = pl.read_parquet(tmp_path / "of" / "test-00000-of-00001.parquet")
    assert tuple(split.columns[:len(OPENFORESIGHT_COLUMNS)]) == OPENFORESIGHT_COLUMNS
    assert all(split.schema[c] == pl.String for c in OPENFORESIGHT_COLUMNS)

    imported = run("questions", "import", "--format", "openforesight", tmp_path / "of", "--out", tmp_path / "back")
    assert imported.exit_code == 0, imported.output
    original = read_table(demo / "sample" / "v1", "questions").sort("question_id")
    back = pl.read_parquet(tmp_path / "back" / "questions.parquet").sort("question_id")
    assert original.height > 0 and pl.read_parquet(tmp_path / "back" / "drops.parquet").is_empty()
    same = ["question_id", "title", "answer", "answer_type", "answer_type_original", "answer_aliases",
            "candidate_outcomes", "open_date", "resolution_date", "source_kind", "source_ids", "category"]
    assert back.select(same).equals(original.select(same))


def test_a_named_split_and_refs_resolved_like_other_snapshot_commands(demo, tmp_path):
    folder = demo / "sample" / "v1"
    for i, ref in enumerate(["sample/v1", str(folder)]):
        result = run("snapshot", "export", ref, "--root", demo, "--format", "openforesight",
                     "--split", "validation", "--out", tmp_path / f"of{i}")
        assert result.exit_code == 0, result.output
        assert (tmp_path / f"of{i}" / "validation-00000-of-00001.parquet").is_file()
    missing = run("snapshot", "export", "nosuch", "--root", demo, "--format", "openforesight", "--out", tmp_path / "x")
    assert missing.exit_code == 1 and "no snapshot at 'nosuch'" in missing.output


def test_futuresim_news_files_every_served_article_under_the_day_it_becomes_visible(demo, tmp_path):
    result = run("snapshot", "export", "sample", "--root", demo, "--format", "futuresim-news", "--out", tmp_path / "fs")
    assert result.exit_code == 0, result.output
    articles = read_table(demo / "sample" / "v1", "articles")
    served = articles.filter(not_archive(articles.columns))
    seen = {}
    for path in sorted((tmp_path / "fs").rglob("articles.jsonl")):
        day = date(*map(int, path.relative_to(tmp_path / "fs").parts[:3]))
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        assert rows and [r["date_publish"] for r in rows] == sorted(r["date_publish"] for r in rows)
        for r in rows:
            assert {"title", "source", "date", "content", "url", "date_publish", "id"} <= set(r)
            assert r["date"] == day.isoformat() and r["id"] not in seen
            seen[r["id"]] = r
    expected = {a["article_id"]: a for a in served.iter_rows(named=True)}
    assert set(seen) == set(expected)
    for aid, a in expected.items():
        assert seen[aid]["date"] == a["published_at"].astimezone(timezone.utc).date().isoformat()
        assert seen[aid]["content"] == a["text"] and seen[aid]["url"] == a["url"]
    summary = json.loads((tmp_path / "fs" / "export.json").read_text())
    assert summary["rows"] == len(seen) and summary["snapshot"]["version"] == "v1"


def test_archive_pages_are_left_out_and_counted(tmp_path):
    published = ts("2026-01-10")
    rows = [article("news", "Fresh", "Fresh news text here.", published),
            {**article("archive", "Old page", "An evergreen page.", published - timedelta(days=400)),
             "crawled_at": published}]
    folder = write_snapshot({"articles": frame(rows, ARTICLES),
                             "questions": frame([question("q1", "Who will win the 2026 cup?", "Reds",
                                                          "2026-01-02", "2026-01-20")], QUESTIONS)},
                            tmp_path / "snaps", "tiny", (date(2026, 1, 1), date(2026, 1, 31)))
    result = run("snapshot", "export", folder, "--format", "futuresim-news", "--out", tmp_path / "fs")
    assert result.exit_code == 0, result.output
    assert [p.relative_to(tmp_path / "fs").as_posix() for p in (tmp_path / "fs").rglob("*.jsonl")] == [
        "2026/01/10/articles.jsonl"]
    assert json.loads((tmp_path / "fs" / "export.json").read_text())["left_out"] == {"undated": 0, "archive": 1}


def test_an_existing_folder_is_replaced_only_with_force_and_whole(demo, tmp_path):
    out = tmp_path / "of"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    args = ["snapshot", "export", "sample", "--root", demo, "--format", "openforesight", "--out", out]
    refused = run(*args)
    assert refused.exit_code == 1 and "not empty" in refused.output and "--force" in refused.output
    assert (out / "keep.txt").read_text() == "mine"
    forced = run(*args, "--force")
    assert forced.exit_code == 0, forced.output
    assert sorted(p.name for p in out.iterdir()) == ["export.json", "test-00000-of-00001.parquet"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["of"]  # no staging or old folder left beside it
    (tmp_path / "empty").mkdir()
    assert run(*args[:-1], tmp_path / "empty").exit_code == 0  # an empty folder is not in the way


@pytest.mark.parametrize("damage", ["cut", "other rows"])
def test_a_snapshot_that_does_not_match_its_manifest_is_not_exported(demo, tmp_path, damage):
    copy = copy_version(demo / "sample" / "v1", tmp_path / "store", link=False)  # its own bytes
    questions = table_files(copy, "questions")[0]
    if damage == "cut":
        with open(questions, "ab") as fh:
            fh.write(b"\0")
    else:  # still Parquet, but not what the manifest describes
        pl.read_parquet(questions).head(3).write_parquet(questions)
    result = run("snapshot", "export", copy, "--format", "openforesight", "--out", tmp_path / "of")
    assert result.exit_code == 1 and "does not match its manifest" in result.output
    assert not (tmp_path / "of").exists()
