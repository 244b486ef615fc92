"""Titles a forecaster reads: a question's title without the labels its platform put on it.

Market and peer titles carry labels meant for the platform's own users: the platform's name
("[Metaculus] Will the CDC confirm ...?", a Manifold mirror of a Metaculus question), the kind of
market ("[Single Market] Will Joe Biden win ...?", "[Market Index]", "[Short Fuse]") or a note to
traders ("... [LIQUIDITY ADDED]"). ``reader_title`` removes these at either end of the title,
repeatedly ("[Metaculus] [Short Fuse] Will ...?"), with the separators around them.

A leading label that names the question's group ("[Eurovision 2024] Will Armenia qualify?",
"[2024 Formula 1 Season] Will ...?", "[AI] Will ...?") is context the question needs, so it
stays, as words in front of the question: "Eurovision 2024: Will Armenia qualify?" (several:
"A, B: ..."): read first, as the platform showed it, and the question still ends with its "?"
(``pastcast.questions.validate``); ``LEAD`` is the pattern of such a lead, for the rules that
read a title's first word ("Who ...", "Will ..."). Labels after the question ("... [Before June 13th]", "... (Armenia)"
naming the option of a split multiple-choice question) are part of what it asks and stay.

A yes/no question written as a request for a probability ("What is the probability that X will
Y?", "What's the chance that ...", "How likely is it that X will Y?") is asked as the question it
is, "Will X Y?", when its answer is yes/no (``answer_type`` "binary"): 278 of the 1,613 real
ForecastBench market questions ask "What is the probability that the daily average temperature
... will be higher on A than on B?" and resolve Yes or No. With another answer type, or without
a "will" to turn around, the title is left as it is.

Never an empty title (a title of labels only is left whole), idempotent (a title read once
reads the same again), and only labels and the probability lead are touched: the rest, in any
script, is kept character for character.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import polars as pl

from pastcast.sources.forecastbench import MARKET_SOURCES
from pastcast.sources.markets import MARKET_FORMATS
from pastcast.text.vocabulary import phrases

_GAP = r"\s+"

# The platforms pastcast reads (``MARKET_FORMATS``, and ForecastBench's sources: INFER) and
# others whose copies reach peer sets; a label naming one says where, not what.
OTHER_PLATFORMS = ("manifold markets", "predictit", "good judgment open", "gjopen", "hypermind",
                   "insight prediction", "futuur", "smarkets", "betfair")
# Labels of the kind of market or of a note to its traders, as the real dumps write them.
MARKET_LABELS = ("single market", "liquidity added", "short fuse", "market index", "subsidized",
                 "subsidised", "mirror")
PLATFORM_LABELS = frozenset({*MARKET_FORMATS, *MARKET_SOURCES, *OTHER_PLATFORMS, *MARKET_LABELS})

_PAIRS = {"[": "]", "(": ")", "【": "】", "［": "］", "（": "）"}
_CLOSERS = {v: k for k, v in _PAIRS.items()}
_SQUARE = ("[", "【", "［")  # group labels come in these; a leading "(...)" is part of the text
# what joins a label to the question ("[Metaculus] - Will ...", "Will ...? | [Manifold]"); a dash
# only between spaces, so "[Metaculus] -5% by June?" keeps its minus
_OPENING_GAP = re.compile(r"^\s*(?::|[|\-–—·•](?=\s))?\s*")
_CLOSING_GAP = re.compile(r"\s*(?::|(?<=\s)[|\-–—·•])?\s*$")
_BRACKETS = re.compile(r"[\[\]【】［］()（）]")
_WORD = re.compile(r"\w")
_NOT_IN_GROUP = re.compile(r"[?？:：\n]")  # what ``LEAD`` would not read as one lead

# A group label rewritten in front of the question, or one still in brackets: rules that read a
# title's first word (who/what/will ...) skip it. At most 60 characters, no "?" or ":" in it.
LEAD = r"(?:[\[【［][^\]】］]*[\]】］]\s*|[^:?\n]{1,60}:\s+)?"

# A yes/no question asked as a probability: the lead words, each space any run of whitespace.
PROBABILITY_LEADS = ("what is the", "what's the", "what’s the", "what are the")
PROBABILITY_WORDS = ("probability", "probabilities", "chance", "chances", "likelihood", "odds")
_PROBABILITY = re.compile(
    rf"(?i)^(?:(?:{phrases(PROBABILITY_LEADS, _GAP)}){_GAP}(?:{'|'.join(PROBABILITY_WORDS)})(?:{_GAP}that)?"
    rf"|{phrases(('how likely is it that',), _GAP)}){_GAP}")
_WILL = re.compile(r"\s(will)\s")  # lower case: "Will Smith" in the subject is a name, not the verb


@dataclass(frozen=True)
class ReaderTitle:
    title: str  # what a forecaster reads
    original: str  # the title as given
    removed: list[str] = field(default_factory=list)  # platform labels taken off, as written
    rewritten: bool = False  # a probability request asked as the yes/no question it is

    @property
    def changed(self) -> bool:
        return self.title != self.original


_LABEL_WORDS = {tuple(label.split()) for label in PLATFORM_LABELS}
_LONGEST = max(map(len, _LABEL_WORDS))


def _is_platform(inner: str) -> bool:
    """Whether a label's words are platform labels and nothing else ("Metaculus", "Manifold
    Markets", "Metaculus mirror", "Metaculus, Short Fuse"); case, brackets and punctuation aside."""
    words = re.sub(r"[^\w&]+", " ", inner.lower()).split()
    covered = [True] + [False] * len(words)  # covered[i]: words[:i] is a run of labels
    for i in range(1, len(words) + 1):
        covered[i] = any(covered[i - n] and tuple(words[i - n:i]) in _LABEL_WORDS
                         for n in range(1, min(i, _LONGEST) + 1))
    return bool(words) and covered[-1]


