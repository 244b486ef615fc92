"""Partitions that tell the truth: each day's partition carries that day's own counts, a day
with no WARC file is an empty partition with its reason (not a build, not a version), the
warning checks agree with the partition view, and a version's window covers its built days."""

from __future__ import annotations

import shutil
from datetime import date, datetime, timezone

import dagster as dg
import pytest

from assets._partitions import DAYS_TAG, RANGE_END, RANGE_START
from assets._resources import PastcastStorage
from pastcast import pipeline, stage_checks
from pastcast.daily import built_days, no_input_days, read_day_report, snapshot_window, gathered_window
from pastcast.sources.crawl_days import parse_days
from pastcast.pipeline import CorpusFiles
from pastcast.snapshot import read_manifest, versions
from pipelines.definitions import defs
from warcs import make_corpus, write_warc

WITH_FILES = [date(2026, 1, 5), date(2026, 1, 7)]
EMPTY = date(2026, 1, 6)  # the sample corpus has no file for it
NIGHT = date(2026, 1, 15)  # nor for this one
DAILY_ASSETS = ("articles_raw", "articles", "news_questions")


def _defs(root, corpus) -> dg.Definitions:
    storage = PastcastStorage(corpus_dir=str(corpus), work_dir=str(root / "work"),
                              snapshots_dir=str(root / "snapshots"), snapshot_name="t")
    return dg.Definitions(assets=defs.assets, asset_checks=defs.asset_checks, jobs=defs.jobs,
                          resources={**defs.resources, "storage": storage})


