"""Metrics beyond the per-question scores: truth mass, calibration, breakdowns, bootstrap
confidence intervals, paired comparison of two runs, the market aggregate of several agents
and the peer-relative score. Pure functions over score tables and ledgers.

Conventions shared with ``scoring``:

- a question's *final* forecast is the last ledger entry dated before its resolution date
  (ledger order), exactly as ``runner.score_questions`` picks it; no forecast = abstention;
- the *truth* among submitted outcomes is the FIRST submitted outcome that matches the
  answer (``scoring.first_match``). Any later outcome that also matches (e.g. "Ruiz" after
  "Ana Ruiz", or an alias spelled differently) counts as a wrong outcome, as it does in BSS.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date

import numpy as np
import polars as pl

from pastcast.evaluate.environment import LedgerEntry
from pastcast.matching import normalise
from pastcast.evaluate.scoring import MAX_OUTCOMES, first_match, validate

SCORE_METRICS = ("bss", "accuracy", "time_weighted_bss")
TIE_EPS = 1e-12

# -- truth mass -------------------------------------------------------------------------


def truth_mass(forecast: Mapping[str, float], answer: str, aliases: Iterable[str] = ()) -> float:
    """Probability on the truth: p(m), m the first submitted outcome that matches.

    Only the first match counts (the BSS rule); later matching outcomes are not added, since
    BSS scores them as wrong. An abstention or a forecast with no match has mass 0.
    """
    forecast = validate(forecast)
    m = first_match(forecast, answer, list(aliases or ()))
    return forecast[m] if m is not None else 0.0


def final_forecasts(questions: pl.DataFrame, ledger: Iterable[LedgerEntry]) -> dict[str, dict[str, float]]:
    """question_id -> final forecast (last entry dated before resolution, in ledger order);
    questions without one are absent."""
    resolution = dict(zip(questions["question_id"], questions["resolution_date"]))
    final: dict[str, dict[str, float]] = {}
    for e in ledger:
        res = resolution.get(e.question_id)
        if res is not None and e.date < res:
            final[e.question_id] = dict(e.forecast)
    return final


# -- calibration -------------------------------------------------------------------------


def calibration_pairs(questions: pl.DataFrame, ledger: Iterable[LedgerEntry]) -> list[tuple[float, bool]]:
    """(probability, hit) for every submitted outcome of every final forecast; hit = that
    outcome is the first match of the truth. Abstentions contribute no pair."""
    final = final_forecasts(questions, ledger)
    pairs: list[tuple[float, bool]] = []
    for q in questions.iter_rows(named=True):
        f = final.get(q["question_id"])
        if not f:
            continue
        m = first_match(f, q["answer"] or "", list(q["answer_aliases"] or []))
        pairs.extend((float(p), o == m) for o, p in f.items())
    return pairs


CALIBRATION_SCHEMA = {"bin_lo": pl.Float64, "bin_hi": pl.Float64, "n": pl.Int64,
                      "mean_p": pl.Float64, "hit_rate": pl.Float64}


def _bin(p: float, bins: int) -> int:
    # half-open bins [lo, hi), the last one closed so p = 1.0 lands in it
    return min(int(math.floor(p * bins)), bins - 1)


def calibration(pairs: Iterable[tuple[float, bool]], bins: int = 10) -> pl.DataFrame:
    """Reliability table over equal-width bins of [0, 1]: one row per NON-EMPTY bin, bins
    half-open [lo, hi) except the last, which includes 1.0."""
    if bins < 1:
        raise ValueError("bins must be >= 1")
    acc: dict[int, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])  # n, sum p, hits
    for p, hit in pairs:
        a = acc[_bin(float(p), bins)]
        a[0] += 1
        a[1] += float(p)
        a[2] += 1.0 if hit else 0.0
    rows = [{"bin_lo": b / bins, "bin_hi": (b + 1) / bins, "n": int(n),
             "mean_p": s / n, "hit_rate": h / n} for b, (n, s, h) in sorted(acc.items())]
    return pl.DataFrame(rows, schema=CALIBRATION_SCHEMA) if rows else pl.DataFrame(schema=CALIBRATION_SCHEMA)


def ece(pairs: Iterable[tuple[float, bool]], bins: int = 10) -> float:
    """Expected calibration error: sum over bins of n_b / N * |mean_p_b - hit_rate_b|
    (0.0 when there are no pairs)."""
    table = calibration(pairs, bins)
    total = int(table["n"].sum()) if table.height else 0
    if not total:
        return 0.0
    return float(sum(r["n"] / total * abs(r["mean_p"] - r["hit_rate"]) for r in table.iter_rows(named=True)))


# -- breakdowns and confidence intervals --------------------------------------------------


def by_group(scores: pl.DataFrame, by: str = "category") -> pl.DataFrame:
    """Mean BSS, accuracy, time-weighted BSS and question count per value of ``by``
    (e.g. "category" or "source_kind"); a null group is kept as its own row."""
    if by not in scores.columns:
        raise ValueError(f"scores have no column {by!r}")
    return (scores.group_by(by).agg(
        pl.col("bss").mean().alias("mean_bss"),
        pl.col("accuracy").mean().alias("accuracy"),
        pl.col("time_weighted_bss").mean().alias("time_weighted_bss"),
        pl.len().cast(pl.Int64).alias("n"),
    ).sort(by, nulls_last=True))


def bootstrap_ci(values: Sequence[float] | np.ndarray | pl.Series, stat: Callable = np.mean,
                 n: int = 2000, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap CI of ``stat`` over ``values`` (one per question), resampling
    questions with replacement ``n`` times; deterministic for a given seed."""
    x = np.asarray(values.to_numpy() if isinstance(values, pl.Series) else values, dtype=float)
    if x.size == 0:
        raise ValueError("bootstrap_ci needs at least one value")
    rng = np.random.default_rng(seed)
    samples = x[rng.integers(0, x.size, size=(n, x.size))]
    try:
        stats = np.asarray(stat(samples, axis=1), dtype=float)
    except TypeError:  # a stat without an axis argument
        stats = np.array([stat(s) for s in samples], dtype=float)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(stats, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def paired(scores_a: pl.DataFrame, scores_b: pl.DataFrame, metric: str = "bss",
           n: int = 2000, seed: int = 0) -> dict:
    """Run A against run B on the questions both scored: mean of A - B, its bootstrap CI,
    wins/ties/losses of A (|difference| <= 1e-12 is a tie)."""
    joined = scores_a.select("question_id", pl.col(metric).alias("a")).join(
        scores_b.select("question_id", pl.col(metric).alias("b")), on="question_id", how="inner")
    diff = (joined["a"] - joined["b"]).to_numpy().astype(float)
    out = {"metric": metric, "n": int(diff.size),
           "wins": int((diff > TIE_EPS).sum()), "ties": int((np.abs(diff) <= TIE_EPS).sum()),
           "losses": int((diff < -TIE_EPS).sum())}
    if diff.size:
        out |= {"mean_a": float(joined["a"].mean()), "mean_b": float(joined["b"].mean()),
                "mean_diff": float(diff.mean()), "ci": bootstrap_ci(diff, n=n, seed=seed)}
    else:
        out |= {"mean_a": None, "mean_b": None, "mean_diff": None, "ci": None}
    return out


# -- market aggregate and peer-relative score --------------------------------------------


def aggregate_forecast(forecasts: Sequence[Mapping[str, float] | None], n_agents: int | None = None
                       ) -> dict[str, float]:
    """The coordinate-wise mean of several agents' forecasts for ONE question.

    Outcomes are pooled by ``normalise`` (the first spelling seen names the pool); each
    pool's probability is its summed mass divided by the number of agents (``n_agents``,
    default len(forecasts)), so an agent with no forecast (None or {}) contributes 0. The
    highest ``MAX_OUTCOMES`` pools are kept (ties: first seen), ordered by probability
    descending (that order decides the first match in BSS), and renormalised only if their
    sum exceeds 1 (it cannot beyond float error, as every input sums to <= 1).
    """
    k = n_agents if n_agents is not None else len(forecasts)
    if k <= 0:
        return {}
    mass: dict[str, float] = {}
    name: dict[str, str] = {}
    for f in forecasts:
        for o, p in (f or {}).items():
            key = normalise(o)
            name.setdefault(key, o)
            mass[key] = mass.get(key, 0.0) + float(p)
    order = {key: i for i, key in enumerate(name)}
    top = sorted(mass, key=lambda key: (-mass[key], order[key]))[:MAX_OUTCOMES]
    agg = {name[key]: mass[key] / k for key in top}
    total = sum(agg.values())
    if total > 1.0:
        agg = {o: p / total for o, p in agg.items()}
    return agg


def aggregate_forecasts(final_by_agent: Mapping[str, Mapping[str, Mapping[str, float]]]
                        ) -> dict[str, dict[str, float]]:
    """question_id -> aggregate forecast, from agent -> (question_id -> final forecast).
    Every agent counts in the denominator of every question; a question no agent forecast
    is absent (the aggregate abstains)."""
    agents = list(final_by_agent)
    qids = sorted({q for finals in final_by_agent.values() for q in finals})
    return {q: aggregate_forecast([final_by_agent[a].get(q) for a in agents], len(agents)) for q in qids}


def peer_relative(scores_by_agent: Mapping[str, pl.DataFrame], metric: str = "bss") -> dict[str, float]:
    """agent -> mean over questions of (its score - the mean score of the other agents).

    Only questions every run scored are used; needs at least two agents. The values sum to
    zero across agents."""
    agents = list(scores_by_agent)
    if len(agents) < 2:
        raise ValueError("peer_relative needs at least two agents")
    joined = None
    for i, a in enumerate(agents):
        part = scores_by_agent[a].select("question_id", pl.col(metric).alias(f"s{i}"))
        joined = part if joined is None else joined.join(part, on="question_id", how="inner")
    if joined.height == 0:
        return {a: 0.0 for a in agents}
    m = joined.select([f"s{i}" for i in range(len(agents))]).to_numpy().astype(float)
    total = m.sum(axis=1, keepdims=True)
    others = (total - m) / (len(agents) - 1)
    return {a: float((m[:, i] - others[:, i]).mean()) for i, a in enumerate(agents)}


# -- everything for one run ---------------------------------------------------------------


def _ci(values: pl.Series) -> list[float] | None:
    return list(bootstrap_ci(values)) if len(values) else None


def summary_metrics(scores: pl.DataFrame, ledger: Iterable[LedgerEntry], questions: pl.DataFrame,
                    bins: int = 10) -> dict:
    """Truth mass, calibration, ECE, breakdowns by category and source kind and bootstrap
    95% CIs of the means, for one run (JSON-ready)."""
    ledger = list(ledger)
    questions = questions.filter(pl.col("question_id").is_in(scores["question_id"].to_list()))
    final = final_forecasts(questions, ledger)
    masses = [truth_mass(final.get(q["question_id"], {}), q["answer"] or "", q["answer_aliases"] or [])
              for q in questions.iter_rows(named=True)]
    pairs = calibration_pairs(questions, ledger)

    def rows(df: pl.DataFrame) -> list[dict]:
        return [{k: (v.isoformat() if isinstance(v, date) else v) for k, v in r.items()} for r in df.to_dicts()]

    return {
        "mean_truth_mass": float(np.mean(masses)) if masses else 0.0,
        "calibration": rows(calibration(pairs, bins)),
        "calibration_pairs": len(pairs),
        "ece": ece(pairs, bins),
        "by_category": rows(by_group(scores, "category")) if "category" in scores.columns else [],
        "by_source_kind": rows(by_group(scores, "source_kind")) if "source_kind" in scores.columns else [],
        "ci95": {m: _ci(scores[m]) for m in SCORE_METRICS if m in scores.columns},
    }
