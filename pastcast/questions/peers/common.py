"""What every tabular peer format shares: its columns mapped onto pastcast's question columns,
each row kept as a candidate question or dropped with a reason naming its file and row.

A format is a ``Columns``: for each pastcast column, the names the peer may give it (the first
present wins). ``convert`` turns one file's frame (``pastcast.questions.peers.tables``) into
candidate questions, in polars expressions over the whole file:

- ``ImportConfig.maps`` (``--map FIELD=PATH``, ``pastcast.questions.peers.mapping``) name the
  peer's columns, or paths into its nested JSON, for pastcast's fields, in place of the
  format's names;
- a record that could not be read is ``unreadable_row``; a missing id, title, answer or
  resolution date ``missing_field``; a date that is not one (``YYYY-MM-DD``, ISO 8601 with or
  without a time and offset, ``YYYY-MM-DD HH:MM:SS``, epoch seconds or milliseconds; times
  are taken to their UTC day, and a resolution in the day's last minute, ``23:59``, to the
  next day: the answer is revealed when the day is over) ``bad_date``; a list that is not one
  (a JSON array, or a list column), or an answer that is a JSON list or object, ``bad_value``;
- the peer's id is the ``question_id`` as written, and ``source_ids`` is ``<format>:<id>``
  and the source article's id (``pastcast.questions.peers.articles``, when the file carries
  its articles) or URL (when it names one) unless the file has ``source_ids``;
- the answer type is mapped to the vocabulary of ``pastcast.text.answer_types`` (a label
  wrapped as ``string (location)`` by the inner label when the whole is not known), the label
  as written kept in ``answer_type_original``; without a label it is inferred from the answers
  (``pastcast.questions.peers.answers``), and a binary answer is written Yes/No (true, 1, ...);
- a question without an open date opens on ``ImportConfig.open_date`` if set, else
  ``horizon_days`` before it resolves.

Ids repeated across the files of one import are ``duplicate_question_id`` drops (``dedupe``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

import polars as pl

from pastcast.questions.categories import category_of
from pastcast.questions.peers.answers import inferred_types, yes_no
from pastcast.questions.peers.articles import SourceArticles, has_articles, source_articles
from pastcast.questions.peers.mapping import MAPPED_PREFIX, Maps, apply_maps, heads_used, unused_paths
from pastcast.questions.titles import reader_titles
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
    maps: Maps = ()  # --map (field, path) pairs: they replace the format's names for those fields


@dataclass
class Converted:
    questions: pl.DataFrame  # QUESTIONS columns plus _file, _where
    drops: pl.DataFrame  # DROPS, the questions'
    used: dict[str, str]  # pastcast column -> the peer's column (or --map path) it came from
    ignored: list[str]
    rows: int
    found: Counter = field(default_factory=Counter)  # "FIELD=PATH" -> rows with a value there
    unmapped: Counter = field(default_factory=Counter)  # column or nested path nothing read -> rows with a value
    articles: SourceArticles | None = None  # when the file carries its source articles


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
        raise ValueError(f"{path}: no column for {wanted}; its columns: {columns} "
                         "(name one with --map FIELD=PATH)")
    return used


_EPOCH = re.compile(r"^\d{9,13}(?:\.\d+)?$")
_ZONED = ("%Y-%m-%dT%H:%M:%S%.f%:z", "%Y-%m-%d %H:%M:%S%.f%:z", "%Y-%m-%dT%H:%M%:z")
_NAIVE = ("%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M")


def parse_instant(col: pl.Expr) -> pl.Expr:
    """Text to its UTC instant (a day alone is its midnight, a time without an offset is UTC);
    null when it is not a date."""
    text = col.str.strip_chars().str.replace(r"[Zz]$", "+00:00")
    epoch = pl.when(text.str.contains(_EPOCH.pattern)).then(text.cast(pl.Float64, strict=False))
    seconds = pl.when(epoch >= 1e11).then(epoch / 1000).otherwise(epoch)
    return pl.coalesce(
        text.str.to_date("%Y-%m-%d", strict=False).cast(pl.Datetime("us")).dt.replace_time_zone("UTC"),
        *(text.str.to_datetime(f, strict=False, time_zone="UTC", time_unit="us") for f in _ZONED),
        *(text.str.to_datetime(f, strict=False, time_unit="us").dt.replace_time_zone("UTC") for f in _NAIVE),
        pl.from_epoch((seconds * 1e6).cast(pl.Int64, strict=False), time_unit="us").dt.replace_time_zone("UTC"))


def parse_date(col: pl.Expr) -> pl.Expr:
    """Text to its UTC day (see the module doc); null when it is not a date."""
    return parse_instant(col).dt.date()


END_OF_DAY = pl.duration(minutes=1)


def reveal_day(col: pl.Expr) -> pl.Expr:
    """A resolution date to the day its answer is revealed: its UTC day, but the next one when
    it is the day's last minute (``2024-07-31 23:59:59``: the question runs to the end of July 31,
    so July 31's news may still settle it; as markets resolve a deadline the day after)."""
    return (parse_instant(col) + END_OF_DAY).dt.date()


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
    heads = heads_used(df, config.maps)  # the file's columns the --map paths read
    df, aliases, mapped_paths, found = apply_maps(df, spec.aliases, config.maps)
    columns = check_columns(df, replace(spec, aliases=aliases), path)
    used = {t: mapped_paths.get(t, c) for t, c in columns.items()}  # as the peer (or --map) names them
    carries_articles = has_articles(used)
    if not df.height:
        empty = pl.DataFrame(schema={**QUESTIONS, "_file": pl.String, "_where": pl.String})
        return Converted(empty, pl.DataFrame(schema=DROPS), used, [], 0, found=found)
    text = {t: pl.col(c).cast(pl.String).str.strip_chars().replace("", None)
            for t, c in columns.items() if t not in LISTS}
    work = df.select("_where", "_bad", *(e.alias(t) for t, e in text.items()))
    lists, list_errors = {}, {}
    for target in LISTS:
        if target in columns:
            lists[target], list_errors[target] = _list_column(df, columns[target])
    url_name = _present(df, spec.url)
    url = df[url_name].cast(pl.String).str.strip_chars().replace("", None) if url_name else None
    work = work.with_columns(
        *(pl.Series(f"_{t}", s) for t, s in lists.items()),
        *(pl.Series(f"_{t}_error", s) for t, s in list_errors.items()),
        pl.Series("_url", url) if url is not None else pl.lit(None, pl.String).alias("_url"),
        *((reveal_day if t == "resolution_date" else parse_date)(pl.col(t)).alias(f"_{t}")
          for t in DATES if t in columns))
    articles = None
    if carries_articles:
        instants = work.select(parse_instant(pl.col("article_date")))["article_date"]
        articles = source_articles(work, path, used, instants)
        written = dict(zip(articles.articles["url"], articles.articles["article_id"]))
        work = work.with_columns(pl.col("article_url").replace_strict(written, default=None, return_dtype=pl.String)
                                 .alias("_article_id"))

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
    consumed = {"_where", "_bad", *columns.values(), *heads, *([url_name] if url_name else [])}
    ignored = [c for c in df.columns if c not in consumed and not c.startswith(MAPPED_PREFIX)]
    unmapped = Counter({c: df[c].drop_nulls().len() for c in ignored})
    for column, keys in heads.items():
        unmapped.update(unused_paths(df, column, keys))
    return Converted(questions, drops.select(list(DROPS)), used, ignored, df.height, found=found,
                     unmapped=unmapped, articles=articles)


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
    source = pl.coalesce("_article_id", "_url") if "_article_id" in good.columns else pl.col("_url")
    own_id = pl.concat_list([pl.format("{}:{}", pl.lit(spec.fmt), pl.col("question_id")), source])
    empty = pl.lit([], pl.List(pl.String))
    out = good.with_columns(  # a row without a label of its own: typed by the file's answers
        pl.Series("_type", _lookup(labels, peer_answer_type)).fill_null(inferred_types(good["answer"])),
        pl.Series("_type_original", _lookup(labels, answer_type_original)),
        pl.Series("_category", _lookup(good["title"], category_of)).fill_null("other"))
    exprs = [
        pl.col("question_id"), pl.col("title"), given("background"), given("resolution_criteria"),
        yes_no(pl.col("answer"), pl.col("_type")).alias("answer"), given("answer_aliases",
        pl.List(pl.String)).fill_null(empty).alias("answer_aliases"),
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
    ]
    named = {e.meta.output_name() for e in exprs}
    rest = [given(c, t) for c, t in QUESTIONS.items() if c not in named]  # any other column: as given, or null
    # titles as a forecaster reads them: platform labels off, "What is the probability that ..." asked
    return reader_titles(out.select(*exprs, *rest).select(list(QUESTIONS)).cast(dict(QUESTIONS)))


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
