"""A static HTML report across runs: the leaderboard, score over simulated time per agent,
calibration curves, score by category, wakes against score. One self-contained file with
inline SVG charts: it opens from disk, no server and no script needed."""

from __future__ import annotations

import html
import json
import os
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timezone
from pathlib import Path

import polars as pl

import pastcast
from pastcast.evaluate.leaderboard import leaderboard, signed
from pastcast.evaluate.runner import daily_metrics, read_ledger
from pastcast.store import read_table

W, H, PAD = 560, 260, 44
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")


def _esc(text) -> str:
    return html.escape(str(text))


def _axes(x_label: str, y_label: str, y_lo: float, y_hi: float) -> list[str]:
    parts = [f'<line x1="{PAD}" y1="{H - PAD}" x2="{W - 10}" y2="{H - PAD}" stroke="#444"/>',
             f'<line x1="{PAD}" y1="10" x2="{PAD}" y2="{H - PAD}" stroke="#444"/>',
             f'<text x="{(W + PAD) / 2}" y="{H - 8}" text-anchor="middle" font-size="12">{_esc(x_label)}</text>',
             f'<text x="12" y="{H / 2}" transform="rotate(-90 12 {H / 2})" text-anchor="middle" font-size="12">'
             f'{_esc(y_label)}</text>']
    for frac in (0.0, 0.5, 1.0):
        value = y_lo + frac * (y_hi - y_lo)
        y = _sy(value, y_lo, y_hi)
        parts.append(f'<text x="{PAD - 4}" y="{y + 4}" text-anchor="end" font-size="10">{value:+.2f}</text>')
        parts.append(f'<line x1="{PAD}" y1="{y}" x2="{W - 10}" y2="{y}" stroke="#ddd"/>')
    return parts


def _sx(x: float, lo: float, hi: float) -> float:
    return PAD + (x - lo) / ((hi - lo) or 1) * (W - 10 - PAD)


def _sy(y: float, lo: float, hi: float) -> float:
    return H - PAD - (y - lo) / ((hi - lo) or 1) * (H - PAD - 10)


def _svg(parts: Iterable[str], legend: Sequence[str] = ()) -> str:
    keys = "".join(f'<tspan fill="{COLOURS[i % len(COLOURS)]}">■ {_esc(n)}</tspan>  ' for i, n in enumerate(legend))
    body = "".join(parts) + (f'<text x="{PAD}" y="22" font-size="11">{keys}</text>' if legend else "")
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}">{body}</svg>'


def line_chart(series: dict[str, list[tuple[float, float]]], x_label: str, y_label: str,
               y_range: tuple[float, float] | None = None, diagonal: bool = False) -> str:
    points = [p for s in series.values() for p in s]
    if not points:
        return "<p>(no data)</p>"
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    x_lo, x_hi = min(xs), max(xs)
    y_lo, y_hi = y_range or (min(0.0, min(ys)), max(0.0, max(ys)) or 1.0)
    parts = _axes(x_label, y_label, y_lo, y_hi)
    if diagonal:
        parts.append(f'<line x1="{_sx(x_lo, x_lo, x_hi)}" y1="{_sy(y_lo, y_lo, y_hi)}" x2="{_sx(x_hi, x_lo, x_hi)}" '
                     f'y2="{_sy(y_hi, y_lo, y_hi)}" stroke="#aaa" stroke-dasharray="4"/>')
    for i, pts in enumerate(series.values()):
        colour = COLOURS[i % len(COLOURS)]
        path = " ".join(f"{_sx(x, x_lo, x_hi):.1f},{_sy(y, y_lo, y_hi):.1f}" for x, y in pts)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>')
        parts += [f'<circle cx="{_sx(x, x_lo, x_hi):.1f}" cy="{_sy(y, y_lo, y_hi):.1f}" r="2.5" fill="{colour}"/>'
                  for x, y in pts]
    return _svg(parts, list(series))


def bar_chart(groups: list[str], series: dict[str, dict[str, float]], y_label: str) -> str:
    values = [v for s in series.values() for v in s.values()]
    if not groups or not values:
        return "<p>(no data)</p>"
    y_lo, y_hi = min(0.0, min(values)), max(0.0, max(values)) or 1.0
    parts = _axes("", y_label, y_lo, y_hi)
    slot = (W - 10 - PAD) / len(groups)
    bar = slot * 0.8 / max(len(series), 1)
    for g, group in enumerate(groups):
        x0 = PAD + g * slot + slot * 0.1
        parts.append(f'<text x="{x0 + slot * 0.4}" y="{H - PAD + 14}" text-anchor="middle" font-size="10">{_esc(group)}</text>')
        for i, values_of in enumerate(series.values()):
            v = values_of.get(group, 0.0)
            top, zero = _sy(max(v, 0.0), y_lo, y_hi), _sy(min(v, 0.0), y_lo, y_hi)
            parts.append(f'<rect x="{x0 + i * bar:.1f}" y="{top:.1f}" width="{bar * 0.9:.1f}" height="{max(zero - top, 0.5):.1f}" '
                         f'fill="{COLOURS[i % len(COLOURS)]}"><title>{_esc(group)}: {signed(v)}</title></rect>')
    return _svg(parts, list(series))


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


