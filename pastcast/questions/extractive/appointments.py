"""The rules for who takes an office, from their matches (the patterns are in ``rules``): an
appointment (``appointed``, in the active, passive and possessive forms), a named successor
(``succession``) and a departure whose successor the lead names (``departure``)."""

from __future__ import annotations

import re

from pastcast.questions.extractive.grammar import ANSWER, HEDGE, HOST_WORDS, LEAD_IN, STOP
from pastcast.questions.extractive.lead import _quoted
from pastcast.questions.extractive.outcome import Outcome, _answer, _clean, _office, _org
from pastcast.text import normalise


def _appointed(m: re.Match, lead: list[str]) -> Outcome | None:
    role, org = _clean(m["role"]), _org(m)
    if not _office(role) or len(role.split()) > 6 or HOST_WORDS.search(role):
        return None
    det = (m["det"] or "its").strip().lower()
    det = "its" if det == "the" else det
    nxt = "" if re.match(r"(?:interim|acting|next|permanent|caretaker)\b", role) else "next "
    return Outcome("appointed", m["answer"], "person", f"Who will {org} appoint as {det} {role}?",
                   f"{org} {role}", f"Resolves to the person {org} appoints as {det} {role}.",
                   timed_title=f"Who will {org} appoint as {det} {nxt}{role}?")


def _appointed_passive(m: re.Match, lead: list[str]) -> Outcome | None:
    role, org = _clean(m["role"]), _org(m)
    if not _office(role) or len(role.split()) > 6:
        return None
    verb = "named" if m["verb"].startswith("named") else "appointed"
    of = m["of"] or "of"
    nxt = "" if re.match(r"(?:interim|acting|next|permanent|caretaker)\b", role) else "next "
    return Outcome("appointed", m["answer"], "person", f"Who will be {verb} {role} {of} {org}?",
                   f"{org} {role}", f"Resolves to the person {verb} {role} {of} {org}.",
                   timed_title=f"Who will be the {nxt}{role} {of} {org}?")


def _appointed_possessive(m: re.Match, lead: list[str]) -> Outcome | None:
    role, org = _clean(m["role"]), m["org"].strip()
    if not _office(role) or len(role.split()) > 5:
        return None
    return Outcome("appointed", m["answer"], "person", f"Who will be {org}'s next {role}?",
                   f"{org} {role}", f"Resolves to the person named {org}'s {role}.")


def _succession(m: re.Match, lead: list[str]) -> Outcome | None:
    role, prev = _clean(m["role"]), _answer(m["prev"])
    if not _office(role) or not prev or normalise(prev) == normalise(m["answer"]):
        return None
    return Outcome("succession", m["answer"], "person", f"Who will succeed {prev} as {role}?",
                   role, f"Resolves to the person chosen to succeed {prev} as {role}, "
                   "interim or permanent, as reported by news outlets.")


_SUCCESSOR = [  # who takes over, in the departure sentence or elsewhere in the lead
    re.compile(rf"\b(?:replaced|succeeded) by (?:\w+ ){{0,4}}?(?P<answer>{ANSWER}){STOP}"),
    re.compile(rf"\bwith (?:\w+ ){{0,3}}?(?P<answer>{ANSWER}) (?:taking over|stepping in|"
               rf"named as (?:his|her|their) successor){STOP}"),
    re.compile(rf"\bhand(?:ing|s|ed)? over to (?:\w+ ){{0,4}}?(?P<answer>{ANSWER}){STOP}"),
    re.compile(rf"\b(?:named|appointed|tapped) (?P<answer>{ANSWER}) (?:as )?(?:its |the |their )?"
               rf"(?:interim|acting|new) "),
    re.compile(rf"{LEAD_IN}(?P<answer>{ANSWER}),?(?: [^,]{{0,60}},)? (?:will take over|takes over|"
               rf"will succeed (?:him|her|them)|has been named (?:as )?(?:his|her|their) successor|"
               rf"was named (?:as )?(?:his|her|their) successor|"
               rf"(?:was|has been|will be) (?:named|appointed) (?:as )?(?:the )?(?:interim|acting|new)\b|"
               rf"will serve as (?:interim|acting)\b)"),
]


def _departure(m: re.Match, lead: list[str]) -> Outcome | None:
    role, who = _clean(m["role"]), m["answer"]
    if not _office(role):
        return None
    later = m.string[m.end():]
    for text in [later, *(s for s in lead if s != m.string)]:
        for pattern in _SUCCESSOR:
            if (s := pattern.search(text)) and (successor := _answer(s["answer"])) \
                    and normalise(successor) != normalise(who) and not _quoted(text, s.start()) \
                    and not HEDGE.search(text[:s.end()]):
                return Outcome("departure", successor, "person", f"Who will succeed {who} as {role}?",
                               role, f"Resolves to the person who takes over from {who} as {role}, "
                               "interim or permanent, as reported by news outlets.")
    return None
