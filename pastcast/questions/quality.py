"""A question quality audit: rule-based flags on the questions a filter run keeps.

The leak, duplicate and revision steps drop what breaks the benchmark's time rules; a kept
question can still be hard to grade. Each flag is a row of the ``question_quality`` table
(``question_id, flag, detail``) and a line of the audit report; a question with no flag counts
as verifiable and unambiguous (the share the audit reports; FutureSearch reports about 96% for
its automated generator, judged by people).

Flags (``FLAGS``):

- ``no_source_of_truth``: the resolution criteria name no source or report to settle it
  (``SOURCE_CUES``: "according to", "as reported", "official", a URL, "the market", ...).
- ``several_answers_accepted``: the criteria accept more than one answer ("either ... or",
  "and/or", "any of", "one or more of").
- ``vague_time_frame``: neither the title nor the criteria name a year, a month, a date or a
  deadline ("soon", "eventually" or no time at all).
- ``sole_candidate``: the question lists one real option only: nothing to choose between.
- ``answer_not_an_option``: it lists options and the answer is none of them.
- ``yes_no_mismatch``: a binary answer to a title that asks who, what, which, when, where or
  how many (not "What is the probability that ...?", a yes/no question), or a free-form answer to a title that asks a yes/no question ("Will ...?").
  A leading group label ("[AI] Who ...", "Eurovision 2024: Will ...", ``titles.LEAD``) is skipped.
- ``resolves_on_creator_comment``: the background or criteria say the market's creator settles
  it by their own judgement ("I will resolve based on my judgement", "Resolves based on my
  subjective opinion of the news", "The creator will use their judgment") or in comments a
  forecaster is not shown ("Please see THIS COMMENT from the 2026 market ..."): Manifold
  questions, mostly. The detail is that sentence. Updates the creator appended as "(AI summary
  of creator comment)" are shown text, not a pointer, and are not flagged.

English cues (the generators write English criteria; peer sets mostly do too): a question in
another language is never flagged for its wording (``no_source_of_truth``, ``vague_time_frame`` and
``resolves_on_creator_comment`` are left out for it), only for its structure.
"""

from __future__ import annotations

import re

import polars as pl

from pastcast.matching import PLACEHOLDERS, matches
from pastcast.questions.row_memo import RowMemo, outcomes_of, row_reader
from pastcast.questions.titles import LEAD, PROBABILITY_WORDS
from pastcast.text import normalise
from pastcast.schemas import QUESTION_QUALITY as QUALITY
from pastcast.text.vocabulary import BINARY_ANSWERS, MONTHS

FLAGS = ("no_source_of_truth", "several_answers_accepted", "vague_time_frame", "sole_candidate",
         "answer_not_an_option", "yes_no_mismatch", "resolves_on_creator_comment")
# the optional LLM pass (pastcast.questions.quality_llm); no verdict is no flag on the question
LLM_FLAGS = ("llm_unverifiable", "llm_ambiguous")
NO_VERDICT = "llm_no_verdict"

SOURCE_CUES = re.compile(
    r"(?i)\b(according to|as reported|reported by|reports?|official(?:ly)?|announce[sd]?|announcement|"
    r"published|statement|data|source|website|results?|records?|confirmed|the market|as the market|"
    r"resolves? to the outcome|resolution of|per)\b|https?://|www\.")
SEVERAL = re.compile(r"(?i)\beither\b.+\bor\b|\band/or\b|\bany of\b|\bone or more of\b")
TIME = re.compile(rf"(?i)\b(?:19|20)\d\d\b|\b(?:{'|'.join(MONTHS)})\b|\d{{4}}-\d\d-\d\d|\b(?:by|before|until|"
                  rf"within|next|this) (?:week|month|year|quarter|season|the end)\b|\b(?:today|tomorrow)\b")
WH_TITLE = re.compile(rf"(?i)^\W*{LEAD}(who|what|which|when|where|how many|how much)\b"
                      rf"(?!\s+(?:is|are)\s+the\s+(?:{'|'.join(PROBABILITY_WORDS)})\b)")
YES_NO_TITLE = re.compile(rf"(?i)^\W*{LEAD}(will|is|are|does|do|did|has|have|can|could|would|"
                          r"should|shall)\b")
