"""`pastcast snapshot create`: a peer set imported and filtered becomes a snapshot version that
passes the blocking checks and replays with `pastcast eval run`, from the command line alone."""

from __future__ import annotations

import polars as pl

from test_question_import import LEAKY, articles_dir, run, write_of  # noqa: F401 (a fixture)

from pastcast.snapshot import latest_version, read_manifest, verify


def test_import_filter_create_and_replay_from_the_command_line(tmp_path, articles_dir):  # noqa: F811
    peer = write_of(tmp_path / "test-00000-of-00001.parquet", LEAKY)
    assert run("questions", "import", "--format", "openforesight", peer, "--out", tmp_path / "of").exit_code == 0
    filtered = run("questions", "filter", "--questions", tmp_path / "of", "--articles", articles_dir,
                   "--out", tmp_path / "of-filtered")
    assert filtered.exit_code == 0, filtered.output
    root = tmp_path / "snapshots"
    created = run("snapshot", "create", "--questions", tmp_path / "of-filtered", "--articles", articles_dir,
                  "--name", "of", "--root", root)
    assert created.exit_code == 0, created.output
    assert latest_version(root, "of") == "v1"
    folder = root / "of" / "v1"
    assert verify(folder) == []
    manifest = read_manifest(folder)
    kept = pl.read_parquet(tmp_path / "of-filtered" / "questions.parquet")
    assert manifest["tables"]["questions"]["rows"] == kept.height >= 1
    assert manifest["tables"]["drops"]["rows"] >= 1  # the leaks the filter dropped, kept as drops
    assert (folder / "audit.md").is_file() and "question_quality" in manifest["tables"]
    again = run("snapshot", "create", "--questions", tmp_path / "of-filtered", "--articles", articles_dir,
                "--name", "of", "--root", root)
    assert again.exit_code == 0 and "unchanged" in again.output  # the same tables: no new version
    assert latest_version(root, "of") == "v1" and not (root / "of" / "v2").exists()
    replay = run("eval", "run", "--snapshot", "of", "--root", root, "--agent", "abstain", "--out", tmp_path / "run")
    assert replay.exit_code == 0, replay.output
    assert (tmp_path / "run" / "run.json").is_file()


def test_create_refuses_a_folder_that_is_not_a_filter_output(tmp_path, articles_dir):  # noqa: F811
    result = run("snapshot", "create", "--questions", tmp_path, "--articles", articles_dir, "--name", "x",
                 "--root", tmp_path / "snapshots")
    assert result.exit_code != 0 and "questions.parquet" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "snapshots" / "x").exists() or latest_version(tmp_path / "snapshots", "x") is None


def test_questions_never_filtered_are_refused(tmp_path, articles_dir):  # noqa: F811
    # an import holds answers in sibling questions and early answers nobody looked for
    peer = write_of(tmp_path / "test-00000-of-00001.parquet", LEAKY)
    assert run("questions", "import", "--format", "openforesight", peer, "--out", tmp_path / "of").exit_code == 0
    result = run("snapshot", "create", "--questions", tmp_path / "of", "--articles", articles_dir,
                 "--name", "raw", "--root", tmp_path / "snapshots")
    assert result.exit_code == 1 and "filter the questions first" in result.output
    assert not (tmp_path / "snapshots" / "raw").exists()


def test_questions_changed_after_the_filter_are_refused(tmp_path, articles_dir):  # noqa: F811
    # a filtered folder edited afterwards (a leaky question added, or an import written over it)
    peer = write_of(tmp_path / "test-00000-of-00001.parquet", LEAKY)
    assert run("questions", "import", "--format", "openforesight", peer, "--out", tmp_path / "of").exit_code == 0
    assert run("questions", "filter", "--questions", tmp_path / "of", "--articles", articles_dir,
               "--out", tmp_path / "f").exit_code == 0
    kept = pl.read_parquet(tmp_path / "f" / "questions.parquet")
    leaky = kept.head(1).with_columns(pl.lit("edited").alias("question_id"),
                                      pl.format("{} is the answer.", pl.col("answer")).alias("background"))
    pl.concat([kept, leaky]).write_parquet(tmp_path / "f" / "questions.parquet")
    result = run("snapshot", "create", "--questions", tmp_path / "f", "--articles", articles_dir,
                 "--name", "edited", "--root", tmp_path / "snapshots")
    assert result.exit_code == 1 and "filter the questions again" in result.output
    assert not (tmp_path / "snapshots" / "edited").exists()
    # an import forced over the filter's folder is caught the same way
    assert run("questions", "import", "--format", "openforesight", peer, "--out", tmp_path / "f",
               "--force").exit_code == 0
    result = run("snapshot", "create", "--questions", tmp_path / "f", "--articles", articles_dir,
                 "--name", "edited", "--root", tmp_path / "snapshots")
    assert result.exit_code == 1 and "filter the questions again" in result.output
