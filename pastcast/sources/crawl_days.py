"""Crawl days: which day a WARC file belongs to, the files of a corpus grouped by day, and
lists of days written and read back ("2026-01-05..2026-01-09,2026-01-12").

A WARC file belongs to one day: the time stamp in its CC-NEWS file name
(``CC-NEWS-20260105074000-00000.warc.gz`` is 2026-01-05, UTC), else the WARC-Date of its first
content record (response, resource or revisit; never warcinfo, which is dated when the file was
written: see ``warc_day`` and docs/crawl-days.md).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from pastcast.sources.warc import parse_warc_date

CC_NEWS_NAME = re.compile(r"CC-NEWS-(\d{8})(\d{6})-\d+\.(?:warc|arc)(?:\.gz)?$")
FIRST_CRAWL = date(1996, 1, 1)  # the Internet Archive's first crawls: no web archive is older

# A crawl day is read from a record of what was fetched, never from the crawl's bookkeeping:
# warcinfo is written when the file is written (months after the crawl in a re-packed archive),
# request and metadata records are not in every file and say nothing a response does not.
CONTENT_RECORDS = frozenset({"response", "resource", "revisit"})
# Records read at most before giving up on a first content record: a crawler writes one within
# the first few records, so a file without one that early (a WAT or WET file, a log) is not read whole.
RECORDS_BEFORE_CONTENT = 1000


@dataclass(frozen=True)
class LeadingRecords:
    """The start of an archive: its first content record's WARC-Date (None when it has none
    within ``RECORDS_BEFORE_CONTENT`` records), and (type, WARC-Date) of the records before it."""

    content_date: str | None
    before: list[tuple[str, str | None]]

    def why_undated(self) -> str:
        if not self.before:
            return "no records"
        shown = ", ".join(f"{kind} of {when}" if when else kind for kind, when in self.before[:3])
        more = f" and {len(self.before) - 3} more" if len(self.before) > 3 else ""
        where = f"in its first {len(self.before)} records" if len(self.before) >= RECORDS_BEFORE_CONTENT else "in it"
        return (f"no response, resource or revisit record {where} to date its crawl by (read: {shown}{more}; "
                f"warcinfo, request and metadata records do not date a crawl)")


def _fastwarc_records(handle) -> Iterable[tuple[str, str | None]]:
    from fastwarc.warc import ArchiveIterator

    for record in ArchiveIterator(handle, parse_http=False):
        yield (record.headers.get("WARC-Type") or "").lower(), record.headers.get("WARC-Date")


def _warcio_records(handle) -> Iterable[tuple[str, str | None]]:
    from warcio.archiveiterator import ArchiveIterator

    # an ARC file's header comes as warcinfo, its records as responses dated by their ARC header
    for record in ArchiveIterator(handle, arc2warc=True):
        yield (record.rec_type or "").lower(), record.rec_headers.get_header("WARC-Date")


def _lead_of(records: Iterable[tuple[str, str | None]]) -> LeadingRecords:
    before = []
    for kind, when in records:
        if kind in CONTENT_RECORDS and when:
            return LeadingRecords(when, before)
        before.append((kind, when))
        if len(before) >= RECORDS_BEFORE_CONTENT:
            break
    return LeadingRecords(None, before)


def leading_records(path: Path) -> LeadingRecords:
    """Records of ``path`` up to its first content record: FastWARC first (gzip, lz4 or plain
    WARC, the HTTP headers not parsed), then warcio when FastWARC read nothing or failed (ARC
    files; warcio also names what is wrong with a damaged file, by raising)."""
    with open(path, "rb") as handle:
        try:
            lead = _lead_of(_fastwarc_records(handle))
            if lead.content_date or lead.before:
                return lead
        except Exception:  # noqa: BLE001 - an ARC file or a damaged one: warcio says which
            pass
    with open(path, "rb") as handle:
        return _lead_of(_warcio_records(handle))


def _plausible_day(value: str) -> date:
    day = parse_warc_date(value).date()
    # warcio reads any text line as an ARC header and dates it 2999-12-31
    if not FIRST_CRAWL <= day <= datetime.now(timezone.utc).date() + timedelta(days=1):
        raise ValueError(f"implausible WARC-Date {value!r} (not a WARC or ARC file?)")
    return day


def warc_day(path: str | Path) -> date:
    """The crawl day of a WARC (or ARC) file: the time stamp in its CC-NEWS file name (nothing
    read), else the WARC-Date of its first content record (response, resource or revisit).

    The first content record, not the earliest: a crawler writes records in crawl order, so the
    first is the crawl's start, the day a CC-NEWS name would give the same file (a file spanning
    many days gets the day its crawl started), and it is found in a few kilobytes where the
    earliest would need the whole file read, on every sensor tick. Raises ValueError naming the
    file when the file cannot be read or has no content record to date it by."""
    path = Path(path)
    match = CC_NEWS_NAME.search(path.name)
    if match:
        return datetime.strptime(match.group(1), "%Y%m%d").date()
    try:
        lead = leading_records(path)
        if lead.content_date:
            return _plausible_day(lead.content_date)
    except Exception as exc:  # noqa: BLE001 - warcio raises its own errors on damaged archives
        raise ValueError(f"{path}: cannot read a WARC-Date to date the file ({type(exc).__name__}: {exc})") from exc
    raise ValueError(f"{path}: no CC-NEWS time stamp in the file name and {lead.why_undated()}")


@dataclass(frozen=True)
class DayFiles:
    by_day: dict[date, list[Path]]
    undated: dict[str, str] = field(default_factory=dict)  # file -> why its day is unknown

    @classmethod
    def of(cls, files: Iterable[str | Path]) -> DayFiles:
        by_day: dict[date, list[Path]] = {}
        undated = {}
        for f in sorted(Path(p) for p in files):
            try:
                by_day.setdefault(warc_day(f), []).append(f)
            except ValueError as exc:
                undated[str(f)] = str(exc)
        return cls(dict(sorted(by_day.items())), undated)

    def days(self) -> list[date]:
        return list(self.by_day)


def files_digest(files: Iterable[str | Path]) -> str:
    """Names, sizes and modification times: changes when a file is added, replaced or removed."""
    h = hashlib.sha256()
    for f in sorted(Path(p) for p in files):
        stat = f.stat()
        h.update(f"{f.name}\t{stat.st_size}\t{stat.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def days_to_build(day_files: DayFiles, built: dict[date, str], before: date) -> list[date]:
    """Days before ``before`` (a day is complete once it is over) whose files are not yet built,
    or changed since: ``built`` maps a day to the ``files_digest`` it was built from."""
    return [d for d, files in day_files.by_day.items()
            if d < before and built.get(d) != files_digest(files)]


def contiguous(days: Iterable[date]) -> list[tuple[date, date]]:
    """Sorted days as (first, last) runs of consecutive days."""
    runs: list[list[date]] = []
    for d in sorted(set(days)):
        if runs and (d - runs[-1][1]).days == 1:
            runs[-1][1] = d
        else:
            runs.append([d, d])
    return [(a, b) for a, b in runs]


def parse_days(text: str) -> list[date]:
    """"2026-03-01..2026-03-31" (inclusive) or one day "2026-03-05" as a list of days."""
    first, _, last = text.partition("..")
    try:
        a, b = date.fromisoformat(first.strip()), date.fromisoformat((last or first).strip())
    except ValueError as exc:
        raise ValueError(f"days {text!r}: expected YYYY-MM-DD or YYYY-MM-DD..YYYY-MM-DD") from exc
    if b < a:
        raise ValueError(f"days {text!r}: the last day is before the first")
    return [a + timedelta(days=n) for n in range((b - a).days + 1)]


def parse_day_list(text: str) -> list[date]:
    """Comma-separated days and ranges ("2026-01-03,2026-01-07..2026-01-09", what ``as_ranges``
    joined with commas writes) as a sorted list of days."""
    return sorted({d for item in text.split(",") if item.strip() for d in parse_days(item)})


def as_ranges(days: Iterable[date]) -> list[str]:
    """Days written compactly: ["2026-01-05..2026-01-09", "2026-01-12"]."""
    return [a.isoformat() if a == b else f"{a.isoformat()}..{b.isoformat()}" for a, b in contiguous(days)]
