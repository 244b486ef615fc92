"""Compare runs: one row per run directory, best mean BSS first."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterable
from pathlib import Path

import polars as pl
from rich.console import Console
from rich.table import Table

from pastcast.evaluate.runner import summarise

COLUMNS = {
    "agent": pl.String,
    "snapshot": pl.String,
    "questions": pl.Int64,
    "forecast": pl.Int64,
    "mean_bss": pl.Float64,
    "accuracy": pl.Float64,
    "time_weighted_bss": pl.Float64,
    "market_questions": pl.Int64,
    "market_bss": pl.Float64,  # the agent's mean BSS on questions with a market ...
    "crowd_bss": pl.Float64,  # ... and the market consensus's on the same questions
    "run": pl.String,
}



def signed(value: float, places: int = 3) -> str:
    """A score with its sign, a zero never printed as "-0.000"."""
    rounded = round(value, places)
    return f"{(rounded if rounded != 0 else 0.0):+.{places}f}"

def leaderboard(run_dirs: Iterable[str | os.PathLike]) -> pl.DataFrame:
    """Read each run's run.json and scores.parquet; recompute the summary from the scores.

    Summaries come from scores.parquet rather than run.json's cached copy so a leaderboard
    always reflects the per-question table it would be audited against.
    """
    rows = []
    for d in map(Path, run_dirs):
        run = json.loads((d / "run.json").read_text())
        snap = run.get("snapshot") or {}
        summary = summarise(pl.read_parquet(d / "scores.parquet"))
        crowd = summary.pop("crowd", None) or {}
        rows.append({
            "agent": run.get("agent"),
            "snapshot": f"{snap.get('name')}@{snap.get('version')}",
            **summary,
            "market_bss": crowd.get("agent_mean_bss"),
            "crowd_bss": crowd.get("crowd_mean_bss"),
            "run": str(d),
        })
    df = pl.DataFrame(rows, schema=COLUMNS) if rows else pl.DataFrame(schema=COLUMNS)
    return df.select(list(COLUMNS)).sort(["mean_bss", "agent"], descending=[True, False])


def render_leaderboard(df: pl.DataFrame, width: int = 132) -> str:
    """The leaderboard as a text table (rich), ready to print."""
    with_markets = bool(df.height) and int(df["market_questions"].max() or 0) > 0
    caption = ("mean BSS and accuracy over all questions; a question without a forecast counts as "
               "an abstention (0)")
    if with_markets:
        caption += ("; market Q: the questions with a market price on a day they were open (one from a "
                    "market or data series without prices is not counted); on them, the agent's mean BSS "
                    "beside the market consensus's (the crowd's) on the same days")
    table = Table(title="pastcast leaderboard", caption=caption)
    table.add_column("#", justify="right")
    headers = {"agent": "agent", "snapshot": "snapshot", "questions": "questions",
               "forecast": "forecast", "mean_bss": "mean BSS", "accuracy": "top-1 acc",
               "time_weighted_bss": "time-wtd BSS"}
    if with_markets:
        headers |= {"market_questions": "market Q", "market_bss": "BSS on them", "crowd_bss": "crowd BSS"}
    for col, header in headers.items():
        table.add_column(header, justify="left" if col in ("agent", "snapshot") else "right")
    for i, r in enumerate(df.iter_rows(named=True), 1):
        cells = [str(i), r["agent"], r["snapshot"], str(r["questions"]), str(r["forecast"]),
                 signed(r["mean_bss"]), f"{r['accuracy']:.3f}", signed(r["time_weighted_bss"])]
        if with_markets:
            cells += [str(r["market_questions"])] + (
                [signed(r["market_bss"]), signed(r["crowd_bss"])] if r["market_questions"] else ["-", "-"])
        table.add_row(*cells)
    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False)
    console.print(table)
    return console.file.getvalue()
