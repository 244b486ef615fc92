"""pastcast.stage_checks: per-day warnings on drop rates and date coverage, judged against the
days built before, on report files written directly; and the warning on news questions all lost
to their window, on tables written directly."""

from datetime import date, timedelta

import polars as pl
import pytest

from pastcast.daily import DayCounts, day_dir
from pastcast.drops import Drop, drops_frame
from pastcast.schemas import ARTICLES, empty
from pastcast.stage_checks import (FIXED_MAX_DROP_RATE, MAD_WIDTH, MIN_HISTORY, MIN_ROWS, MIN_SPREAD,
                                   date_coverage, drop_rates_in_usual_range, news_questions_in_window,
                                   usual_range, window_gaps)

START = date(2026, 1, 1)


def day(n: int) -> date:
    return START + timedelta(days=n - 1)


def built(work, d: date) -> None:
    path = day_dir(work, d) / "dedup" / "articles.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    empty(ARTICLES).write_parquet(path)


def report(work, d: date, stage: str, rows_in: int, dropped: dict[str, int], build: bool = True, **extra):
    kept = rows_in - sum(dropped.values())
    DayCounts(stage, d, rows_in, kept, dropped, extra).save(work)
    if build:
        built(work, d)


# -- usual_range --------------------------------------------------------------------------

def test_usual_range_needs_history():
    assert usual_range([]) is None
    assert usual_range([0.2] * (MIN_HISTORY - 1)) is None
    assert usual_range([0.2] * MIN_HISTORY) is not None


def test_usual_range_is_median_plus_minus_mad():
    history = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]  # median 0.4, MAD 0.2
    low, high = usual_range(history)
    spread = MAD_WIDTH * 0.2 * 1.4826
    assert low == pytest.approx(0.4 - spread) and high == pytest.approx(0.4 + spread)


def test_usual_range_ignores_an_outlier_in_history():
    low, high = usual_range([0.2, 0.2, 0.21, 0.19, 0.2, 0.9])
    assert low < 0.2 < high < 0.3


def test_usual_range_never_narrower_than_min_spread():
    low, high = usual_range([0.2] * 10)  # MAD 0
    assert (low, high) == pytest.approx((0.2 - MIN_SPREAD, 0.2 + MIN_SPREAD))
    assert usual_range([0.2] * 10, min_spread=0.1) == pytest.approx((0.1, 0.3))


def test_usual_range_widens_to_sampling_noise_of_a_small_day():
    history = [0.2] * 10
    low, high = usual_range(history, rows=40)
    floor = MAD_WIDTH * (0.2 * 0.8 / 40) ** 0.5  # about 0.25
    assert (low, high) == pytest.approx((0.2 - floor, 0.2 + floor))
    assert usual_range(history, rows=100_000) == pytest.approx((0.15, 0.25))  # a big day: min spread
    low0, high0 = usual_range([0.0] * 10, rows=40)  # the rate is kept off 0 for the noise
    assert high0 == pytest.approx(MAD_WIDTH * (0.02 * 0.98 / 40) ** 0.5)
    assert usual_range(history, rows=0) == pytest.approx((0.15, 0.25))  # no size: no floor


# -- drop_rates_in_usual_range ---------------------------------------------------------------

RATES = [0.20, 0.21, 0.19, 0.20, 0.22, 0.18, 0.20, 0.21, 0.19, 0.20]


def _history(work, stage="ingest", rates=RATES, rows=1000):
    for n, rate in enumerate(rates, start=1):
        report(work, day(n), stage, rows, {"extract/too_short": round(rate * rows)})


@pytest.mark.parametrize("stage", ["ingest", "dedup"])
def test_a_day_far_above_its_usual_drop_rate_warns(tmp_path, stage):
    _history(tmp_path, stage)
    report(tmp_path, day(11), stage, 1000, {"extract/too_short": 600})
    check = drop_rates_in_usual_range(tmp_path, [day(n) for n in range(1, 12)], stage)
    assert not check.passed
    assert len(check.problems) == 1
    (problem,) = check.problems
    info = check.per_day["2026-01-11"]
    low, high = usual_range(RATES, 1000)
    assert info["learned"] is True and info["rate"] == 0.6
    assert (info["low"], info["high"]) == (round(low, 3), round(high, 3))
    assert problem.startswith("2026-01-11") and stage in problem and "60%" in problem
    assert f"{low:.0%}" in problem and f"{high:.0%}" in problem and f"{low:.0%}..{high:.0%}" in problem
    # the history days themselves were in range (each judged by the days before it)
    assert all(check.per_day[f"2026-01-{n:02d}"]["rate"] <= 0.22 for n in range(1, 11))


