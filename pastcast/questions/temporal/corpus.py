"""What the date-gated corpus says about a phrase and about a script, asked of the search index
once a build and kept: where a phrase first appears and how often in the days after, and how
many articles of each script were published each day (the coverage a first appearance is
judged against).

How much of the corpus is written in a script is counted by its most frequent words
(``SCRIPT_WORDS``: a handful of function words of the main languages written in it, present in
nearly every article of those languages), or, for scripts written without spaces, whose runs
are single terms in the index, by its most frequent characters (``SCRIPT_CHARACTERS``). A
script with neither has no coverage: its phrases are never judged.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from itertools import accumulate

from pastcast.search.index import ArticleIndex, phrase_terms

# The most frequent words of the main languages written in each script with spaces (lower
# case): an article of those languages holds some of them. Not stop words to leave out of a
# query (``pastcast.text.vocabulary``, ``pastcast.search.keywords``): words to find a
# language's articles by, so the commonest, whatever they mean.
SCRIPT_WORDS = {
    "latin": """the and of to in is for der die und das ist nicht le la les et des est el los las y que
        en il di che della o os um uma do da het een van och att og er ja on w z na się je a se ve bir
        bu dan yang và của là""",
    "cyrillic": "и в на не что с по і та у да за је от",
    "greek": "και το να η της του την σε για",
    "arabic": "في من على أن إلى عن التي الذي هذا که در از به این است اور کے میں ہے",
    "hebrew": "של את על לא עם זה גם כי",
    "devanagari": "के है में की और से का को ने पर",
    "bengali": "এবং ও করে এই না",
    "georgian": "და რომ არის ეს",
    "armenian": "և որ է են",
    "hangul": "이 그 수 것 등 및 더 있다 한 했다",
}
# Scripts written without spaces: characters nearly every article of them holds.
SCRIPT_CHARACTERS = {
    "cjk": "的是了在不有这中人のはにをがでと",
    "thai": "ที่การนรม",
    "lao": "ກນມ",
    "khmer": "ការន",
    "myanmar": "ကသ",
}


class DayCounts:
    """Counts by UTC day, summed over spans of days by bisection."""

    def __init__(self, by_day: dict[date, int]):
        days = sorted(by_day)
        self._days = [d.toordinal() for d in days]
        self._sums = [0, *accumulate(by_day[d] for d in days)]

    def between(self, since: date, through: date) -> int:
        """The count from ``since`` through ``through`` (both included)."""
        if through < since:
            return 0
        lo = bisect_left(self._days, since.toordinal())
        hi = bisect_right(self._days, through.toordinal())
        return self._sums[hi] - self._sums[lo]

    @property
    def first(self) -> date | None:
        return date.fromordinal(self._days[0]) if self._days else None

    def as_dict(self) -> dict[date, int]:
        sums = self._sums
        return {date.fromordinal(d): sums[i + 1] - sums[i] for i, d in enumerate(self._days)}


@dataclass(frozen=True)
class FirstSeen:
    """Where a phrase first appears in the corpus."""

    article_id: str
    published_at: datetime

    @property
    def day(self) -> date:
        return self.published_at.astimezone(timezone.utc).date()


NOT_SEARCHABLE = "not_searchable"  # a phrase the index cannot look for (see ``phrase_query``)
Fact = tuple[str, "FirstSeen | None", "dict[date, int] | None"]  # (text, first seen, holders per day)


class CorpusView:
    """The index's answers for one build, each asked once: a phrase's first appearance, its
    holders per day over the ``window_days`` from then (asked only of a phrase first seen after
    a question opens), a script's articles per day.

    ``known``: facts kept from the build before (``TemporalMemo``), by the phrase's terms:
    (text, first seen or None, holders per day or None). With ``recheck_since`` (the earliest
    publication day of the articles added since), a fact those articles could have changed (the
    phrase absent then, or first seen less than ``window_days`` before that day) is used only if
    the index holds the phrase in no document published from that day on; else it is searched
    again."""

    def __init__(self, index: ArticleIndex, window_days: int, known: dict[tuple[str, ...], Fact] | None = None,
                 recheck_since: date | None = None):
        self.index = index
        self.window_days = window_days
        self._known = dict(known or {})
        self._recheck_since = recheck_since
        self._answers: dict[tuple[str, ...], FirstSeen | None | str] = {}
        self._windows: dict[tuple[str, ...], dict[date, int]] = {}
        self._fresh: set[tuple[str, ...]] = set()  # terms whose facts were searched this build
        self._texts: dict[tuple[str, ...], str] = {}
        self._scripts: dict[str, DayCounts] = {}
        self._written: dict[tuple, list] = {}
        self.searched = 0  # phrases searched in the whole index this build
        self.reused = 0  # first appearances known from the build before and still standing
        self.rechecked = 0  # known ones the new articles could have changed, looked up in them

    def first_seen(self, phrase: str) -> FirstSeen | None | str:
        """Where ``phrase`` first appears (None: nowhere; ``NOT_SEARCHABLE``)."""
        terms = phrase_terms(phrase)
        if terms is None:
            return NOT_SEARCHABLE
        if terms not in self._answers:
            self._texts[terms] = phrase
            known = self._known.get(terms)
            if known is not None and self._stands(phrase, known[1]):
                self._answers[terms] = known[1]
                if known[2] is not None:
                    self._windows[terms] = known[2]
                self.reused += 1
            else:
                first = self.index.first_holding(phrase)  # None: nowhere (or a pattern too broad for tantivy)
                self._answers[terms] = None if first is None else FirstSeen(*first)
                self._fresh.add(terms)
                self.searched += 1
        return self._answers[terms]

    def holders(self, phrase: str, first: FirstSeen) -> int:
        """Documents holding ``phrase`` in the ``window_days`` from its first day (at least 1)."""
        terms = phrase_terms(phrase)
        if terms not in self._windows:
            last = first.day + timedelta(days=self.window_days - 1)
            self._windows[terms] = self.index.phrase_days(phrase, since=first.day, through=last) or {}
            self._fresh.add(terms)
        return max(1, sum(self._windows[terms].values()))

    def _stands(self, phrase: str, first: FirstSeen | None) -> bool:
        since = self._recheck_since
        if since is None or (first is not None and first.day + timedelta(days=self.window_days - 1) < since):
            return True  # every new article is published after what it read
        if since == date.min:
            return False  # parts were written again with no dated article left: search again
        self.rechecked += 1
        return not self.index.phrase_days(phrase, since=since)

    def written_as(self, phrase: str, since: date, through: date, limit: int = 100) -> list[tuple[str, datetime]]:
        """(article id, published_at) of the documents published from ``since`` through
        ``through`` that hold ``phrase`` written as given, capitals and all, as a whole word
        (the index folds case: "Baker" the surname is found in "a baker"), earliest first."""
        key = (phrase, since, through)
        if key not in self._written:
            pattern = re.compile(rf"(?<!\w){re.escape(phrase)}(?!\w)")
            self._written[key] = [(aid, at) for aid, at, text in self.index.holding(phrase, since, through, limit)
                                  if pattern.search(text)]
        return self._written[key]

    def script_days(self, script: str) -> DayCounts:
        """Articles of ``script`` per publication day (none for a script without probes)."""
        if script not in self._scripts:
            if script in SCRIPT_WORDS:
                counts = self.index.words_days(SCRIPT_WORDS[script].split())
            elif script in SCRIPT_CHARACTERS:
                counts = self.index.characters_days(SCRIPT_CHARACTERS[script])
            else:
                counts = {}
            self._scripts[script] = DayCounts(counts)
        return self._scripts[script]

    def fresh(self) -> dict[tuple[str, ...], Fact]:
        """The facts searched this build, by terms (for ``TemporalMemo``)."""
        return {t: (self._texts[t], self._answers.get(t), self._windows.get(t)) for t in self._fresh}
