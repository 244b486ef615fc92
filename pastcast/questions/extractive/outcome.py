"""What a rule makes of an outcome report (``Outcome``), and the helpers the rules share to
read its parts: the answer span, an event as named, an organisation, an office."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pastcast.questions.extractive.grammar import (_FUNCTION_START, _HONORIFIC, _ORDINALS, _OWNER,
                                                   _TIME_WORDS, OFFICE_WORDS, ORG_WORDS)


@dataclass(frozen=True)
class Outcome:
    rule: str
    answer: str
    answer_type: str
    title: str
    subject: str  # the event or office the question is about, for background search
    criteria: str
    # The title with placeholders for the time ({year}, {month}, {day}, {prev_month}) that
    # generate_extractive fills from the resolution date; empty: ``title`` as it is.
    timed_title: str = ""
    aliases: tuple[str, ...] = ()  # other spellings of the answer that count as right
    options: tuple[str, ...] = ()  # the candidate outcomes of a binary question
    category: str = ""  # empty: derived from the title and subject


def _clean(phrase: str) -> str:
    return re.sub(r"^(?:the|its|their|a|an)\s+", "", phrase.strip(), flags=re.I).strip()


def _answer(name: str) -> str | None:
    """The answer span: honorifics off ("President X" -> "X"); None for a span that is not
    one name (two people joined by "and", a pronoun, too long)."""
    name = _HONORIFIC.sub("", name.strip()).strip()
    if not name or len(name.split()) > 6:
        return None
    if re.search(r"\s(?:and|&)\s", name) and not ORG_WORDS.search(name):
        return None
    return name


def _named(phrase: str) -> bool:
    """A phrase names something: a capitalised word that is not a weekday or month, or a year."""
    words = [w for w in re.findall(r"[A-Z][\w'’\-]*", phrase) if not _TIME_WORDS.fullmatch(w)]
    return bool(words) or bool(re.search(r"\b(?:19|20)\d{2}\b", phrase))


def _has_year(text: str) -> bool:
    return bool(re.search(r"\b(?:19|20)\d{2}(?:[-/]\d{2,4})?\b", text))


def _event(m: re.Match) -> str:
    """The event as named: "at the Veloria Film Awards" is part of it, "at Wembley" (a venue
    without "the") is not."""
    event = _clean(m["event"]).rstrip(".")
    if m["for"]:
        event += f" for {m['for']}"
    if _at(m):
        event += f" at the {m['at']}"
    return event


def _at(m: re.Match) -> bool:
    return bool(m["at"] and m.groupdict().get("atthe", "the"))


def _event_timed(m: re.Match) -> str:
    """The event with a {year} placeholder where a year reads naturally ("the {year} Veloria
    Film Awards", "the {year} Kestrel Bay mayoral election"), unless it names one already."""
    event = _event(m)
    if _has_year(event):
        return event
    if own := _OWNER.match(event):
        return f"{own[0]}{{year}} {event[own.end():]}"
    if _at(m):
        return event.replace(f" at the {m['at']}", f" at the {{year}} {m['at']}")
    return f"{{year}} {event}"


def _org(m: re.Match, group: str = "org") -> str:
    """The organisation as written, keeping its article ("the Central Bank of Veloria")."""
    the = m.groupdict().get("the")
    return f"the {m[group].strip()}" if the else m[group].strip()


def _office(role: str) -> bool:
    return (bool(OFFICE_WORDS.search(role)) and len(role.split()) <= 8
            and not _FUNCTION_START.match(role) and not _ORDINALS.search(role)
            and not re.search(r"\d", role))
