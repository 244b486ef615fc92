"""The blocking checks on a snapshot version: LATEST moves to a version only when all pass.

Each check reads the version's own files (never the working folder), so it judges exactly what
users will download. Dagster runs them as blocking asset checks; ``pastcast build`` and
``pastcast snapshot check`` run the same functions.

A check given ``full=False`` reads, of the tables split by day, only the parts the version does
not share with its published parent (which passed these checks), the id check looks the ids of
those parts up in every part (one column read), and the leak checks look only at the questions
new or changed since that parent (and at pairs with one of them): a nightly version costs its
new day, not the corpus. The first version, and ``pastcast snapshot check
--full``, check all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import polars as pl

from pastcast.questions.filter import other_question_leaks, own_text_leaks, revision_problems
from pastcast.questions.markets import market_question_problems
from pastcast.questions.row_memo import row_hash
from pastcast.schemas import ADDED_LATER, TABLES, scan_parts
from pastcast.snapshot import (passed_checks, proved_by_parent, publish_version, published_parent, read_manifest,
                               record_checks, verify)
from pastcast.store import read_table, scan_table, table_files

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
    return read_table(folder, table, columns)


def _unproved_parts(folder: Path, table: str, manifest: dict, proved: frozenset[str]) -> list[Path] | None:
    """The table's parts not in ``proved`` (what the published parent proved); None when the
    table is not split into parts, so it is checked whole."""
    info = manifest["tables"].get(table) or {}
    if "parts" not in info:
        return None
    return [folder.parent / p["path"] for p in info["parts"] if p["path"] not in proved]


def _checked(folder: Path, table: str, full: bool) -> pl.LazyFrame:
    """The table, or (``full=False``) only its parts not proved by the published parent."""
    files = None if full else _unproved_parts(folder, table, read_manifest(folder), proved_by_parent(folder))
    if files is None:
        return scan_table(folder, table)
    return scan_parts(files, TABLES[table]) if files else pl.LazyFrame(schema=dict(TABLES[table]))


def _schema_problems(table: str, path: Path) -> list[str]:
    try:
        found = pl.read_parquet_schema(path)
    except (OSError, pl.exceptions.PolarsError):
        return []  # verify reported the file as unreadable
    want = dict(TABLES[table])
    if list(found) != list(want):  # a snapshot written before columns were added lacks them
        want = {c: t for c, t in want.items() if c in found or c not in ADDED_LATER.get(table, ())}
    if list(found) != list(want):
        return [f"{table}: columns {list(found)} of {path.name} differ from the schema {list(want)}"]
    return [f"{table}.{c}: type {found[c]} in {path.name}, schema says {want[c]}" for c, t in want.items()
            if found[c] != t]


def manifest_matches_files(folder: Path, full: bool = True) -> CheckOutcome:
    """Every table's row count and sha256 match the manifest, and its columns and types match
    the declared schema."""
    problems = verify(folder, full=full)
    proved = frozenset() if full else proved_by_parent(folder)
    manifest = read_manifest(folder)
    for table in manifest["tables"]:
        if table not in TABLES:
            continue
        info = manifest["tables"][table]
        paths = ([folder.parent / p["path"] for p in info["parts"] if p["path"] not in proved]
                 if "parts" in info else table_files(folder, table, manifest))
        for path in paths:
            if path.is_file():
                problems += _schema_problems(table, path)
    return CheckOutcome.of("manifest_matches_files", problems)


def _changed_questions(folder: Path, questions: pl.DataFrame, full: bool) -> set[str] | None:
    """Ids of the questions not in the published parent exactly as they are here (new, or a
    field changed); None (all of them) when ``full`` or there is no such parent. The leak
    rules look at a question alone or at a pair, so those of unchanged questions, and pairs
    of them, were proved by the parent's checks."""
    parent = None if full else published_parent(folder)
    if parent is None:
        return None
    theirs = _read(parent, "questions")
    if theirs.columns != questions.columns or theirs.dtypes != questions.dtypes:
        return None  # written by another schema: nothing compares
    row = row_hash().alias("_row")
    seen = theirs.select(row).get_column("_row")
    return set(questions.with_columns(row).filter(~pl.col("_row").is_in(seen.implode()))
               .get_column("question_id").to_list())


def no_answer_in_own_text(folder: Path, full: bool = True) -> CheckOutcome:
    """No question's answer shows in its own text (``full=False``: of the questions the
    published parent did not hold as they are)."""
    questions = _read(folder, "questions")
    changed = _changed_questions(folder, questions, full)
    return CheckOutcome.of("no_answer_in_own_text", own_text_leaks(questions, changed),
                           checked=questions.height if changed is None else len(changed))