def _meta(event) -> dict:
    return {k: v.value for k, v in event.metadata.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A range of three days, the middle one without a file, as one run; then the nightly run
    of a day without a file."""
    root = tmp_path_factory.mktemp("partitions")
    corpus = make_corpus(root, WITH_FILES)
    news = _defs(root, corpus).resolve_job_def("build_news")
    with dg.DagsterInstance.ephemeral() as instance:
        mixed = news.execute_in_process(instance=instance, tags={RANGE_START: WITH_FILES[0].isoformat(),
                                                                 RANGE_END: WITH_FILES[-1].isoformat()})
        assert mixed.success
        after_mixed = versions(root / "snapshots", "t")
        night = news.execute_in_process(instance=instance, partition_key=NIGHT.isoformat())
        assert night.success
        yield root, mixed, night, after_mixed


def test_each_partition_carries_its_own_days_counts_and_the_run_totals_only_under_run(runs):
    root, mixed, _, _ = runs
    events = {(e.asset_key.to_user_string(), e.partition): _meta(e.materialization)
              for e in mixed.get_asset_materialization_events() if e.partition}
    assert set(events) == {(a, d.isoformat()) for a in DAILY_ASSETS for d in (*WITH_FILES, EMPTY)}
    for stage, asset in (("ingest", "articles_raw"), ("dedup", "articles")):
        for d in WITH_FILES:
            meta, report = events[(asset, d.isoformat())], read_day_report(root / "work", d, stage)
            assert (meta["rows_in"], meta["rows_out"], meta["dagster/row_count"]) == (
                report["rows_in"], report["rows_out"], report["rows_out"]), (asset, d)
            assert "no_input" not in meta and meta["built_by_this_run"] is True
        totals = [events[(asset, d.isoformat())] for d in (*WITH_FILES, EMPTY)]
        assert {m["run/rows_out"] for m in totals} == {sum(m["rows_out"] for m in totals)}
        assert all(m["run/days"] == 3 for m in totals)
        # no day shows the run's totals under its own keys (each day with files has rows of its own)
        for m in totals[:2]:
            assert 0 < m["rows_in"] < m["run/rows_in"] and m["rows_out"] < m["run/rows_out"]
    assert events[("articles_raw", WITH_FILES[0].isoformat())]["warc_files"] == 1
    for asset in DAILY_ASSETS:  # the day without a file: materialized (one run), but empty and saying why
        meta = events[(asset, EMPTY.isoformat())]
        assert meta["dagster/row_count"] == 0 and meta["rows_out"] == 0, asset
        assert meta["no_input"].startswith(f"no WARC file for {EMPTY} in "), asset
    for d in WITH_FILES:  # the questions' partitions: the day's articles, not the run's
        meta = events[("news_questions", d.isoformat())]
        assert meta["articles"] == read_day_report(root / "work", d, "dedup")["rows_out"]


def test_a_range_with_a_day_without_files_builds_the_others_and_warns_once_for_it(runs):
    root, mixed, _, after_mixed = runs
    checks = {(c.asset_key.to_user_string(), c.check_name): c for c in mixed.get_asset_check_evaluations()}
    inputs = checks[("articles_raw", "input_files")]
    assert not inputs.passed and inputs.severity == dg.AssetCheckSeverity.WARN
    line = inputs.metadata["examples"].value
    assert inputs.metadata["problems"].value == 1
    assert line.startswith(f"{EMPTY}: no WARC file in ") and "nothing built for it" in line
    assert built_days(root / "work") == WITH_FILES and EMPTY in no_input_days(root / "work")
    # the checks agree with the partitions: the gap had no file, so no day is missing
    missing = checks[("snapshot", "no_missing_days")]
    assert missing.passed and missing.metadata["days_without_files"].value == EMPTY.isoformat()
    assert checks[("articles", "date_coverage")].passed
    manifest = read_manifest(root / "snapshots" / "t" / after_mixed[-1])
    assert manifest["partitions"]["daily"] == [d.isoformat() for d in WITH_FILES]


def test_the_nightly_run_of_a_day_without_files_materializes_nothing_and_warns(runs):
    root, _, night, after_mixed = runs
    assert not night.get_asset_materialization_events()  # no partition, no snapshot, no LATEST
    assert versions(root / "snapshots", "t") == after_mixed
    skipped = {e.step_key for e in night.all_events if e.event_type_value == "STEP_SKIPPED"}
    assert {"articles", "news_questions", "snapshot", "latest_snapshot"} <= skipped
    (seen,) = [e.asset_observation_data.asset_observation for e in night.all_events
               if e.event_type_value == "ASSET_OBSERVATION"]
    assert seen.asset_key == dg.AssetKey("articles_raw") and seen.partition == NIGHT.isoformat()
    assert seen.metadata["no_input"].value.startswith(f"no WARC file for {NIGHT} in ")
    checks = {c.check_name: c for c in night.get_asset_check_evaluations()}
    assert set(checks) == {"input_files", "drop_rates_in_usual_range"}  # Dagster wants both, the asset's
    assert checks["drop_rates_in_usual_range"].passed  # no day to judge
    check = checks["input_files"]
    assert not check.passed
    assert check.severity == dg.AssetCheckSeverity.WARN
    assert check.metadata["examples"].value.startswith(f"{NIGHT}: no WARC file in ")
    assert NIGHT not in built_days(root / "work") and NIGHT in no_input_days(root / "work")


def test_a_day_the_runs_days_tag_left_out_shows_itself_not_the_run(runs, tmp_path):
    """A landing run's range covers the gaps between its days: their partitions say what the
    day is (no file here), never the run's counts."""
    root = runs[0]
    shutil.copytree(root / "work", tmp_path / "work")
    local = _defs(tmp_path, root / "corpus")
    tags = {RANGE_START: "2026-01-07", RANGE_END: "2026-01-09", DAYS_TAG: "2026-01-07,2026-01-09"}
    with dg.DagsterInstance.ephemeral() as instance:
        result = dg.materialize(local.assets, selection=["articles_raw"], resources=local.resources,
                                instance=instance, tags=tags)
    events = {e.partition: _meta(e.materialization) for e in result.get_asset_materialization_events()}
    assert set(events) == {"2026-01-07", "2026-01-08", "2026-01-09"}
    gap, empty = events["2026-01-08"], events["2026-01-09"]
    assert gap["built_by_this_run"] is False and gap["no_input"].startswith("no WARC file for 2026-01-08 in ")
    assert gap["dagster/row_count"] == 0 and empty["dagster/row_count"] == 0 and empty["built_by_this_run"]
    assert events["2026-01-07"]["rows_out"] == read_day_report(tmp_path / "work", WITH_FILES[1], "ingest")["rows_out"]
    (inputs,) = [c for c in result.get_asset_check_evaluations() if c.check_name == "input_files"]
    assert inputs.metadata["problems"].value == 1  # the day asked for, not the gap
    assert inputs.metadata["examples"].value.startswith("2026-01-09: no WARC file in ")


def test_a_day_with_files_left_unbuilt_fails_no_missing_days(runs, tmp_path):
    root = runs[0]
    corpus = tmp_path / "corpus"
    shutil.copytree(root / "corpus", corpus)
    # a file for the empty day lands (a copy of another day's, renamed), and is not built yet
    source = next((corpus / "warc").glob("CC-NEWS-20260107*"))
    shutil.copy2(source, corpus / "warc" / "CC-NEWS-20260106120000-00099.warc.gz")
    check = stage_checks.missing_days(root / "work", CorpusFiles.discover(corpus).day_files.by_day)
    assert not check.passed
    assert check.problems == [f"{EMPTY}: has WARC files but is not built (the landing sensor or "
                              "build_news for the day builds it)"]
    assert check.metadata["days_without_files"] == ""


# -- date_coverage on a week of the sample ----------------------------------------------------------

WEEK = parse_days("2026-01-12..2026-01-18")  # 2026-01-15 has no file


@pytest.fixture(scope="module")
def week(tmp_path_factory):
    root = tmp_path_factory.mktemp("week")
    corpus = make_corpus(root, [d for d in WEEK if d != date(2026, 1, 15)])
    work = root / "work"
    files = sorted((corpus / "warc").iterdir())
    pipeline.ingest_news_days(files, work, WEEK, workers=1)
    pipeline.dedup_news_days(work, WEEK)
    pipeline.gather_news(work)
    return root, corpus, work


def test_date_coverage_passes_on_a_clean_build_of_small_days(week):
    """The sample's days carry a few articles each: a day all of whose one or two articles ran
    before, or a day of none where two are usual, is chance, not a broken crawl."""
    _, _, work = week
    check = stage_checks.date_coverage(work, WEEK)
    assert check.passed, check.problems
    all_copies = [d for d in built_days(work) if read_day_report(work, d, "dedup")["rows_out"] == 0]
    assert all_copies, "the week should hold a day whose articles all ran on an earlier day"
    assert "no_input" in check.per_day["2026-01-15"]  # not judged, not counted as usual


def test_date_coverage_fails_on_a_day_whose_articles_vanish(week, tmp_path):
    root, corpus, work = week
    copy = tmp_path / "work"
    shutil.copytree(work, copy)
    day = date(2026, 1, 19)
    when = datetime(2026, 1, 19, 6, tzinfo=timezone.utc)
    # a day's file whose pages all failed (the site answered 503): files, but no article
    lost = write_warc(tmp_path / "CC-NEWS-20260119060000-00099.warc.gz", [
        {"url": f"https://news.example/{n}", "html": "<html>busy</html>", "status": "503 Service Unavailable",
         "date": when} for n in range(5)])
    pipeline.ingest_news_days([lost], copy, [day], workers=1)
    pipeline.dedup_news_days(copy, [day])
    check = stage_checks.date_coverage(copy, [day])
    assert not check.passed and check.problems == [f"{day}: no articles (1 WARC files)"]


def test_a_big_day_of_copies_or_far_fewer_articles_than_usual_still_warns(tmp_path):
    from pastcast.daily import DayCounts, day_dir

    def day_of(d: date, ingested: int, kept: int) -> None:
        DayCounts("ingest", d, ingested, ingested, {}, {"warc_files": ["a.warc.gz"]}).save(tmp_path)
        DayCounts("dedup", d, ingested, kept, {"dedup/exact_duplicate": ingested - kept}).save(tmp_path)
        (day_dir(tmp_path, d) / "dedup").mkdir(parents=True)
        (day_dir(tmp_path, d) / "dedup" / "articles.parquet").touch()  # a built day (the history)

    days = parse_days("2026-03-01..2026-03-08")
    for d in days[:6]:
        day_of(d, 120, 100)
    day_of(days[6], 100, 0)  # a whole day re-sent: every article a copy
    day_of(days[7], 30, 20)  # a fifth of usual, well beyond chance
    check = stage_checks.date_coverage(tmp_path, days)
    assert check.problems == [f"{days[6]}: no new articles (its 100 were copies of earlier ones)",
                              f"{days[7]}: 20 articles, usual 100"]
    assert not stage_checks.far_below_usual(0, 2) and stage_checks.far_below_usual(20, 100)


# -- the window ------------------------------------------------------------------------------------

def test_a_versions_window_covers_the_crawl_days_it_was_built_from(week, tmp_path):
    _, _, work = week
    news = gathered_window(work)
    built = built_days(work)
    assert news[1] < built[-1], "the last day's articles should be published before their crawl day"
    start, end = snapshot_window(work)
    assert start <= built[0] and end == built[-1] and start == news[0]
    copy = tmp_path / "work"
    shutil.copytree(work, copy)
    manifest = read_manifest(pipeline.snapshot(copy, tmp_path / "snapshots", "t", [], publish=False))
    assert manifest["window"] == {"start": start.isoformat(), "end": built[-1].isoformat()}


def test_a_day_built_before_whose_files_are_gone_keeps_its_build(tmp_path):
    day = date(2026, 1, 7)
    corpus = make_corpus(tmp_path, [day])
    work = tmp_path / "work"
    files = sorted((corpus / "warc").iterdir())
    pipeline.ingest_news_days(files, work, [day], workers=1)
    before = read_day_report(work, day, "ingest")
    report = pipeline.ingest_news_days([], work, [day], workers=1, source=str(corpus / "warc"))
    assert "is kept" in report.extra["no_input"][day.isoformat()]
    assert read_day_report(work, day, "ingest") == before  # nothing rewritten
    check = stage_checks.input_files(report.extra["no_input"])
    assert not check.passed and check.problems[0].startswith(f"{day}: no WARC file in ")
    assert built_days(work) == [] or day in built_days(work)  # not turned into a day without input
    assert day not in no_input_days(work)
