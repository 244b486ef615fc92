"""A question's category from its title and subject, for questions whose rule sets none."""

from __future__ import annotations

import re

CATEGORIES = (
    ("economy", re.compile(r"rate|inflation|price|gdp|unemployment|index|bank", re.I)),
    ("politics", re.compile(r"election|vote|leadership|party|minister|mayor|referendum|"
                            r"primary|ballot|governor|president|council", re.I)),
    ("sports", re.compile(r"cup|final|league|championship|match|race|marathon|tournament|"
                          r"trophy|derby|grand prix|coach|manager|open", re.I)),
    ("culture", re.compile(r"prize|award|festival|film|book|music|art", re.I)),
    ("business", re.compile(r"chief|ceo|executive|board|company|director|chair", re.I)),
)


def category_of(text: str) -> str:
    for name, pattern in CATEGORIES:
        if pattern.search(text):
            return name
    return "other"