def test_a_day_far_below_its_usual_drop_rate_warns_too(tmp_path):
    _history(tmp_path)
    report(tmp_path, day(11), "ingest", 1000, {})
    check = drop_rates_in_usual_range(tmp_path, [day(11)], "ingest")
    assert not check.passed and check.problems[0].startswith("2026-01-11: ingest dropped 0%")


def test_five_points_of_noise_do_not_warn(tmp_path):
    _history(tmp_path)
    report(tmp_path, day(11), "ingest", 1000, {"extract/too_short": 250})
    report(tmp_path, day(12), "ingest", 1000, {"extract/too_short": 150})
    check = drop_rates_in_usual_range(tmp_path, [day(n) for n in range(1, 13)], "ingest")
    assert check.passed and check.problems == []
    assert check.per_day["2026-01-11"]["rate"] == 0.25 and check.per_day["2026-01-11"]["learned"]


def test_only_the_asked_days_are_judged(tmp_path):
    _history(tmp_path)
    report(tmp_path, day(11), "ingest", 1000, {"extract/too_short": 600})
    check = drop_rates_in_usual_range(tmp_path, [day(10)], "ingest")
    assert check.passed and list(check.per_day) == ["2026-01-10"]


def test_small_days_are_not_judged(tmp_path):
    _history(tmp_path)
    report(tmp_path, day(11), "ingest", MIN_ROWS - 1, {"extract/too_short": MIN_ROWS - 2})
    report(tmp_path, day(12), "ingest", 0, {})
    check = drop_rates_in_usual_range(tmp_path, [day(11), day(12)], "ingest")
    assert check.passed
    assert check.per_day["2026-01-11"] == {"rows": MIN_ROWS - 1, "judged": False}
    assert check.per_day["2026-01-12"]["judged"] is False


def test_small_days_do_not_count_as_history(tmp_path):
    for n in range(1, 11):  # tiny days that dropped everything
        report(tmp_path, day(n), "ingest", 10, {"extract/too_short": 10})
    report(tmp_path, day(11), "ingest", 1000, {"extract/too_short": 200})
    info = drop_rates_in_usual_range(tmp_path, [day(11)], "ingest").per_day["2026-01-11"]
    assert info["learned"] is False and info["high"] == FIXED_MAX_DROP_RATE


def test_fixed_bound_before_there_is_history(tmp_path):
    report(tmp_path, day(1), "ingest", 1000, {"read/not_html": 970})
    report(tmp_path, day(2), "ingest", 1000, {"read/not_html": 900})
    check = drop_rates_in_usual_range(tmp_path, [day(1), day(2)], "ingest")
    assert not check.passed
    assert len(check.problems) == 1 and check.problems[0].startswith("2026-01-01")
    assert "97%" in check.problems[0] and "0%..95%" in check.problems[0]
    assert check.per_day["2026-01-01"]["learned"] is False
    assert (check.per_day["2026-01-02"]["low"], check.per_day["2026-01-02"]["high"]) == (0.0, FIXED_MAX_DROP_RATE)


def test_history_needs_built_days(tmp_path):
    """Reports of days whose dedup never finished are not history."""
    for n, rate in enumerate(RATES, start=1):
        report(tmp_path, day(n), "ingest", 1000, {"extract/too_short": round(rate * 1000)}, build=False)
    report(tmp_path, day(11), "ingest", 1000, {"extract/too_short": 600})
    check = drop_rates_in_usual_range(tmp_path, [day(11)], "ingest")
    assert check.passed and check.per_day["2026-01-11"]["learned"] is False


