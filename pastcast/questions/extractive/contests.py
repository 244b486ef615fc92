"""The rules for who won, from their matches (the patterns are in ``rules``): a named event
(``won``), a final (``beat``), a gold medal (``medal``), an election to an office (``elected``)
and a decided vote reported in the future tense (``next``)."""

from __future__ import annotations

import re

from pastcast.questions.extractive.grammar import _OWNER, _WEEKDAY, EVENT_WORDS, ORG_WORDS
from pastcast.questions.extractive.outcome import (Outcome, _at, _clean, _event, _event_timed, _has_year, _named,
                                                   _office)

_POLL = re.compile(r"\b(elections?|primary|primaries|nomination|leadership|contest|vote|ballot|"
                   r"runoff|run-off|by-election|caucus|presidency|mayoralty|premiership|"
                   r"referendum|seat|race for)\b", re.I)
_TEAM = re.compile(r"\b(cup|final|league|derby|match|championship|bowl|shield|series|playoffs?|"
                   r"play-offs?)\b", re.I)


def _bad_event(m: re.Match) -> bool:
    """Not one named event: "a seat", "her first-round match", "Tuesday's election", "victory"."""
    raw = m["event"].strip()
    event = _event(m)
    if re.match(r"(?:a|an|his|her|their|its|our|my|your|one|another|some|two|three)\s", raw, re.I):
        return True
    if re.match(rf"(?:{_WEEKDAY}|last|this|next|Last|This|Next)\b", raw):
        return True
    if re.match(r"(?:victory|win|lead|majority|control|support|backing|approval|right|"
                r"most|bulk|share)\b", _clean(raw), re.I):
        return True
    last = re.split(r"\s+", _clean(raw).rstrip("."))[-1]
    if not (EVENT_WORDS.search(last) or re.match(r"[A-Z]|\d{4}$", last) or m["for"] or _at(m)):
        return True  # "the World Cup five times between": the event ends at its head noun
    return not EVENT_WORDS.search(event) or not _named(event)


def _person_or_org(name: str, event: str) -> str:
    if ORG_WORDS.search(name) or re.search(r"\b(cup|final|league|derby|match)\b", event, re.I):
        return "organisation"
    return "person" if 2 <= len(name.split()) <= 3 else "entity"


def _the_event(event: str) -> str:
    """"the Kestrel Bay mayoral election", but "Brazil's presidential runoff"."""
    return event if _OWNER.match(event) else f"the {event}"


def _win_outcome(rule: str, m: re.Match, team: bool) -> Outcome:
    event, timed = _event(m), _event_timed(m)
    kind = _person_or_org(m["answer"], event)
    who = "Who"
    if _POLL.search(event):
        kind = "organisation" if ORG_WORDS.search(m["answer"]) else (
            "person" if 2 <= len(m["answer"].split()) <= 3 else "entity")
    elif team or (kind == "organisation" and _TEAM.search(event)):
        who, kind = "Which team", "organisation"
    if work := re.search(r"\b(film|novel|book|album|song|play|picture|documentary)\b", event, re.I):
        who, kind = f"Which {'film' if work[1].lower() == 'picture' else work[1].lower()}", "title"
    return Outcome(rule, m["answer"], kind, f"{who} will win {_the_event(event)}?", event,
                   f"Resolves to the winner of {_the_event(event)}, as reported by news outlets.",
                   timed_title=f"{who} will win {_the_event(timed)}?",
                   category="sports" if who == "Which team" else "")


def _won(m: re.Match, lead: list[str]) -> Outcome | None:
    return None if _bad_event(m) else _win_outcome("won", m, team=False)


def _beat(m: re.Match, lead: list[str]) -> Outcome | None:
    if _bad_event(m):
        return None
    event = _event(m)
    if not m["how"] and not re.search(r"\b(final|grand final|decider|super bowl|showpiece|title game|"
                                      r"championship game|runoff|run-off|election|primary)$", event, re.I):
        return None  # "beat B 2-0 in the Premier League": a match, not the league
    return _win_outcome("beat", m, team=not _POLL.search(event))


def _medal(m: re.Match, lead: list[str]) -> Outcome | None:
    event = _clean(m["event"])
    games = f" at the {m['at']}" if _at(m) else ""
    if not _named(event + games) or re.match(r"(?:a|an|his|her|their)\s", m["event"].strip(), re.I):
        return None
    timed_games = games if not games or _has_year(games) else f" at the {{year}} {m['at']}"
    subject = f"{event}{games}"
    return Outcome("medal", m["answer"], _person_or_org(m["answer"], ""),
                   f"Who will win gold in the {subject}?", subject,
                   f"Resolves to the winner of the gold medal in the {subject}.",
                   timed_title=f"Who will win gold in the {event}{timed_games}?", category="sports")


def _elected(m: re.Match, lead: list[str]) -> Outcome | None:
    role = _clean(m["role"])
    if not _office(role):
        return None
    return Outcome("elected", m["answer"], "person", f"Who will be elected {role}?", role,
                   f"Resolves to the person elected {role}, as reported by news outlets.",
                   timed_title=f"Who will be elected {role} in {{year}}?")


def _next(m: re.Match, lead: list[str]) -> Outcome | None:
    role = m["role"].strip()
    rest = m.string[m.end("role"):]
    if not _office(role) or not re.search(
            r"\b(?:after|following|having)\b.{0,80}\b(?:vote|votes|voting|election|ballot|"
            r"runoff|run-off|primary|contest|race|caucus|conclave|congress|convention)\b", rest):
        return None
    return Outcome("next", m["answer"], "person", f"Who will be {role}?", role,
                   f"Resolves to the person chosen as {role}, as reported by news outlets.",
                   category="politics")
