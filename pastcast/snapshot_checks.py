"""The blocking checks on a snapshot version: LATEST moves to a version only when all pass.

Each check reads the version's own files (never the working folder), so it judges exactly what
users will download. Dagster runs them as blocking asset checks; ``pastcast build`` and
``pastcast snapshot check`` run the same functions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import polars as pl

from pastcast.questions.filter import revision_problems, snapshot_leaks
from pastcast.questions.markets import market_question_problems
from pastcast.schemas import ADDED_LATER, TABLES
from pastcast.snapshot import publish_version, read_manifest, verify

EXAMPLES = 5
CRAWL_SLACK = timedelta(days=1)  # timezones east of UTC: a page may be dated a day after its crawl
ID_COLUMNS = {"articles": "article_id", "questions": "question_id", "markets": "market_id", "posts": "post_id"}


@dataclass
class CheckOutcome:
    name: str
    passed: bool
    problems: int = 0
    examples: list[str] = field(default_factory=list)
    metadata: dict = field(default_factory=dict)

    @classmethod
    def of(cls, name: str, problems: list[str], **metadata) -> CheckOutcome:
        return cls(name, not problems, len(problems), problems[:EXAMPLES], metadata)

    def as_dict(self) -> dict:
        return {"passed": self.passed, "problems": self.problems, "examples": self.examples, **self.metadata}


def _read(folder: Path, table: str, columns: list[str] | None = None) -> pl.DataFrame:
    return pl.read_parquet(folder / f"{table}.parquet", columns=columns)


def manifest_matches_files(folder: Path) -> CheckOutcome:
    """Every table's row count and sha256 match the manifest, and its columns and types match
    the declared schema."""
    problems = verify(folder)
    for table, info in read_manifest(folder)["tables"].items():
        path = folder / info["file"]
        if not path.is_file() or table not in TABLES:
            continue
        found = pl.read_parquet_schema(path)
        want = dict(TABLES[table])
        if list(found) != list(want):  # a snapshot written before columns were added lacks them
            want = {c: t for c, t in want.items() if c in found or c not in ADDED_LATER.get(table, ())}
        if list(found) != list(want):
            problems.append(f"{table}: columns {list(found)} differ from the schema {list(want)}")
        else:
            wrong = [c for c, t in want.items() if found[c] != t]
            problems += [f"{table}.{c}: type {found[c]}, schema says {want[c]}" for c in wrong]
    return CheckOutcome.of("manifest_matches_files", problems)


def no_answer_in_own_text(folder: Path) -> CheckOutcome:
    leaks = snapshot_leaks(_read(folder, "questions"))["self"]
    return CheckOutcome.of("no_answer_in_own_text", leaks)


def no_answer_in_other_questions(folder: Path) -> CheckOutcome:
    pairs = snapshot_leaks(_read(folder, "questions"))["cross"]
    return CheckOutcome.of("no_answer_in_other_questions", pairs)


def revised_dates_have_evidence(folder: Path) -> CheckOutcome:
    questions = _read(folder, "questions")
    problems = revision_problems(questions, _read(folder, "articles", ["article_id", "published_at"]))
    revised = questions.filter(pl.col("resolution_date") != pl.col("original_resolution_date")).height
    return CheckOutcome.of("revised_dates_have_evidence", problems, revised=revised)


def market_questions_follow_their_markets(folder: Path) -> CheckOutcome:
    problems = market_question_problems(_read(folder, "questions"), _read(folder, "markets"))
    return CheckOutcome.of("market_questions_follow_their_markets", problems)


def articles_within_crawl_bounds(folder: Path) -> CheckOutcome:
    """No article is dated after its crawl plus a day, nor undated."""
    late = (pl.scan_parquet(folder / "articles.parquet")
            .filter(pl.col("published_at").is_null() | pl.col("crawled_at").is_null()
                    | (pl.col("published_at") > pl.col("crawled_at") + CRAWL_SLACK))
            .select("article_id", "published_at", "crawled_at").collect())
    problems = [f"{a}: published {p}, crawled {c}" for a, p, c in late.iter_rows()]
    return CheckOutcome.of("articles_within_crawl_bounds", problems)


def ids_are_unique(folder: Path) -> CheckOutcome:
    """Article, question, market and post ids are unique and present in their tables."""
    problems = []
    for table, column in ID_COLUMNS.items():
        counted = (pl.scan_parquet(folder / f"{table}.parquet").group_by(column).len()
                   .filter((pl.col("len") > 1) | pl.col(column).is_null()).collect())
        problems += [f"{table}.{column} {value!r} appears {n} times" for value, n in counted.iter_rows()]
    return CheckOutcome.of("ids_are_unique", problems)


BLOCKING: dict[str, Callable[[Path], CheckOutcome]] = {
    f.__name__: f for f in (manifest_matches_files, ids_are_unique, articles_within_crawl_bounds,
                            no_answer_in_own_text, no_answer_in_other_questions,
                            revised_dates_have_evidence, market_questions_follow_their_markets)
}


def run_blocking_checks(folder: str | Path) -> list[CheckOutcome]:
    folder = Path(folder)
    return [check(folder) for check in BLOCKING.values()]


def publish_if_sound(folder: str | Path) -> list[CheckOutcome]:
    """Run the blocking checks; move LATEST to the version only when every one passes. Returns
    the outcomes (the caller reports the failures)."""
    outcomes = run_blocking_checks(folder)
    if all(o.passed for o in outcomes):
        publish_version(folder, {o.name: "passed" for o in outcomes})
    return outcomes