def test_structural_records_are_not_drops(tmp_path):
    # 600 request/metadata records: the rate is 60 of the 400 content records
    report(tmp_path, day(1), "ingest", 1000, {"read/not_response": 600, "extract/no_date": 60})
    info = drop_rates_in_usual_range(tmp_path, [day(1)], "ingest").per_day["2026-01-01"]
    assert info["rows"] == 400 and info["rate"] == 0.15
    # a day that is mostly structural records is fine, not a 96% drop
    report(tmp_path, day(2), "ingest", 1000, {"read/not_response": 950, "extract/no_date": 2})
    check = drop_rates_in_usual_range(tmp_path, [day(2)], "ingest")
    assert check.passed and check.per_day["2026-01-02"]["rate"] == 0.04
    # ... and too few content records left is too small to judge
    report(tmp_path, day(3), "ingest", 1000, {"read/not_response": 990, "extract/no_date": 9})
    assert drop_rates_in_usual_range(tmp_path, [day(3)], "ingest").per_day["2026-01-03"] == {
        "rows": 10, "judged": False}


def test_days_without_a_report_are_skipped(tmp_path):
    check = drop_rates_in_usual_range(tmp_path, [day(1)], "dedup")
    assert check.passed and check.per_day == {} and check.problems == []


# -- date_coverage ------------------------------------------------------------------------

def _covered(work, d: date, articles: int, undated: int = 0, files=("a.warc.gz",)):
    report(work, d, "ingest", articles + undated, {"extract/no_date": undated} if undated else {},
           warc_files=list(files))
    report(work, d, "dedup", articles, {})


def test_coverage_of_usual_days_passes(tmp_path):
    for n in range(1, 8):
        _covered(tmp_path, day(n), 100 + n, undated=10)
    check = date_coverage(tmp_path, [day(n) for n in range(1, 8)])
    assert check.passed and check.problems == []
    info = check.per_day["2026-01-07"]
    assert info == {"articles": 107, "usual": 103.5, "warc_files": 1, "dated_share": round(107 / 117, 3)}
    assert check.per_day["2026-01-01"]["usual"] is None  # no history yet


def test_a_day_with_no_articles_warns(tmp_path):
    _covered(tmp_path, day(1), 0, files=("x.warc.gz", "y.warc.gz"))
    check = date_coverage(tmp_path, [day(1)])
    assert not check.passed
    assert check.problems == ["2026-01-01: no articles (2 WARC files)"]


def test_a_day_far_below_the_usual_median_warns(tmp_path):
    for n in range(1, 7):
        _covered(tmp_path, day(n), 100)
    _covered(tmp_path, day(7), 20)
    _covered(tmp_path, day(8), 30)  # above a quarter of usual
    check = date_coverage(tmp_path, [day(7), day(8)])
    assert check.problems == ["2026-01-07: 20 articles, usual 100"]
    assert check.per_day["2026-01-08"]["usual"] == 100  # the low day 7 barely moves the median


def test_a_day_where_most_pages_had_no_date_warns(tmp_path):
    _covered(tmp_path, day(1), 40, undated=60)
    _covered(tmp_path, day(2), 60, undated=40)
    check = date_coverage(tmp_path, [day(1), day(2)])
    assert check.problems == ["2026-01-01: only 40% of pages carried a publication date"]
    assert check.per_day["2026-01-01"]["dated_share"] == 0.4


def test_pages_dated_only_by_their_crawl_count_as_undated(tmp_path):
    report(tmp_path, day(1), "ingest", 100, {}, warc_files=["a.warc.gz"],
           date_sources={"meta": 30, "crawl": 70})
    report(tmp_path, day(1), "dedup", 100, {})
    check = date_coverage(tmp_path, [day(1)])
    assert check.per_day["2026-01-01"]["dated_share"] == 0.3
    assert check.problems == ["2026-01-01: only 30% of pages carried a publication date"]


def test_an_unbuilt_day_is_reported(tmp_path):
    _covered(tmp_path, day(1), 100)
    report(tmp_path, day(3), "ingest", 100, {}, build=False)  # ingested, not deduplicated
    check = date_coverage(tmp_path, [day(1), day(2), day(3)])
    assert check.problems == ["2026-01-02: not built", "2026-01-03: not built"]
    assert list(check.per_day) == ["2026-01-01"]


def test_an_empty_day_without_pages_has_no_dated_share(tmp_path):
    _covered(tmp_path, day(1), 0, files=())
    check = date_coverage(tmp_path, [day(1)])
    assert check.per_day["2026-01-01"]["dated_share"] is None
    assert check.problems == ["2026-01-01: no articles (0 WARC files)"]


# -- window_gaps --------------------------------------------------------------------------

