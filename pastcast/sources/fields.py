"""Typed fields of dump records: one place that says what a value of the wrong type, out of
range or of the wrong shape is, so every reader drops that record (naming the field) and
reads the next one instead of failing the import.

Readers take values through ``as_text(record, field)``, ``as_instant(...)``, ``as_number(...)``
and ``as_int(...)`` (or the value forms ``text``, ``instant``, ...); a bad value raises
``BadField(field, reason)``, a ``ValueError``. Every row a reader builds is checked against its
table's schema by ``check_row`` before it is kept, so a value no helper saw (a list where text
belongs, an integer past 64 bits) is still a drop naming its column, never an error when the
table is written. The reader loops catch ``RECORD_ERRORS`` per record.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import polars as pl

# What a malformed record can raise while a reader builds its row: a missing key or index, a
# wrong type, a bad value, a number too large (OverflowError) or a division by a zero the dump
# gave (ArithmeticError), a structure nested past Python's limit. Readers catch these per record.
RECORD_ERRORS = (LookupError, TypeError, ValueError, AttributeError, ArithmeticError, RecursionError)

INT64 = (-(2**63), 2**63 - 1)


class BadField(ValueError):
    """A field whose value has the wrong type, is out of range or has the wrong shape."""

    def __init__(self, field: str, reason: str):
        super().__init__(f"field {field!r}: {reason}")
        self.field, self.reason = field, reason


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _kind(value: Any) -> str:
    name = {list: "list", dict: "object", bool: "boolean", float: "number", int: "integer"}.get(
        type(value), type(value).__name__)
    return "text" if isinstance(value, str) else f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def text(value: Any, field: str, *, required: bool = False) -> str | None:
    """``value`` as text; None (absent) stays None unless ``required``."""
    if value is None:
        if required:
            raise BadField(field, "missing")
        return None
    if not isinstance(value, str):
        raise BadField(field, f"{_kind(value)} ({_show(value)}), not text")
    return value


def number(value: Any, field: str) -> float | None:
    """A finite number (int, float or numeric text); None and "" give None."""
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise BadField(field, f"{_kind(value)} ({_show(value)}), not a number")
    try:
        out = float(value)
    except (ValueError, OverflowError):
        raise BadField(field, f"{_show(value)} is not a number") from None
    if not math.isfinite(out):
        raise BadField(field, f"{_show(value)} is not a finite number")
    return out


def integer(value: Any, field: str) -> int | None:
    """A whole number within 64 bits (a float or numeric text is truncated); None and "" give None."""
    out = number(value, field)
    if out is None:
        return None
    whole = value if isinstance(value, int) else int(out)
    if not INT64[0] <= whole <= INT64[1]:
        raise BadField(field, f"{_show(value)} is out of range")
    return whole


def instant(value: Any, field: str) -> datetime | None:
    """A UTC datetime (see ``imported.to_utc`` for the forms read); a BadField otherwise."""
    from pastcast.sources.imported import to_utc  # to_utc raises BadField itself

    return to_utc(value, field)


def _get(record: Any, field: str) -> Any:
    if not isinstance(record, dict):
        raise BadField(field, f"read from {_kind(record)}, not an object")
    return record.get(field)


def as_text(record: Any, field: str, *, required: bool = False) -> str | None:
    return text(_get(record, field), field, required=required)


def as_number(record: Any, field: str) -> float | None:
    return number(_get(record, field), field)


def as_int(record: Any, field: str) -> int | None:
    return integer(_get(record, field), field)


def as_instant(record: Any, field: str) -> datetime | None:
    return instant(_get(record, field), field)


def check_row(row: Mapping[str, Any], schema: Mapping[str, pl.DataType]) -> dict:
    """``row`` when every value fits its column of ``schema`` (text, 64-bit integers, finite
    floats, datetimes, booleans, lists of text; None anywhere); else a ``BadField`` naming the
    column. The last line of defence: what passes here can be written as a table."""
    for name, dtype in schema.items():
        value = row.get(name)
        if value is None:
            continue
        if dtype == pl.String:
            text(value, name)
        elif dtype == pl.Int64:
            if isinstance(value, bool) or not isinstance(value, int):
                raise BadField(name, f"{_kind(value)} ({_show(value)}), not an integer")
            integer(value, name)
        elif dtype == pl.Float64:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise BadField(name, f"{_kind(value)} ({_show(value)}), not a number")
            number(value, name)
        elif dtype == pl.Boolean:
            if not isinstance(value, bool):
                raise BadField(name, f"{_kind(value)} ({_show(value)}), not true or false")
        elif isinstance(dtype, pl.Datetime):
            if not isinstance(value, datetime):
                raise BadField(name, f"{_kind(value)} ({_show(value)}), not a time")
        elif dtype == pl.List(pl.String):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise BadField(name, f"{_show(value)} is not a list of text")
    return dict(row)
