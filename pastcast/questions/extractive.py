"""The offline question generator: outcome reports in articles become forecasting questions.

An article whose lead reports a resolved outcome ("Ana Ruiz won the Kestrel Bay mayoral
election", "The board appointed Mara Lind as its chief executive", "The central bank set its
benchmark rate at 3.75%") yields a question asked as if the outcome were unknown, whose answer
is the reported outcome, resolving on the article's publication date and opening a horizon
earlier. Background comes only from articles published by the end of the day the question
opens (what an agent can see on its first day) and never mentions the answer. Rules are
precise on purpose: an article that matches no rule yields no question (counted as a drop
``no_outcome_report``), rather than a vague one. Measured by ``bench/extractive_questions.py``.

What a rule reads. The lead: the first ``lead_sentences`` sentences of the body, after the
lines that are not sentences (a headline or kicker the extractor kept, a caption, "Read
more") and after a wire dateline ("MEXICO CITY (AP) — "). A sentence that opens with a
quotation, or whose match sits inside one, is not a report; nor is a match preceded by a
hedge ("expected to", "could", "if", "on track to") or a sentence that calls its figures
preliminary or projected.

Rules (the generator tag is ``extractive/v2/<rule>``):

- ``won``: "X won / has won / clinched / claimed / took the <named event>" (elections,
  contests, awards, titles, races): "Who will win the 2026 Kestrel Bay mayoral election?".
  The event must be a named one (a capitalised word that is not a weekday or month): "won
  praise", "won the vote", "won her first-round match", "won a seat" are not asked.
- ``beat``: "A beat / defeated B 3-1 to win the <event>" or "... in the <event> final". A
  win that only reaches a final, or a league match, has no single answer to ask for.
- ``medal``: "X took / won gold in the <event> at the <games>".
- ``elected``: "X was (re-)elected <office>", "X won re-election as <office>"; the office
  must name one (mayor, president, leader, ...): "elected to the Senate" is not asked.
- ``next``: "X will be the next <office> after winning the vote" (a decided vote reported in
  the future tense); without a vote word, or with a hedge, it is a prediction.
- ``appointed``: "<Org> appointed / named / hired X as its <office>", "X was appointed /
  named <office> of <Org>", "X was named <Org>'s new <office>".
- ``succession``: "X will succeed / replace Y as <office>", "X was chosen to succeed Y as
  <office>": "Who will succeed Y as <office>?".
- ``departure``: "X resigned / stepped down / quit / was sacked as <office>" **only when the
  lead names the successor** ("... and will be replaced by Z", "Z will take over", "Z was
  named interim <office>"), asked as "Who will succeed X as <office>?". Why not "Will X leave
  the post of <office> before <date>?": a question made from a report of something that
  happened always resolves Yes, so such binaries reward a constant "Yes" and measure
  nothing, while "who succeeds" has a free-form answer a forecaster must find (shortlists,
  the deputy, the interim holder). A departure without a named successor yields nothing.
- ``host``: "<Org> chose X to host the <event>", "X was chosen to host / will host the
  <event>, <Org> announced", "<Org> awarded the <event> to X".
- ``site``, ``partner``: "<Org> selected X as the site of its <plant>", "<Org> chose X as its
  <supplier / partner / contractor>".
- ``acquisition``: "X agreed to buy / will acquire / announced it will acquire Y": "Who will
  acquire Y?". Talks, bids, plans and stakes are not deals.
- ``ruling``: "The <named court> upheld / struck down <measure>", "... ruled in favour of /
  against X", asked as "Will the <court> uphold <measure>?" (Yes or No, both happen).
- ``vote``: "The <named body> voted (7-2) to approve / reject <measure>", "The <body>
  approved / rejected <measure>": "Will the <body> approve <measure>?" (Yes or No). These
  two are the only binary questions: the report can go either way, so "Yes" is not a free
  win; they list ``["Yes", "No"]`` as candidate outcomes, like binary markets.
- ``figure``: "The <Org> set / raised / cut / held its <rate> at / to 4.25%": "At what level
  will <Org> set its <rate> in March 2026?".
- ``indicator``: "<Indicator> fell / rose to / came in at 2.9% in January, the <Org> said"
  (or "according to <Org>") for a level, and "<economy / prices> grew / rose 1.1% in the
  first quarter" for a change (answered "up 1.1%" / "down 0.3%": the normaliser drops signs),
  with its basis when the sentence gives one ("compared with December"); a change whose
  basis is unclear while the sentence gives another percentage (quarter on quarter or year
  on year?) is not asked.
- ``price``: "<commodity / index / shares> settled / closed at $84.20 a barrel": "At what
  price will Brent crude settle on 28 April 2023?". Answers keep their unit; the scorer has
  no numeric tolerance, so these are hard questions by design.

``find_outcome`` returns the timeless title (``title``) and, in ``timed_title``, the form with
placeholders for the time (``{year}``, ``{month}``, ``{day}``, ``{prev_month}``, and
``{year_of:N}`` for the year of month N: a December figure published in January is last
year's) that ``generate_extractive`` fills from the resolution date, so recurring events
stay distinct.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, timedelta

import polars as pl

from pastcast.curate.window import not_archive, question_source
from pastcast.drops import Drop, drops_frame
from pastcast.io import stable_id
from pastcast.text import contains_phrase, normalise, searchable, sentences
from pastcast.schemas import QUESTIONS, frame

STAGE = "generate"
GENERATOR = "extractive/v2"

# A capitalised word; a period only on an abbreviation ("U.S.", "St.", "Jr."), never on the
# last word of a sentence ("... replaced by Bob Iger.")
_CAP = r"(?:[A-Z]\.(?:[A-Z]\.)+|[A-Z][a-z]{0,2}\.(?= [A-Z])|[A-Z][\w'’\-]*)"
NAME = rf"{_CAP}(?:\s+(?:(?:of|de|da|del|van|von|der|and|&)\s+)?{_CAP}){{0,5}}"
# Capitalised words that start a sentence but never a name.
_NOT_NAME = (r"(?!(?:If|When|After|Before|Although|Though|While|Unless|As|Since|But|And|Yet|So|"
             r"In|On|At|The|This|That|These|Those|It|He|She|They|We|I|You|His|Her|Their|Its|"
             r"Our|A|An|Last|Next|Earlier|Later|Now|Then|Meanwhile|However|Also|Still|Despite|"
             r"Some|Many|Most|All|Both|Each|Every|No|Not|Only|Even|Here|There|What|Who|Why|"
             r"How|Where|Which|Whether|Should|Would|Could|Will|Can|May|Might|Must|Shall|"
             r"Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Today|Yesterday)\b)")
ANSWER = rf"{_NOT_NAME}{NAME}"
# "On Sunday, " or "Hours after " before the subject
LEAD_IN = r"(?:^|^[^,]{0,60},\s+|^(?:Hours|Days|Minutes|Moments|Shortly|Weeks) after\s+)"
# the period of "St. Louis", "U.S." (followed by a capital): part of a name, not a sentence stop
ABBR_DOT = (r"(?:(?<=\bSt)|(?<=\bMt)|(?<=\bFt)|(?<=\bDr)|(?<=\bJr)|(?<=\bSr)|(?<=\bCo)|(?<=\bNo)|"
            r"(?<=\b[A-Z]))\.(?= ?[A-Z])")
# decimals ("1.8 billion") and abbreviations but no sentence stop
PHRASE = rf"(?:[\w'’&\- ]|\.(?=\d)|{ABBR_DOT}){{3,80}}?"
STOP = (rf"(?=\s+(?:on|after|with|by|against|at|in|for|following|thanks|when|as|from|to|over|"
        r"ahead|despite|during|amid|under|before|while|who|which|becoming|beating|defeating|"
        r"taking|since|this|last|earlier|times|twice|between|again)\s|\s+(?:and|but)\s+(?=[a-z])|"
        rf"\s+\d+\s?[-–]\s?\d+\b|\s+[—–-]\s|[,;:(]|(?!{ABBR_DOT})\.|$)")
_UNIT = (r"(?:marks?|dollars?|euros?|pounds?|pence|cents?|yen|yuan|rupees?|rand|francs?|kronor|"
         r"kroner|krona|krone|pesos?|reais|real|lira|zloty|forints?|points?|basis points|"
         r"barrels?|tonnes?|tons?|litres?|liters?|gallons?|ounces?|kilos?)")
_PER = r"(?: (?:an?|per) (?:hour|day|week|month|year|litre|liter|kilo|barrel|tonne|ton|share|ounce|gallon))"
_NUM = r"\d[\d,]*(?:\.\d+)?"
# A percentage (or a range of them), or an amount in a currency or unit ("2.90 marks",
# "14.20 marks an hour", "$84.20 a barrel").
FIGURE = (rf"(?:{_NUM}(?:%|\s?per ?cent\b|\s?percent\b)(?:\s?(?:-|–|to)\s?{_NUM}(?:%|\s?per ?cent\b|\s?percent\b))?"
          rf"|[$£€¥]\s?{_NUM}(?:\s?(?:million|billion|trillion|bn|m)\b)?{_PER}?"
          rf"|{_NUM}\s(?:million |billion )?{_UNIT}\b{_PER}?)")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
MONTH = rf"(?:{'|'.join(MONTHS)})(?: \d{{4}})?"
# "... the Halvard Prize for Literature", "... award for best actor at the Veloria Film Awards"
EVENT = (rf"(?P<event>{PHRASE})(?: for (?P<for>{NAME}|(?:best|outstanding|most) [a-z'’ ]{{2,40}}?))?"
         rf"(?: at (?P<atthe>the )?(?P<at>{NAME}))?")

EVENT_WORDS = re.compile(
    r"\b(elections?|final|cup|prize|award|awards|championships?|race|vote|title|contest|"
    r"tournament|league|primary|primaries|ballot|referendum|trophy|medal|marathon|leadership|derby|"
    r"open|grand prix|playoffs?|play-offs?|competition|bid|classic|shield|games|series|crown|"
    r"plate|bowl|rally|regatta|challenge|by-election|nomination|seat|oscars?|emmys?|grammys?|"
    r"baftas?|golden globes?|nobel|pulitzer|booker|ballon d'or|olympics?|stakes|derby|"
    r"tour|masters|world cup|super bowl|caucus|runoff|run-off|mayoralty|presidency|premiership)\b", re.I)
HOST_WORDS = re.compile(r"\b(games|festival|summit|championships?|expo|congress|conference|"
                        r"cup|final|fair|olympiad|olympics|biennale|tournament|forum|contest|"
                        r"world cup|grand prix|eurovision)\b", re.I)
ORG_WORDS = re.compile(r"\b(FC|United|City|Club|Athletic|Rovers|Party|Bank|Group|Inc|Ltd|"
                       r"Council|Union|Alliance|Association|Wanderers|Rangers|Town|Sporting|"
                       r"Corp|Corporation|Company|Co|Holdings|Partners|Capital|Airlines|Motors|"
                       r"Energy|Systems|Technologies|Pharmaceuticals|plc|AG|SA|NV|LLC)\b")
# Words that make a phrase an office someone holds.
OFFICE_WORDS = re.compile(
    r"\b(president|vice[- ]president|mayor|leader|chair|chairman|chairwoman|chairperson|"
    r"governor|senator|prime minister|premier|chancellor|speaker|secretary|head|member|MP|"
    r"representative|councillor|councilor|minister|deputy|director|chief|executive|CEO|CFO|"
    r"COO|CTO|captain|pope|treasurer|commissioner|judge|justice|coach|manager|conductor|"
    r"editor|dean|rector|principal|bishop|archbishop|ambassador|envoy|attorney general|"
    r"general|commander|chief of staff|adviser|advisor|officer|superintendent|president-elect|"
    r"boss|successor|presenter|host|artistic director|music director|curator|secretary-general|"
    r"mufti|rabbi|imam|patriarch|king|queen|monarch|emir|sheikh|ruler|sultan|"
    r"prosecutor|auditor|ombudsman|inspector|controller|registrar|provost|vice-chancellor)\b", re.I)
_FUNCTION_START = re.compile(r"^(?:in|on|at|to|by|for|from|with|after|last|this|unopposed|"
                             r"twice|again|overwhelmingly|comfortably|narrowly|first|"
                             r"for a|to a|with a)\b", re.I)
_ORDINALS = re.compile(r"\b(first|second|third|youngest|oldest|only|last)\b", re.I)
_HONORIFIC = re.compile(
    r"^(?:(?:President|Prime Minister|Premier|Senator|Sen\.|Rep\.|Representative|Gov\.|Governor|"
    r"Mayor|Dr\.?|Mr\.?|Mrs\.?|Ms\.?|Incumbent|Former|Chancellor|Coach|Captain|Professor|Prof\.)"
    r"\s+)+")
_TIME_WORDS = re.compile(rf"\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|"
                         rf"{'|'.join(MONTHS)}|Last|Next|This)\b")
# Hedges before the outcome verb make a sentence a prediction, not a report (case matters:
# "May" is a month, "may" a hedge).
HEDGE = re.compile(
    r"\b(?:expected|likely|poised|set to|on track|tipped|projected|predicts?|predicted|"
    r"forecasts?|forecast to|could|would|might|may|if|unless|whether|hopes? to|hoped to|aims? to|"
    r"plans? to|planned to|seeks? to|seeking to|in talks|vows? to|vowed to|promised|promises|"
    r"wants? to|wanted to|odds|bidding|considering|mulls?|weighs?|rumou?red|reportedly|"
    r"reported to|said to be|nearing|close to|in line to|would-be|hopeful|If|Should|Unless|"
    r"Whether|Will)\b")
# Anywhere in the sentence: the figures are not final.
NOT_FINAL = re.compile(r"\b(?:preliminary|partial results|provisional results|exit polls?|early "
                       r"results|unofficial results|projected winner|too close to call|recount)\b", re.I)
QUOTES = "\"“”"
_WEEKDAY = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)"

CATEGORIES = (
    ("economy", re.compile(r"rate|inflation|price|gdp|unemployment|index|bank", re.I)),
    ("politics", re.compile(r"election|vote|leadership|party|minister|mayor|referendum|"
                            r"primary|ballot|governor|president|council", re.I)),
    ("sports", re.compile(r"cup|final|league|championship|match|race|marathon|tournament|"
                          r"trophy|derby|grand prix|coach|manager|open", re.I)),
    ("culture", re.compile(r"prize|award|festival|film|book|music|art", re.I)),
    ("business", re.compile(r"chief|ceo|executive|board|company|director|chair", re.I)),
)


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


# --- helpers -------------------------------------------------------------------------------

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


def _org(m: re.Match, group: str = "org") -> str:
    """The organisation as written, keeping its article ("the Central Bank of Veloria")."""
    the = m.groupdict().get("the")
    return f"the {m[group].strip()}" if the else m[group].strip()


def _office(role: str) -> bool:
    return (bool(OFFICE_WORDS.search(role)) and len(role.split()) <= 8
            and not _FUNCTION_START.match(role) and not _ORDINALS.search(role)
            and not re.search(r"\d", role))


# --- rules ---------------------------------------------------------------------------------

# An owner's possessive opening an event ("Brazil's presidential runoff"), not "Women's World Cup".
_OWNER = re.compile(r"(?!(?:Women|Men|Children|People|Boys|Girls|Ladies)['’]s)[A-Z][\w.'’\-]*['’]s\s")
_POLL = re.compile(r"\b(elections?|primary|primaries|nomination|leadership|contest|vote|ballot|"
                   r"runoff|run-off|by-election|caucus|presidency|mayoralty|premiership|"
                   r"referendum|seat|race for)\b", re.I)
_TEAM = re.compile(r"\b(cup|final|league|derby|match|championship|bowl|shield|series|playoffs?|"
                   r"play-offs?)\b", re.I)


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


def _figure(m: re.Match, lead: list[str]) -> Outcome | None:
    org, indicator = _org(m), _clean(m["indicator"])
    if not re.search(r"\b(?:rate|rates|fare|fares|wage|price|prices|fee|fees|tax|duty|levy|"
                     r"target|ratio|requirement|tariff|allowance|pension|limit|cap|threshold|"
                     r"yield|dividend|salary|pay)\b", indicator, re.I):
        return None
    det = (m["det"] or "").strip().lower()
    own = f"{det} {indicator}" if det in ("its", "their") else (
        f"its {indicator}" if det == "the" or not det and not re.search(r"rates\b", indicator) else indicator)
    return Outcome("figure", _figure_answer(m["answer"]), "number",
                   f"At what level will {org} set {own} in {{month}}?", f"{org} {indicator}",
                   f"Resolves to the level of the {indicator} announced by {org}, "
                   "as announced.", category="economy")


def _figure_answer(text: str) -> str:
    return re.sub(r"\s?(per ?cent|percent)\b", "%", text.strip())


INDICATOR_WORDS = re.compile(
    r"\b(?:inflation|unemployment|jobless|GDP|gross domestic product|economy|economic growth|"
    r"retail sales|industrial (?:production|output)|manufacturing|consumer prices|producer "
    r"prices|house prices|home prices|wages|earnings|payrolls|employment|trade (?:surplus|"
    r"deficit|balance)|current account|PMI|purchasing managers|confidence|exports|imports|"
    r"output|CPI|core prices|price index|growth|borrowing|deficit|debt)\b", re.I)
PERIOD = (rf"(?:in |during |for )?(?P<period>(?:the )?(?:first|second|third|fourth|1st|2nd|3rd|4th) "
          rf"quarter(?: of \d{{4}})?|(?:the )?(?:year|12 months) to {MONTH}|{MONTH}|\d{{4}}|"
          rf"last month|last year)")
_ORG_NAME = rf"{_CAP}(?:\s+(?:(?:of|for|de|and|&)\s+)?{_CAP}){{0,6}}"
_ATTRIBUTION = re.compile(
    rf"(?:,|\bas)\s(?:[^,]{{0,120}},\s)?(?:(?P<the>the )?(?P<org>{_ORG_NAME}) (?:said|says|reported|"
    rf"announced|estimated|showed)|according to (?:\w+ ){{0,3}}?(?:from |by )?(?P<the2>the )?(?P<org2>{_ORG_NAME}))")


_COMMON_FIRST = frozenset(
    "the annual monthly quarterly consumer core headline inflation unemployment jobless retail "
    "industrial gross economic house home producer average factory manufacturing wage wages "
    "euro eurozone output exports imports trade business services construction".split())


def _indicator_parts(m: re.Match) -> tuple[str, str, str] | None:
    """(indicator, period, org as written) or None when the report names no source or is no
    indicator."""
    indicator = m["indicator"].strip()
    if not INDICATOR_WORDS.search(indicator) or len(indicator.split()) > 8:
        return None
    a = _ATTRIBUTION.search(m.string, m.end())
    if not a:
        return None
    if a["org"]:
        org = re.sub(r"['’]s?$|(?<=\w{4})\.$", "", a["org"].strip())
        org = f"the {org}" if a["the"] else org
    else:
        org = re.sub(r"['’]s?$|(?<=\w{4})\.$", "", a["org2"].strip())
        org = f"the {org}" if a["the2"] else org
    if _TIME_WORDS.fullmatch(org) or not re.match(r"[A-Z]", org.replace("the ", "", 1)):
        return None
    first = indicator.split()[0]
    if first.lower() in _COMMON_FIRST:
        indicator = first.lower() + indicator[len(first):]
    period = m["period"]
    period = {"last month": "{prev_month}", "last year": "{prev_year}"}.get(period, period)
    return indicator, period, org


def _period_timed(period: str) -> str:
    """A period with the year it falls in as a placeholder: "January {year_of:1}", "the third
    quarter of {year_of:9}" (the year of the last such month up to the resolution date)."""
    if _has_year(period) or "{" in period:
        return period
    if q := re.search(r"(first|second|third|fourth|1st|2nd|3rd|4th) quarter", period):
        n = {"first": 3, "1st": 3, "second": 6, "2nd": 6, "third": 9, "3rd": 9}.get(q[1], 12)
        return f"{period} of {{year_of:{n}}}"
    if mo := re.search(rf"\b({'|'.join(MONTHS)})\b", period):
        return f"{period} {{year_of:{MONTHS.index(mo[1]) + 1}}}"
    return period


