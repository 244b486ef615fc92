"""The grammar of outcome reports: the regular-expression pieces the rules are built from (a
name, a phrase, where a phrase stops, a figure, a month, an event) and the word lists that tell
an event, a host, an organisation, an office, a hedge or figures that are not final."""

from __future__ import annotations

import re

from pastcast.text.vocabulary import HEDGES, MONTHS, WEEKDAYS, phrases

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
             rf"{'|'.join(WEEKDAYS)}|Today|Yesterday)\b)")
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
_TIME_WORDS = re.compile(rf"\b(?:{'|'.join(WEEKDAYS)}|{'|'.join(MONTHS)}|Last|Next|This)\b")
# Hedges before the outcome verb make a sentence a prediction, not a report (case matters:
# "May" is a month, "may" a hedge): the shared ``HEDGES`` and the generator's own.
HEDGE = re.compile(
    rf"\b(?:{phrases(HEDGES)}|forecast to|may|hopes? to|hoped to|aims? to|seeks? to|seeking to|"
    r"in talks|vows? to|vowed to|promised|promises|wants? to|wanted to|mulls?|weighs?|reported to|"
    r"nearing|close to|would-be|hopeful|If|Should|Unless|Whether|Will)\b")
# Anywhere in the sentence: the figures are not final.
NOT_FINAL = re.compile(r"\b(?:preliminary|partial results|provisional results|exit polls?|early "
                       r"results|unofficial results|projected winner|too close to call|recount)\b", re.I)
QUOTES = "\"“”"
_WEEKDAY = rf"(?:{'|'.join(WEEKDAYS)})"
# An owner's possessive opening an event ("Brazil's presidential runoff"), not "Women's World Cup".
_OWNER = re.compile(r"(?!(?:Women|Men|Children|People|Boys|Girls|Ladies)['’]s)[A-Z][\w.'’\-]*['’]s\s")