def no_answer_in_other_questions(folder: Path, full: bool = True) -> CheckOutcome:
    """No question's answer shows in the text of another open at the same time
    (``full=False``: pairs with a question the published parent did not hold as it is)."""
    questions = _read(folder, "questions")
    changed = _changed_questions(folder, questions, full)
    return CheckOutcome.of("no_answer_in_other_questions", other_question_leaks(questions, changed),
                           checked=questions.height if changed is None else len(changed))


def revised_dates_have_evidence(folder: Path) -> CheckOutcome:
    questions = _read(folder, "questions")
    # lazy: of the articles only the evidence rows are read (every revised question is
    # checked, changed or not, since an article of its evidence may have left the corpus)
    problems = revision_problems(questions, scan_table(folder, "articles").select("article_id", "published_at"))
    revised = questions.filter(pl.col("resolution_date") != pl.col("original_resolution_date")).height
    return CheckOutcome.of("revised_dates_have_evidence", problems, revised=revised)


def market_questions_follow_their_markets(folder: Path) -> CheckOutcome:
    problems = market_question_problems(_read(folder, "questions"), _read(folder, "markets"))
    return CheckOutcome.of("market_questions_follow_their_markets", problems)


def articles_within_crawl_bounds(folder: Path, full: bool = True) -> CheckOutcome:
    """No article is dated after its crawl plus a day, nor undated."""
    late = (_checked(folder, "articles", full)
            .filter(pl.col("published_at").is_null() | pl.col("crawled_at").is_null()
                    | (pl.col("published_at") > pl.col("crawled_at") + CRAWL_SLACK))
            .select("article_id", "published_at", "crawled_at").collect())
    problems = [f"{a}: published {p}, crawled {c}" for a, p, c in late.iter_rows()]
    return CheckOutcome.of("articles_within_crawl_bounds", problems)


def ids_are_unique(folder: Path, full: bool = True) -> CheckOutcome:
    """Article, question, market and post ids are unique and present in their tables
    (``full=False``: of a table split into parts, the ids of the parts not proved by the
    published parent, looked up in every part: ids of the proved parts were unique among
    themselves, so a repeat involves a new id)."""
    problems = []
    manifest = read_manifest(folder)
    proved = frozenset() if full else proved_by_parent(folder)
    for table, column in ID_COLUMNS.items():
        ids = scan_table(folder, table, manifest).select(column)
        new = _unproved_parts(folder, table, manifest, proved) if proved else None
        if new is not None:
            if not new:
                continue
            fresh = scan_parts(new, TABLES[table]).select(column).collect().get_column(column)
            if fresh.null_count():
                problems.append(f"{table}.{column} None appears {fresh.null_count()} times")
            ids = ids.filter(pl.col(column).is_in(fresh.drop_nulls().implode()))
        counted = ids.group_by(column).len().filter((pl.col("len") > 1) | pl.col(column).is_null()).collect()
        problems += [f"{table}.{column} {value!r} appears {n} times" for value, n in counted.iter_rows()]
    return CheckOutcome.of("ids_are_unique", problems)


# Drops that mean an input file was not read whole: a file that could not be opened, one cut
# short, a WARC file no day could be given to. A damaged record inside a file that was read on
# (corrupt_record) is a record's loss, counted like any other drop.
LOST_INPUT_REASONS = ("unreadable_file", "truncated_file", "undated_file", "empty_file")  # empty: a failed download
SHRINK_LIMIT = 0.5  # a table (or a day's articles) keeping less than this share of the parent's
SHRINK_MIN_ROWS = 5  # ... when the parent had at least this many rows


def _allowed(folder: Path) -> bool:
    return bool((read_manifest(folder).get("allowances") or {}).get("input_loss"))


def _allowing(name: str, folder: Path, problems: list[str], **metadata) -> CheckOutcome:
    """A loss the operator allowed at build time (``--allow-input-loss``) is reported, not blocking."""
    if problems and _allowed(folder):
        return CheckOutcome(name, True, len(problems), problems[:EXAMPLES], {"allowed": True, **metadata})
    return CheckOutcome.of(name, problems, **metadata)


def inputs_read_whole(folder: Path, full: bool = True) -> CheckOutcome:
    """Every input file was read to its end: none unreadable, cut short or left undated
    (unless the build allowed input loss)."""
    lost = (_checked(folder, "drops", full)
            .filter(pl.col("reason").is_in(LOST_INPUT_REASONS))
            .select("reason", "detail").collect())
    return _allowing("inputs_read_whole", folder, [f"{r}: {d[:200]}" for r, d in lost.iter_rows()])


