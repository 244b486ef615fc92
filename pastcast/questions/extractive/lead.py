"""The lead a rule reads: the first sentences of the body, after the lines that are not
sentences and a wire dateline; and whether a position in a sentence is inside a quotation."""

from __future__ import annotations

import re

from pastcast.questions.extractive.grammar import QUOTES
from pastcast.text import sentences

DATELINE = re.compile(
    r"^(?:[A-Z][A-Z.'’\- ]{1,40}(?:/[A-Z][A-Z.'’\- ]{1,40})?,?(?: [A-Z][a-z]{2,8}\.? \d{1,2},?)?"
    r"(?: \((?:AP|Reuters|AFP|Bloomberg|dpa|PA|UPI|CNN|IANS|PTI|ANI|Xinhua|AAP|CP)\))?"
    r"\s*[—–:\-]+\s+|\((?:AP|Reuters|AFP|Bloomberg|dpa|PA|UPI|CNN|AAP|CP)\)\s*[—–\-]+\s*)")


def lead_of(text: str, n: int = 2) -> list[str]:
    """The first ``n`` sentences of the body: lines that are not sentences (a headline kept by
    the extractor, a kicker, a caption, "Read more") are skipped, and so is a wire dateline."""
    out: list[str] = []
    for line in (text or "").split("\n"):
        line = line.strip()
        if not line or line.endswith("?") or not re.search(r"[.!][\"'”’)]?$", line):
            continue  # a headline, a label, a question: not a report
        if not out:
            line = DATELINE.sub("", line, count=1).strip()
        out.extend(_sentences(line))
        if len(out) >= n:
            break
    return out[:n]


_ABBR_END = re.compile(r"(?:\b(?:St|Mt|Ft|Dr|Mr|Mrs|Ms|Jr|Sr|Gov|Sen|Rep|Gen|Lt|Col|Capt|Sgt|Prof|"
                       r"Rev|No|Co|Corp|Inc|Ltd|Bros|Ave|Blvd)|\b[A-Z])\.$")


def _sentences(text: str) -> list[str]:
    """``pastcast.text.sentences``, without the splits after "St." or "U.S." before a name."""
    out: list[str] = []
    for s in sentences(text):
        if out and _ABBR_END.search(out[-1]):
            out[-1] = f"{out[-1]} {s}"
        else:
            out.append(s)
    return out


def _quoted(sentence: str, pos: int) -> bool:
    before = sentence[:pos]
    return sum(before.count(q) for q in QUOTES) % 2 == 1
