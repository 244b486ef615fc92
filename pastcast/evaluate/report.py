"""A static HTML report across runs, one self-contained file that opens from disk: the
leaderboard with 95% intervals, score over simulated time, calibration with bin counts, score
by category and by source, wakes and cost against score (when the runs differ in them), and a
sortable table of every question with each run's final forecast and the truth. Charts are
matplotlib's SVG, inline; the table sorts with a few lines of inline script and reads without it."""

from __future__ import annotations

import html
import json
import os
from collections.abc import Sequence
from datetime import date, datetime, timezone
from pathlib import Path

import polars as pl

import pastcast
from pastcast.evaluate.leaderboard import leaderboard, signed
from pastcast.evaluate.report_data import LEVEL, by_group, question_table, read_runs, with_interval
from pastcast.evaluate.runner import daily_metrics, read_ledger
from pastcast.store import read_table

STYLE = """body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1000px;padding:0 1em;color:#222}
table{border-collapse:collapse;font-size:0.9em}td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}
#questions td{white-space:nowrap}#questions td.q{white-space:normal;min-width:24em}
th{background:#f4f4f4}td.t,th.t{text-align:left}h2{margin-top:1.8em}.note{color:#555;font-size:0.9em;max-width:60em}
dl.cols dt{font-weight:600;float:left;clear:left;width:11em}dl.cols dd{margin-left:12em;color:#444}
#questions thead tr:last-child th{cursor:pointer;position:sticky;top:0}
#questions th[aria-sort]::after{content:" \\2195";color:#999}
.scroll{max-height:40em;overflow:auto;border:1px solid #ddd}svg{max-width:100%;height:auto}"""

# Sorting the per-question table by a header click: numbers by value (data-v), text by
# collation; the table reads without it.
SORT_SCRIPT = """document.querySelectorAll("table.sortable").forEach(function (table) {
  var heads = table.tHead.rows[table.tHead.rows.length - 1].cells;  // the row naming each column
  Array.prototype.forEach.call(heads, function (th, col) {
    th.setAttribute("aria-sort", "none");
    th.addEventListener("click", function () {
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var up = th.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(heads, function (h) { h.setAttribute("aria-sort", "none"); });
      th.setAttribute("aria-sort", up ? "ascending" : "descending");
      var key = function (row) {
        var cell = row.cells[col], v = cell.getAttribute("data-v");
        return v === null ? cell.textContent : (v === "" ? NaN : parseFloat(v));
      };
      rows.sort(function (a, b) {
        var x = key(a), y = key(b), order;
        if (typeof x === "number" || typeof y === "number") {
          order = isNaN(x) ? (isNaN(y) ? 0 : 1) : (isNaN(y) ? -1 : x - y);
          if (isNaN(x) || isNaN(y)) { return order; }
        } else { order = String(x).localeCompare(String(y)); }
        return up ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});"""


def _esc(text) -> str:
    return html.escape("" if text is None else str(text))


def daily_scores(run_dir: Path) -> list[tuple[date, float]]:
    """Per simulated day with open questions, the mean BSS of the forecasts standing on that
    day (an unforecast open question counts 0): the run's ``daily.parquet``, or computed from
    its ledger for runs written before it existed."""
    path = run_dir / "daily.parquet"
    if path.is_file():
        daily = pl.read_parquet(path)
    else:
        run = json.loads((run_dir / "run.json").read_text())
        questions = read_table(Path(run["snapshot"]["path"]), "questions")
        ledger = read_ledger(run_dir)
        start, end = (date.fromisoformat(run["window"][k]) for k in ("start", "end"))
        daily = daily_metrics(questions, ledger, start, end)
    return [(d, s) for d, s in daily.select("date", "mean_bss").iter_rows() if s is not None]


def _num(value, places: int = 3) -> str:
    """A table cell holding a number: sorted by its value, shown signed."""
    if value is None:
        return '<td data-v="">-</td>'
    return f'<td data-v="{value:.6g}">{signed(value, places)}</td>'