def render_report(run_dirs: Sequence[str | os.PathLike], title: str = "pastcast evaluation report") -> str:
    dirs = [Path(d) for d in run_dirs]
    board = leaderboard(dirs)
    runs = {str(d): json.loads((d / "run.json").read_text()) for d in dirs}
    label = {str(d): f"{runs[str(d)]['agent']} ({d.name})" for d in dirs}

    rows = "".join(
        "<tr>" + "".join(f"<td>{_esc(v)}</td>" for v in (
            i, r["agent"], r["snapshot"], r["questions"], r["forecast"], signed(r["mean_bss"]),
            f"{r['accuracy']:.3f}", signed(r["time_weighted_bss"]),
            signed(r["crowd_bss"]) if r["crowd_bss"] is not None else "-",
            runs[r["run"]].get("wakes", "-"), runs[r["run"]].get("policy", "daily"))) + "</tr>"
        for i, r in enumerate(board.iter_rows(named=True), 1))
    over_time = {label[str(d)]: [((day - date(1970, 1, 1)).days, s) for day, s in daily_scores(d)] for d in dirs}
    first = min((p[0] for s in over_time.values() for p in s), default=0)
    over_time = {k: [(x - first, y) for x, y in v] for k, v in over_time.items()}
    calibration = {label[k]: [(b["mean_p"], b["hit_rate"]) for b in (r["summary"].get("metrics") or {}).get("calibration", [])]
                   for k, r in runs.items()}
    categories = sorted({c["category"] for r in runs.values()
                         for c in (r["summary"].get("metrics") or {}).get("by_category", []) if c["category"]})
    by_category = {label[k]: {c["category"]: c["mean_bss"] for c in (r["summary"].get("metrics") or {}).get("by_category", [])}
                   for k, r in runs.items()}
    wakes = {label[k]: [(float(r.get("wakes", r.get("days", 0))), r["summary"]["mean_bss"])] for k, r in runs.items()}
    # an agent with no forecast has no calibration to report (its ECE of 0 would read as perfect)
    ece = ", ".join(f"{label[k]} {r['summary'].get('metrics', {}).get('ece', float('nan')):.3f}"
                    if r["summary"].get("forecast") else f"{label[k]} no forecast" for k, r in runs.items())
    stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{_esc(title)}</title>
<style>body{{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:4px 8px;text-align:right}}td:nth-child(2),td:nth-child(3){{text-align:left}}
h2{{margin-top:1.6em}}.note{{color:#555;font-size:0.9em}}</style></head><body>
<h1>{_esc(title)}</h1>
<p class="note">{len(dirs)} runs; written {stamp} UTC by pastcast {pastcast.__version__}. Means are over all questions;
a question without a forecast counts as an abstention (0). Crowd BSS: the market consensus on the questions with a market.</p>
<h2>Leaderboard</h2>
<table><tr><th>#</th><th>agent</th><th>snapshot</th><th>questions</th><th>forecast</th><th>mean BSS</th>
<th>top-1 acc</th><th>time-wtd BSS</th><th>crowd BSS</th><th>wakes</th><th>policy</th></tr>{rows}</table>
<h2>Score over simulated time</h2>
<p class="note">Each day: the mean BSS of the forecasts standing that day over the questions open then (days from the first).</p>
{line_chart(over_time, "simulated day", "mean BSS of open questions")}
<h2>Calibration</h2>
<p class="note">Every submitted outcome of the final forecasts, binned by probability: mean probability against how often it was the truth. ECE: {_esc(ece)}.</p>
{line_chart(calibration, "mean forecast probability", "observed frequency", (0.0, 1.0), diagonal=True)}
<h2>Score by category</h2>
{bar_chart(categories, by_category, "mean BSS")}
<h2>Wakes and score</h2>
<p class="note">Each point a run: how often the agent woke against its mean BSS.</p>
{line_chart(wakes, "wakes", "mean BSS")}
</body></html>
"""