# The creator settles it: their own judgement, or what they wrote in comments. A judgement needs
# its owner named in the same sentence ("I", "my", "the creator"): Metaculus criteria leave
# edge cases to "the discretion of Metaculus admins", a platform's rule written out, not a person.
CREATOR = re.compile(r"\bI\b|(?i:\b(?:my|me|myself|the (?:market )?creator|the author)\b)")  # "I", not "i.e."
CREATOR_JUDGEMENT = re.compile(
    r"(?i)\bjudge?ments?\b|\bdiscretion\b|\bsubjective(?:ly)?\b|\b(?:my|their) (?:own |personal )*opinion\b|"
    r"\bspirit of the (?:question|market)\b|\bas I see fit\b")
IN_COMMENTS = re.compile(
    r"(?i)\bsee (?:(?:th(?:is|e|ese)|my|that|the linked) )?comments?\b|\b(?:in|from) the comments\b|"
    r"\bresol\w* (?:according to|based on|per|by|in) (?:the |my |a )?comments?\b|"
    r"\bclarif\w+ in (?:the |a )?comments?\b")
SHOWN_COMMENT = re.compile(r"(?i)\(AI summary of creator comment\)")  # pastcast shows these, not points to them
SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
ENGLISH = re.compile(r"(?i)\b(the|will|who|what|which|be|of|to|in)\b")


def _is_english(text: str) -> bool:
    return len(ENGLISH.findall(text)) >= 2 and text.isascii() or len(ENGLISH.findall(text)) >= 3


def _real_options(options) -> list[str]:
    return [o for o in (options or []) if o and normalise(o) not in PLACEHOLDERS]


def creator_comment(q: dict) -> str | None:
    """The sentence of a question's criteria or background that says its creator settles it (see
    the module doc), as ``"criteria: '...'"``; None when none does."""
    for name, text in (("criteria", q.get("resolution_criteria")), ("background", q.get("background"))):
        for m in SENTENCE.finditer(SHOWN_COMMENT.sub(" ", text or "")):
            sentence = " ".join(m.group(0).split())
            if IN_COMMENTS.search(sentence) or CREATOR_JUDGEMENT.search(sentence) and CREATOR.search(sentence):
                return f"{name}: {sentence[:200]!r}"
    return None


def question_flags(q: dict) -> list[tuple[str, str]]:
    """(flag, detail) of one question (see the module doc)."""
    title, criteria = q.get("title") or "", q.get("resolution_criteria") or ""
    answer, kind = q.get("answer") or "", q.get("answer_type") or ""
    binary = kind == "binary" or normalise(answer) in BINARY_ANSWERS
    english = _is_english(f"{title} {criteria}")
    flags = []
    if english and not SOURCE_CUES.search(criteria):
        flags.append(("no_source_of_truth", f"criteria: {criteria[:120]!r}"))
    if m := SEVERAL.search(criteria):
        flags.append(("several_answers_accepted", f"criteria: {m.group(0)[:120]!r}"))
    if english and not TIME.search(f"{title} {criteria}"):
        flags.append(("vague_time_frame", "no year, month, date or deadline in the title or criteria"))
    options = _real_options(q.get("candidate_outcomes"))
    if not binary and len(options) == 1:
        flags.append(("sole_candidate", f"one option: {options[0]!r}"))
    if options and not any(matches(o, answer, q.get("answer_aliases") or []) or o == answer for o in options):
        flags.append(("answer_not_an_option", f"answer {answer!r} not among {len(options)} options"))
    if binary and (m := WH_TITLE.match(title)):
        flags.append(("yes_no_mismatch", f"a yes/no answer to a {m.group(1).lower()!r} question"))
    elif not binary and not options and YES_NO_TITLE.match(title):
        flags.append(("yes_no_mismatch", f"answer {answer!r} ({kind or 'untyped'}) to a yes/no question"))
    if english and (said := creator_comment(q)):
        flags.append(("resolves_on_creator_comment", said))
    return flags


FLAGGED_COLUMNS = ("title", "resolution_criteria", "answer", "answer_type", "answer_aliases", "candidate_outcomes",
                   "background")


def quality_flags(questions: pl.DataFrame, memo: RowMemo | None = None) -> pl.DataFrame:
    """The ``question_quality`` table: one row per flag of each question. ``memo``: the flags
    of the build before, by the columns the rules read."""
    shown = questions.select("question_id", *FLAGGED_COLUMNS)
    row = row_reader(shown, memo)
    found = outcomes_of(memo, "quality", shown, FLAGGED_COLUMNS, lambda i: question_flags(row(i)))
    out = [{"question_id": qid, "flag": flag, "detail": detail}
           for qid, flags in zip(shown["question_id"].to_list(), found) for flag, detail in flags]
    return pl.DataFrame(out, schema=QUALITY) if out else pl.DataFrame(schema=QUALITY)