def _leaderboard_table(board: pl.DataFrame, runs: dict) -> str:
    head = ("<tr><th>#</th><th class=t>agent</th><th class=t>snapshot</th><th>questions</th><th>forecast</th>"
            "<th>mean BSS</th><th>95% interval</th><th>top-1 acc</th><th>time-wtd BSS</th><th>market Q</th>"
            "<th>crowd BSS</th><th>wakes</th><th class=t>policy</th></tr>")
    rows = []
    for i, r in enumerate(board.iter_rows(named=True), 1):
        run = runs[r["run"]]
        rows.append(
            f"<tr><td>{i}</td><td class=t>{_esc(run.label)}</td><td class=t>{_esc(r['snapshot'])}</td>"
            f"<td>{r['questions']:,}</td><td>{r['forecast']:,}</td><td><b>{signed(r['mean_bss'])}</b></td>"
            f"<td>{signed(r['low'])} to {signed(r['high'])}</td><td>{r['accuracy']:.3f}</td>"
            f"<td>{signed(r['time_weighted_bss'])}</td><td>{r['market_questions']:,}</td>"
            f"<td>{signed(r['crowd_bss']) if r['crowd_bss'] is not None else '-'}</td>"
            f"<td>{_esc(run.wakes if run.wakes is not None else '-')}</td>"
            f"<td class=t>{_esc(run.info.get('policy', 'daily'))}</td></tr>")
    return f"<table><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"


LEADERBOARD_COLUMNS = (
    ("questions", "questions the run was scored on (every question of the snapshot in its window)"),
    ("forecast", "questions the agent forecast at least once; the others count as abstentions (BSS 0)"),
    ("mean BSS", "Brier skill score averaged over all questions: 1 - the Brier score of the final forecast "
                 "(0 is an abstention, higher is better)"),
    ("95% interval", "where the mean BSS would fall on 95% of resamples of the questions (bootstrap): runs "
                     "whose intervals overlap may not differ"),
    ("top-1 acc", "share of questions whose most likely outcome in the final forecast was the truth"),
    ("time-wtd BSS", "BSS of the forecast standing on each day a question was open, averaged over those days"),
    ("market Q", "questions with a market price on a day they were open (a market-sourced question without "
                 "prices is not one)"),
    ("crowd BSS", "the market consensus's BSS on those questions, beside the agent's"),
    ("wakes", "days the agent was woken to act"),
)


def _dl(items) -> str:
    return "<dl class=cols>" + "".join(f"<dt>{_esc(k)}</dt><dd>{_esc(v)}</dd>" for k, v in items) + "</dl>"


def _calibration_table(curves: dict[str, list[dict]]) -> str:
    bins = sorted({(b["bin_lo"], b["bin_hi"]) for v in curves.values() for b in v})
    if not bins:
        return ""
    head = "<tr><th class=t>run</th>" + "".join(f"<th>{lo:.1f}-{hi:.1f}</th>" for lo, hi in bins) + "</tr>"
    rows = []
    for label, values in curves.items():
        found = {(b["bin_lo"], b["bin_hi"]): b for b in values}
        cells = "".join(f"<td>{found[k]['n']:,}<br><small>{found[k]['hit_rate']:.2f}</small></td>" if k in found
                        else "<td>-</td>" for k in bins)
        rows.append(f"<tr><td class=t>{_esc(label)}</td>{cells}</tr>")
    return (f"<table><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"
            "<p class=note>Each cell: outcomes whose forecast probability fell in the bin, and below it how "
            "often they were the truth.</p>")


def _question_rows(rows: list[dict], labels: list[str]) -> str:
    head = ("<tr><th colspan=5></th>" + "".join(f"<th colspan=2 class=t>{_esc(label)}</th>" for label in labels)
            + "</tr><tr><th class=t>question</th><th class=t>category</th><th class=t>source</th>"
            "<th class=t>resolves</th><th class=t>truth</th>"
            + "<th class=t>final forecast</th><th>BSS</th>" * len(labels) + "</tr>")
    body = []
    for q in rows:
        cells = [f'<td class="t q" title="{_esc(q["question_id"])}">{_esc(q.get("title") or q["question_id"])}</td>',
                 f"<td class=t>{_esc(q['category'])}</td>", f"<td class=t>{_esc(q['source_kind'])}</td>",
                 f"<td class=t>{_esc(q['resolution_date'])}</td>", f"<td class=t>{_esc(q.get('answer'))}</td>"]
        for cell in q["runs"]:
            shown = "-" if cell["top"] is None else f"{_esc(cell['top'])} {cell['p']:.2f}"
            cells += [f"<td class=t>{shown}</td>", _num(cell["bss"])]
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<div class=scroll><table id=questions class=sortable><thead>{head}</thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


