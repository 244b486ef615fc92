"""pastcast.daily: dating WARC files by crawl day, grouping them, and building days one by one
(ingest, dedup against the days before, gather) in any order."""

import json
import os
import random
from datetime import date, datetime, timezone
from io import BytesIO

import polars as pl
import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from pastcast.daily import scan_gathered, built_days, day_dir, dedup_days, gather_articles, ingest_days, no_input_days, read_day_report
from pastcast.sources.crawl_days import DayFiles, as_ranges, contiguous, days_to_build, files_digest, warc_day
from pastcast.schemas import ARTICLES
from warcs import article_html, write_warc

D1, D2, D3 = date(2026, 1, 5), date(2026, 1, 6), date(2026, 1, 7)


def _raw_warc(path, warc_date: str):
    """One response record whose WARC-Date header is written verbatim (write_warc always
    writes ...Z from the datetime's wall-clock fields)."""
    body = b"<html><body><p>hello</p></body></html>"
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=str(path).endswith(".gz"))
        headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
        writer.write_record(writer.create_warc_record(
            "https://news.example/x", "response", payload=BytesIO(body), http_headers=headers,
            warc_headers_dict={"WARC-Date": warc_date}))
    return path


def _page(url, crawled: datetime):
    return {"url": url, "html": "<html><body><p>hi</p></body></html>", "date": crawled}


# -- warc_day -----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["CC-NEWS-20260105074000-00000.warc.gz", "CC-NEWS-20260105074000-00012.warc",
                                  "CC-NEWS-20260105235959-00000.arc.gz"])
def test_cc_news_name_gives_the_day_without_opening_the_file(tmp_path, name):
    path = tmp_path / name  # does not even exist: the name is enough
    assert warc_day(path) == D1
    assert warc_day(str(path)) == D1


def test_cc_news_name_wins_over_the_record_date(tmp_path):
    path = write_warc(tmp_path / "CC-NEWS-20260105074000-00000.warc.gz",
                      [_page("https://a.example/1", datetime(2026, 3, 9, 12, tzinfo=timezone.utc))])
    assert warc_day(path) == D1


def test_other_name_is_dated_by_its_first_content_record(tmp_path):
    path = write_warc(tmp_path / "crawl.warc.gz", [
        _page("https://a.example/1", datetime(2026, 1, 5, 23, 30, tzinfo=timezone.utc)),
        _page("https://a.example/2", datetime(2026, 1, 9, 1, 0, tzinfo=timezone.utc))])
    assert warc_day(path) == D1


@pytest.mark.parametrize("suffix", ["warc", "warc.gz"])
@pytest.mark.parametrize("stamp, day", [
    ("2026-01-05T23:30:00Z", D1),
    ("2026-01-05T23:30:00+00:00", D1),
    ("2026-01-05T23:30:00+02:00", D1),  # 21:30 UTC
    ("2026-01-05T23:30:00-02:00", D2),  # 01:30 UTC the next day
    ("2026-01-06T00:30:00+02:00", D1),  # 22:30 UTC the day before
    ("2026-01-05T23:30:00", D1),  # no zone: read as UTC
])
def test_warc_date_is_taken_in_utc(tmp_path, suffix, stamp, day):
    path = _raw_warc(tmp_path / f"crawl.{suffix}", stamp)
    assert warc_day(path) == day


def test_non_warc_file_without_cc_news_name_is_a_value_error_naming_it(tmp_path):
    path = tmp_path / "garbage.warc.gz"
    path.write_bytes(b"this is not a warc file at all\n" * 20)
    try:
        got = warc_day(path)
    except ValueError as exc:
        assert "garbage.warc.gz" in str(exc)
    else:  # warcio's ARC reader takes the text line for an ARC header with an unparseable date
        pytest.fail(f"a text file with no CC-NEWS name was dated {got} instead of a ValueError")


def test_truncated_gzip_is_a_value_error_naming_it(tmp_path):
    path = tmp_path / "broken.warc.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00" + os.urandom(64))
    with pytest.raises(ValueError, match="broken.warc.gz"):
        warc_day(path)


def test_empty_file_is_a_value_error_naming_it(tmp_path):
    path = tmp_path / "empty.warc.gz"
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="empty.warc.gz"):
        warc_day(path)