def _is_group(inner: str) -> bool:
    """Whether a bracketed label can lead the question as words: a name, not a question or a
    phrase a title starts with ("[Will it rain?]", "[What is the probability that]")."""
    return bool(_WORD.search(inner)) and not _NOT_IN_GROUP.search(inner) and not _PROBABILITY.match(f"{inner} ")


def _leading(text: str) -> tuple[str, str] | None:
    """(label inside its brackets, the text after it) when ``text`` opens with a bracketed
    label (nested brackets of its kind counted), else None."""
    if not text or text[0] not in _PAIRS:
        return None
    opener, closer, depth = text[0], _PAIRS[text[0]], 0
    for i, ch in enumerate(text):
        depth += (ch == opener) - (ch == closer)
        if depth == 0:
            return text[1:i], text[i + 1:]
    return None  # never closed: not a label


def _trailing(text: str) -> tuple[str, str] | None:
    """(the text before it, label inside its brackets) when ``text`` ends with one."""
    if not text or text[-1] not in _CLOSERS:
        return None
    closer, opener, depth = text[-1], _CLOSERS[text[-1]], 0
    for i in range(len(text) - 1, -1, -1):
        depth += (text[i] == closer) - (text[i] == opener)
        if depth == 0:
            return text[:i], text[i + 1:-1]
    return None


def _as_question(core: str) -> str | None:
    """"Will X Y?" of "What is the probability that X will Y?", or None."""
    m = _PROBABILITY.match(core)
    if not m:
        return None
    rest = core[m.end():]
    if len(_WILL.findall(rest)) != 1:  # "... that someone who will run will win?": which will is the verb's?
        return None
    will = _WILL.search(rest)
    if not _WORD.search(rest[:will.start()]):
        return None
    subject, predicate = rest[:will.start()].strip(), rest[will.end():]
    if not _WORD.search(predicate):
        return None
    return f"Will {subject} {predicate}"


def _after_label(text: str) -> str:
    return _OPENING_GAP.sub("", text, count=1)


def _before_label(text: str) -> str:
    return _CLOSING_GAP.sub("", text, count=1)


def reader_title(title: str, answer_type: str | None = None) -> ReaderTitle:
    """The title a forecaster reads (see the module doc)."""
    if not title:
        return ReaderTitle(title or "", title or "")
    text, front, back, groups = title.strip(), [], [], []
    # labels off the end first, while words stay before them: what is left then ends as any
    # second reading sees it, whatever the front turns into
    while (tail := _trailing(text)) is not None and _is_platform(tail[1]):
        before = _before_label(tail[0])
        if not _WORD.search(before):
            break
        back.insert(0, text[len(tail[0]):])
        text = before
    while (lead := _leading(text)) is not None:  # then off the front
        inner, after = lead
        platform = _is_platform(inner)
        if not (platform or text[0] in _SQUARE and _is_group(inner)) or not _WORD.search(after):
            break  # text in brackets, or nothing after the label
        if platform:
            front.append(text[:len(text) - len(after)])
        else:  # a group: kept as words, its own brackets flattened so it never reads as a label again
            groups.append(" ".join(_BRACKETS.sub(" ", inner).split()))
        text = _after_label(after)
    if (only := _leading(text)) is not None and not _WORD.search(only[1]):
        return ReaderTitle(title, title)  # labels only: nothing to read without them
    question = _as_question(text) if answer_type == "binary" else None
    if question is not None:
        text = question
    if not front and not back and not groups and question is None:
        return ReaderTitle(title, title)  # untouched, to the character (outer spaces too)
    if groups:
        text = f"{', '.join(groups)}: {text}"
    return ReaderTitle(text, title, front + back, question is not None)


def reader_titles(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` (a questions frame: ``title``, and ``answer_type`` when it has one) with each
    title as a forecaster reads it and ``original_title`` the title as given where that differs
    (null where it does not; one already set is kept, so a second pass changes nothing). Each
    distinct (title, yes/no) pair is worked out once."""
    binary = (pl.col("answer_type") == "binary") if "answer_type" in frame.columns else pl.lit(False)
    keys = frame.select(pl.col("title").cast(pl.String), binary.fill_null(False).alias("_binary"))
    pairs = keys.unique().drop_nulls("title")
    read = [reader_title(t, "binary" if b else None) for t, b in pairs.iter_rows()]
    table = pairs.with_columns(pl.Series("_title", [r.title for r in read], pl.String),
                               pl.Series("_original", [r.original if r.changed else None for r in read], pl.String))
    looked = keys.join(table, on=["title", "_binary"], how="left", maintain_order="left", nulls_equal=True)
    original = pl.col("original_title") if "original_title" in frame.columns else pl.lit(None, pl.String)
    return frame.with_columns(
        pl.coalesce(looked["_title"], pl.col("title")).alias("title"),
        pl.coalesce(original, looked["_original"]).alias("original_title"))
