"""The audit report of a question filter run (Markdown): counts per stage and reason, and for
dropped, revised or merged questions the evidence (article ids, dates, matching spans, the other
question of a pair): every count, but at most ``SHOWN`` questions a list (a year of news drops
thousands for one reason; every drop and its evidence are in the drops and question_evidence
tables, which the lists point to)."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timezone

import polars as pl

import pastcast
from pastcast.questions.coverage import render_coverage
from pastcast.questions.quality import render_quality
from pastcast.questions.steps import Evidence, drop_records, evidence_records

MAX_SPAN = 300
SHOWN = 200  # questions listed per section; the rest are counted and found in the tables


def _cell(text) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def _span(text: str) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= MAX_SPAN else text[: MAX_SPAN - 1] + "…"


def _more(listed: int, total: int, where: str) -> list[str]:
    return [f"- … and {total - listed:,} more (all of them in the {where} table)"] if total > listed else []


def render_audit(run, title: str = "Question filter audit") -> str:
    drops, evidence = run.drop_table, run.evidence_table
    reasons = drops.group_by("stage", "reason").len().sort("stage", "reason")

    def of_action(action: str) -> tuple[int, list[Evidence]]:  # how many, and the first SHOWN as records
        rows = evidence.filter(pl.col("action") == action)
        return rows.height, evidence_records(rows.head(SHOWN))

    (n_revised, revised), (n_pairs, pairs), (n_merges, merges), (n_reopened, reopened) = (
        of_action(a) for a in ("revise", "pair", "merge", "reopen"))
    listed = {(stage, reason): drop_records(drops.filter((pl.col("stage") == stage) & (pl.col("reason") == reason))
                                            .head(SHOWN)) for stage, reason, _n in reasons.iter_rows()}
    # of the candidates, only the questions the lists name are read as rows
    named = {e.question_id for e in (*revised, *reopened)} | {d.item_id for ds in listed.values() for d in ds}
    by_id = {q["question_id"]: q for q in run.candidates.filter(pl.col("question_id").is_in(list(named))).select(
        "question_id", "title", "answer", "open_date", "resolution_date").iter_rows(named=True)}
    lines = [f"# {title}", "",
             f"Run {datetime.now(timezone.utc).isoformat(timespec='seconds')} UTC, pastcast {pastcast.__version__}. "
             f"{run.candidates.height:,} candidate questions in, {run.questions.height:,} kept.", "",
             f"- Early-report evidence (resolution-date revision) decided by: **{run.decided_by}**.",
             "- Difficulty filters: " + (", ".join(k for k in ("too_easy", "label_noise") if run.config.get("difficulty", {}).get(k))
                                         or "off") + ".", ""]
    lines += ["## Counts by stage", "", "| stage | in | out | dropped | revised |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {s['stage']} | {s['in']:,} | {s['out']:,} | {s['dropped']:,} | {s['revised']:,} |" for s in run.stages]
    if run.coverage:
        lines += ["", *render_coverage(run.coverage)]
        on_day = run.coverage.get("revision", {}).get("on_their_day", 0)
        if on_day:
            lines += ["", f"The revision step examined {on_day:,} yes/no questions about a state on a named day "
                          "(\"Will X still be CEO on 31 December?\" answered Yes) without a search: their answer is "
                          "known only on that day."]
    lines += ["", "## Drops by stage and reason", "", "| stage | reason | questions |", "|---|---|---:|"]
    lines += [f"| {stage} | {reason} | {n:,} |" for stage, reason, n in reasons.iter_rows()] or ["| - | - | 0 |"]

    def question_line(qid: str) -> str:
        q = by_id.get(qid) or {}
        return (f"**{_cell(q.get('title') or qid)}** — answer *{_cell(q.get('answer'))}*, open "
                f"{q.get('open_date')} to {q.get('resolution_date')} (`{qid}`)")

    def evidence_lines(items) -> list[str]:
        out = []
        for e in items:
            articles = ", ".join(f"`{a}` ({d})" for a, d in zip(e.article_ids, e.dates)) if e.article_ids else ""
            other = f" other question `{e.other_question_id}`" if e.other_question_id else ""
            out.append(f"  - {e.stage}/{e.action} {e.reason}{other}{': ' + articles if articles else ''}")
            out += [f"    > {_span(s)}" for s in e.spans]
            if e.detail:
                out.append(f"    {_cell(e.detail)}")
        return out

    lines += ["", f"## Revised resolution dates ({n_revised:,})", ""]
    for e in revised:
        lines += [f"- {question_line(e.question_id)}", *evidence_lines([e])]
    lines += _more(len(revised), n_revised, "question_evidence")
    lines += ["", f"## Later open dates ({n_reopened:,})", "",
              "A phrase of the question's text first reported after it opened (a temporal leak): it opens on "
              "that report's day instead.", ""]
    for e in reopened:
        lines += [f"- {question_line(e.question_id)}", *evidence_lines([e])]
    lines += _more(len(reopened), n_reopened, "question_evidence")
    lines += ["", f"## Cross-question pairs ({n_pairs:,})", "",
              "| answer of | appears in | text |", "|---|---|---|"]
    lines += [f"| `{e.question_id}` | `{e.other_question_id}` | {_cell(_span(' / '.join(e.spans)))} |" for e in pairs]
    if n_pairs > len(pairs):
        lines += ["", *_more(len(pairs), n_pairs, "question_evidence")]
    lines += ["", f"## Dropped questions ({drops.height:,})", ""]
    for stage, reason, n in reasons.iter_rows():
        lines += [f"### {stage} / {reason} ({n:,})", ""]
        shown = listed[(stage, reason)]
        behind = defaultdict(list)  # the listed questions' evidence of this stage
        for e in evidence_records(evidence.filter(
                pl.col("question_id").is_in([d.item_id for d in shown]) & (pl.col("stage") == stage)
                & (pl.col("action") != "pair"))):
            behind[e.question_id].append(e)
        for d in shown:
            lines.append(f"- {question_line(d.item_id)}: {_cell(d.detail)}")
            lines += evidence_lines(behind.get(d.item_id, []))
        lines += [*_more(len(shown), n, "drops"), ""]
    lines += [*render_quality(run.questions, run.quality_frame()), ""]
    if n_merges:
        lines += [f"## Merged duplicates ({n_merges:,})", ""]
        lines += [f"- `{e.question_id}` merged into `{e.other_question_id}`: {_cell(e.detail)}" for e in merges]
        lines += _more(len(merges), n_merges, "question_evidence")
    return "\n".join(lines).rstrip() + "\n"