def test_missing_file_without_cc_news_name_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="nope.warc.gz"):
        warc_day(tmp_path / "nope.warc.gz")


# -- DayFiles -----------------------------------------------------------------------------

def test_day_files_group_by_day_sorted_and_keep_undated_apart(tmp_path):
    names = ["CC-NEWS-20260107010000-00001.warc.gz", "CC-NEWS-20260105010000-00002.warc.gz",
             "CC-NEWS-20260107000000-00000.warc.gz", "CC-NEWS-20260105000000-00000.warc.gz"]
    for n in names:
        (tmp_path / n).write_bytes(b"")
    other = write_warc(tmp_path / "other.warc.gz",
                       [_page("https://a.example/1", datetime(2026, 1, 6, 3, tzinfo=timezone.utc))])
    bad = tmp_path / "bad.warc.gz"
    bad.write_bytes(b"not a warc\n" * 5)
    files = [tmp_path / n for n in names] + [bad, str(other)]
    grouped = DayFiles.of(files)
    assert grouped.days() == [D1, D2, D3]
    assert grouped.by_day[D1] == [tmp_path / "CC-NEWS-20260105000000-00000.warc.gz",
                                  tmp_path / "CC-NEWS-20260105010000-00002.warc.gz"]
    assert grouped.by_day[D2] == [other]
    assert grouped.by_day[D3] == [tmp_path / "CC-NEWS-20260107000000-00000.warc.gz",
                                  tmp_path / "CC-NEWS-20260107010000-00001.warc.gz"]
    assert list(grouped.undated) == [str(bad)]
    assert "bad.warc.gz" in grouped.undated[str(bad)]
    assert DayFiles.of(list(reversed(files))) == grouped


def test_day_files_of_nothing(tmp_path):
    grouped = DayFiles.of([])
    assert grouped.days() == [] and grouped.undated == {}


# -- files_digest, days_to_build ----------------------------------------------------------

