"""The report's charts, drawn with matplotlib into inline SVG (text kept as text, no external
file, the same bytes for the same runs)."""

from __future__ import annotations

import html
import io
from datetime import date

import matplotlib
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#7f7f7f", "#bcbd22")
WIDTH = 9.5  # inches at 100 dpi: the page's width
_STYLE = {"svg.fonttype": "none", "svg.hashsalt": "pastcast", "font.size": 10, "axes.spines.top": False,
          "axes.spines.right": False, "axes.grid": True, "grid.color": "#e5e5e5"}


def colour(i: int) -> str:
    return COLOURS[i % len(COLOURS)]


def _figure(height: float) -> Figure:
    return Figure(figsize=(WIDTH, height), dpi=100, layout="constrained")


def to_svg(fig: Figure, label: str) -> str:
    """The figure as an ``<svg>`` element (no XML prolog), labelled for screen readers."""
    out = io.StringIO()
    with matplotlib.rc_context(_STYLE):
        FigureCanvasSVG(fig).print_svg(out, metadata={"Date": None, "Creator": None})
    svg = out.getvalue()
    svg = svg[svg.index("<svg"):]
    return svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(label)}" ', 1)


def _styled(draw):
    """Run ``draw`` (which builds a figure) under the report's style."""
    def wrapper(*args, **kwargs):
        with matplotlib.rc_context(_STYLE):
            return draw(*args, **kwargs)
    return wrapper


@_styled
def leaderboard_chart(labels: list[str], means: list[float], lows: list[float], highs: list[float]) -> str:
    fig = _figure(0.45 * len(labels) + 1.2)
    ax = fig.add_subplot()
    ys = list(range(len(labels)))[::-1]
    for i, (y, m, lo, hi) in enumerate(zip(ys, means, lows, highs)):
        ax.errorbar([m], [y], xerr=[[m - lo], [hi - m]], fmt="o", color=colour(i), capsize=4)
    ax.set_yticks(ys, labels)
    ax.axvline(0, color="#888", linewidth=1)
    ax.set_xlabel("mean BSS over all questions, with its 95% interval")
    return to_svg(fig, "Leaderboard: mean BSS with 95% intervals")


@_styled
def over_time_chart(series: dict[str, list[tuple[date, float]]]) -> str:
    fig = _figure(3.4)
    ax = fig.add_subplot()
    for i, (label, points) in enumerate(series.items()):
        if points:
            ax.plot([d for d, _ in points], [s for _, s in points], color=colour(i), linewidth=1.4, label=label)
    ax.axhline(0, color="#888", linewidth=1)
    ax.set_xlabel("simulated day")
    ax.set_ylabel("mean BSS of the open questions")
    ax.legend(loc="best", fontsize=8, frameon=False)
    fig.autofmt_xdate()
    return to_svg(fig, "Mean BSS of the open questions over simulated time")


@_styled
def calibration_chart(curves: dict[str, list[dict]]) -> str:
    """Reliability curves (mean probability against how often it was the truth, a marker's
    area by its bin's count) above the counts of each bin."""
    fig = _figure(4.8)
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=(3, 1))
    top.plot([0, 1], [0, 1], color="#aaa", linestyle="--", linewidth=1, label="perfectly calibrated")
    width = 0.08 / max(len(curves), 1)  # each run's bar inside its bin of 0.1
    biggest = max((b["n"] for bins in curves.values() for b in bins), default=1) or 1
    for i, (label, bins) in enumerate(curves.items()):
        if not bins:
            continue
        top.plot([b["mean_p"] for b in bins], [b["hit_rate"] for b in bins], color=colour(i), linewidth=1.2,
                 marker=None, label=label)
        top.scatter([b["mean_p"] for b in bins], [b["hit_rate"] for b in bins], color=colour(i),
                    s=[20 + 180 * b["n"] / biggest for b in bins], alpha=0.7)
        bottom.bar([b["bin_lo"] + 0.01 + (i + 0.5) * width for b in bins], [b["n"] for b in bins],
                   width=width, color=colour(i))
    top.set_ylabel("observed frequency")
    top.set_xlim(0, 1)
    top.set_ylim(0, 1)
    top.legend(loc="upper left", fontsize=8, frameon=False)
    bottom.set_xlabel("forecast probability (bins of 0.1)")
    bottom.set_ylabel("outcomes in bin")
    return to_svg(fig, "Calibration: observed frequency against forecast probability, with bin counts")


@_styled
def group_chart(groups: list[str], series: dict[str, dict[str, tuple[float, float, float]]], what: str) -> str:
    """Mean BSS per group for each run (bars, groups down the page) with 95% intervals."""
    fig = _figure(min(0.16 * len(groups) * max(len(series), 1) + 1.3, 14))
    ax = fig.add_subplot()
    band = 0.8 / max(len(series), 1)
    ys = list(range(len(groups)))[::-1]
    for i, (label, values) in enumerate(series.items()):
        rows = [(y + 0.4 - (i + 0.5) * band, *values[g]) for y, g in zip(ys, groups) if g in values]  # first run on top
        if not rows:
            continue
        ax.barh([r[0] for r in rows], [r[1] for r in rows], height=band * 0.9, color=colour(i), label=label,
                xerr=[[r[1] - r[2] for r in rows], [r[3] - r[1] for r in rows]], error_kw={"capsize": 2, "lw": 0.8})
    ax.set_yticks(ys, groups)
    ax.axvline(0, color="#888", linewidth=1)
    ax.set_xlabel(f"mean BSS by {what}, with its 95% interval")
    ax.legend(loc="best", fontsize=8, frameon=False)
    return to_svg(fig, f"Mean BSS by {what}")


@_styled
def effort_chart(points: list[tuple[str, float, float]], x_label: str) -> str:
    """One point per run: its effort (wakes, or cost) against its mean BSS."""
    fig = _figure(3.0)
    ax = fig.add_subplot()
    for i, (label, x, y) in enumerate(points):
        ax.scatter([x], [y], color=colour(i), s=40, label=label)
    ax.set_xlabel(x_label)
    ax.set_ylabel("mean BSS")
    ax.legend(loc="best", fontsize=8, frameon=False)
    return to_svg(fig, f"Mean BSS against {x_label}")
