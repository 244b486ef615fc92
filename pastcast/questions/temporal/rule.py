"""When a phrase first seen after a question opens gives the future away: the rule.

A phrase of the question (``phrases``) whose first appearance in the date-gated corpus, day F,
is on or before the open date O is ``known``: it was reported when the question opened. One
first seen after O is judged against the corpus of its script (``corpus``):

- ``uncovered``: fewer than ``min_coverage`` articles of its script were published in the
  ``lookback_days`` up to O: the corpus could not have shown it earlier, so its absence there
  says nothing;
- otherwise, of its ``holders`` articles in the ``window_days`` from F (out of ``after``
  articles of its script then) and none among the ``before`` articles of the lookback, the
  chance that all of them fall after O if the phrase had been written at one rate all along
  is C(after, holders) / C(after + before, holders) (the hypergeometric tail: each holder
  could have been any of the articles). At most ``max_chance``: ``new``, the question named
  it before it was reported; more, or fewer than ``min_holders`` holders: ``weak`` (a phrase
  seen once, or where the corpus is thin before O, is weak evidence: most new but harmless
  names are; and one seen once may be seen only in the article the question was written from).
  The index folds case, so a single word of a script with capitals counts only the holders
  that write it capitalised as the question does ("Baker" the surname is not "a baker").

A phrase the corpus does not hold is ``absent``, and one first seen more than ``window_days``
after the question resolves is ``late`` (a later coincidence, not news the text could have
carried): no judgement either way. The parameters were chosen on
the tuning half of real question sets (``bench/temporal_leaks.py``, ``bench/README.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from pastcast.questions.temporal.corpus import CorpusView, FirstSeen
from pastcast.questions.temporal.phrases import CASED_SCRIPTS, Phrase

OUTCOMES = ("known", "new", "weak", "uncovered", "late", "absent", "not_searchable")


@dataclass(frozen=True)
class TemporalConfig:
    min_window_days: int = 7  # forecasting window left after a later open date, else drop
    lookback_days: int = 90  # the articles before the open date a first appearance is judged against
    window_days: int = 7  # the articles from the first appearance its rate is read from
    max_chance: float = 0.01  # of all holders falling after the open date at one rate
    min_coverage: int = 10  # articles of the phrase's script in the lookback, else uncovered
    min_holders: int = 2  # articles holding it in the window, else weak whatever the chance
    kinds: tuple[str, ...] = ("title", "name")  # phrase kinds checked (figures: see bench/README.md)
    max_phrases: int = 32  # per question: titles first, then longer names


@dataclass(frozen=True)
class PhraseCheck:
    phrase: Phrase
    outcome: str  # of OUTCOMES
    first: FirstSeen | None = None
    before: int = 0  # articles of its script in the lookback up to the open date
    after: int = 0  # articles of its script in the window from its first day
    holders: int = 0  # articles holding it in that window
    chance: float | None = None

    def describe(self, open_date: date, config: TemporalConfig) -> str:
        if self.first is None:
            return f"'{self.phrase.text}': {self.outcome}"
        return (f"'{self.phrase.text}' ({self.phrase.kind}) first reported by {self.first.article_id} on "
                f"{self.first.day.isoformat()}, after the open date {open_date.isoformat()}: in none of the "
                f"{self.before} {self.phrase.script} articles of the {config.lookback_days} days up to it, in "
                f"{self.holders} of the {self.after} of the {config.window_days} days from then "
                f"(chance at one rate {self.chance:.2g})")


def chance_all_after(holders: int, after: int, before: int) -> float:
    """The chance that ``holders`` articles, drawn from ``after + before`` at one rate, are all
    among the ``after``: C(after, holders) / C(after + before, holders)."""
    chance = 1.0
    for i in range(holders):
        chance *= (after - i) / (after + before - i)
    return chance


def check_phrase(phrase: Phrase, open_date: date, resolution_date: date | None, corpus: CorpusView,
                 config: TemporalConfig) -> PhraseCheck:
    first = corpus.first_seen(phrase.text)
    if isinstance(first, str):  # NOT_SEARCHABLE
        return PhraseCheck(phrase, "not_searchable")
    if first is None:
        return PhraseCheck(phrase, "absent")
    if first.day <= open_date:
        return PhraseCheck(phrase, "known", first)
    if resolution_date is not None and first.day >= resolution_date + timedelta(days=config.window_days):
        return PhraseCheck(phrase, "late", first)
    scripts = corpus.script_days(phrase.script)
    before = scripts.between(open_date - timedelta(days=config.lookback_days - 1), open_date)
    if before < config.min_coverage:
        return PhraseCheck(phrase, "uncovered", first, before)
    holders = corpus.holders(phrase.text, first)
    # a holder of another script ("OpenAI" in a Chinese article) is one of the articles too
    after = max(holders, scripts.between(first.day, first.day + timedelta(days=config.window_days - 1)))
    chance = chance_all_after(holders, after, before)
    if chance <= config.max_chance and holders >= config.min_holders and _one_cased_word(phrase):
        # the index folds case: count only the holders that write it as the question does
        written = corpus.written_as(phrase.text, first.day, first.day + timedelta(days=config.window_days - 1))
        if written and written[0][0] != first.article_id:
            first = FirstSeen(*written[0])
        holders = len(written)
        chance = chance_all_after(holders, after, before)
    outcome = "new" if chance <= config.max_chance and holders >= config.min_holders else "weak"
    return PhraseCheck(phrase, outcome, first, before, after, holders, chance)


def _one_cased_word(phrase: Phrase) -> bool:
    """A single word of a script with capitals: "Baker", "Hybrid", "Threads" are common nouns too."""
    return phrase.script in CASED_SCRIPTS and len(phrase.text.split()) == 1


def coverage_before(scripts: set[str], open_date: date, corpus: CorpusView, config: TemporalConfig) -> int:
    """The most articles any of ``scripts`` has in the lookback up to ``open_date``."""
    since = open_date - timedelta(days=config.lookback_days - 1)
    return max((corpus.script_days(s).between(since, open_date) for s in scripts), default=0)
