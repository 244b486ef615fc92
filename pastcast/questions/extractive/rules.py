"""Every rule's pattern with what builds its outcome, in the order they are tried (the first
that fires on a sentence decides), and ``find_outcome``: the first outcome report in an
article's lead."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from pastcast.questions.extractive.appointments import (_appointed, _appointed_passive, _appointed_possessive,
                                                        _departure, _succession)
from pastcast.questions.extractive.contests import _beat, _elected, _medal, _next, _won
from pastcast.questions.extractive.decisions import (_APPROVE, _REJECT, _STRIKE, _UPHOLD, _acquisition, _host,
                                                     _host_passive, _partner, _ruling, _ruling_party, _site, _vote)
from pastcast.questions.extractive.figures import _DOWN, _UP, PERIOD, _change, _figure, _indicator, _price
from pastcast.questions.extractive.grammar import (_WEEKDAY, ABBR_DOT, ANSWER, EVENT, FIGURE, HEDGE, LEAD_IN, NAME,
                                                   NOT_FINAL, PHRASE, QUOTES, STOP)
from pastcast.questions.extractive.lead import _quoted, lead_of
from pastcast.questions.extractive.outcome import Outcome, _answer
from pastcast.text import contains_phrase

# Where a measure's name ends: a clause, a day, a margin ("by 432 votes"), the sentence end.
THING_STOP = (rf"(?=\s*[,;]|(?!{ABBR_DOT})\.|"
              rf"\s+(?:on|last|this|earlier) (?:{_WEEKDAY}|week|month|year)\b|"
              r"\s+by (?:a |\d)|\s+\d+\s?[-–]\s?\d+\b|\s+(?:after|following|in a \d|with|despite|amid|as|"
              r"because|saying|ruling|arguing|calling|marking|which|that)\s|\s*$)")
_SCORE = (r"(?: \d+\s?[-–]\s?\d+(?: on aggregate)?)?"
          r"(?: (?:on penalties|after extra time|in extra time|a\.e\.t\.))?")

RULES: list[tuple[re.Pattern, Callable[[re.Match, list[str]], Outcome | None]]] = [
    (re.compile(rf"{LEAD_IN}(?P<answer>{ANSWER}) (?:beat|defeated|edged|overcame|thrashed|edged past|"
                rf"downed|routed|outlasted|swept|saw off|held off)"
                rf" (?P<loser>{NAME}){_SCORE},? (?:(?P<how>to) (?:win|claim|lift|take|clinch|secure)|in)"
                rf" (?:the )?{EVENT}{STOP}"), _beat),
    (re.compile(rf"{LEAD_IN}(?P<answer>{ANSWER}) (?:has |have )?(?:won|took|claimed|clinched|captured|"
                rf"took home|scooped) (?:the |an? )?(?:Olympic |world |European |Commonwealth |"
                rf"Paralympic )?gold(?: medal)? in (?:the )?(?P<event>{PHRASE})"
                rf"(?: at (?P<atthe>the )?(?P<at>{NAME}))?{STOP}"), _medal),
    (re.compile(rf"{LEAD_IN}(?P<the>The )?(?P<org>{ANSWER}) (?:has )?(?:chose|chosen|selected|picked|named)"
                rf" (?P<answer>{ANSWER}) (?:to host|as (?:the )?host(?: city| country| venue)? (?:of|for))"
                rf" (?:the )?{EVENT}{STOP}"), _host),
    (re.compile(rf"{LEAD_IN}(?P<answer>{ANSWER}) (?:(?P<kind>was|has been|have been|were) "
                rf"(?:chosen|selected|picked|named|confirmed|awarded the right|given the right)"
                rf"(?: as (?:the )?host)?(?: to host| (?:of|for))|(?P<kind2>will) host|"
                rf"won the (?:right|bid|race|vote) to host) (?:the )?{EVENT}{STOP}"),
     _host_passive),
    (re.compile(rf"{LEAD_IN}(?P<the>The )?(?P<org>{ANSWER}) (?:has )?awarded (?:the )?{EVENT} to "
                rf"(?P<answer>{ANSWER}){STOP}"), _host),
    (re.compile(rf"{LEAD_IN}(?P<answer>{ANSWER}) (?:has |have )?(?:won|clinched|secured|claimed|took|captured|"
                rf"lifted|scooped) (?:the )?{EVENT}{STOP}"), _won),
    (re.compile(rf"{LEAD_IN}(?P<answer>{ANSWER}) (?:(?:was|has been|were) (?:re-)?elected|won re-election|"
                rf"was re-elected) (?:as )?(?:the )?(?:new )?(?P<role>{PHRASE}){STOP}"), _elected),
    (re.compile(rf"{LEAD_IN}(?P<answer>{ANSWER}),?(?: [^,]{{0,60}},)? will (?:be|become) "
                rf"(?P<role>(?:the |{NAME}['’]s )(?:next|new) {PHRASE}){STOP}"), _next),
    (re.compile(rf"{LEAD_IN}(?P<the>The )?(?P<org>{ANSWER}) (?:has )?(?:chose|chosen|selected|picked)"
                rf" (?P<answer>{ANSWER}) as the (?:site|location|home|venue) (?:of|for) (?:its |the )?"
                rf"(?P<what>{PHRASE}){STOP}"), _site),
    (re.compile(rf"{LEAD_IN}(?P<the>The )?(?P<org>{ANSWER}) (?:has )?(?:chose|chosen|selected|picked|tapped|"
                rf"awarded the contract to|hired)"
                rf" (?P<answer>{ANSWER}) (?:as|to be) (?:its |their |the )?(?:new )?(?:preferred )?"
                rf"(?P<role>(?:[\w\-]+ ){{0,4}}(?:supplier|partner|contractor|provider|sponsor|bidder|"
                rf"manufacturer|operator|developer|builder|vendor|carrier|broadcaster|distributor)"
                rf"(?: (?:for|of) (?:its |the )?{PHRASE})?){STOP}"), _partner),
    (re.compile(rf"{LEAD_IN}(?P<answer>{ANSWER}) (?:(?:will|is to|has been (?:chosen|picked|named|appointed|"
                rf"selected) to|was (?:chosen|picked|named|appointed|selected) to) (?:succeed|replace)|succeeds|"
                rf"replaces) (?P<prev>{NAME}) as (?:the )?(?P<role>{PHRASE}){STOP}"),
     _succession),
    (re.compile(rf"{LEAD_IN}(?P<the>The )?(?P<org>{ANSWER}) (?:has |have )?(?:appointed|named|picked|hired|chose|"
                rf"selected|tapped)"
                rf" (?P<answer>{ANSWER})(?: as| to be)? (?P<det>its |their |the |his |her )?(?:new )?"
                rf"(?P<role>{PHRASE}){STOP}"),
     _appointed),
    (re.compile(rf"{LEAD_IN}(?P<answer>{ANSWER}) (?:was|has been|is) (?P<verb>appointed|named|confirmed as|"
                rf"chosen as|picked as|selected as)"
                rf" (?:as )?(?:the )?(?:new )?(?P<role>{PHRASE}) (?P<of>of|at|for) (?P<the>the )?"
                rf"(?P<org>{NAME}(?:['’]s? [a-z]+(?: [a-z]+)?)?){STOP}"), _appointed_passive),
    (re.compile(rf"{LEAD_IN}(?P<answer>{ANSWER}) (?:was|has been) (?:appointed|named|confirmed|chosen) "
                rf"(?:as )?(?P<org>{NAME})['’]s (?:new |next )?(?P<role>{PHRASE}){STOP}"),
     _appointed_possessive),
    (re.compile(rf"{LEAD_IN}(?P<answer>{ANSWER}),?(?: [^,]{{0,60}},)? (?:has |have )?(?:resigned|stepped down|"
                rf"quit|was (?:sacked|fired|ousted|dismissed|removed)|has been (?:sacked|fired|ousted|dismissed|"
                rf"removed)|announced (?:his|her|their) resignation|will step down|is stepping down|"
                rf"will resign) as (?:the )?(?P<role>{PHRASE}){STOP}"), _departure),
    (re.compile(rf"{LEAD_IN}(?P<answer>{ANSWER}) (?:has |have )?(?:agreed to (?:buy|acquire|purchase|take over)|"
                rf"will (?:buy|acquire|take over)|announced (?:it|that it) (?:will|would) (?:buy|acquire)|"
                rf"said (?:it|that it) (?:will|would) (?:buy|acquire)|struck a deal to (?:buy|acquire)|"
                rf"signed a deal to (?:buy|acquire)|is to (?:buy|acquire))"
                rf" (?P<desc>(?:[\w\-]+ ){{0,4}}?)(?P<target>{ANSWER}){STOP}"), _acquisition),
    (re.compile(rf"{LEAD_IN}(?P<the>The )?(?P<court>(?:{NAME} )?(?:Court|Tribunal)(?: of {NAME})?) "
                rf"(?:has |on \w+ )?(?P<verb>{_UPHOLD}|{_STRIKE}) (?P<thing>(?:[\w'’\-]+ ){{0,12}}?[\w'’\-]+)"
                rf"{THING_STOP}"),
     _ruling),
    (re.compile(rf"{LEAD_IN}(?P<the>The )?(?P<court>(?:{NAME} )?(?:Court|Tribunal)(?: of {NAME})?) "
                rf"(?:has )?(?P<verb>ruled in favou?r of|sided with|ruled against) (?P<party>{NAME})"
                rf"(?P<ctx> in (?:its|their|his|her|a|the) [\w'’ \-]{{3,60}}? (?:with|against) "
                rf"(?:the )?{NAME})?"
                rf"{STOP}"),
     _ruling_party),
    (re.compile(rf"{LEAD_IN}(?P<the>The )?(?P<body>(?:{NAME} )?(?:Senate|House|Parliament|Congress|Council|"
                rf"Assembly|Commission|Committee|Board|Bundestag|Knesset|Cabinet|Legislature|Lords|Commons|"
                rf"FDA|EMA|Authority|Agency|Regulator|Diet|Duma|Sejm|Storting|Riksdag|Oireachtas)"
                rf"(?: of {NAME})?|(?:[Vv]oters|[Ss]hareholders|[Dd]elegates|[Mm]embers)(?: in {NAME})?) "
                rf"(?:has |have )?(?:(?:voted|agreed)"
                rf"(?: \d+\s?[-–]\s?\d+| overwhelmingly| unanimously| narrowly)?"
                rf"(?: on \w+)? to (?P<verb>{_APPROVE}|{_REJECT})|(?P<verb2>approved|passed|adopted|ratified|"
                rf"rejected|blocked|voted down|vetoed))"
                rf" (?P<thing>(?:[\w'’$\-.]+ ){{0,12}}?[\w'’\-]+){THING_STOP}"),
     _vote),
    (re.compile(rf"{LEAD_IN}(?P<the>The )?(?P<org>{ANSWER}(?:['’]s (?:central bank|[a-z]+ (?:bank|authority|"
                rf"regulator|commission)))?) (?:has )?(?:set|raised|cut|lowered|increased|held|kept|"
                rf"reduced|lifted|left|maintained|hiked|trimmed) (?P<det>its |the |their )?"
                rf"(?P<indicator>[a-z][\w -]{{2,50}}?) (?:unchanged )?"
                rf"(?:by [\w .-]{{2,40}}? )?(?:(?:at|to)(?: a (?:target )?range of)?) (?P<answer>{FIGURE})"),
     _figure),
    (re.compile(rf"{LEAD_IN}(?P<indicator>[A-Z][\w'’.\-]*(?: [\w'’\-]+){{0,7}}?) (?:fell|rose|climbed|eased|"
                rf"dropped|slowed|accelerated|jumped|increased|decreased|declined|was|stood|came in|held|"
                rf"held steady|remained|edged up|edged down|ticked up|ticked down|slipped|"
                rf"was unchanged) (?:to |at )(?P<answer>{FIGURE}),? {PERIOD}\b"), _indicator),
    (re.compile(rf"{LEAD_IN}(?P<indicator>[A-Z][\w'’.\-]*(?: [\w'’\-]+){{0,7}}?) (?P<verb>{_UP}|{_DOWN})"
                rf" (?:by )?(?P<pre>an annual |an annualized |an annualised |a seasonally adjusted )?"
                rf"(?P<answer>{FIGURE}),? {PERIOD}\b"),
     _change),
    (re.compile(rf"{LEAD_IN}(?P<the>The )?(?P<asset>(?:S&P \d+|{NAME})(?: [a-z]+){{0,3}}?) "
                rf"(?P<verb>settled|closed|ended)(?: (?:up|down|higher|lower) [^,]{{0,40}}?)? at "
                rf"(?P<answer>{FIGURE}|\d[\d,]*\.\d{{2}})"), _price),
]


def find_outcome(text: str, lead_sentences: int = 2) -> Outcome | None:
    """The first outcome report in the article's lead, or None."""
    lead = lead_of(text, lead_sentences)
    for sentence in lead:
        if sentence[:1] in QUOTES or sentence[:1] == "'" or NOT_FINAL.search(sentence):
            continue
        for pattern, build in RULES:
            match = pattern.search(sentence)
            if not match or _quoted(sentence, match.start("answer") if "answer" in pattern.groupindex
                                    else match.start()):
                continue
            if HEDGE.search(sentence[:match.end()]):
                continue
            if "answer" in pattern.groupindex and not _answer(match["answer"]):
                continue
            outcome = build(match, lead)
            if outcome is None:
                continue
            if outcome.answer_type != "binary" and outcome.rule not in ("indicator", "figure", "price"):
                clean = _answer(outcome.answer)
                if not clean:
                    continue
                outcome = replace(outcome, answer=clean)
            if outcome.answer_type != "binary" and contains_phrase(outcome.title, outcome.answer):
                continue
            return outcome
    return None
