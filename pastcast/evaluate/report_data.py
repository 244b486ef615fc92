"""What the HTML report shows, as tables: each run's leaderboard row with a 95% interval, its
scores by category and by source, its final forecasts, and one row per question across runs."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from pastcast.store import read_table

LEVEL = 0.95  # the intervals' coverage
RESAMPLES = 2000  # bootstrap resamples of the questions (seeded: a report is reproducible)
SEED = 20261203


@dataclass(frozen=True)
class Run:
    folder: Path
    info: dict  # run.json
    scores: pl.DataFrame  # scores.parquet: one row per question
    label: str  # "agent (folder name)", unique among the report's runs

    @property
    def wakes(self) -> int | None:
        return self.info.get("wakes", self.info.get("days"))

    @property
    def cost_usd(self) -> float | None:
        return (self.info.get("llm") or {}).get("cost_usd")


def read_runs(folders) -> list[Run]:
    runs, labels = [], set()
    for folder in map(Path, folders):
        info = json.loads((folder / "run.json").read_text())
        label = base = f"{info.get('agent')} ({folder.name})"
        n = 1
        while label in labels:  # two folders of one name under different parents
            n += 1
            label = f"{base} #{n}"
        labels.add(label)
        runs.append(Run(folder, info, pl.read_parquet(folder / "scores.parquet"), label))
    return runs


def mean_interval(values: np.ndarray, level: float = LEVEL, resamples: int = RESAMPLES,
                  seed: int = SEED) -> tuple[float, float]:
    """A percentile bootstrap interval of the mean of ``values`` (questions resampled with
    replacement): no normality assumed, and bounded scores such as the BSS stay in range."""
    if len(values) == 0:
        return (0.0, 0.0)
    if len(values) == 1:
        return (float(values[0]), float(values[0]))
    rng = np.random.default_rng(seed)
    batch = max(1, min(resamples, 5_000_000 // len(values)))  # resamples drawn a batch at a time: bounded memory
    means = np.concatenate([values[rng.integers(0, len(values), size=(min(batch, resamples - done), len(values)))]
                            .mean(axis=1) for done in range(0, resamples, batch)])
    tail = (1 - level) / 2
    return float(np.quantile(means, tail)), float(np.quantile(means, 1 - tail))


def _bss(scores: pl.DataFrame) -> np.ndarray:
    # an unforecast question scores 0 (an abstention), as in the leaderboard's means
    return scores["bss"].fill_null(0.0).to_numpy()


def with_interval(run: Run) -> dict:
    lo, hi = mean_interval(_bss(run.scores))
    return {"low": lo, "high": hi}


def by_group(run: Run, column: str) -> pl.DataFrame:
    """Mean BSS, its 95% interval and the number of questions of each value of ``column``
    (``category`` or ``source_kind``; a missing value is "(none)")."""
    scores = run.scores.with_columns(pl.col(column).fill_null("(none)").alias("_group"))
    rows = []
    for (group,), part in scores.group_by("_group", maintain_order=False):
        lo, hi = mean_interval(_bss(part))
        rows.append({"group": group, "n": part.height, "mean_bss": float(_bss(part).mean()), "low": lo, "high": hi})
    schema = {"group": pl.String, "n": pl.Int64, "mean_bss": pl.Float64, "low": pl.Float64, "high": pl.Float64}
    return pl.DataFrame(rows, schema=schema).sort("group")


def final_forecasts(run: Run) -> dict[str, dict[str, float]]:
    """Each question's last forecast in the run's ledger (what it was scored on at resolution)."""
    path = run.folder / "ledger.jsonl"
    last: dict[str, dict[str, float]] = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            if line.strip():
                entry = json.loads(line)
                last[entry["question_id"]] = entry["forecast"]
    return last


def _questions(runs: list[Run]) -> pl.DataFrame:
    """The questions of the runs' snapshots (title and answer), by id; empty when none can be read."""
    frames, seen = [], set()
    for run in runs:
        path = (run.info.get("snapshot") or {}).get("path")
        if not path or path in seen:
            continue
        seen.add(path)
        try:
            frames.append(read_table(Path(path), "questions").select("question_id", "title", "answer"))
        except (OSError, ValueError, pl.exceptions.PolarsError):
            continue  # a snapshot moved or removed since: the table shows ids alone
    if not frames:
        return pl.DataFrame(schema={"question_id": pl.String, "title": pl.String, "answer": pl.String})
    return pl.concat(frames).unique("question_id", keep="first")


def question_table(runs: list[Run]) -> tuple[list[dict], list[str]]:
    """One row per question scored by any run: id, title, category, source, resolution date,
    the truth, and for each run (by label) its final forecast's most likely outcome with its
    probability and the question's BSS. Returns (rows, run labels)."""
    meta = pl.concat([r.scores.select("question_id", "category", "source_kind", "resolution_date") for r in runs]
                     ).unique("question_id", keep="first")
    meta = meta.join(_questions(runs), on="question_id", how="left").sort("resolution_date", "question_id")
    labels = [r.label for r in runs]
    bss = [dict(r.scores.select("question_id", "bss").iter_rows()) for r in runs]
    forecasts = [final_forecasts(r) for r in runs]
    rows = []
    for q in meta.iter_rows(named=True):
        qid = q["question_id"]
        cells = []
        for label, scores, final in zip(labels, bss, forecasts):
            forecast = final.get(qid)
            top = max(forecast.items(), key=lambda kv: kv[1]) if forecast else None
            cells.append({"top": top[0] if top else None, "p": top[1] if top else None, "bss": scores.get(qid)})
        rows.append({**q, "runs": cells})
    return rows, labels
