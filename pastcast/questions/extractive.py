"""The offline question generator: outcome reports in articles become forecasting questions.

An article whose lead reports a resolved outcome ("Ana Ruiz won the Kestrel Bay mayoral
election", "The board appointed Mara Lind as its chief executive", "The central bank set its
benchmark rate at 3.75%") yields a question asked as if the outcome were unknown, whose answer
is the reported outcome, resolving on the article's publication date and opening a horizon
earlier. Background comes only from articles published before the question opens and never
mentions the answer. Rules are precise on purpose: an article that matches no rule yields no
question (counted as a drop), rather than a vague one.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

import polars as pl

from pastcast.drops import Drop, drops_frame
from pastcast.io import stable_id
from pastcast.text import contains_phrase, normalise, sentences
from pastcast.schemas import QUESTIONS, frame

STAGE = "generate"
GENERATOR = "extractive/v1"

_CAP = r"[A-Z][\w'’\-]*\.?"
NAME = rf"{_CAP}(?:\s+(?:(?:of|de|da|del|van|von|der|and|&)\s+)?{_CAP}){{0,5}}"
LEAD_IN = r"(?:^|^[^,]{0,60},\s+)"  # "On Sunday, " before the subject
STOP = r"(?=\s+(?:on|after|with|by|against|at|in|for|following|thanks|when|as|from)\s|[,.;:(]|$)"
PHRASE = r"(?:[\w'’&\- ]|\.(?=\d)){3,80}?"  # decimals ("1.8 billion") but no sentence stop
# A percentage, or an amount in a currency or unit word ("2.90 marks", "14.20 marks an hour").
FIGURE = (r"\d[\d,]*(?:\.\d+)?\s?(?:%|per ?cent\b|percent\b|[a-z]{2,12}"
          r"(?: (?:an?|per) (?:hour|day|week|month|year|litre|kilo|barrel|tonne|share))?)")
MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|"
         r"December)(?: \d{4})?")
# "... the Halvard Prize for Literature", "... award at the Veloria Film Awards"
EVENT = rf"(?P<event>{PHRASE})(?: for (?P<for>{NAME}))?(?: at (?:the )?(?P<at>{NAME}))?"

EVENT_WORDS = re.compile(
    r"\b(election|elections|final|cup|prize|award|awards|championship|race|vote|title|contest|"
    r"tournament|league|primary|ballot|referendum|trophy|medal|marathon|leadership|derby|open|"
    r"grand prix|playoff|play-off|competition|bid|poll|classic|shield|games|series|crown|"
    r"plate|bowl|rally|regatta|challenge|by-election)\b", re.I)
HOST_WORDS = re.compile(r"\b(games|festival|summit|championship|expo|congress|conference|"
                        r"cup|final|fair|olympiad|biennale|tournament|forum)\b", re.I)
ORG_WORDS = re.compile(r"\b(FC|United|City|Club|Athletic|Rovers|Party|Bank|Group|Inc|Ltd|"
                       r"Council|Union|Alliance|Association|Wanderers|Rangers|Town|Sporting)\b")
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


def _clean(phrase: str) -> str:
    return re.sub(r"^(?:the|its|their|a|an)\s+", "", phrase.strip(), flags=re.I).strip()


def _event(m: re.Match) -> str:
    event = _clean(m["event"])
    if m["for"]:
        event += f" for {m['for']}"
    if m["at"]:
        event += f" at the {m['at']}"
    return event


def _person_or_org(name: str, event: str) -> str:
    if ORG_WORDS.search(name) or re.search(r"\b(cup|final|league|derby|match)\b", event, re.I):
        return "organisation"
    return "person" if 2 <= len(name.split()) <= 3 else "entity"


def _won(m: re.Match) -> Outcome | None:
    event = _event(m)
    if not EVENT_WORDS.search(event):
        return None
    kind = _person_or_org(m["answer"], event)
    who = "Which team" if kind == "organisation" and re.search(
        r"cup|final|league|derby|match|championship", event, re.I) else "Who"
    if work := re.search(r"\b(film|novel|book|album|song|play|picture|documentary)\b", event, re.I):
        who, kind = f"Which {work[1].lower()}", "title"
    return Outcome("won", m["answer"], kind, f"{who} will win the {event}?", event,
                   f"Resolves to the winner of the {event}, as reported by news outlets.")


def _beat(m: re.Match) -> Outcome | None:
    event = _event(m)
    if not EVENT_WORDS.search(event):
        return None
    return Outcome("beat", m["answer"], "organisation", f"Which team will win the {event}?",
                   event, f"Resolves to the team or player that wins the {event}.")


def _elected(m: re.Match) -> Outcome | None:
    role = _clean(m["role"])
    if len(role.split()) > 8:
        return None
    return Outcome("elected", m["answer"], "person", f"Who will be elected {role}?", role,
                   f"Resolves to the person elected {role}, as reported by news outlets.")


def _host(m: re.Match) -> Outcome | None:
    event = _event(m)
    if not HOST_WORDS.search(event):
        return None
    org = _org(m)
    return Outcome("host", m["answer"], "place", f"Which city will {org} choose to host the {event}?",
                   event, f"Resolves to the place {org} selects to host the {event}.")


def _org(m: re.Match) -> str:
    """The organisation as written, keeping its article ("the Central Bank of Veloria")."""
    return f"the {m['org'].strip()}" if m["the"] else m["org"].strip()


def _site(m: re.Match) -> Outcome | None:
    org, what = _org(m), _clean(m["what"])
    return Outcome("site", m["answer"], "place", f"Where will {org} put its {what}?", what,
                   f"Resolves to the place {org} selects for its {what}.")


def _appointed(m: re.Match) -> Outcome | None:
    role, org = _clean(m["role"]), _org(m)
    if len(role.split()) > 6 or HOST_WORDS.search(role) or re.search(r"\d", role):
        return None
    return Outcome("appointed", m["answer"], "person", f"Who will {org} appoint as its {role}?",
                   f"{org} {role}", f"Resolves to the person {org} appoints as its {role}.")


def _appointed_passive(m: re.Match) -> Outcome | None:
    role, org = _clean(m["role"]), _org(m)
    if len(role.split()) > 6:
        return None
    return Outcome("appointed", m["answer"], "person", f"Who will be appointed {role} of {org}?",
                   f"{org} {role}", f"Resolves to the person appointed {role} of {org}.")


def _figure(m: re.Match) -> Outcome | None:
    org, indicator = _org(m), _clean(m["indicator"])
    return Outcome("figure", _figure_answer(m["answer"]), "number",
                   f"At what level will {org} set its {indicator} in {{month}}?", f"{org} {indicator}",
                   f"Resolves to the level of the {indicator} announced by {org}, "
                   "as announced.")


def _figure_answer(text: str) -> str:
    return re.sub(r"\s?(per ?cent|percent)\b", "%", text.strip())


def _indicator(m: re.Match) -> Outcome | None:
    org, indicator, period = _org(m), m["indicator"].strip(), m["period"]
    indicator = indicator[0].lower() + indicator[1:]
    return Outcome("indicator", _figure_answer(m["answer"]), "number",
                   f"What will {indicator} for {period} be, as reported by {org}?", f"{indicator} {period}",
                   f"Resolves to {indicator} for {period} as first published by {org}.")


RULES: list[tuple[re.Pattern, Callable[[re.Match], Outcome | None]]] = [
    (re.compile(rf"{LEAD_IN}(?P<answer>{NAME}) (?:beat|defeated|edged|overcame|thrashed|edged past)"
                rf" (?P<loser>{NAME})(?: \d+-\d+)?(?: on penalties)?,? (?:to (?:win|claim|lift|take)|in)"
                rf" (?:the )?{EVENT}{STOP}"), _beat),
    (re.compile(rf"{LEAD_IN}(?P<answer>{NAME}) (?:has |have )?(?:won|clinched|secured|claimed|took)"
                rf" (?:the )?{EVENT}{STOP}"), _won),
    (re.compile(rf"{LEAD_IN}(?P<answer>{NAME}) (?:was|has been|were) (?:re-)?elected (?:as )?"
                rf"(?:the )?(?:new )?(?P<role>{PHRASE}){STOP}"), _elected),
    (re.compile(rf"{LEAD_IN}(?P<the>The )?(?P<org>{NAME}) (?:has )?(?:chose|chosen|selected|picked|named)"
                rf" (?P<answer>{NAME}) (?:to host|as (?:the )?host(?: city)? (?:of|for)) (?:the )?"
                rf"{EVENT}{STOP}"), _host),
    (re.compile(rf"{LEAD_IN}(?P<the>The )?(?P<org>{NAME}) (?:has )?(?:chose|chosen|selected|picked)"
                rf" (?P<answer>{NAME}) as the (?:site|location|home|venue) (?:of|for) (?:its |the )?"
                rf"(?P<what>{PHRASE}){STOP}"), _site),
    (re.compile(rf"{LEAD_IN}(?P<the>The )?(?P<org>{NAME}) (?:has )?(?:appointed|named|picked|hired|chose|selected)"
                rf" (?P<answer>{NAME}) as (?:its |their |the )?(?:new )?(?P<role>{PHRASE}){STOP}"),
     _appointed),
    (re.compile(rf"{LEAD_IN}(?P<answer>{NAME}) (?:was|has been) (?:appointed|named|confirmed as|chosen as)"
                rf" (?:the )?(?:new )?(?P<role>{PHRASE}) (?:of|at) (?P<the>the )?(?P<org>{NAME}){STOP}"),
     _appointed_passive),
    (re.compile(rf"{LEAD_IN}(?P<the>The )(?P<org>{NAME}) (?:has )?(?:set|raised|cut|lowered|increased|held|kept|"
                rf"reduced|lifted) (?:its|the) (?P<indicator>[a-z][\w -]{{2,50}}?) (?:unchanged )?"
                rf"(?:at|to) (?P<answer>{FIGURE})"), _figure),
    (re.compile(rf"^(?P<indicator>[A-Z][a-z][\w -]{{2,60}}?) (?:fell|rose|climbed|eased|dropped|slowed|"
                rf"accelerated|jumped|increased|decreased|was|stood|came in|held) (?:to |at )?"
                rf"(?P<answer>{FIGURE}) in (?P<period>{MONTH}), (?P<the>the )?(?P<org>{NAME}) said"),
     _indicator),
]


def find_outcome(text: str, lead_sentences: int = 2) -> Outcome | None:
    """The first outcome report in the article's lead, or None."""
    for sentence in sentences(text)[:lead_sentences]:
        for pattern, build in RULES:
            match = pattern.search(sentence)
            if match and (outcome := build(match)) is not None:
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


