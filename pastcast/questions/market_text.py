"""A market's text as it stood on a day: creator updates appended later are cut.

Market descriptions grow after creation: Manifold appends "Update 2025-06-23 (PST) (AI summary
of creator comment): ... may resolve YES even if ...", other creators "Edit May 6, 2025:" or
"[Update 2025-03-01]". Shown on a question's open date, such an update tells the forecaster
what happened later. Updates are appended in order, so everything from the first update dated
after the day on is later text and is cut; updates dated on or before it stay. An update whose
date cannot be read counts as later (it is cut): a leak costs more than a lost clarification.
"""

from __future__ import annotations

import re
from datetime import date

from pastcast.text.vocabulary import MONTH_ABBREVIATIONS, MONTHS

_MONTH = {m.lower(): i for i, m in enumerate(MONTHS, 1)}
_MONTH |= {a.lower(): _MONTH[m.lower()] for a in MONTH_ABBREVIATIONS for m in MONTHS
           if m.lower().startswith(a.lower()[:3])}
_ISO = r"(?P<y>\d{4})-(?P<a>\d{1,2})-(?P<b>\d{1,2})"
_WRITTEN = rf"(?P<month>{'|'.join(sorted(_MONTH, key=len, reverse=True))})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y2>\d{{4}})"
# at the start of a line, maybe in brackets or bold: "Update 2025-06-23", "[Edit May 6, 2025]:",
# "**UPDATE (2025-03-01)**", "Edit: ..." (undated edits are kept: nothing says they are later)
UPDATE_MARKER = re.compile(
    rf"^[ \t]*[-•>\[(*_]*\s*(?:(?:mod|creator|admin|author)\s+)?(?:updates?|updated|edits?|edited|clarifications?)\b"
    rf"(?:\s*\d{{1,2}}\b)?[\s(:\-–—]*(?:on\s+)?(?:{_ISO}|{_WRITTEN})",
    re.I | re.M)


def _marker_date(match: re.Match) -> date | None:
    try:
        if match["y"]:
            year, a, b = int(match["y"]), int(match["a"]), int(match["b"])
            return date(year, a, b) if a <= 12 else date(year, b, a)  # "2024-27-12": day, month swapped
        return date(int(match["y2"]), _MONTH[match["month"].lower()], int(match["d"]))
    except ValueError:
        return None


def as_of(text: str | None, day: date) -> tuple[str, date | None]:
    """``text`` without what was appended after ``day`` (see the module doc), and the date of
    the first update cut (None when nothing was cut)."""
    text = text or ""
    for match in UPDATE_MARKER.finditer(text):
        stated = _marker_date(match)
        if stated is None or stated > day:
            return text[:match.start()].rstrip(), stated or day
    return text, None
