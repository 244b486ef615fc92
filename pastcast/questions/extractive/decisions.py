"""The rules for what was decided, from their matches (the patterns are in ``rules``): a host
(``host``), a site (``site``), a partner (``partner``), a buyer (``acquisition``), a court's
ruling (``ruling``) and a vote (``vote``); the last two are the only binary questions."""

from __future__ import annotations

import re

from pastcast.questions.extractive.grammar import HOST_WORDS
from pastcast.questions.extractive.outcome import Outcome, _answer, _clean, _event, _event_timed, _named, _org
from pastcast.text import normalise


def _host(m: re.Match, lead: list[str]) -> Outcome | None:
    event = _event(m)
    if not HOST_WORDS.search(event) or not _named(event):
        return None
    org = _org(m)
    return Outcome("host", m["answer"], "place", f"Which city will {org} choose to host the {event}?",
                   event, f"Resolves to the place {org} selects to host the {event}.",
                   timed_title=f"Which city will {org} choose to host the {_event_timed(m)}?")


def _host_passive(m: re.Match, lead: list[str]) -> Outcome | None:
    event = _event(m)
    if not HOST_WORDS.search(event) or not _named(event) or m["event"].strip().startswith(("a ", "an ")):
        return None
    if m["kind2"] and not re.search(r"\b(?:announced|confirmed|said|decided|voted|"
                                             r"chose|selected|awarded)\b", m.string[m.end():]):
        return None
    return Outcome("host", m["answer"], "place", f"Where will the {event} be held?", event,
                   f"Resolves to the place chosen to host the {event}, as announced.",
                   timed_title=f"Where will the {_event_timed(m)} be held?")


def _site(m: re.Match, lead: list[str]) -> Outcome | None:
    org, what = _org(m), _clean(m["what"])
    return Outcome("site", m["answer"], "place", f"Where will {org} put its {what}?", what,
                   f"Resolves to the place {org} selects for its {what}.")


def _partner(m: re.Match, lead: list[str]) -> Outcome | None:
    org, role = _org(m), _clean(m["role"])
    if len(role.split()) > 8:
        return None
    return Outcome("partner", m["answer"], "organisation", f"Which company will {org} choose as its {role}?",
                   f"{org} {role}", f"Resolves to the company {org} selects as its {role}.",
                   category="business")


_NOT_A_TARGET = re.compile(r"\b(?:stake|stakes|share|shares|assets|unit|units|business|businesses|"
                           r"division|operations|part|portion|majority|minority|control|remaining|"
                           r"rest|some|most|all|of|in|a|an|rights|bonds|debt|properties|plant|"
                           r"factory|brand|brands|portfolio)\b", re.I)


def _acquisition(m: re.Match, lead: list[str]) -> Outcome | None:
    target, buyer = m["target"].strip(), m["answer"]
    if m["desc"] and _NOT_A_TARGET.search(m["desc"]):
        return None
    if normalise(target) == normalise(buyer) or not _answer(buyer):
        return None
    return Outcome("acquisition", buyer, "organisation", f"Who will acquire {target}?", target,
                   f"Resolves to the company or investor that agrees to acquire {target}, "
                   "as announced.", category="business")


_UPHOLD = r"upheld|validated|affirmed"
_STRIKE = (r"struck down|overturned|blocked|invalidated|annulled|quashed|rejected|threw out|voided|"
           r"halted|suspended")
_MEASURES = re.compile(r"\b(?:law|laws|ban|order|conviction|ruling|decision|policy|rule|rules|"
                       r"sentence|act|acts|bill|measure|mandate|tariffs?|restrictions?|plan|"
                       r"regulations?|election|results?|merger|deal|injunction|verdict|appeal|"
                       r"challenge|lawsuit|suit|petition|request|bid|claim|case|moratorium|"
                       r"citizenship|rights?|amendment|referendum|decree|programme|program|"
                       r"statute|ordinance|map|maps|districts?|license|licence)\b", re.I)


def _ruling(m: re.Match, lead: list[str]) -> Outcome | None:
    court, thing = _org(m, "court"), _clean_thing(m["thing"])
    if not thing or not _MEASURES.search(thing) or not (_named(thing) or len(thing.split()) >= 4):
        return None
    if re.match(r"(?:that|whether|how|what|it|him|her|them|this|its own)\b", thing, re.I):
        return None
    if re.search(r"\b(?:appeal|challenge|lawsuit|suit|petition|request|bid|claim|case)\b", thing, re.I):
        # rejecting an appeal upholds the ruling under appeal: ask about the appeal itself
        ask, against = "rule in favour of", "rejects or dismisses it"
    else:
        ask, against = "uphold", "strikes it down, overturns or blocks it"
    answer = "Yes" if re.fullmatch(_UPHOLD, m["verb"]) else "No"
    return Outcome("ruling", answer, "binary", f"Will {court} {ask} {_the(thing)}?", f"{court} {thing}",
                   f"Resolves Yes if {court} rules to {ask} {_the(thing)}, No if it {against}, as "
                   "reported by news outlets.", options=("Yes", "No"), category="law")


def _ruling_party(m: re.Match, lead: list[str]) -> Outcome | None:
    court, party = _org(m, "court"), m["party"].strip() + (m["ctx"] or "")
    answer = "No" if m["verb"] == "ruled against" else "Yes"
    return Outcome("ruling", answer, "binary", f"Will {court} rule in favour of {party}?",
                   f"{court} {party}", f"Resolves Yes if {court} rules in favour of {party}, "
                   "No if it rules against, as reported by news outlets.",
                   options=("Yes", "No"), category="law")


_APPROVE = (r"approve|approved|pass|passed|adopt|adopted|ratify|ratified|confirm|confirmed|back|backed|"
            r"endorse|endorsed")
_REJECT = r"reject|rejected|block|blocked|defeat|defeated|vote down|voted down|veto|vetoed"
_BASE_VERB = {"approved": "approve", "passed": "pass", "adopted": "adopt", "ratified": "ratify",
              "confirmed": "confirm", "backed": "back", "endorsed": "endorse"}


def _vote(m: re.Match, lead: list[str]) -> Outcome | None:
    body, thing = _org(m, "body"), _clean_thing(m["thing"])
    if re.match(r"(?:Voters|Shareholders|Delegates|Members)\b", body):
        body = body[0].lower() + body[1:]
    if not thing or not (_named(thing) or re.search(r"\d", thing)) or len(thing.split()) > 12:
        return None
    if re.match(r"(?:him|her|them|it|this|that|these|those|what|whether|how)\b", thing, re.I):
        return None
    verb = m["verb"] or m["verb2"]
    yes = bool(re.fullmatch(_APPROVE, verb))
    ask = _BASE_VERB.get(verb, verb) if yes else "approve"
    return Outcome("vote", "Yes" if yes else "No", "binary", f"Will {body} {ask} {_the(thing)}?",
                   f"{body} {thing}", f"Resolves Yes if {body} votes to {ask} {_the(thing)}, No if "
                   "it rejects it, as reported by news outlets.", options=("Yes", "No"),
                   category="politics")


def _clean_thing(thing: str) -> str:
    thing = thing.strip().rstrip(",")
    return "" if len(thing.split()) > 14 else thing


def _the(thing: str) -> str:
    """A noun phrase as the object of a question: keep its determiner, or add "the"."""
    if re.match(r"(?:the|a|an|its|his|her|their|[A-Z][\w'’\-]*['’]s)\s", thing, re.I) or \
            re.match(r"[A-Z]", thing):
        return thing
    return f"the {thing}"