# read English cues: not judged in other languages
WORDING_FLAGS = ("no_source_of_truth", "vague_time_frame", "resolves_on_creator_comment")


def english_expr() -> pl.Expr:
    """``_is_english`` of a question's title and criteria, as an expression (the rule that decides
    whether the wording flags were looked for)."""
    text = pl.concat_str(pl.col("title").fill_null(""), pl.lit(" "), pl.col("resolution_criteria").fill_null(""))
    hits = text.str.count_matches(ENGLISH.pattern)
    return ((hits >= 2) & text.str.contains(r"^[\x00-\x7f]*$")) | (hits >= 3)


def quality_summary(questions: pl.DataFrame, flags: pl.DataFrame) -> dict:
    """Counts per flag and the share of questions with none (verifiable and unambiguous), over
    every kept question and, kinds apart, over those every rule examined (``by_kind``: the wording
    rules read English cues, so a question in another language is examined by the structure rules
    only and counted apart, never as clean)."""
    from pastcast.questions.leak_probes import KINDS, kind_expr

    flagged = set(flags.filter(pl.col("flag") != NO_VERDICT)["question_id"])
    n = questions.height
    present = [f for f in (*LLM_FLAGS, NO_VERDICT) if (flags["flag"] == f).any()]
    rows = questions.select("question_id", kind_expr().alias("kind"), english_expr().alias("english"))
    by_kind = {}
    for kind in KINDS:
        of_kind = rows.filter(pl.col("kind") == kind)
        examined = of_kind.filter(pl.col("english"))["question_id"].to_list()
        clean = sum(q not in flagged for q in examined)
        by_kind[kind] = {"questions": of_kind.height, "examined": len(examined), "unflagged": clean,
                         "unflagged_share": clean / len(examined) if examined else None,
                         "skipped": of_kind.height - len(examined),
                         "skipped_reasons": {"not_english": of_kind.height - len(examined)}
                         if of_kind.height > len(examined) else {}}
    return {"questions": n, "flagged": len(flagged),
            "unflagged_share": (n - len(flagged)) / n if n else None,
            "by_flag": {f: int((flags["flag"] == f).sum()) for f in (*FLAGS, *present)}, "by_kind": by_kind}


def render_quality(questions: pl.DataFrame, flags: pl.DataFrame, limit: int = 20) -> list[str]:
    """The audit report's quality section (Markdown lines)."""
    s = quality_summary(questions, flags)
    share = f"{s['unflagged_share']:.1%}" if s["unflagged_share"] is not None else "-"
    lines = ["## Question quality", "",
             f"{s['questions'] - s['flagged']:,} of {s['questions']:,} kept questions carry no flag: {share}. "
             "Rules: `pastcast.questions.quality`; the wording rules (no source of truth, vague time "
             "frame, resolves on the creator's comment) read English cues, the structure rules every language"
             + ("; with the LLM pass (`llm_*` flags)." if any(f.startswith("llm_") for f in s["by_flag"]) else
                "; no LLM pass (`questions filter --quality-llm`)."), "",
             "Verifiable and unambiguous, over the questions every rule examined, kinds apart (a question "
             "in another language than English is examined by the structure rules only, and counted "
             "apart, never as clean):", "",
             "| kind | kept | examined by every rule | no flag | share | not examined by the wording rules |",
             "|---|---:|---:|---:|---:|---:|"]
    for kind, k in s["by_kind"].items():
        if k["questions"]:
            kshare = f"**{k['unflagged_share']:.1%}**" if k["unflagged_share"] is not None else "-"
            lines.append(f"| {kind} | {k['questions']:,} | {k['examined']:,} | {k['unflagged']:,} | {kshare} | "
                         f"{k['skipped']:,} |")
    lines += ["", "| flag | questions |", "|---|---:|"]
    lines += [f"| {f} | {n:,} |" for f, n in s["by_flag"].items()]
    titles = dict(zip(questions["question_id"], questions["title"]))
    for f in s["by_flag"]:
        rows = flags.filter(pl.col("flag") == f)
        if rows.height:
            lines += ["", f"### {f} ({rows.height:,})", ""]
            for qid, detail in rows.select("question_id", "detail").head(limit).iter_rows():
                title = " ".join((titles.get(qid) or qid).split()).replace("|", "\\|")
                lines.append(f"- **{title}** (`{qid}`): {' '.join(detail.split())}")
            if rows.height > limit:
                lines.append(f"- and {rows.height - limit:,} more (the `question_quality` table)")
    return lines