def _indicator(m: re.Match, lead: list[str]) -> Outcome | None:
    parts = _indicator_parts(m)
    if not parts:
        return None
    indicator, period, org = parts
    timed = _period_timed(period)
    return Outcome("indicator", _figure_answer(m["answer"]), "number",
                   f"What will {indicator} for {period} be, as reported by {org}?", f"{indicator} {period}",
                   f"Resolves to {indicator} for {timed} as first published by {org}.",
                   timed_title=f"What will {indicator} for {timed} be, as reported by {org}?",
                   category="economy")


_UP = r"rose|grew|expanded|increased|climbed|jumped|gained|advanced|edged up|ticked up|accelerated"
_DOWN = r"fell|shrank|contracted|decreased|declined|dropped|slipped|eased|edged down|ticked down|slid|tumbled"


_BASIS = re.compile(
    rf"^,?\s(?:from (?:the )?(?P<prev>previous|preceding|prior) (?P<unit>quarter|month|year)|"
    rf"from (?P<month>{'|'.join(MONTHS)})\b|(?:from|compared (?:with|to)) a year (?:earlier|ago|before)|"
    rf"(?P<on>on|over) the (?P<unit2>quarter|month|year)\b|(?P<qoq>quarter[- ]on[- ]quarter|month[- ]on[- ]month)|"
    rf"(?P<yoy>year[- ]on[- ]year|year[- ]over[- ]year|from the same (?:period|quarter|month) (?:a|last) year))")


