"""The audit report of a question filter run (Markdown): counts per stage and reason, and for
dropped, revised or merged questions the evidence (article ids, dates, matching spans, the other
question of a pair): every count, but at most ``SHOWN`` questions a list (a year of news drops
thousands for one reason; every drop and its evidence are in the drops and question_evidence
tables, which the lists point to)."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime, timezone

import pastcast
from pastcast.questions.quality import render_quality

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
    shown = run.candidates.select("question_id", "title", "answer", "open_date", "resolution_date")
    by_id = {q["question_id"]: q for q in shown.iter_rows(named=True)}
    lines = [f"# {title}", "",
             f"Run {datetime.now(timezone.utc).isoformat(timespec='seconds')} UTC, pastcast {pastcast.__version__}. "
             f"{run.candidates.height:,} candidate questions in, {run.questions.height:,} kept.", "",
             f"- Early-report evidence (resolution-date revision) decided by: **{run.decided_by}**.",
             "- Difficulty filters: " + (", ".join(k for k in ("too_easy", "label_noise") if run.config.get("difficulty", {}).get(k))
                                         or "off") + ".", ""]
    lines += ["## Counts by stage", "", "| stage | in | out | dropped | revised |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {s['stage']} | {s['in']:,} | {s['out']:,} | {s['dropped']:,} | {s['revised']:,} |" for s in run.stages]
    reasons = Counter((d.stage, d.reason) for d in run.drops)
    lines += ["", "## Drops by stage and reason", "", "| stage | reason | questions |", "|---|---|---:|"]
    lines += [f"| {stage} | {reason} | {n:,} |" for (stage, reason), n in sorted(reasons.items())] or ["| - | - | 0 |"]

    evidence = defaultdict(list)
    for e in run.evidence:
        evidence[e.question_id].append(e)

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

    revised = [e for e in run.evidence if e.action == "revise"]
    lines += ["", f"## Revised resolution dates ({len(revised):,})", ""]
    for e in revised[:SHOWN]:
        lines += [f"- {question_line(e.question_id)}", *evidence_lines([e])]
    lines += _more(min(len(revised), SHOWN), len(revised), "question_evidence")
    pairs = [e for e in run.evidence if e.action == "pair"]
    lines += ["", f"## Cross-question pairs ({len(pairs):,})", "",
              "| answer of | appears in | text |", "|---|---|---|"]
    lines += [f"| `{e.question_id}` | `{e.other_question_id}` | {_cell(_span(' / '.join(e.spans)))} |"
              for e in pairs[:SHOWN]]
    if len(pairs) > SHOWN:
        lines += ["", *_more(SHOWN, len(pairs), "question_evidence")]
    lines += ["", f"## Dropped questions ({len(run.drops):,})", ""]
    by_reason = defaultdict(list)
    for d in run.drops:
        by_reason[(d.stage, d.reason)].append(d)
    for (stage, reason), drops in sorted(by_reason.items()):
        lines += [f"### {stage} / {reason} ({len(drops):,})", ""]
        for d in drops[:SHOWN]:
            lines.append(f"- {question_line(d.item_id)}: {_cell(d.detail)}")
            lines += evidence_lines(e for e in evidence.get(d.item_id, []) if e.stage == stage and e.action != "pair")
        lines += [*_more(min(len(drops), SHOWN), len(drops), "drops"), ""]
    lines += [*render_quality(run.questions, run.quality_frame()), ""]
    merges = [e for e in run.evidence if e.action == "merge"]
    if merges:
        lines += [f"## Merged duplicates ({len(merges):,})", ""]
        lines += [f"- `{e.question_id}` merged into `{e.other_question_id}`: {_cell(e.detail)}"
                  for e in merges[:SHOWN]]
        lines += _more(min(len(merges), SHOWN), len(merges), "question_evidence")
    return "\n".join(lines).rstrip() + "\n"
