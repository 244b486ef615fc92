"""A peer's answers as pastcast writes them, and their type when the peer gives none.

A file's answers all yes/no, true/false (JSON booleans too) or 0/1 make its questions
``binary``, all numbers ``number``; otherwise each answer that is a yes/no word makes its
question ``binary`` and the rest are ``other``. (So a numeric file's 0 and 1 stay numbers, and
a file of only 0/1 answers is yes/no: map ``answer_type`` when it is not.) A ``binary``
question's answer is written ``Yes`` or ``No``, whatever the peer's spelling.
"""

from __future__ import annotations

import polars as pl

from pastcast.text.vocabulary import BINARY_ANSWERS

YES_NO = {"yes": "Yes", "no": "No", "true": "Yes", "false": "No", "1": "Yes", "0": "No",
          "1.0": "Yes", "0.0": "No"}
INFERRED = "inferred from the answers"  # what import.json says of a file without answer types


def _key(answers: pl.Series) -> pl.Series:
    return answers.str.strip_chars().str.to_lowercase()


def inferred_types(answers: pl.Series) -> pl.Series:
    """The answer type of each answer of one file (see the module doc)."""
    keys = _key(answers)
    given = keys.drop_nulls()
    if given.len() and given.is_in(list(YES_NO)).all():
        kind = pl.lit("binary")
    elif given.len() and given.cast(pl.Float64, strict=False).null_count() == 0:
        kind = pl.lit("number")
    else:
        kind = pl.when(pl.col("key").is_in(list(BINARY_ANSWERS))).then(pl.lit("binary")).otherwise(pl.lit("other"))
    return pl.DataFrame({"key": keys}).select(kind.alias("answer_type"))["answer_type"]


def yes_no(answer: pl.Expr, answer_type: pl.Expr) -> pl.Expr:
    """A binary question's answer as ``Yes``/``No`` (one that is neither is left as written, for
    ``questions filter`` to drop); other answers as written."""
    spelled = answer.str.strip_chars().str.to_lowercase().replace_strict(YES_NO, default=None)
    return pl.when(answer_type == "binary").then(pl.coalesce(spelled, answer)).otherwise(answer)
