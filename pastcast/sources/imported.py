"""What an import returns: normalised rows, drops, and a tally that accounts for every input
record (each one either reached an output table or was dropped with a reason)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import polars as pl

from pastcast.drops import Drop, drops_frame
from pastcast.sources.fields import BadField
from pastcast.sources.jsonfiles import READ_ERRORS, failure_reason, iter_records
from pastcast.sources.limits import TOO_LARGE, TooLarge
from pastcast.schemas import frame

MISSING = (None, "", "N/A", "n/a", "NA", "null", "None")


def to_utc(value, what: str = "time") -> datetime | None:
    """A UTC datetime from what dumps use for time: epoch seconds or milliseconds (int, float
    or numeric string), ISO 8601 with ``Z``, an offset or none (read as UTC), or a bare date
    (midnight UTC). Missing markers ("", "N/A", None) give None; anything else (a list, a time
    past the calendar such as 1e300, NaN) a ``BadField`` (a ValueError) naming ``what``.
    """
    if value in MISSING:
        return None
    if isinstance(value, datetime):
        try:
            return value.astimezone(timezone.utc) if value.tzinfo else value.replace(tzinfo=timezone.utc)
        except OverflowError:  # year 1 or 9999 with an offset that leaves the calendar
            raise BadField(what, f"{value.isoformat()!r} is out of range for a time") from None
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
    if isinstance(value, bool):
        raise BadField(what, f"{value!r} is not a time")
    if isinstance(value, str):
        text = value.strip()
        try:
            value = float(text)
        except ValueError:
            try:
                parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
            except ValueError:
                raise BadField(what, f"{value[:60]!r} is not a time") from None
            return to_utc(parsed, what)
    if isinstance(value, (int, float)):
        # Seconds stay below 1e11 until the year 5138; milliseconds pass it from 1973 on.
        seconds = value / 1000 if abs(value) >= 1e11 else value
        if abs(seconds) >= 1e11:  # microseconds (Bluesky's time_us) or nanoseconds
            seconds = value / 1e6 if abs(value) < 1e17 else value / 1e9
        try:
            return datetime.fromtimestamp(seconds, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):  # 1e300, NaN, inf: past any calendar
            raise BadField(what, f"{value!r} is out of range for a time") from None
    raise BadField(what, f"{type(value).__name__} {str(value)[:60]!r} is not a time")


Sink = Callable[[str, list[dict]], None]  # (table, rows) -> written somewhere; "drops" too


@dataclass
class Imported:
    """Rows by output table, drops, and per-kind counts of input records.

    Readers call ``seen(kind)`` for each input record, then either ``kept(kind)`` once it has
    reached an output (alone or merged into a row) or ``drop(...)``. ``unaccounted()`` is
    empty when every record was one or the other.

    With a ``sink``, rows and drops are handed to it every ``sink_rows`` (and by ``flush()``)
    instead of piling up, so a dump larger than memory streams through.
    """

    tables: dict[str, list[dict]] = field(default_factory=dict)
    drops: list[Drop] = field(default_factory=list)
    read: Counter = field(default_factory=Counter)
    used: Counter = field(default_factory=Counter)
    sink: Sink | None = None
    sink_rows: int = 100_000
    _dropped: Counter = field(default_factory=Counter)
    _sunk: Counter = field(default_factory=Counter)  # rows handed to the sink, by table

    def seen(self, kind: str, n: int = 1) -> None:
        self.read[kind] += n

    def kept(self, kind: str, n: int = 1) -> None:
        self.used[kind] += n

    def add(self, table: str, row: dict) -> None:
        rows = self.tables.setdefault(table, [])
        rows.append(row)
        if self.sink is not None and len(rows) >= self.sink_rows:
            self._hand_over(table)

    def drop(self, item_id: str, kind: str, stage: str, reason: str, detail: str = "") -> None:
        self.drops.append(Drop(str(item_id), kind, stage, reason, detail))
        self._dropped[kind] += 1
        if self.sink is not None and len(self.drops) >= self.sink_rows:
            self._hand_over("drops")

    def _hand_over(self, table: str) -> None:
        if table == "drops":
            rows, self.drops = [asdict(d) for d in self.drops], []
        else:
            rows, self.tables[table] = self.tables.get(table, []), []
        if rows:
            self.sink(table, rows)
            self._sunk[table] += len(rows)

    def flush(self) -> None:
        """Hand every row still held to the sink."""
        if self.sink is not None:
            for table in [*self.tables, "drops"]:
                self._hand_over(table)

    def rows(self, table: str) -> int:
        """Rows added to ``table`` so far (held or handed over)."""
        held = len(self.drops) if table == "drops" else len(self.tables.get(table, []))
        return held + self._sunk[table]

    def dropped(self) -> Counter:
        return Counter(self._dropped)

    def unaccounted(self) -> dict[str, int]:
        """{kind: records neither kept nor dropped}; empty when the books balance."""
        dropped = self.dropped()
        kinds = set(self.read) | set(self.used) | set(dropped)
        gaps = {k: self.read[k] - self.used[k] - dropped[k] for k in sorted(kinds)}
        return {k: n for k, n in gaps.items() if n}

    def merge(self, other: Imported) -> Imported:
        """Add ``other``'s rows and counts (both without a sink)."""
        if self.sink is not None or other.sink is not None:
            raise ValueError("merge imports before streaming them")
        for table, rows in other.tables.items():
            self.tables.setdefault(table, []).extend(rows)
        self.drops.extend(other.drops)
        self.read.update(other.read)
        self.used.update(other.used)
        self._dropped.update(other._dropped)
        return self

    def frame(self, table: str, schema: Mapping[str, pl.DataType]) -> pl.DataFrame:
        return frame(self.tables.get(table, []), schema)

    def drops_frame(self) -> pl.DataFrame:
        return drops_frame(self.drops)

    def counts(self) -> dict:
        """For reports: records read, kept and dropped by kind."""
        dropped = self.dropped()
        return {k: {"read": self.read[k], "kept": self.used[k], "dropped": dropped[k]}
                for k in sorted(set(self.read) | set(dropped))}


def records_or_drop(path: Path, imported: Imported, stage: str) -> list[tuple[str, Any]] | None:
    """Every (locator, record) of ``path``; a file that cannot be read (missing, corrupt
    compression, not JSON, empty, past the file cap) is one ``file`` drop naming it, and None; a
    file cut short (``truncated_file``) keeps the records read before the cut; a line past the
    record cap is a ``too_large`` drop of kind ``record``, and the lines after it are read."""
    records: list[tuple[str, Any]] = []
    try:
        for where, record in iter_records(path):
            if isinstance(record, TooLarge):  # a line past the record cap: dropped, the rest read
                imported.seen("record")
                imported.drop(f"{path.name}:{where}", "record", stage, TOO_LARGE, str(record))
                continue
            records.append((where, record))
        return records
    except READ_ERRORS as exc:
        imported.seen("file")
        message = str(exc) if str(path) in str(exc) else f"{path}: {exc}"
        if records:
            message += f" (after {records[-1][0]}; the records before it are kept)"
        imported.drop(path.name, "file", stage, failure_reason(exc), message)
        return records or None
