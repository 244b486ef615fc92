"""What every tabular peer format shares: its columns mapped onto pastcast's question columns,
each row kept as a candidate question or dropped with a reason naming its file and row.

A format is a ``Columns``: for each pastcast column, the names the peer may give it (the first
present wins). ``convert`` turns one file's frame (``pastcast.questions.peers.tables``) into
candidate questions, in polars expressions over the whole file:

- a record that could not be read is ``unreadable_row``; a missing id, title, answer or
  resolution date ``missing_field``; a date that is not one (``YYYY-MM-DD``, ISO 8601 with or
  without a time and offset, ``YYYY-MM-DD HH:MM:SS``, epoch seconds or milliseconds; times
  are taken to their UTC day) ``bad_date``; a list that is not one (a JSON array, or a list
  column), or an answer that is a JSON list or object, ``bad_value`` (an answer true/false is
  Yes/No);
- the peer's id is the ``question_id`` as written, and ``source_ids`` is ``<format>:<id>``
  (and the source article's URL when the peer names one) unless the file has ``source_ids``;
- the answer type is mapped to the vocabulary of ``pastcast.text.answer_types`` (a label
  wrapped as ``string (location)`` by the inner label when the whole is not known), the label
  as written kept in ``answer_type_original``;
- a question without an open date opens on ``ImportConfig.open_date`` if set, else
  ``horizon_days`` before it resolves.

Ids repeated across the files of one import are ``duplicate_question_id`` drops (``dedupe``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import polars as pl

from pastcast.questions.categories import category_of
from pastcast.schemas import DROPS, QUESTIONS
from pastcast.text.answer_types import answer_type_original, canonical_answer_type

STAGE = "import"
DEFAULT_HORIZON_DAYS = 28  # as `pastcast questions generate`
LISTS = ("answer_aliases", "candidate_outcomes", "source_ids", "revision_evidence")
DATES = ("open_date", "resolution_date", "original_resolution_date")
REQUIRED = ("question_id", "title", "answer", "resolution_date")
# pastcast's own columns a peer file may carry (an earlier export, or a peer's extra columns)
EXTRAS = ("answer_aliases", "candidate_outcomes", "source_kind", "source_ids", "category")


@dataclass(frozen=True)
class Columns:
    fmt: str
    aliases: dict[str, tuple[str, ...]]  # pastcast column -> the peer's names for it, in order
    source_kind: str = "news"
    url: tuple[str, ...] = ()  # the source article's URL, added to source_ids


@dataclass(frozen=True)
class ImportConfig:
    horizon_days: int | None = None  # None: DEFAULT_HORIZON_DAYS (ForecastBench: the market's creation)
    open_date: date | None = None  # questions without an open date of their own open on this day


@dataclass
class Converted:
    questions: pl.DataFrame  # QUESTIONS columns plus _file, _where
    drops: pl.DataFrame  # DROPS
    used: dict[str, str]  # pastcast column -> the peer's column it came from
    ignored: list[str]
    rows: int


def _present(df: pl.DataFrame, names: tuple[str, ...]) -> str | None:
    return next((n for n in names if n in df.columns), None)


def check_columns(df: pl.DataFrame, spec: Columns, path: Path) -> dict[str, str]:
    """{pastcast column: the file's column}; a required column missing is an error naming the
    file and the names looked for (an empty file has no columns and passes)."""
    used = {target: name for target, names in spec.aliases.items() if (name := _present(df, names))}
    missing = [t for t in REQUIRED if t not in used]
    if missing and df.height:
        wanted = "; ".join(f"{t} ({' or '.join(spec.aliases.get(t, (t,)))})" for t in missing)
        columns = ", ".join(c for c in df.columns if not c.startswith("_")) or "none"
        raise ValueError(f"{path}: no column for {wanted}; its columns: {columns}")
    return used


_EPOCH = re.compile(r"^\d{9,13}(?:\.\d+)?$")
_ZONED = ("%Y-%m-%dT%H:%M:%S%.f%:z", "%Y-%m-%d %H:%M:%S%.f%:z", "%Y-%m-%dT%H:%M%:z")
_NAIVE = ("%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M")


def parse_date(col: pl.Expr) -> pl.Expr:
    """Text to its UTC day (see the module doc); null when it is not a date."""
    text = col.str.strip_chars().str.replace(r"[Zz]$", "+00:00")
    epoch = pl.when(text.str.contains(_EPOCH.pattern)).then(text.cast(pl.Float64, strict=False))
    seconds = pl.when(epoch >= 1e11).then(epoch / 1000).otherwise(epoch)
    return pl.coalesce(
        text.str.to_date("%Y-%m-%d", strict=False),
        *(text.str.to_datetime(f, strict=False, time_zone="UTC").dt.date() for f in _ZONED),
        *(text.str.to_datetime(f, strict=False).dt.date() for f in _NAIVE),
        pl.from_epoch((seconds * 1e6).cast(pl.Int64, strict=False), time_unit="us").dt.date())


_WRAPPED = re.compile(r"^\s*[^()]*?\s*\((?P<inner>[^()]+)\)\s*$")


def peer_answer_type(label: str | None) -> str:
    """The vocabulary's type for a peer's label; "string(location)" by its inner label."""
    found = canonical_answer_type(label)
    if found == "other" and label and (m := _WRAPPED.match(label)):
        return canonical_answer_type(m["inner"])
    return found


def _list_column(df: pl.DataFrame, name: str) -> tuple[pl.Series, pl.Series]:
    """(the column as lists of texts, why a value is not a list or null)."""
    col = df[name]
    if col.dtype == pl.List(pl.String):
        return col.list.drop_nulls(), pl.Series([None] * df.height, dtype=pl.String)
    values, errors = [], []
    for v in col.to_list():  # text columns only (CSV, a JSON string): parsed one value at a time
        parsed, error = _parse_list(v)
        values.append(parsed)
        errors.append(error)
    return pl.Series(name, values, dtype=pl.List(pl.String)), pl.Series(errors, dtype=pl.String)


def _parse_list(value: str | None) -> tuple[list[str] | None, str | None]:
    if value is None or not value.strip():
        return None, None
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, list):
        return None, f"{value[:80]!r} is not a JSON list"
    return [x if isinstance(x, str) else json.dumps(x) for x in parsed if x is not None], None


def convert(df: pl.DataFrame, spec: Columns, path: Path, config: ImportConfig = ImportConfig()) -> Converted:
    used = check_columns(df, spec, path)
    if not df.height:
        empty = pl.DataFrame(schema={**QUESTIONS, "_file": pl.String, "_where": pl.String})
        return Converted(empty, pl.DataFrame(schema=DROPS), used, [], 0)
    source = {t: pl.col(c) for t, c in used.items()}
    text = {t: e.cast(pl.String).str.strip_chars().replace("", None)
            for t, e in source.items() if t not in LISTS}
    work = df.select("_where", "_bad", *(e.alias(t) for t, e in text.items()))
    lists, list_errors = {}, {}
    for target in LISTS:
        if target in used:
            lists[target], list_errors[target] = _list_column(df, used[target])
    url_name = _present(df, spec.url)
    url = df[url_name].cast(pl.String).str.strip_chars().replace("", None) if url_name else None
    work = work.with_columns(
        *(pl.Series(f"_{t}", s) for t, s in lists.items()),
        *(pl.Series(f"_{t}_error", s) for t, s in list_errors.items()),
        pl.Series("_url", url) if url is not None else pl.lit(None, pl.String).alias("_url"),
        *(parse_date(pl.col(t)).alias(f"_{t}") for t in DATES if t in used))

    reason, detail = _verdicts(work, used)
    work = work.with_columns(reason.alias("_reason"), detail.alias("_detail"))
    bad = work.filter(pl.col("_reason").is_not_null())
    drops = bad.select(
        pl.coalesce("question_id", pl.format("{}#{}", pl.lit(path.name), pl.col("_where"))).alias("item_id"),
        pl.lit("question").alias("item_kind"), pl.lit(STAGE).alias("stage"), pl.col("_reason").alias("reason"),
        pl.format("{} {}: {}", pl.lit(str(path)), pl.col("_where"), pl.col("_detail")).alias("detail"))
    good = work.filter(pl.col("_reason").is_null())
    questions = _questions(good, spec, used, config).with_columns(
        pl.lit(str(path)).alias("_file"), good["_where"])
    consumed = {"_where", "_bad", *used.values(), *([url_name] if url_name else [])}
    ignored = [c for c in df.columns if c not in consumed]
    return Converted(questions, drops.select(list(DROPS)), used, ignored, df.height)


def _verdicts(work: pl.DataFrame, used: dict[str, str]) -> tuple[pl.Expr, pl.Expr]:
    """(reason, detail) of the first rule each row breaks, null when it breaks none."""
    rules: list[tuple[pl.Expr, str, pl.Expr]] = [
        (pl.col("_bad").is_not_null(), "unreadable_row", pl.col("_bad"))]
    for t in REQUIRED:
        missing = pl.col(t).is_null() if t in used else pl.lit(True)
        rules.append((missing, "missing_field", pl.lit(f"no {t} ({used.get(t, 'no such column')} is empty)")))
    for t in DATES:
        if t in used:
            rules.append((pl.col(t).is_not_null() & pl.col(f"_{t}").is_null(), "bad_date",
                          pl.format("{} '{}' is not a date (YYYY-MM-DD or ISO 8601)", pl.lit(used[t]),
                                    pl.col(t).str.slice(0, 40))))
    if "answer" in used:  # an answer is one text: a JSON list or object is several, or none
        rules.append((pl.col("answer").str.contains(r"(?s)^\s*(?:\[.*\]|\{.*\})\s*$"), "bad_value",
                      pl.format("{} {} is a JSON list or object, not one answer", pl.lit(used["answer"]),
                                pl.col("answer").str.slice(0, 60))))
    for t in LISTS:
        if f"_{t}_error" in work.columns:
            rules.append((pl.col(f"_{t}_error").is_not_null(), "bad_value",
                          pl.format("{}: {}", pl.lit(used[t]), pl.col(f"_{t}_error"))))
    reason, detail = pl.lit(None, pl.String), pl.lit(None, pl.String)
    for cond, code, text in reversed(rules):  # the first rule that fires wins
        reason = pl.when(cond).then(pl.lit(code)).otherwise(reason)
        detail = pl.when(cond).then(text).otherwise(detail)
    return reason, detail


def _lookup(series: pl.Series, fn) -> pl.Series:
    """``fn`` of each distinct value (labels and titles repeat), mapped back over the column."""
    mapping = {v: fn(v) for v in series.drop_nulls().unique().to_list()}
    return series.replace_strict(mapping, default=None, return_dtype=pl.String)


def _questions(good: pl.DataFrame, spec: Columns, used: dict[str, str], config: ImportConfig) -> pl.DataFrame:
    def given(name: str, dtype=pl.String) -> pl.Expr:
        col = f"_{name}" if name in LISTS or name in DATES else name
        return (pl.col(col) if name in used else pl.lit(None, dtype)).alias(name)

    labels = good["answer_type"] if "answer_type" in used else pl.Series([None] * good.height, dtype=pl.String)
    horizon = config.horizon_days if config.horizon_days is not None else DEFAULT_HORIZON_DAYS
    opens = given("open_date", pl.Date)
    if config.open_date is not None:
        opens = opens.fill_null(pl.lit(config.open_date))
    opens = opens.fill_null(pl.col("_resolution_date") - pl.duration(days=horizon))
    own_id = pl.concat_list([pl.format("{}:{}", pl.lit(spec.fmt), pl.col("question_id")), pl.col("_url")])
    empty = pl.lit([], pl.List(pl.String))
    out = good.with_columns(
        pl.Series("_type", _lookup(labels, peer_answer_type)).fill_null("other"),
        pl.Series("_type_original", _lookup(labels, answer_type_original)),
        pl.Series("_category", _lookup(good["title"], category_of)).fill_null("other"))
    return out.select(
        pl.col("question_id"), pl.col("title"), given("background"), given("resolution_criteria"),
        pl.col("answer"), given("answer_aliases", pl.List(pl.String)).fill_null(empty).alias("answer_aliases"),
        pl.col("_type").alias("answer_type"),
        given("answer_type_original").fill_null(pl.col("_type_original")).alias("answer_type_original"),
        given("candidate_outcomes", pl.List(pl.String)).fill_null(empty).alias("candidate_outcomes"),
        opens.alias("open_date"), pl.col("_resolution_date").alias("resolution_date"),
        given("original_resolution_date", pl.Date).fill_null(pl.col("_resolution_date"))
        .alias("original_resolution_date"),
        given("revision_evidence", pl.List(pl.String)).fill_null(empty).alias("revision_evidence"),
        given("source_kind").fill_null(pl.lit(spec.source_kind)).alias("source_kind"),
        pl.when(given("source_ids", pl.List(pl.String)).list.len() > 0)
        .then(given("source_ids", pl.List(pl.String))).otherwise(own_id.list.drop_nulls()).alias("source_ids"),
        given("generator").fill_null(pl.lit(f"import:{spec.fmt}")).alias("generator"),
        given("category").fill_null(pl.col("_category")).alias("category"),
    ).cast(dict(QUESTIONS))


@dataclass
class Deduped:
    questions: pl.DataFrame
    drops: pl.DataFrame


def dedupe(questions: pl.DataFrame) -> Deduped:
    """The first row of each question id kept (files in the order given); the others are
    ``duplicate_question_id`` drops naming where the id was first read."""
    first = questions.with_columns(
        pl.col("_file").first().over("question_id").alias("_first_file"),
        pl.col("_where").first().over("question_id").alias("_first_where"),
        pl.col("question_id").is_first_distinct().alias("_first"))
    repeated = first.filter(~pl.col("_first"))
    drops = repeated.select(
        pl.col("question_id").alias("item_id"), pl.lit("question").alias("item_kind"),
        pl.lit(STAGE).alias("stage"), pl.lit("duplicate_question_id").alias("reason"),
        pl.format("{} {}: id {} was read first at {} {}", pl.col("_file"), pl.col("_where"),
                  pl.col("question_id"), pl.col("_first_file"), pl.col("_first_where")).alias("detail"))
    return Deduped(first.filter(pl.col("_first")).select(list(QUESTIONS)), drops.select(list(DROPS)))