def test_window_gaps():
    assert window_gaps([]) == []
    assert window_gaps([day(3)]) == []
    assert window_gaps([day(1), day(2), day(3)]) == []
    assert window_gaps([day(7), day(1), day(2), day(5), day(2)]) == [day(3), day(4), day(6)]
    assert window_gaps([date(2025, 12, 30), date(2026, 1, 2)]) == [date(2025, 12, 31), date(2026, 1, 1)]


# -- news_questions_in_window --------------------------------------------------------------

def _candidates(work, news: int, market: int = 0, kept_news: int = 0, kept_market: int = 0) -> None:
    """question_candidates and questions tables: ids n0.. for news, m0.. for markets."""
    from pastcast.schemas import QUESTIONS, complete

    def table(n_news: int, n_market: int):
        ids = [f"n{i}" for i in range(n_news)] + [f"m{i}" for i in range(n_market)]
        return complete(pl.DataFrame({"question_id": ids, "source_kind": ["news"] * n_news + ["market"] * n_market},
                                     schema={"question_id": pl.String, "source_kind": pl.String}), QUESTIONS)

    table(news, market).write_parquet(work / "question_candidates.parquet")
    table(kept_news, kept_market).write_parquet(work / "questions.parquet")


def _filter_drops(work, drops: list[tuple[str, str, str]]) -> None:
    (work / "drops").mkdir(exist_ok=True)
    drops_frame([Drop(item, "question", stage, reason) for item, stage, reason in drops]).write_parquet(
        work / "drops" / "filter.parquet")


def _generator_drops(work, d: date, reasons: dict[str, int]) -> None:
    folder = work / "questions" / "news" / f"day={d.isoformat()}"
    folder.mkdir(parents=True)
    drops_frame([Drop(f"a{d}-{reason}-{i}", "article", "generate", reason)
                 for reason, n in reasons.items() for i in range(n)]).write_parquet(folder / "drops.parquet")


def test_news_lost_to_its_window_warns_with_the_reasons_and_counts(tmp_path):
    _generator_drops(tmp_path, day(1), {"short_window": 3, "no_outcome_report": 50})  # articles: not candidates
    _generator_drops(tmp_path, day(2), {"short_window": 2})
    _candidates(tmp_path, news=2, market=4, kept_market=4)
    _filter_drops(tmp_path, [("n0", "validate", "outside_window"), ("n1", "validate", "short_window")])
    check = news_questions_in_window(tmp_path)
    assert not check.passed and len(check.problems) == 1
    problem = check.problems[0]
    assert problem.startswith("7 news candidate questions, none kept: 1 outside_window, 6 short_window (")
    assert "crawl days" in problem and "for other reasons" not in problem
    assert check.per_day == {"2026-01-01": {"short_window": 3}, "2026-01-02": {"short_window": 2}}


def test_news_lost_mostly_to_its_window_names_the_other_reasons_too(tmp_path):
    _generator_drops(tmp_path, day(1), {"short_window": 3})
    _candidates(tmp_path, news=1)
    _filter_drops(tmp_path, [("n0", "leakage", "self_leak")])
    check = news_questions_in_window(tmp_path)
    assert not check.passed and "4 news candidate questions, none kept: 3 short_window, 1 for other reasons" \
        in check.problems[0]


@pytest.mark.parametrize("case", ["some_news_kept", "mostly_other_reasons", "market_windows", "no_news", "nothing"])
def test_news_window_check_passes_otherwise(tmp_path, case):
    if case == "some_news_kept":  # a short window at the start of a corpus is normal
        _generator_drops(tmp_path, day(1), {"short_window": 5})
        _candidates(tmp_path, news=3, kept_news=1)
        _filter_drops(tmp_path, [("n1", "validate", "short_window"), ("n2", "validate", "outside_window")])
    elif case == "mostly_other_reasons":
        _generator_drops(tmp_path, day(1), {"short_window": 1})
        _candidates(tmp_path, news=3)
        _filter_drops(tmp_path, [(f"n{i}", "dedup", "duplicate_question") for i in range(3)])
    elif case == "market_windows":  # market questions lost to their window are not the news's
        _candidates(tmp_path, news=0, market=3)
        _filter_drops(tmp_path, [(f"m{i}", "validate", "outside_window") for i in range(3)])
    elif case == "no_news":
        _generator_drops(tmp_path, day(1), {"no_outcome_report": 40})
        _candidates(tmp_path, news=0, market=2, kept_market=2)
    check = news_questions_in_window(tmp_path)
    assert check.passed and check.problems == []