def _basis(m: re.Match) -> str | None:
    """What a change is measured against, as the question should say it ("" when the sentence
    has one figure and no basis: the headline change); None when the sentence has another
    percentage and says nothing of our figure's basis (quarter-on-quarter or year-on-year?)."""
    if m["pre"] and "annual" in m["pre"]:
        return " at an annualised rate"
    b = _BASIS.search(m.string[m.end():])
    if b is None:
        others = [f for f in re.findall(r"\d[\d,]*(?:\.\d+)?\s?(?:%|per ?cent|percent)", m.string)
                  if _figure_answer(f) != _figure_answer(m["answer"])]
        return None if others else ""
    if b["month"]:
        return f" compared with {b['month']}"
    unit = b["unit"] or b["unit2"]
    if unit:
        return " year on year" if unit == "year" else f" compared with the previous {unit}"
    if b["qoq"]:
        return f" {b['qoq'].replace('-', ' ')}"
    return " year on year"


def _change(m: re.Match, lead: list[str]) -> Outcome | None:
    parts = _indicator_parts(m)
    if not parts:
        return None
    indicator, period, org = parts
    value = _figure_answer(m["answer"])
    if not value.endswith("%"):
        return None
    basis = _basis(m)
    if basis is None:
        return None
    up = bool(re.fullmatch(_UP, m["verb"]))
    answer = f"{'up' if up else 'down'} {value}"
    aliases = tuple(f"{w} {value}" for w in (("rise", "growth", "increase", "grow", "gain")
                                             if up else ("fall", "decline", "drop", "contraction", "shrink")))
    aliases += ((f"{value} growth", f"{value} increase") if up else (f"{value} decline", f"{value} fall"))
    economy = re.search(r"\b(?:economy|GDP|gross domestic product|output)\b", indicator, re.I)
    verb = "grow or shrink" if economy else "rise or fall"
    timed = _period_timed(period)
    return Outcome("indicator", answer, "number",
                   f"How much will {indicator} {verb} in {period}{basis}, according to {org}?",
                   f"{indicator} {period}",
                   f"Resolves to the change in {indicator} in {timed}{basis} as first published by "
                   f"{org}, answered as 'up X%' or 'down X%'.",
                   timed_title=f"How much will {indicator} {verb} in {timed}{basis}, according to {org}?",
                   aliases=aliases, category="economy")


