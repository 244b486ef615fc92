"""``pastcast questions import --map FIELD=PATH``: a peer file's own column names, or dotted paths
into its nested JSON (``metadata.article_information.article_url``), named for pastcast's fields.

A mapped field replaces the names the format looks for. PATH is a column of the file when one
has that exact name; else its longest leading part that is a column holding JSON (a JSON lines
object, a Parquet struct) and the rest a path into it (a digit picks an array item). The
text fields ``TEXT_FIELDS`` may be mapped more than once: their values are joined, in the order
given, by a blank line. A malformed ``--map``, an unknown field, or a path with no value in any
row of any file is a ``MapError``, which the command reports as a bad ``--map``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable

import polars as pl

QUESTION_FIELDS = ("question_id", "title", "background", "resolution_criteria", "answer", "answer_type",
                   "open_date", "resolution_date")
ARTICLE_FIELDS = ("article_url", "article_title", "article_text", "article_date")
MAPPABLE = QUESTION_FIELDS + ARTICLE_FIELDS
TEXT_FIELDS = ("background", "resolution_criteria", "article_text")  # several paths: joined
MAPPED_PREFIX = "_map_"  # a mapped field's values in the frame: _map_<field>
_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

Maps = tuple[tuple[str, str], ...]  # (field, path), in the order given


class MapError(ValueError):
    """A ``--map`` that cannot be used (the command names the option)."""


def parse_maps(values: Iterable[str]) -> Maps:
    """``FIELD=PATH`` strings to (field, path) pairs; ``MapError`` naming the bad one."""
    maps: list[tuple[str, str]] = []
    for value in values:
        field, sep, path = value.partition("=")
        field, path = field.strip(), path.strip()
        if not sep or not field or not path:
            raise MapError(f"{value!r} is not FIELD=PATH (e.g. answer=resolution)")
        if field not in MAPPABLE:
            raise MapError(f"unknown field {field!r} in {value!r}; mappable fields: {', '.join(MAPPABLE)}")
        if any(not part for part in path.split(".")):
            raise MapError(f"{value!r}: {path!r} has an empty part (a dotted path is like a.b.c)")
        maps.append((field, path))
    repeated = [f for f, n in Counter(f for f, _ in maps).items() if n > 1 and f not in TEXT_FIELDS]
    if repeated:
        raise MapError(f"{', '.join(repeated)} mapped more than once (only {', '.join(TEXT_FIELDS)} "
                       "may join several paths)")
    _check_article_fields({f for f, _ in maps})
    return tuple(maps)


def _check_article_fields(fields: set[str]) -> None:
    """An article needs its URL (its id), its date (when it becomes visible) and some text."""
    if not fields & set(ARTICLE_FIELDS):
        return
    missing = [f for f in ("article_url", "article_date") if f not in fields]
    if not fields & {"article_title", "article_text"}:
        missing.append("article_title or article_text")
    if missing:
        raise MapError(f"the source articles also need {' and '.join(missing)} mapped "
                       "(an article is dated, identified by its URL, and has text)")


def json_path(keys: list[str]) -> str:
    """Keys to a JSONPath for ``str.json_path_match``: ``["a", "0", "b c"]`` -> ``$.a[0]['b c']``."""
    out = "$"
    for key in keys:
        if key.isdigit():
            out += f"[{key}]"
        elif _PLAIN_KEY.match(key):
            out += f".{key}"
        else:
            out += "['" + key.replace("\\", "\\\\").replace("'", "\\'") + "']"
    return out


def split_path(df: pl.DataFrame, path: str) -> tuple[str, list[str]] | None:
    """(the file's column, keys into its JSON), or None when the file has no such column."""
    if path in df.columns:
        return path, []
    parts = path.split(".")
    for i in range(len(parts) - 1, 0, -1):
        head = ".".join(parts[:i])
        if head in df.columns and df.schema[head] == pl.String:
            return head, parts[i:]
    return None


def path_values(df: pl.DataFrame, path: str) -> pl.Expr:
    """The values at ``path`` as stripped text, null where a row has none."""
    found = split_path(df, path)
    if found is None:
        return pl.lit(None, pl.String)
    column, keys = found
    if isinstance(df.schema[column], pl.List):  # every value a list: its JSON, as a text column holds it
        col = pl.col(column).map_elements(lambda v: json.dumps(list(v), ensure_ascii=False), return_dtype=pl.String)
    else:
        col = pl.col(column).cast(pl.String)
    if keys:
        col = col.str.json_path_match(json_path(keys))
    return col.str.strip_chars().replace("", None)


def apply_maps(df: pl.DataFrame, aliases: dict[str, tuple[str, ...]], maps: Maps
               ) -> tuple[pl.DataFrame, dict[str, tuple[str, ...]], dict[str, str], Counter]:
    """(``df`` with a ``_map_<field>`` column per mapped field, the aliases with those in place of
    the format's names, {field: the paths as given}, rows with a value per ``FIELD=PATH``)."""
    if not maps:
        return df, aliases, {}, Counter()
    by_field: dict[str, list[str]] = {}
    for field, path in maps:
        by_field.setdefault(field, []).append(path)
    found: Counter = Counter()
    columns = []
    for field, paths in by_field.items():
        values = [path_values(df, p) for p in paths]
        if df.height:
            counts = df.select(*(v.is_not_null().sum().alias(str(i)) for i, v in enumerate(values))).row(0)
            found.update({f"{field}={p}": n for p, n in zip(paths, counts)})
        joined = values[0] if len(values) == 1 else pl.concat_str(values, separator="\n\n", ignore_nulls=True)
        columns.append(joined.replace("", None).alias(MAPPED_PREFIX + field))
    mapped = {**aliases, **{f: (MAPPED_PREFIX + f,) for f in by_field}}
    return df.with_columns(columns), mapped, {f: " + ".join(p) for f, p in by_field.items()}, found


def check_found(maps: Maps, found: Counter, files: list) -> None:
    """A ``FIELD=PATH`` with no value in any row of any file is a typo, not data: ``MapError``."""
    empty = [f"{field}={path}" for field, path in maps if not found[f"{field}={path}"]]
    if empty:
        where = files[0] if len(files) == 1 else f"any of the {len(files)} files"
        raise MapError(f"{'; '.join(empty)}: no row of {where} has a value at this path")


def heads_used(df: pl.DataFrame, maps: Maps) -> dict[str, list[list[str]]]:
    """{the file's column: the key paths used inside it ([] when the whole column is used)}."""
    used: dict[str, list[list[str]]] = {}
    for _, path in maps:
        if (found := split_path(df, path)) is not None:
            used.setdefault(found[0], []).append(found[1])
    return used


def unused_paths(df: pl.DataFrame, column: str, used: list[list[str]]) -> Counter:
    """{dotted path: rows with a value} of the leaves of a JSON column that no ``--map`` read
    (arrays are leaves); nothing when the whole column was mapped."""
    if any(not keys for keys in used) or df.schema[column] != pl.String:
        return Counter()
    out: Counter = Counter()
    for text in df[column].drop_nulls().to_list():
        try:
            value = json.loads(text)
        except ValueError:
            continue
        for keys in _leaves(value, []):
            if not any(keys[:len(u)] == u for u in used):
                out[".".join([column, *keys])] += 1
    return out


def _leaves(value, keys: list[str]):
    if isinstance(value, dict) and value:
        for k, v in value.items():
            yield from _leaves(v, [*keys, str(k)])
    elif value is not None and value != "" and keys:
        yield keys
