"""Validation of candidate questions: the structural rules, each failure a drop with a reason.

``validate`` checks, in order (answers and titles in any script, normalised by
``pastcast.text``; words counted per script by ``pastcast.text.word_count``, so a run of
Chinese characters is neither one word nor one per character): required fields
(``missing_field``); a real answer
(``placeholder_answer``); a short one (``answer_too_long``); an answer type on the allow-list
(``answer_type_not_allowed``: only when the caller narrows the list; a label in another
spelling is mapped by ``pastcast.text.answer_types`` and an unknown one is ``other``); yes/no only when the question asks for it (``yes_no_answer``); a
bare number only when a number is asked for (``bare_number``); a resolution date inside the
snapshot window (``outside_window``); the question open at least ``min_window_days`` before
it resolves (``short_window``); a title that is a question (``not_a_question``: a question mark, "?"
or the full-width, Arabic or Greek one, followed only by a tail that adds no sentence: an option,
tag or note in brackets, emoji and symbols, a note after a dash, as market titles carry them
("Which of these countries will qualify ...? (Armenia)", "...?🥇[LIQUIDITY ADDED]"); words after
the mark outside brackets make a statement ("Rates unchanged? Markets expect a cut."); a title
with no question mark at all is one when it opens as only a question does: an English auxiliary
or modal before its subject, "¿", "est-ce que", see ``is_question``) about the future (``not_about_future``;
an English cue or a year, see ``_FUTURE``, and not asked in the past tense; a market question
needs no cue).

Leaks (the answer in a question's own or another question's text, or public before the
resolution date) and duplicates are separate steps (``leakage``, ``question_dedup``,
``revision``), run by ``pastcast.questions.filter``.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from datetime import date

import polars as pl

from pastcast.drops import Drop, drops_frame
from pastcast.matching import PLACEHOLDERS
from pastcast.questions.row_memo import RowMemo, outcomes_of, row_reader
from pastcast.questions.steps import StepResult
from pastcast.schemas import QUESTIONS, complete, frame
from pastcast.text import normalise, word_count
from pastcast.text.answer_types import ANSWER_TYPES as ANSWER_TYPE_VOCABULARY
from pastcast.text.answer_types import NUMERIC_TYPES, answer_type_original, canonical_answer_type
from pastcast.text.vocabulary import BINARY_ANSWERS, MONTHS

STAGE = "validate"
ANSWER_TYPES = frozenset(ANSWER_TYPE_VOCABULARY)  # every type of the vocabulary: all allowed
REQUIRED = ("question_id", "title", "answer", "resolution_criteria", "open_date", "resolution_date")
QUESTION_MARKS = ("?", "\uff1f", "\u061f", "\u037e")  # and the full-width, Arabic and Greek ones
MAX_NOTE_WORDS = 6  # a note after a dash ("? - Men's International Friendly"): a longer one is a sentence
_OPENING_BRACKETS, _CLOSING_BRACKETS = "([{\uff08\u3010\u300c", ")]}\uff09\u3011\u300d"
# What may follow a title's question mark without making it a statement: whitespace, an
# option, tag or note in brackets ("(Armenia)", "[LIQUIDITY ADDED]", "（选项）"), emoji, symbols
# and punctuation, and a note to the end after a dash or bar (" - Men's International Friendly ⚽").
# Words outside brackets are a sentence of their own ("Rates unchanged? Markets expect a cut."):
# the title is a statement. Possessive repeats: no backtracking on a long run of symbols.
_BRACKETED = "|".join(rf"\{o}[^\{o}\{c}]*\{c}" if o.isascii() else f"{o}[^{o}{c}]*{c}"
                      for o, c in ("()", "[]", "{}", "\uff08\uff09", "\u3010\u3011", "\u300c\u300d"))
_TAIL = re.compile(rf"(?:\s[-\u2013\u2014|]\s(?:[^\s{''.join(QUESTION_MARKS)}]+\s*){{1,{MAX_NOTE_WORDS}}}$|{_BRACKETED}"
                   r"|\s|\d|[^\w\s])*+")
# A title without any question mark is still one when it opens as only a question does (after
# an optional "[Tag]"): a future modal before its subject ("Will the United States win gold in
# both ...", a market title written without its mark), Spanish "¿", French "est-ce que". Not
# "is", "can" and the like: headlines open with them ("Can't stop the music: Eurovision
# returns", "Is Biden's age a problem, says poll").
_QUESTION_OPENING = re.compile(r"^\W*(?:\[[^\]]*\]\s*)?(?:\u00bf|est-ce qu|(?:will|would|shall)\s+\w)", re.I)
_BARE_NUMBER = re.compile(r"^[+-]?\d[\d,]*(?:\.\d+)?$")
# A question about the future says so: a future verb, or a time still to come (a year also
# between Chinese or Japanese characters, as in "在2026年底前"; a year also
# when a Chinese or Japanese character follows it, as in "2026年").
_FUTURE = re.compile(r"\b(?:will|would|shall|going to|next|upcoming|by the end of|before|"
                     r"to be (?:named|elected|chosen|appointed)"
                     rf"|by (?:eoy|eom|year[- ]end|end of|{'|'.join(MONTHS)}))\b"
                     r"|(?<![0-9A-Za-z_])(?:19|20)\d\d(?![0-9A-Za-z_])", re.I)
# A market question opens before it resolves by construction, so its title may omit a future
# cue ("Tesla Robotaxi unveiling delayed?"). A title asked in the past tense is about what
# already happened ("Was synthetic video data used in training Sora?", "Did the deal close by
# EOY?"), whatever cue it carries, for every question. A "[Tag]" prefix is skipped.
_PAST_TENSE = re.compile(r"^\W*(?:\[[^\]]*\]\s*)?(?:was|were|did|had|wasn't|weren't|didn't|hadn't|"
                         r"who won|what was|what were|how many [^?]*? did)\b", re.I)


@dataclass(frozen=True)
class ValidateConfig:
    max_answer_words: int = 6
    min_window_days: int = 7  # the shortest forecasting window: open_date to resolution_date
    answer_types: frozenset[str] = ANSWER_TYPES  # the allow-list, as vocabulary types
    window_start: date | None = None  # resolution dates must fall inside the snapshot window
    window_end: date | None = None


def problem(q: dict, config: ValidateConfig = ValidateConfig()) -> tuple[str, str] | None:
    """(reason, detail) of the first rule ``q`` breaks, or None."""
    return _first(*_row_problems(q, config), q.get("resolution_date"), config)


def _row_problems(q: dict, config: ValidateConfig) -> tuple[tuple[str, str] | None, tuple[str, str] | None]:
    """The first rule ``q`` breaks of those checked before the window, and of those after it:
    neither depends on the window, which moves as days are added."""
    for name in REQUIRED:
        if q.get(name) in (None, ""):
            return ("missing_field", name), None
    answer = normalise(q["answer"])
    if not answer or answer in PLACEHOLDERS:
        return ("placeholder_answer", q["answer"]), None
    words = word_count(q["answer"])  # a run of Chinese characters is not one word, nor one each
    if words > config.max_answer_words:
        return ("answer_too_long", f"{q['answer']!r} has {words} words (max {config.max_answer_words})"), None
    answer_type = canonical_answer_type(q.get("answer_type"))
    if answer_type not in config.answer_types:
        return ("answer_type_not_allowed", f"{answer_type!r} not in {sorted(config.answer_types)}"), None
    if answer in ("yes", "no") and answer_type != "binary":
        return ("yes_no_answer", f"{q['answer']!r} for a {answer_type} question"), None
    if answer_type == "binary" and answer not in BINARY_ANSWERS:
        # the leak checks skip binary answers: a name typed binary would never be checked
        return ("binary_answer_not_yes_no", f"{q['answer']!r} for a binary question"), None
    if _BARE_NUMBER.match(q["answer"].strip()) and answer_type not in NUMERIC_TYPES:
        return ("bare_number", f"{q['answer']!r} for a {answer_type} question"), None
    resolves = q["resolution_date"]
    if (resolves - q["open_date"]).days < config.min_window_days:
        return None, ("short_window", f"{q['open_date']} to {resolves} (< {config.min_window_days} days)")
    title = q["title"].strip()
    if not is_question(title):
        return None, ("not_a_question", title)
    if _PAST_TENSE.match(title) or (not _FUTURE.search(title) and q.get("source_kind") != "market"):
        return None, ("not_about_future", title)
    return None, None


def is_question(title: str) -> bool:
    """A question mark outside brackets followed only by a tail (``_TAIL``: brackets, digits,
    symbols, a short note after a dash), or, with no question mark anywhere, an opening that
    only a question has (``_QUESTION_OPENING``)."""
    depth, at = 0, []
    for i, c in enumerate(title):
        depth += (c in _OPENING_BRACKETS) - (c in _CLOSING_BRACKETS and depth > 0)
        if c in QUESTION_MARKS and depth == 0:  # "Biden resigns (?)" asks nothing
            at.append(i)
    if at:  # the last marks ("Will X? (is it? yes)" ends in a tail after the first), a few: each is a pass
        return any(_TAIL.fullmatch(title, i + 1) for i in reversed(at[-8:]))
    if any(c in QUESTION_MARKS for c in title):
        return False
    return bool(_QUESTION_OPENING.match(title))


def _first(before, after, resolves: date | None, config: ValidateConfig) -> tuple[str, str] | None:
    """The rules in order: those before the window, the window, those after it."""
    if before:
        return tuple(before)
    if (config.window_start and resolves < config.window_start) or (config.window_end and resolves > config.window_end):
        return "outside_window", f"resolves {resolves}, window {config.window_start}..{config.window_end}"
    return tuple(after) if after else None


# the columns the rules read (a row's memo key; see pastcast.questions.row_memo)
RULE_COLUMNS = ("question_id", "title", "answer", "answer_type", "resolution_criteria", "open_date",
                "resolution_date", "source_kind")


def validate(questions: pl.DataFrame, config: ValidateConfig = ValidateConfig(), memo: RowMemo | None = None
             ) -> StepResult:
    """Questions that pass every structural rule; the others as drops. ``memo``: the rules'
    outcomes of the build before, by row (the window is applied afresh)."""
    result = StepResult(frame([], QUESTIONS))
    if questions.is_empty():
        return result
    questions = _canonical_answer_types(questions)
    settings = json.dumps({k: sorted(v) if isinstance(v, frozenset) else v for k, v in asdict(config).items()
                           if k not in ("window_start", "window_end")}, sort_keys=True)
    table = questions.select(RULE_COLUMNS)
    row = row_reader(table, memo)
    found = outcomes_of(memo, f"{STAGE}:{settings}", questions, RULE_COLUMNS, lambda i: _row_problems(row(i), config))
    keep = []
    ids, resolves = table["question_id"].to_list(), table["resolution_date"].to_list()
    for qid, resolution, (before, after) in zip(ids, resolves, found):
        failed = _first(before, after, resolution, config)
        keep.append(failed is None)
        if failed:
            result.drop(qid or "", STAGE, *failed)
    result.kept = complete(questions.filter(pl.Series(keep, dtype=pl.Boolean)), QUESTIONS)
    return result


def _canonical_answer_types(questions: pl.DataFrame) -> pl.DataFrame:
    """Every row's answer type in the vocabulary, the label as written kept beside it
    (``answer_type_original``, unless already set), worked out once per distinct label."""
    questions = complete(questions, QUESTIONS)
    label = pl.col("answer_type").fill_null("")  # no label: "other", as an empty one
    labels = questions.select(label.unique()).to_series().to_list()
    canonical = {x: canonical_answer_type(x) for x in labels}
    original = {x: answer_type_original(x) for x in labels}
    written = pl.col("answer_type_original")
    return questions.with_columns(
        label.replace_strict(canonical, return_dtype=pl.String).alias("answer_type"),
        pl.when(written.is_null() | (written == "")).then(label.replace_strict(original, return_dtype=pl.String))
        .otherwise(written).alias("answer_type_original"))


# -- one call for callers without an article corpus --------------------------------------------

def validate_questions(candidates: pl.DataFrame, config: ValidateConfig = ValidateConfig()
                       ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(kept, drops) after the steps that need no article corpus: ``validate``, ``self_leak``
    and ``dedup`` (the full filter is ``pastcast.questions.filter``)."""
    from pastcast.questions.leakage import self_leaks
    from pastcast.questions.question_dedup import merge_duplicates

    drops: list[Drop] = []
    questions = candidates
    for step in (lambda qs: validate(qs, config), self_leaks, merge_duplicates):
        result = step(questions)
        drops += result.drops
        questions = result.kept
    return questions, drops_frame(drops)


def leaks_in_own_text(questions: pl.DataFrame) -> list[str]:
    """Ids of questions whose answer shows in their own visible text."""
    from pastcast.questions.leakage import self_leaks

    return [d.item_id for d in self_leaks(questions).drops]