_ASSETS = re.compile(r"\b(?:crude|oil|Brent|WTI|gold|silver|copper|platinum|palladium|wheat|corn|"
                     r"soybeans|coffee|cocoa|sugar|natural gas|bitcoin|ether|dollar|euro|pound|"
                     r"sterling|yen|yuan|rupee|index|Dow|S&P|Nasdaq|FTSE|DAX|Nikkei|Hang Seng|CAC|"
                     r"Sensex|Nifty|Stoxx|shares|stock|futures|benchmark)\b", re.I)


_COMMON_ASSETS = frozenset("gold silver copper platinum palladium oil crude wheat corn soybeans "
                           "coffee cocoa sugar bitcoin ether shares stocks".split())


def _price(m: re.Match, lead: list[str]) -> Outcome | None:
    asset = m["asset"].strip()
    if not _ASSETS.search(asset) or len(asset.split()) > 7:
        return None
    first = asset.split()[0]
    if first.lower() in _COMMON_ASSETS:
        asset = first.lower() + asset[len(first):]
    value = m["answer"].strip()
    index = re.search(r"\b(?:index|Dow|S&P|Nasdaq|FTSE|DAX|Nikkei|Hang Seng|CAC|Sensex|Nifty|Stoxx)\b",
                      asset) and not re.search(r"[$£€¥]", value)
    if not index and not re.search(r"[$£€¥]|\b(?:cents?|pence|dollars?|euros?|pounds?|yen|yuan|"
                                    r"rupees?)\b", value):
        return None  # a price needs its currency
    verb = "settle" if m["verb"] == "settled" else "close"
    what = "level" if index else "price"
    the = "the " if m["the"] else ""
    return Outcome("price", value, "number", f"At what {what} will {the}{asset} {verb} on {{day}}?",
                   asset, f"Resolves to the {verb} of {the}{asset} on the day, as reported by news outlets.",
                   category="economy")