def render_report(run_dirs: Sequence[str | os.PathLike], title: str = "pastcast evaluation report") -> str:
    from pastcast.evaluate import report_charts as charts

    runs = read_runs(run_dirs)
    by_folder = {str(r.folder): r for r in runs}
    board = leaderboard([r.folder for r in runs])
    intervals = pl.DataFrame([{"run": str(r.folder), **with_interval(r)} for r in runs],
                             schema={"run": pl.String, "low": pl.Float64, "high": pl.Float64})
    board = board.join(intervals, on="run", how="left", maintain_order="left")
    ordered = [by_folder[r] for r in board["run"].to_list()]
    labels = [r.label for r in ordered]
    lead_chart = charts.leaderboard_chart(labels, board["mean_bss"].to_list(), board["low"].to_list(),
                                          board["high"].to_list())
    over_time = charts.over_time_chart({r.label: daily_scores(r.folder) for r in ordered})
    metrics = {r.label: (r.info.get("summary") or {}).get("metrics") or {} for r in ordered}
    curves = {r.label: metrics[r.label].get("calibration", []) for r in ordered if r.info["summary"].get("forecast")}
    ece = ", ".join(f"{r.label} {metrics[r.label].get('ece', float('nan')):.3f}" if r.info["summary"].get("forecast")
                    else f"{r.label} no forecast" for r in ordered)
    sections = []
    for column, what in (("category", "category"), ("source_kind", "source")):
        tables = {r.label: by_group(r, column) for r in ordered}
        groups = sorted({g for t in tables.values() for g in t["group"].to_list()})
        series = {label: {g: (m, lo, hi) for g, _n, m, lo, hi in t.iter_rows()} for label, t in tables.items()}
        counts = {g: n for t in tables.values() for g, n in t.select("group", "n").iter_rows()}
        note = ", ".join(f"{g} {counts[g]:,}" for g in groups)
        sections.append(f"<h2>Score by {what}</h2><p class=note>Questions in each {what}: {_esc(note)}. "
                        f"A {what} of few questions has a wide interval.</p>{charts.group_chart(groups, series, what)}")
    efforts = []
    wakes = {r.wakes for r in ordered}
    if len(wakes) > 1 and None not in wakes:
        efforts.append(charts.effort_chart([(r.label, float(r.wakes), r.info["summary"]["mean_bss"]) for r in ordered],
                                           "wakes (days the agent acted)"))
    costs = {r.cost_usd for r in ordered}
    if len(costs) > 1:
        efforts.append(charts.effort_chart([(r.label, r.cost_usd or 0.0, r.info["summary"]["mean_bss"]) for r in ordered],
                                           "LLM cost of the run (USD; no LLM: 0)"))
    effort = ("<h2>Effort and score</h2><p class=note>Each point a run: how often it woke, or what its LLM "
              "calls cost, against its mean BSS.</p>" + "".join(efforts)) if efforts else (
        "<p class=note>Every run woke as often and cost the same: no chart of effort against score.</p>")
    question_rows, _ = question_table(ordered)
    stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_esc(title)}</title><style>{STYLE}</style></head><body>
<h1>{_esc(title)}</h1>
<p class=note>{len(runs)} runs over {len(question_rows):,} questions; written {stamp} UTC by pastcast {pastcast.__version__}.
Scores are Brier skill scores (BSS) of each question's final forecast; a question without a forecast counts as an abstention (0).
Intervals are {LEVEL:.0%} bootstrap intervals over the questions.</p>
<h2>Leaderboard</h2>
{_leaderboard_table(board, by_folder)}
{lead_chart}
{_dl(LEADERBOARD_COLUMNS)}
<h2>Score over simulated time</h2>
<p class=note>Each day: the mean BSS of the forecasts standing that day over the questions open then.</p>
{over_time}
<h2>Calibration</h2>
<p class=note>Every outcome of the final forecasts, binned by its probability: the mean probability against how often
it was the truth (a marker's size: the outcomes in its bin), and below, the bin counts. ECE (expected calibration
error, lower is better): {_esc(ece)}.</p>
{charts.calibration_chart(curves) if curves else "<p>(no forecasts)</p>"}
{_calibration_table(curves)}
{"".join(sections)}
{effort}
<h2>Questions</h2>
<p class=note>One row per question (click a header to sort): the truth, and for each run its final forecast's most likely
outcome with its probability and the question's BSS ("-": no forecast).</p>
{_question_rows(question_rows, labels)}
<script>{SORT_SCRIPT}</script>
</body></html>
"""
