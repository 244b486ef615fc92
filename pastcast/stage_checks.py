"""Warning checks on the daily stages: is each day covered, and are its drop rates in their
usual range? "Usual" is learned from the days built before it (median and median absolute
deviation of up to ``HISTORY_DAYS`` earlier days); until enough history exists, fixed bounds
apply. And on the questions: did the news give candidates only to lose them all to their window
(a sign of wrong crawl days)? These warn, they do not block: a quiet news day is real, a broken
crawl looks alike.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

import polars as pl

from pastcast.daily import KEPT, NO_INPUT, built_days, no_input_days, read_day_report
from pastcast.pipeline import NEWS_QUESTIONS

HISTORY_DAYS = 28
MIN_HISTORY = 5  # earlier days needed before the range is learned
MAD_WIDTH = 4.0  # robust standard deviations either side of the median
MIN_SPREAD = 0.05  # never narrower than this either side (rates)
FIXED_MAX_DROP_RATE = 0.95  # before there is history
MIN_ROWS = 30  # a day with fewer records (or articles) is too small to judge its drop rate
MIN_ARTICLE_SHARE = 0.25  # a day with fewer articles than this share of the usual median warns
STRUCTURAL = {"read/not_response"}  # request and metadata records: not content, not a drop rate


@dataclass
class StageCheck:
    passed: bool
    problems: list[str] = field(default_factory=list)
    per_day: dict[str, dict] = field(default_factory=dict)
    metadata: dict = field(default_factory=dict)  # more to show beside the problems (plain values)


def usual_range(history: list[float], rows: int | None = None,
                min_spread: float = MIN_SPREAD) -> tuple[float, float] | None:
    """(low, high) around the median of ``history``; None when it is too short to learn from.
    With ``rows`` (the day's size), never narrower than the day's own sampling noise."""
    if len(history) < MIN_HISTORY:
        return None
    median = statistics.median(history)
    mad = statistics.median(abs(v - median) for v in history) * 1.4826
    spread = max(MAD_WIDTH * mad, min_spread)
    if rows:
        p = min(max(median, 0.02), 0.98)
        spread = max(spread, MAD_WIDTH * (p * (1 - p) / rows) ** 0.5)
    return median - spread, median + spread


def _rows_and_rate(report: dict) -> tuple[int, float | None]:
    structural = sum(n for reason, n in report["drops"].items() if reason in STRUCTURAL)
    seen = report["rows_in"] - structural
    if seen <= 0:
        return 0, None
    return seen, (sum(report["drops"].values()) - structural) / seen


def drop_rate(report: dict) -> float | None:
    """Share of a day's records dropped, structural records aside; None for a day too small."""
    rows, rate = _rows_and_rate(report)
    return rate if rows >= MIN_ROWS else None


def _history(work_dir: Path, built: list[date], day: date, stage: str, value) -> list[float]:
    earlier = [d for d in built if day - timedelta(days=HISTORY_DAYS) <= d < day]
    values = []
    for d in earlier:
        report = read_day_report(work_dir, d, stage)
        v = value(report) if report else None
        if v is not None:
            values.append(v)
    return values


def drop_rates_in_usual_range(work_dir: Path, days: Iterable[date], stage: str) -> StageCheck:
    """Each day's drop rate at ``stage`` (ingest or dedup) against the days before it."""
    check, built = StageCheck(True), built_days(work_dir)
    for day in sorted(set(days)):
        report = read_day_report(work_dir, day, stage)
        if report is None:
            continue
        rows, rate = _rows_and_rate(report)
        if rate is None or rows < MIN_ROWS:
            check.per_day[day.isoformat()] = {"rows": rows, "judged": False}
            continue
        bounds = usual_range(_history(work_dir, built, day, stage, drop_rate), rows)
        low, high = bounds if bounds else (0.0, FIXED_MAX_DROP_RATE)
        check.per_day[day.isoformat()] = {"rows": rows, "rate": round(rate, 3), "low": round(low, 3),
                                          "high": round(high, 3), "learned": bounds is not None}
        if not low <= rate <= high:
            check.problems.append(f"{day}: {stage} dropped {rate:.0%}, usual {max(low, 0):.0%}..{min(high, 1):.0%}")
    check.passed = not check.problems
    return check


def _kept(report: dict | None) -> float | None:
    return float(report["rows_out"]) if report else None


def far_below_usual(count: int, usual: float) -> bool:
    """A day's count is far below the usual median: under ``MIN_ARTICLE_SHARE`` of it, and by
    more than ``MAD_WIDTH`` times the count's own sampling noise (Poisson: the square root of
    the usual count). A few articles a day vary by about as many as they are, so a day of 0
    where 2 are usual is chance; a day of 200 where 1,000 are usual is not."""
    return count < MIN_ARTICLE_SHARE * usual and usual - count > MAD_WIDTH * usual ** 0.5


def date_coverage(work_dir: Path, days: Iterable[date]) -> StageCheck:
    """Every day has articles after dedup, not far fewer than usual, and most of them dated from
    the page (not only from the crawl time). A day asked for that had no WARC file is not judged
    here (the ``input_files`` check says so), nor counted in what is usual."""
    check, built = StageCheck(True), built_days(work_dir)
    for day in sorted(set(days)):
        dedup = read_day_report(work_dir, day, "dedup")
        ingest = read_day_report(work_dir, day, "ingest")
        if ingest is not None and ingest.get(NO_INPUT):
            check.per_day[day.isoformat()] = {"articles": 0, NO_INPUT: ingest[NO_INPUT]}
            continue
        if dedup is None or ingest is None:
            check.problems.append(f"{day}: not built")
            continue
        articles = dedup["rows_out"]
        history = _history(work_dir, built, day, "dedup", _kept)
        usual = statistics.median(history) if len(history) >= MIN_HISTORY else None
        # undated pages: dropped (--undated drop) or kept dated by their crawl
        dropped_undated = ingest["drops"].get("extract/no_date", 0) + ingest["drops"].get("extract/implausible_date", 0)
        crawl_dated = ingest.get("date_sources", {}).get("crawl") or 0
        pages = ingest["rows_out"] + dropped_undated
        dated_share = (ingest["rows_out"] - crawl_dated) / pages if pages else None
        files = len(ingest.get("warc_files", []))
        check.per_day[day.isoformat()] = {"articles": articles, "usual": usual, "warc_files": files,
                                          "dated_share": round(dated_share, 3) if dated_share is not None else None}
        if articles == 0 and ingest["rows_out"] >= MIN_ROWS:
            # every article a copy of an earlier day's: a day re-sent, not news; a day of a few
            # articles that all ran before is too small to tell (the dedup drop-rate check's bound)
            check.problems.append(f"{day}: no new articles (its {ingest['rows_out']} were copies of earlier ones)")
        elif ingest["rows_out"] == 0:
            # files that gave nothing at all: broken files or extraction, whatever the day's size
            check.problems.append(f"{day}: no articles ({files} WARC files)")
        elif usual and far_below_usual(articles, usual):
            check.problems.append(f"{day}: {articles} articles, usual {usual:.0f}")
        if dated_share is not None and pages >= MIN_ROWS and dated_share < 0.5:
            check.problems.append(f"{day}: only {dated_share:.0%} of pages carried a publication date")
    check.passed = not check.problems
    return check


def input_files(no_input: dict[str, str]) -> StageCheck:
    """Every day the run was asked to build has WARC files: a day without any is not built (an
    empty partition), one line a day says so and what to do."""
    check = StageCheck(True, per_day={day: {NO_INPUT: reason} for day, reason in sorted(no_input.items())})
    for day, reason in sorted(no_input.items()):
        reason = reason.removeprefix(f"no WARC file for {day} ")
        if KEPT in reason:  # files gone from a day built before: the reason says what to do
            check.problems.append(f"{day}: no WARC file {reason}")
        else:
            check.problems.append(f"{day}: no WARC file {reason}; nothing built for it. Land its files "
                                  "(the landing sensor builds them) or ignore the day")
    check.passed = not check.problems
    return check


def missing_days(work_dir: Path, days_with_files: Iterable[date]) -> StageCheck:
    """Every day between the first and last built day that has WARC files is built. A day with
    no file in the corpus (never asked for, or asked for and found empty) is no gap: it is
    listed (``days_without_files``), the check passes for it."""
    work_dir = Path(work_dir)
    gaps, with_files = window_gaps(built_days(work_dir)), set(days_with_files)
    asked = no_input_days(work_dir)
    check = StageCheck(True)
    without = [d for d in gaps if d not in with_files]
    for d in gaps:
        if d in with_files:
            check.problems.append(f"{d}: has WARC files but is not built (the landing sensor or "
                                  f"build_news for the day builds it)")
            check.per_day[d.isoformat()] = {"files": True}
        else:
            check.per_day[d.isoformat()] = {"files": False, "asked_for": d in asked}
    check.metadata = {"days_without_files": ", ".join(map(str, without)), "days_not_built": len(check.problems)}
    check.passed = not check.problems
    return check


def window_gaps(days: Iterable[date]) -> list[date]:
    """Days missing between the first and last built day."""
    days = sorted(set(days))
    if not days:
        return []
    have = set(days)
    return [days[0] + timedelta(n) for n in range((days[-1] - days[0]).days) if days[0] + timedelta(n) not in have]


# -- news questions lost to their window ----------------------------------------------------

WINDOW_REASONS = ("short_window", "outside_window")  # a question's window, empty or outside the corpus's
WINDOW_SHARE = 0.5  # warn when at least this share of the news candidates fell to window reasons
WINDOW_HINT = ("their window is empty or outside the articles' dates: are the crawl days right? A news "
               "question opens no earlier than the first crawl day built; see docs/crawl-days.md")


def _news_candidates(work_dir: Path) -> pl.LazyFrame:
    """The question ids of the news candidates the filter read."""
    path = work_dir / "question_candidates.parquet"
    if not path.is_file():
        return pl.LazyFrame(schema={"question_id": pl.String})
    return pl.scan_parquet(path).filter(pl.col("source_kind") == "news").select("question_id")


def _generator_window_drops(work_dir: Path) -> pl.DataFrame:
    """(day, reason, n): candidates each crawl day's news generator dropped for their window."""
    files = sorted(str(p) for p in (work_dir / NEWS_QUESTIONS).glob("day=*/drops.parquet"))
    if not files:
        return pl.DataFrame(schema={"day": pl.String, "reason": pl.String, "n": pl.UInt32})
    return (pl.scan_parquet(files, hive_partitioning=False, include_file_paths="_file")
            .select("reason", "_file").filter(pl.col("reason").is_in(WINDOW_REASONS))
            .group_by(pl.col("_file").str.extract(r"day=(\d{4}-\d{2}-\d{2})").alias("day"), "reason")
            .agg(pl.len().alias("n")).sort("day", "reason").collect())


def _filter_window_drops(work_dir: Path, news: pl.LazyFrame) -> dict[str, int]:
    """News candidates the filter's validate step dropped for their window, by reason."""
    path = work_dir / "drops" / "filter.parquet"
    if not path.is_file():
        return {}
    dropped = (pl.scan_parquet(path).filter((pl.col("stage") == "validate") & pl.col("reason").is_in(WINDOW_REASONS))
               .select("item_id", "reason")
               .join(news.select(pl.col("question_id").alias("item_id")), on="item_id", how="semi"))
    return dict(dropped.group_by("reason").len().collect().iter_rows())


def _count(frame: pl.LazyFrame) -> int:
    return frame.select(pl.len()).collect().item()


def news_questions_in_window(work_dir: Path) -> StageCheck:
    """News that produced candidate questions but kept none, most of them dropped because their
    window was empty or outside the corpus's (the generator's or the filter's ``short_window``,
    the filter's ``outside_window``): a sign the crawl days are wrong, not a quiet day. Reads
    only the reason and id columns (lazily), so it stays cheap on a year of days."""
    work_dir = Path(work_dir)
    by_day = _generator_window_drops(work_dir)
    news = _news_candidates(work_dir)
    window = dict(by_day.group_by("reason").agg(pl.col("n").sum()).iter_rows())
    for reason, n in _filter_window_drops(work_dir, news).items():
        window[reason] = window.get(reason, 0) + n
    candidates = int(by_day["n"].sum()) + _count(news)  # the generator's window drops never reached the filter
    questions = work_dir / "questions.parquet"
    kept = _count(pl.scan_parquet(questions).filter(pl.col("source_kind") == "news")) if questions.is_file() else 0
    lost = sum(window.values())
    per_day = {}
    for day, reason, n in by_day.iter_rows():
        per_day.setdefault(day, {})[reason] = n
    check = StageCheck(True, per_day=per_day)
    if kept == 0 and lost and lost >= WINDOW_SHARE * candidates:
        reasons = ", ".join(f"{n} {reason}" for reason, n in sorted(window.items()))
        other = f", {candidates - lost} for other reasons" if candidates > lost else ""
        check.problems.append(f"{candidates} news candidate questions, none kept: {reasons}{other} ({WINDOW_HINT})")
    check.passed = not check.problems
    return check
