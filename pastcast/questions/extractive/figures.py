"""The rules for the numbers reported, from their matches (the patterns are in ``rules``): a
rate or price an organisation set (``figure``), an indicator's level or change as published
(``indicator``) and where a market settled or closed (``price``). Answers keep their unit."""

from __future__ import annotations

import re

from pastcast.questions.extractive.grammar import _CAP, _TIME_WORDS, MONTH
from pastcast.questions.extractive.outcome import Outcome, _clean, _has_year, _org
from pastcast.text.vocabulary import MONTHS


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
