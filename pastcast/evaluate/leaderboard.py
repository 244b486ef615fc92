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
    "run": pl.String,
}


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
        rows.append({
            "agent": run.get("agent"),
            "snapshot": f"{snap.get('name')}@{snap.get('version')}",
            **summary,
            "run": str(d),
        })
    df = pl.DataFrame(rows, schema=COLUMNS) if rows else pl.DataFrame(schema=COLUMNS)
    return df.select(list(COLUMNS)).sort(["mean_bss", "agent"], descending=[True, False])


def render_leaderboard(df: pl.DataFrame, width: int = 100) -> str:
    """The leaderboard as a text table (rich), ready to print."""
    table = Table(title="pastcast leaderboard", caption="mean BSS and accuracy over all questions; "
                  "a question without a forecast counts as an abstention (0)")
    table.add_column("#", justify="right")
    headers = {"agent": "agent", "snapshot": "snapshot", "questions": "questions",
               "forecast": "forecast", "mean_bss": "mean BSS", "accuracy": "top-1 acc",
               "time_weighted_bss": "time-wtd BSS"}
    for col, header in headers.items():
        table.add_column(header, justify="left" if col in ("agent", "snapshot") else "right")
    for i, r in enumerate(df.iter_rows(named=True), 1):
        table.add_row(
            str(i), r["agent"], r["snapshot"], str(r["questions"]), str(r["forecast"]),
            f"{r['mean_bss']:+.3f}", f"{r['accuracy']:.3f}", f"{r['time_weighted_bss']:+.3f}",
        )
    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False)
    console.print(table)
    return console.file.getvalue()
