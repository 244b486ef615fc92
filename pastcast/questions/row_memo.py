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

Stored as ``filter_state/rows.parquet`` (step, key, outcome JSON), written atomically. The
scheme it is read under names pastcast's and polars' versions and a digest of the rules' code
(``rules_fingerprint``): a memo of other code is never replayed.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import polars as pl

from pastcast.io import sha256_file, write_json, write_parquet

ROW_MEMO_FORMAT = 2  # 2: yes/no questions through the leak rules, skips kept with their reason
_SEED = 20261203
_COLUMNS = {"step": pl.String, "key": pl.UInt64, "outcome": pl.String}
_UNSEEN, _NESTED = object(), object()


def _scheme() -> str:
    from pastcast import __version__

    return f"rows-{ROW_MEMO_FORMAT}/pastcast-{__version__}/polars-{pl.__version__}/{_SEED}/rules-{rules_fingerprint()}"


@functools.lru_cache(maxsize=1)
def rules_fingerprint() -> str:
    """A digest of the code the remembered outcomes came from (the question stage, the text and
    search layers it reads with, and the prompts of its LLM judge): a rule changed without a version bump (a patch, a checkout between
    releases) starts every memo afresh instead of replaying outcomes the new rule would not give."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for path in sorted([*(root / "questions").rglob("*.py"), *(root / "text").rglob("*.py"),
                        *(root / "search").rglob("*.py"), *(root / "prompts").glob("*.toml")]):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def row_hash(columns: Sequence[str] | None = None) -> pl.Expr:
    """A 64-bit hash of a row's ``columns`` (in that order; None: every column), stable within
    a polars version: what every memo and the incremental checks compare rows by."""
    return pl.struct(pl.all() if columns is None else list(columns)).hash(_SEED)


def row_keys(frame: pl.DataFrame, columns: Sequence[str] | None = None) -> list[int]:
    """``row_hash`` of each row of ``frame``."""
    if frame.is_empty():
        return []
    return frame.select(row_hash(columns)).to_series().to_list()


_POINT_LOOKUPS = 32  # fewer keys than this are looked up in a dict, more by a join


def _encoded(value) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


class RowMemo:
    """Per-row outcomes of the last build (``path``), and the ones of this build to keep.

    Held as columns, one frame a step: a nightly build looks up, keeps and writes back a year
    of rows with joins, and decodes only the values a step asks for."""

    def __init__(self, path: str | Path, forget: bool = False):
        self.path = Path(path)
        table = pl.DataFrame(schema=_COLUMNS) if forget else self._load()
        self._earlier: dict[str, pl.DataFrame] = {
            step: part.select("key", "outcome") for (step,), part in table.partition_by("step", as_dict=True).items()}
        self._points: dict[str, dict[int, str]] = {}  # step -> key -> stored text, for point lookups
        self._kept: list[pl.DataFrame] = []  # earlier rows kept as stored, in bulk
        self._now: dict[tuple[str, int], str] = {}  # rows put, worked out or kept one by one
        self._values: dict[str, object] = {}  # stored text -> its value (see _decoded)
        self.reused = 0
        self.computed = 0
        self.replayed = 0  # steps that replayed the last build's grouping (question dedup)

    @property
    def _record(self) -> Path:
        return self.path.with_name(self.path.name + ".json")

    def _load(self) -> pl.DataFrame:
        empty = pl.DataFrame(schema=_COLUMNS)
        try:
            record = json.loads(self._record.read_text())
            if record.get("scheme") != _scheme():
                return empty
            if record.get("sha256") != sha256_file(self.path):
                return empty  # the table and its record are of different builds
            table = pl.read_parquet(self.path)
        except (OSError, ValueError, pl.exceptions.PolarsError):
            return empty  # none yet, or cut short: every row is worked out again
        if dict(table.schema) != _COLUMNS:
            return empty
        return table.unique(["step", "key"], keep="last")  # a key is looked up by joins: one row each

    def _point(self, step: str) -> dict[int, str]:
        if step not in self._points:
            earlier = self._earlier.get(step)
            self._points[step] = {} if earlier is None else dict(zip(earlier["key"].to_list(),
                                                                     earlier["outcome"].to_list()))
        return self._points[step]

    def _stored(self, step: str, keys: list[int]) -> list[str | None]:
        """The stored text of each key under ``step`` (None: not stored)."""
        earlier = self._earlier.get(step)
        if earlier is None or not keys:
            return [None] * len(keys)
        if len(keys) < _POINT_LOOKUPS:
            point = self._point(step)
            return [point.get(k) for k in keys]
        return (pl.DataFrame({"key": keys}, schema={"key": pl.UInt64})
                .join(earlier, on="key", how="left", maintain_order="left")["outcome"].to_list())

    def outcomes(self, step: str, keys: list[int], compute: Callable[[int], object]) -> list:
        """The outcome of each row (by its key): remembered, or ``compute(position)`` (JSON-able)."""
        out, found = [], []
        for i, (key, stored) in enumerate(zip(keys, self._stored(step, keys))):
            if stored is None:
                value = compute(i)
                self._now[(step, key)] = _encoded(value)
                self.computed += 1
            else:
                value = self._decoded(stored)
                found.append(key)
                self.reused += 1
            out.append(value)
        self.keep_all(step, found)
        return out

    def get(self, step: str, key: int):
        """The last build's value under (``step``, ``key``), or None; looking it up does not keep it."""
        stored = self._point(step).get(key)
        return None if stored is None else self._decoded(stored)

    def get_all(self, step: str, keys: list[int]) -> list:
        """``get`` for each key, by one join."""
        return [None if stored is None else self._decoded(stored) for stored in self._stored(step, keys)]

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
        return key in self._point(step)

    def has_all(self, step: str, keys: list[int]) -> list[bool]:
        """``has`` for each key, by one lookup."""
        earlier = self._earlier.get(step)
        if earlier is None:
            return [False] * len(keys)
        return pl.Series(keys, dtype=pl.UInt64).is_in(earlier["key"].implode()).to_list()

    def keep(self, step: str, key: int) -> None:
        """The last build's value under (``step``, ``key``) kept as stored, for the next build."""
        self._now[(step, key)] = self._point(step)[key]

    def keep_all(self, step: str, keys: list[int]) -> None:
        """``keep`` for each of these keys (each stored under ``step``), by one join."""
        earlier = self._earlier.get(step)
        if earlier is None or not keys:
            return
        if len(keys) < _POINT_LOOKUPS:
            for key in keys:
                self.keep(step, key)
            return
        wanted = pl.DataFrame({"key": keys}, schema={"key": pl.UInt64})
        self._kept.append(earlier.join(wanted, on="key", how="semi").select(pl.lit(step).alias("step"), "key", "outcome"))

    def put(self, step: str, key: int, value) -> None:
        """A value (JSON-able) for the next build."""
        self._now[(step, key)] = _encoded(value)

    def save(self) -> None:
        steps_keys = list(self._now)
        now = pl.DataFrame({"step": [s for s, _ in steps_keys], "key": [k for _, k in steps_keys],
                            "outcome": list(self._now.values())}, schema=_COLUMNS)
        # a row put this build wins over the same row kept in bulk
        table = pl.concat([*self._kept, now]).unique(["step", "key"], keep="last")
        write_parquet(table, self.path)
        write_json({"scheme": _scheme(), "sha256": sha256_file(self.path)}, self._record)


def row_reader(frame: pl.DataFrame, memo: RowMemo | None) -> Callable[[int], dict]:
    """Row ``i`` of ``frame`` as a dict: every row read at once without a memo (each is worked
    out), one at a time with one (only the rows it lacks are)."""
    if memo is None:
        return frame.rows(named=True).__getitem__
    return functools.partial(frame.row, named=True)


def rows_at(frame: pl.DataFrame, positions) -> dict[int, dict]:
    """The rows of ``frame`` at these positions, by position (the other rows are never read)."""
    wanted = pl.Series("_at", sorted(positions), pl.UInt32)
    picked = frame.with_row_index("_at").filter(pl.col("_at").is_in(wanted.implode()))
    return {q.pop("_at"): q for q in picked.iter_rows(named=True)}


def outcomes_of(memo: RowMemo | None, step: str, frame: pl.DataFrame, columns: Sequence[str],
                compute: Callable[[int], object]) -> list:
    """``compute(position)`` for every row of ``frame``, through ``memo`` when given."""
    if memo is None:
        return [compute(i) for i in range(frame.height)]
    return memo.outcomes(step, row_keys(frame, columns), compute)