def _files(tmp_path, n=3):
    out = []
    for i in range(n):
        p = tmp_path / f"CC-NEWS-2026010{5 + i}000000-00000.warc.gz"
        p.write_bytes(b"x" * (10 + i))
        os.utime(p, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
        out.append(p)
    return out


def test_files_digest_is_order_independent(tmp_path):
    files = _files(tmp_path)
    assert files_digest(files) == files_digest(list(reversed(files))) == files_digest(map(str, files))


def test_files_digest_changes_on_add_remove_size_and_mtime(tmp_path):
    files = _files(tmp_path)
    base = files_digest(files)
    extra = tmp_path / "CC-NEWS-20260110000000-00000.warc.gz"
    extra.write_bytes(b"y")
    assert files_digest(files + [extra]) != base
    assert files_digest(files[:2]) != base
    stat = files[0].stat()
    files[0].write_bytes(b"z" * (stat.st_size + 1))  # same mtime, other size
    os.utime(files[0], ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert files_digest(files) != base
    files[0].write_bytes(b"x" * stat.st_size)  # back to the same size ...
    os.utime(files[0], ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert files_digest(files) == base
    os.utime(files[0], ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000))  # ... touched
    assert files_digest(files) != base
    assert files_digest([]) == files_digest([])


def test_days_to_build_only_before_and_only_changed(tmp_path):
    a, b, c = _files(tmp_path)
    grouped = DayFiles({D1: [a], D2: [b], D3: [c]})
    assert days_to_build(grouped, {}, before=D3) == [D1, D2]  # D3 is not over yet
    assert days_to_build(grouped, {}, before=date(2026, 1, 8)) == [D1, D2, D3]
    assert days_to_build(grouped, {}, before=D1) == []
    built = {D1: files_digest([a]), D2: files_digest([b]), D3: files_digest([c])}
    assert days_to_build(grouped, built, before=date(2026, 2, 1)) == []
    built[D2] = "stale"
    assert days_to_build(grouped, built, before=date(2026, 2, 1)) == [D2]
    os.utime(a, ns=(0, 5_000_000_000))
    assert days_to_build(grouped, built, before=date(2026, 2, 1)) == [D1, D2]


# -- contiguous, as_ranges ----------------------------------------------------------------

def _d(n):
    return date(2026, 1, n)


def test_contiguous_runs():
    assert contiguous([]) == []
    assert contiguous([_d(5)]) == [(_d(5), _d(5))]
    assert contiguous([_d(9), _d(5), _d(6), _d(7), _d(12), _d(6), _d(5)]) == [
        (_d(5), _d(7)), (_d(9), _d(9)), (_d(12), _d(12))]
    assert contiguous([date(2025, 12, 31), date(2026, 1, 1)]) == [(date(2025, 12, 31), date(2026, 1, 1))]


def test_as_ranges():
    assert as_ranges([]) == []
    assert as_ranges([_d(12), _d(9), _d(5), _d(8), _d(5), _d(6), _d(7), _d(9)]) == [
        "2026-01-05..2026-01-09", "2026-01-12"]
    assert as_ranges([_d(3), _d(1)]) == ["2026-01-01", "2026-01-03"]


# -- building days: ingest, dedup, gather ----------------------------------------------------

WORDS = ("river market council budget school harbour train festival museum bridge election winter "
         "farmer orchard hospital stadium library theatre factory village mountain island weather "
         "season ferry tunnel garden castle airport workshop").split()


def _text(key: str) -> str:
    rnd = random.Random(key)
    return "\n\n".join(" ".join(rnd.choice(WORDS) for _ in range(40)).capitalize() + "." for _ in range(4))


def _article(key: str, crawl_day: date, published: str, url: str | None = None, hour: int = 8) -> dict:
    """A page dated by its article:published_time meta tag."""
    return {"url": url or f"https://news.example/{key}",
            "date": datetime(crawl_day.year, crawl_day.month, crawl_day.day, hour, tzinfo=timezone.utc),
            "html": article_html(f"Story {key}", _text(key),
                                 head=f'<meta property="article:published_time" content="{published}">')}


@pytest.fixture(scope="module")
def warc_dir(tmp_path_factory):
    """Day 1 and day 3 have files, day 2 none; day 3 carries a syndicated exact copy of day 1's
    story "alpha" (same page, another site)."""
    folder = tmp_path_factory.mktemp("warc")
    write_warc(folder / "CC-NEWS-20260105080000-00000.warc.gz", [
        _article("alpha", D1, "2026-01-05T07:00:00Z"), _article("bravo", D1, "2026-01-05T06:00:00Z")])
    write_warc(folder / "CC-NEWS-20260105200000-00001.warc.gz", [
        _article("charlie", D1, "2026-01-05T19:00:00Z", hour=20)])
    write_warc(folder / "CC-NEWS-20260107080000-00000.warc.gz", [
        _article("alpha", D3, "2026-01-05T07:00:00Z", url="https://copies.example/alpha"),
        _article("delta", D3, "2026-01-07T06:00:00Z"),
        {"url": "https://news.example/caption", "html": article_html(
            "Caption", "Photo: the harbour at dawn.",
            head='<meta property="article:published_time" content="2026-01-07T06:00:00Z">'),
         "date": datetime(2026, 1, 7, 9, tzinfo=timezone.utc)}])
    return folder


def _build(warc_dir, work, dedup_order=((D1, D2, D3),)):
    grouped = DayFiles.of(sorted(warc_dir.glob("*.warc.gz")))
    assert grouped.days() == [D1, D3]
    ingested = ingest_days(grouped, work, [D1, D2, D3], workers=1)
    deduped = [c for days in dedup_order for c in dedup_days(work, days)]
    return grouped, ingested, deduped


def _read(work, day, stage, table):
    return pl.read_parquet(day_dir(work, day) / stage / f"{table}.parquet")


def test_ingest_writes_each_days_tables_and_reports(warc_dir, tmp_path):
    work = tmp_path / "work"
    grouped, ingested, _ = _build(warc_dir, work)
    assert [(c.day, c.rows_in, c.rows_out) for c in ingested] == [(D1, 3, 3), (D2, 0, 0), (D3, 3, 2)]
    assert ingested[2].drops == {"extract/too_short": 1}
    assert read_day_report(work, D3, "ingest")["date_sources"] == {"meta": 2}
    assert sorted(_read(work, D1, "ingest", "articles")["url"]) == [
        "https://news.example/alpha", "https://news.example/bravo", "https://news.example/charlie"]
    report = read_day_report(work, D1, "ingest")
    assert report["rows_in"] == 3 and report["rows_out"] == 3 and report["day"] == "2026-01-05"
    assert report["warc_files"] == [f.name for f in grouped.by_day[D1]]
    assert report["files_digest"] == files_digest(grouped.by_day[D1])
    assert report["date_sources"] == {"meta": 3}


def test_day_without_files_gets_empty_tables_and_a_no_input_report(warc_dir, tmp_path):
    work = tmp_path / "work"
    _build(warc_dir, work)
    for stage in ("ingest", "dedup"):
        articles = _read(work, D2, stage, "articles")
        assert articles.height == 0 and articles.schema == pl.Schema(ARTICLES)
        assert _read(work, D2, stage, "drops").height == 0
        report = json.loads((day_dir(work, D2) / "reports" / f"{stage}.json").read_text())
        assert (report["rows_in"], report["rows_out"], report["drops"]) == (0, 0, {})
    assert read_day_report(work, D2, "ingest")["warc_files"] == []
    # flagged: the day was asked for and had no file, so it is not a built day
    for stage in ("ingest", "dedup"):
        assert "no WARC file for 2026-01-06" in read_day_report(work, D2, stage)["no_input"]
    assert D2 not in built_days(work) and list(no_input_days(work)) == [D2]


def test_copy_of_an_earlier_day_is_dropped_on_the_later_day(warc_dir, tmp_path):
    work = tmp_path / "work"
    _, _, deduped = _build(warc_dir, work)
    by_day = {c.day: c for c in deduped}
    assert by_day[D1].drops == {} and by_day[D1].rows_out == 3
    assert by_day[D3].drops == {"dedup/exact_duplicate": 1} and by_day[D3].rows_out == 1
    assert read_day_report(work, D3, "dedup")["drops"] == {"dedup/exact_duplicate": 1}
    assert _read(work, D3, "dedup", "articles")["url"].to_list() == ["https://news.example/delta"]
    gathered = gather_articles(work)
    table = pl.read_parquet(gathered.articles_path)
    assert gathered.days == [D1, D3]  # D2 had no file: not a built day
    assert (gathered.rows_in, gathered.rows_out, gathered.displaced) == (4, 4, 0)
    assert sorted(table["url"]) == ["https://news.example/alpha", "https://news.example/bravo",
                                    "https://news.example/charlie", "https://news.example/delta"]
    assert table["article_id"].is_unique().all()


def test_reverse_build_order_still_keeps_the_earliest_copy(warc_dir, tmp_path):
    work = tmp_path / "work"
    _, _, deduped = _build(warc_dir, work, dedup_order=((D3,), (D1,), (D2,)))
    by_day = {c.day: c for c in deduped}
    assert by_day[D3].drops == {} and by_day[D3].rows_out == 2  # nothing before it yet
    assert by_day[D1].drops == {"dedup/superseded": 1} and by_day[D1].rows_out == 3
    gathered = gather_articles(work)
    table = pl.read_parquet(gathered.articles_path)
    assert (gathered.rows_in, gathered.rows_out, gathered.displaced) == (5, 4, 1)
    alpha = table.filter(pl.col("title") == "Story alpha")
    assert alpha["url"].to_list() == ["https://news.example/alpha"]
    assert alpha["crawled_at"].dt.date().to_list() == [D1]
    assert "https://copies.example/alpha" not in table["url"].to_list()
    assert table["article_id"].is_unique().all() and table.schema == pl.Schema(ARTICLES)


def test_rebuilding_a_day_replays_the_same_outputs(warc_dir, tmp_path):
    work = tmp_path / "work"
    _build(warc_dir, work)
    tables = [(d, s, t) for d in (D1, D2, D3) for s in ("ingest", "dedup") for t in ("articles", "drops")]
    before = {key: _read(work, *key) for key in tables}
    reports = {(d, s): read_day_report(work, d, s) for d in (D1, D2, D3) for s in ("ingest", "dedup")}
    gathered = pl.read_parquet(gather_articles(work).articles_path)

    grouped = DayFiles.of(sorted(warc_dir.glob("*.warc.gz")))
    again = ingest_days(grouped, work, [D3], workers=1) + dedup_days(work, [D3])  # the last day again
    assert [(c.rows_in, c.rows_out, c.drops) for c in again] == [
        (reports[(D3, s)]["rows_in"], reports[(D3, s)]["rows_out"], reports[(D3, s)]["drops"])
        for s in ("ingest", "dedup")]
    for key in tables:
        assert _read(work, *key).equals(before[key]), key
    regathered = gather_articles(work)
    assert pl.read_parquet(regathered.articles_path).equals(gathered)
    assert regathered.displaced == 0

    # every day again, out of order: the same keep/drop decisions (an earlier day's cluster
    # sizes may grow with copies found on later days)
    _build(warc_dir, work, dedup_order=((D3,), (D1, D2)))
    for d in (D1, D2, D3):
        for s in ("ingest", "dedup"):
            assert _read(work, d, s, "articles")["article_id"].to_list() == \
                before[(d, s, "articles")]["article_id"].to_list(), (d, s)
            assert _read(work, d, s, "drops").equals(before[(d, s, "drops")]), (d, s)
            report = read_day_report(work, d, s)
            assert (report["rows_in"], report["rows_out"], report["drops"]) == (
                reports[(d, s)]["rows_in"], reports[(d, s)]["rows_out"], reports[(d, s)]["drops"]), (d, s)
    alpha = _read(work, D1, "dedup", "articles").filter(pl.col("title") == "Story alpha")
    assert alpha["dup_count"].to_list() == [2]
    assert alpha["dup_domains"].to_list() == [["copies.example", "news.example"]]
    assert pl.read_parquet(gather_articles(work).articles_path)["article_id"].sort().equals(
        gathered["article_id"].sort())


def test_dedup_of_a_day_never_ingested_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="2026-01-05"):
        dedup_days(tmp_path, [D1])


def test_gather_with_no_built_day_is_an_empty_table(tmp_path):
    gathered = gather_articles(tmp_path)
    assert (gathered.days, gathered.rows_in, gathered.rows_out, gathered.displaced) == ([], 0, 0, 0)
    assert scan_gathered(tmp_path).collect().schema == pl.Schema(ARTICLES)


def test_a_day_added_to_days_built_before_newer_columns_gathers_them_as_nulls(warc_dir, tmp_path):
    """A working folder of an earlier version: its days' tables lack the publisher's day and
    offset; adding a day must not need a rebuild of the old ones."""
    work = tmp_path / "work"
    _build(warc_dir, work)
    old = day_dir(work, D1) / "dedup" / "articles.parquet"
    pl.read_parquet(old).drop("published_local_date", "published_utc_offset_minutes").write_parquet(old)
    table = pl.read_parquet(gather_articles(work).articles_path)
    assert table.schema == pl.Schema(ARTICLES) and table.height == 4
    by_url = {r["url"]: r for r in table.iter_rows(named=True)}
    assert by_url["https://news.example/alpha"]["published_local_date"] is None  # the old day
    assert by_url["https://news.example/delta"]["published_local_date"] == D3  # the new day


def test_question_days_of_an_earlier_version_gather_with_newer_columns_as_nulls(tmp_path):
    from evalkit import question
    from pastcast import pipeline
    from pastcast.schemas import QUESTIONS, frame

    work = tmp_path / "work"
    old_day, new_day = work / "questions" / "news" / "day=2026-01-05", work / "questions" / "news" / "day=2026-01-06"
    for folder in (old_day, new_day):
        folder.mkdir(parents=True)
    q = question("q-old", "Who will win the Brennick vote in 2026?", "Ana Ruiz", "2026-01-05", "2026-02-05")
    frame([q], QUESTIONS).drop("answer_type_original").write_parquet(old_day / "questions.parquet")
    new = question("q-new", "Who will win the Saltmere vote in 2026?", "Bo Lind", "2026-01-06", "2026-02-06",
                   answer_type="organisation", answer_type_original="organization")
    frame([new], QUESTIONS).write_parquet(new_day / "questions.parquet")
    pipeline.gather_candidates(work)
    got = pl.read_parquet(work / "question_candidates.parquet")
    assert got.schema == pl.Schema(QUESTIONS)
    assert dict(got.select("question_id", "answer_type_original").iter_rows()) == {"q-old": None, "q-new": "organization"}