# --- patterns ------------------------------------------------------------------------------

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


# --- the lead ------------------------------------------------------------------------------

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


def category_of(text: str) -> str:
    for name, pattern in CATEGORIES:
        if pattern.search(text):
            return name
    return "other"


@dataclass(frozen=True)
class GenerateConfig:
    horizon_days: int = 28  # a question opens this long before it resolves
    min_window_days: int = 7  # fewer forecasting days than this is not a question
    window_start: date | None = None


def _timed(outcome: Outcome, resolution: date) -> str:
    """The question's title with its time filled in from the resolution date."""
    title = outcome.timed_title or outcome.title
    prev = (resolution.replace(day=1) - timedelta(days=1))
    # a January figure published in February is of the same year; a December figure
    # published in January is of the year before
    title = re.sub(r"\{year_of:(\d+)\}", lambda y: str(resolution.year - (int(y[1]) > resolution.month)),
                   title)
    return (title.replace("{month}", resolution.strftime("%B %Y"))
            .replace("{year}", str(resolution.year))
            .replace("{day}", f"{resolution.day} {resolution:%B %Y}")
            .replace("{prev_month}", prev.strftime("%B %Y"))
            .replace("{prev_year}", str(resolution.year - 1)))


def generate_extractive(articles: pl.DataFrame, config: GenerateConfig = GenerateConfig(),
                        only: set[str] | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(candidate questions, drops) from dated articles (``question_source``); one question per
    outcome report.
    ``only``: generate from these article ids alone (a day's partition); every article still
    serves as background."""
    articles = articles.sort("published_at", "crawled_at")
    earlier = _EarlierArticles(articles)
    sources = set(articles.filter(question_source(articles.columns))["article_id"])
    rows, drops = [], []
    for art in articles.iter_rows(named=True):
        if (only is not None and art["article_id"] not in only) or art["article_id"] not in sources:
            continue  # archive pages and pages dated only by their crawl: background only
        outcome = find_outcome(art["text"] or "")
        if outcome is None:
            drops.append(Drop(art["article_id"], "article", STAGE, "no_outcome_report", art["url"]))
            continue
        resolution = art["published_at"].date()
        open_date = resolution - timedelta(days=config.horizon_days)
        if config.window_start and open_date < config.window_start:
            open_date = config.window_start
        if (resolution - open_date).days < config.min_window_days:
            drops.append(Drop(art["article_id"], "article", STAGE, "short_window",
                              f"{outcome.title} opens {open_date}, resolves {resolution}"))
            continue
        background = earlier.background(outcome, open_date)
        # Recurring events (a rate set every six weeks, a yearly cup) name their time to stay
        # distinct.
        title = _timed(outcome, resolution)
        rows.append({
            "question_id": stable_id(normalise(title), normalise(outcome.answer), art["article_id"]),
            "title": title,
            "background": background,
            "resolution_criteria": f"{_timed_text(outcome.criteria, resolution)} The question "
                                   f"resolves on {resolution.isoformat()}.",
            "answer": outcome.answer,
            "answer_aliases": list(outcome.aliases),
            "answer_type": outcome.answer_type,
            "candidate_outcomes": list(outcome.options),
            "open_date": open_date,
            "resolution_date": resolution,
            "original_resolution_date": resolution,
            "revision_evidence": [],
            "source_kind": "news",
            "source_ids": [art["article_id"]],
            "generator": f"{GENERATOR}/{outcome.rule}",
            "category": outcome.category or category_of(f"{outcome.title} {outcome.subject}"),
        })
    return frame(rows, QUESTIONS), drops_frame(drops)


def _timed_text(text: str, resolution: date) -> str:
    return _timed(Outcome("", "", "", text, "", ""), resolution)


class _EarlierArticles:
    """Background search over the articles, sorted by publication: each article's words are
    normalised once, not once per question, and only for articles that pass a cheap test."""

    def __init__(self, articles: pl.DataFrame):
        articles = articles.filter(not_archive(articles.columns))  # archive pages are never background
        self.rows = articles.select("title", "text", "published_at").rows(named=True)
        self.days = [r["published_at"].date() for r in self.rows]
        self._words: dict[int, set[str]] = {}
        self._folded: dict[int, str] = {}

    def _text(self, i: int) -> str:
        """What an article is about: its title and lead, not a mention deep in the text."""
        return f"{self.rows[i]['title']} {' '.join(lead_of(self.rows[i]['text'], 3))}"

    def words(self, i: int) -> set[str]:
        if i not in self._words:
            self._words[i] = set(normalise(self._text(i)).split())
        return self._words[i]

    def has_all(self, i: int, terms: set[str]) -> bool:
        if i not in self._folded:
            self._folded[i] = searchable(self._text(i))  # every normalised word is a substring of it
        folded = self._folded[i]
        return all(t in folded for t in terms) and terms <= self.words(i)

    def background(self, outcome: Outcome, open_date: date) -> str:
        """Lead sentences of the latest article about the subject (every word of it in the
        title or lead) published by the question's open date, leaving out any sentence that
        names the answer."""
        terms = {t for t in normalise(re.sub(r"\{\w+\}", "", outcome.subject)).split()
                 if len(t) > 2 and t != "the"}
        names = [] if outcome.answer_type == "binary" else [outcome.answer, *outcome.aliases]
        for i in reversed(range(bisect_right(self.days, open_date))):
            if terms and self.has_all(i, terms):
                art = self.rows[i]
                lead = [s for s in lead_of(art["text"], 3)
                        if not any(contains_phrase(s, n) for n in names)]
                if lead:
                    return f"As reported on {self.days[i].isoformat()}: " + " ".join(lead[:2])
        subject = re.sub(r"\{\w+\}", "", outcome.subject).strip()
        subject = subject if re.match(r"the\s", subject, re.I) else f"the {subject}"
        return (f"This question is about {subject}. "
                "Forecast the outcome from the news available on each day.")
