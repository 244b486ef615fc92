"""Outcomes of the filter's row-local rules kept between builds, by the row's content.

Validation and the self-leak check look at one question alone, so a question that reaches them
exactly as in the build before (the same values in the columns the rule reads, the same
settings) has the same outcome: a nightly build works out the new day's questions and looks the
others up. A row's key is a 64-bit hash of those columns (polars' row hash, stable within a
polars version, which the memo's scheme names along with pastcast's version: an upgrade of
either starts afresh, as does ``full``). What a build did not look up or add is forgotten.

The cross-leak step keeps each question's pairs the same way (``leakage.CROSS_LEAK_STEP``:
the row keys of the questions whose text shows its answer), since a pair depends on its two
rows alone.

Stored as ``filter_state/rows.parquet`` (step, key, outcome JSON), written atomically.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import polars as pl

from pastcast.io import sha256_file, write_json, write_parquet

ROW_MEMO_FORMAT = 1
_SEED = 20261203
_COLUMNS = {"step": pl.String, "key": pl.UInt64, "outcome": pl.String}
_UNSEEN, _NESTED = object(), object()


def _scheme() -> str:
    from pastcast import __version__

    return f"rows-{ROW_MEMO_FORMAT}/pastcast-{__version__}/polars-{pl.__version__}/{_SEED}"


def row_hash(columns: Sequence[str] | None = None) -> pl.Expr:
    """A 64-bit hash of a row's ``columns`` (in that order; None: every column), stable within
    a polars version: what every memo and the incremental checks compare rows by."""
    return pl.struct(pl.all() if columns is None else list(columns)).hash(_SEED)


def row_keys(frame: pl.DataFrame, columns: Sequence[str] | None = None) -> list[int]:
    """``row_hash`` of each row of ``frame``."""
    if frame.is_empty():
        return []
    return frame.select(row_hash(columns)).to_series().to_list()


class RowMemo:
    """Per-row outcomes of the last build (``path``), and the ones of this build to keep."""

    def __init__(self, path: str | Path, forget: bool = False):
        self.path = Path(path)
        self._earlier: dict[tuple[str, int], str] = {} if forget else self._load()
        self._now: dict[tuple[str, int], str] = {}
        self._values: dict[str, object] = {}  # stored text -> its value (see _decoded)
        self.reused = 0
        self.computed = 0
        self.replayed = 0  # steps that replayed the last build's grouping (question dedup)

    @property
    def _record(self) -> Path:
        return self.path.with_name(self.path.name + ".json")

    def _load(self) -> dict[tuple[str, int], str]:
        try:
            record = json.loads(self._record.read_text())
            if record.get("scheme") != _scheme():
                return {}
            if record.get("sha256") != sha256_file(self.path):
                return {}  # the table and its record are of different builds
            table = pl.read_parquet(self.path)
        except (OSError, ValueError, pl.exceptions.PolarsError):
            return {}  # none yet, or cut short: every row is worked out again
        return dict(zip(zip(table["step"].to_list(), table["key"].to_list()), table["outcome"].to_list()))

    def outcomes(self, step: str, keys: list[int], compute: Callable[[int], object]) -> list:
        """The outcome of each row (by its key): remembered, or ``compute(position)`` (JSON-able)."""
        out = []
        for i, key in enumerate(keys):
            stored = self._earlier.get((step, key))
            if stored is None:
                value = compute(i)
                self._now[(step, key)] = json.dumps(value, default=str, ensure_ascii=False)
                self.computed += 1
            else:
                value = self._decoded(stored)
                self._now[(step, key)] = stored
                self.reused += 1
            out.append(value)
        return out

    def get(self, step: str, key: int):
        """The last build's value under (``step``, ``key``), or None; looking it up does not keep it."""
        stored = self._earlier.get((step, key))
        return None if stored is None else self._decoded(stored)

    def _decoded(self, stored: str):
        """``json.loads(stored)``, decoded once per distinct text: most rows share a handful of
        outcomes (no problem, no flag). A caller gets its own list or dict (a shallow copy of
        one whose items are plain values; one holding lists or dicts is decoded afresh)."""
        value = self._values.get(stored, _UNSEEN)
        if value is _UNSEEN:
            value = json.loads(stored)
            flat = not isinstance(value, (list, dict)) or all(
                not isinstance(v, (list, dict)) for v in (value.values() if isinstance(value, dict) else value))
            self._values[stored] = value if flat else _NESTED
            if not flat:
                return value
        elif value is _NESTED:
            return json.loads(stored)
        return value.copy() if isinstance(value, (list, dict)) else value

    def has(self, step: str, key: int) -> bool:
        """Whether the last build stored a value under (``step``, ``key``) (nothing decoded)."""
        return (step, key) in self._earlier

    def keep(self, step: str, key: int) -> None:
        """The last build's value under (``step``, ``key``) kept as stored, for the next build."""
        self._now[(step, key)] = self._earlier[(step, key)]

    def put(self, step: str, key: int, value) -> None:
        """A value (JSON-able) for the next build."""
        self._now[(step, key)] = json.dumps(value, default=str, ensure_ascii=False)

    def save(self) -> None:
        steps_keys = list(self._now)
        table = pl.DataFrame({"step": [s for s, _ in steps_keys], "key": [k for _, k in steps_keys],
                              "outcome": list(self._now.values())}, schema=_COLUMNS)
        write_parquet(table, self.path)
        write_json({"scheme": _scheme(), "sha256": sha256_file(self.path)}, self._record)


def outcomes_of(memo: RowMemo | None, step: str, frame: pl.DataFrame, columns: Sequence[str],
                compute: Callable[[int], object]) -> list:
    """``compute(position)`` for every row of ``frame``, through ``memo`` when given."""
    if memo is None:
        return [compute(i) for i in range(frame.height)]
    return memo.outcomes(step, row_keys(frame, columns), compute)