def generate_extractive(articles: pl.DataFrame, config: GenerateConfig = GenerateConfig()
                        ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(candidate questions, drops) from dated articles; one question per outcome report."""
    articles = articles.sort("published_at", "crawled_at")
    earlier = _EarlierArticles(articles)
    rows, drops = [], []
    for art in articles.iter_rows(named=True):
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
        # Recurring decisions (a rate set every six weeks) name their month to stay distinct.
        title = outcome.title.replace("{month}", resolution.strftime("%B %Y"))
        rows.append({
            "question_id": stable_id(normalise(title), normalise(outcome.answer), art["article_id"]),
            "title": title,
            "background": background,
            "resolution_criteria": f"{outcome.criteria} The question resolves on "
                                   f"{resolution.isoformat()}.",
            "answer": outcome.answer,
            "answer_aliases": [],
            "answer_type": outcome.answer_type,
            "candidate_outcomes": [],
            "open_date": open_date,
            "resolution_date": resolution,
            "original_resolution_date": resolution,
            "revision_evidence": [],
            "source_kind": "news",
            "source_ids": [art["article_id"]],
            "generator": f"{GENERATOR}/{outcome.rule}",
            "category": category_of(f"{outcome.title} {outcome.subject}"),
        })
    return frame(rows, QUESTIONS), drops_frame(drops)


class _EarlierArticles:
    """Background search over the articles, sorted by publication: each article's words are
    normalised once, not once per question."""

    def __init__(self, articles: pl.DataFrame):
        self.rows = articles.select("title", "text", "published_at").rows(named=True)
        self.days = [r["published_at"].date() for r in self.rows]
        self._words: dict[int, set[str]] = {}

    def words(self, i: int) -> set[str]:
        if i not in self._words:
            self._words[i] = set(normalise(f"{self.rows[i]['title']} {self.rows[i]['text']}").split())
        return self._words[i]

    def background(self, outcome: Outcome, open_date: date) -> str:
        """Lead sentences of the latest article on the subject published by the question's
        open date, leaving out any sentence that names the answer."""
        terms = {t for t in normalise(outcome.subject).split() if len(t) > 2 and t != "the"}
        for i in reversed(range(bisect_right(self.days, open_date))):
            if terms and terms <= self.words(i):
                art = self.rows[i]
                lead = [s for s in sentences(art["text"])[:3] if not contains_phrase(s, outcome.answer)]
                if lead:
                    return f"As reported on {self.days[i].isoformat()}: " + " ".join(lead[:2])
        return (f"This question is about the {outcome.subject}. "
                "Forecast the outcome from the news available on each day.")