def _rows_by_day(folder: Path) -> dict:
    """Articles a crawl day: from the manifest's day parts (nothing read), else counted."""
    info = read_manifest(folder)["tables"].get("articles") or {}
    if "parts" in info and all(p["key"].startswith("day=") for p in info["parts"]):
        return {p["key"][len("day="):]: p["rows"] for p in info["parts"]}
    return {str(day): n for day, n in scan_table(folder, "articles")
            .group_by(pl.col("crawled_at").dt.date().alias("day")).len().collect().iter_rows()}


def tables_kept_their_rows(folder: Path) -> CheckOutcome:
    """Against the parent version, markets and posts, and each day's articles, kept at least
    half their rows (a truncated dump or a failed day must not publish a hollow version),
    unless the build allowed input loss."""
    parent = read_manifest(folder).get("parent_version")
    parent_dir = folder.parent / parent if parent else None
    if parent_dir is None or not (parent_dir / "manifest.json").is_file():
        return CheckOutcome.of("tables_kept_their_rows", [], parent="")
    ours, theirs = read_manifest(folder)["tables"], read_manifest(parent_dir)["tables"]
    problems = []
    for table in ("markets", "posts"):
        before, now = (theirs.get(table) or {}).get("rows") or 0, (ours.get(table) or {}).get("rows") or 0
        if before >= SHRINK_MIN_ROWS and now < before * SHRINK_LIMIT:
            problems.append(f"{table}: {now} rows, {before} in {parent}")
    before_days, now_days = _rows_by_day(parent_dir), _rows_by_day(folder)
    for day, before in sorted(before_days.items()):
        now = now_days.get(day, 0)
        if before >= SHRINK_MIN_ROWS and now < before * SHRINK_LIMIT:
            problems.append(f"articles crawled {day}: {now}, {before} in {parent}")
    return _allowing("tables_kept_their_rows", folder, problems, parent=parent)


BLOCKING: dict[str, Callable[[Path], CheckOutcome]] = {
    f.__name__: f for f in (manifest_matches_files, ids_are_unique, articles_within_crawl_bounds,
                            no_answer_in_own_text, no_answer_in_other_questions,
                            revised_dates_have_evidence, market_questions_follow_their_markets,
                            inputs_read_whole, tables_kept_their_rows)
}


INCREMENTAL = ("manifest_matches_files", "ids_are_unique", "articles_within_crawl_bounds", "inputs_read_whole",
               "no_answer_in_own_text", "no_answer_in_other_questions")  # take ``full``


def run_check(name: str, folder: str | Path, full: bool = True) -> CheckOutcome:
    """One blocking check, recorded in the snapshot's check log; a table it cannot read fails
    it with the reason (a damaged version fails its checks, never crashes them). ``full=False``:
    see the module doc."""
    folder = Path(folder)
    try:
        outcome = BLOCKING[name](folder, full) if name in INCREMENTAL else BLOCKING[name](folder)
    except (OSError, ValueError, pl.exceptions.PolarsError) as exc:
        outcome = CheckOutcome.of(name, [f"cannot run on {folder}: {type(exc).__name__}: {str(exc).splitlines()[0]}"])
    record_checks(folder, {name: outcome.passed})
    return outcome


def needs_full_check(folder: str | Path) -> bool:
    """A version with no published parent (the first) is checked in full; others may be
    checked on what they add."""
    return not proved_by_parent(folder)


def run_blocking_checks(folder: str | Path, full: bool | None = None) -> list[CheckOutcome]:
    """Every blocking check; ``full`` None: in full on a first version, on what it adds otherwise."""
    full = needs_full_check(folder) if full is None else full
    return [run_check(name, folder, full) for name in BLOCKING]


def publish_if_sound(folder: str | Path, full: bool | None = None, reuse_passed: bool = False) -> list[CheckOutcome]:
    """Run the blocking checks; move LATEST to the version only when every one passes. Returns
    the outcomes (the caller reports the failures). ``reuse_passed``: a check that already
    passed on this version (Dagster's blocking checks, just before) is not run again, but the
    manifest is always compared with the files, so nothing changed since can slip through."""
    full = needs_full_check(folder) if full is None else full
    done = passed_checks(folder) - {"manifest_matches_files"} if reuse_passed else set()
    outcomes = [CheckOutcome(name, True, metadata={"reused": True}) if name in done else run_check(name, folder, full)
                for name in BLOCKING]
    if all(o.passed for o in outcomes):
        publish_version(folder, {o.name: "passed" + (" (loss allowed)" if o.problems else "") for o in outcomes})
    return outcomes
