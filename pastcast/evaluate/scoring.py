"""Forecast validation and scores: multi-outcome Brier skill score, top-1 accuracy, time weighting.

A forecast is an ordered mapping outcome -> probability; order is submission order, which
decides which outcome counts as "the" match when several match the truth.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, timedelta

from pastcast.matching import PLACEHOLDERS, matches, normalise

MAX_OUTCOMES = 5
SUM_TOLERANCE = 1e-9
class InvalidForecast(ValueError):
    """A forecast that breaks a submission rule; ``reason`` says which one."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def validate(forecast: Mapping[str, float]) -> dict[str, float]:
    """Check every submission rule; return the forecast with outcomes stripped, order kept."""
    if not isinstance(forecast, Mapping):
        raise InvalidForecast(f"forecast must be a mapping outcome -> probability, got {type(forecast).__name__}")
    if len(forecast) > MAX_OUTCOMES:
        raise InvalidForecast(f"at most {MAX_OUTCOMES} outcomes may be submitted, got {len(forecast)}")
    clean: dict[str, float] = {}
    seen: dict[str, str] = {}
    for outcome, p in forecast.items():
        if not isinstance(outcome, str) or not normalise(outcome):
            raise InvalidForecast(f"outcome {outcome!r} is empty or not a string")
        key = normalise(outcome)
        if key in PLACEHOLDERS:
            raise InvalidForecast(f"placeholder outcome {outcome!r} is not allowed; name a real outcome")
        if key in seen:
            raise InvalidForecast(f"outcomes {seen[key]!r} and {outcome!r} are the same after normalisation")
        # bool is an int subclass; True as a probability is a caller bug, not 1.0.
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p):
            raise InvalidForecast(f"probability of {outcome!r} must be a finite number, got {p!r}")
        if not 0.0 <= p <= 1.0:
            raise InvalidForecast(f"probability of {outcome!r} must be in [0, 1], got {p}")
        seen[key] = outcome
        clean[outcome.strip()] = float(p)
    total = sum(clean.values())
    if total > 1.0 + SUM_TOLERANCE:
        raise InvalidForecast(f"probabilities sum to {total:.6g} > 1")
    return clean


Matcher = Callable[[str, str, Sequence[str]], bool]  # (outcome, answer, aliases) -> same thing?


def first_match(forecast: Mapping[str, float], answer: str, aliases: Iterable[str] = (),
                match: Matcher = matches) -> str | None:
    """The first submitted outcome that matches the truth, or None."""
    aliases = list(aliases or ())
    return next((o for o in forecast if match(o, answer, aliases)), None)


def brier_skill_score(forecast: Mapping[str, float], answer: str, aliases: Iterable[str] = (),
                      match: Matcher = matches) -> float:
    """BSS = 1 - [ sum_o (p(o) - 1[o = m])^2 + 1[no outcome matches] ], m the first match.

    Abstaining scores 0, all mass on the truth 1, all mass on one wrong outcome -1.
    """
    forecast = validate(forecast)
    m = first_match(forecast, answer, aliases, match)
    loss = sum((p - (1.0 if o == m else 0.0)) ** 2 for o, p in forecast.items())
    return 1.0 - (loss + (1.0 if m is None else 0.0))


def top1_accuracy(forecast: Mapping[str, float], answer: str, aliases: Iterable[str] = (),
                  match: Matcher = matches) -> float:
    """1.0 if the most probable outcome (ties: first submitted) matches; abstaining (or all-zero) is 0."""
    forecast = validate(forecast)
    if not forecast or max(forecast.values()) <= 0.0:
        return 0.0
    best = max(forecast, key=forecast.__getitem__)  # max keeps the first of equal maxima
    return 1.0 if match(best, answer, list(aliases or ())) else 0.0


def standing(forecasts: Sequence[tuple[date, Mapping[str, float]]], day: date) -> Mapping[str, float] | None:
    """The forecast in force on ``day``: the last one submitted on or before it (ledger order)."""
    current = None
    for d, f in forecasts:
        if d <= day:
            current = f
    return current


def time_weighted_bss(
    forecasts: Sequence[tuple[date, Mapping[str, float]]],
    answer: str,
    aliases: Iterable[str],
    open_date: date,
    resolution_date: date,
    match: Matcher = matches,
) -> float:
    """Mean over days D in [open_date, resolution_date) of the BSS of the forecast standing on D.

    Days before the first forecast score 0 (abstaining), so forecasting early and well pays.
    ``forecasts`` are (date, forecast) pairs in submission order. An empty window scores 0.
    """
    aliases = list(aliases or ())
    n_days = (resolution_date - open_date).days
    if n_days <= 0:
        return 0.0
    ordered = sorted(forecasts, key=lambda df: df[0])  # stable: same-day order is kept
    cache: dict[int, float] = {}  # id(forecast) -> bss; a standing forecast spans many days
    total = 0.0
    for i in range(n_days):
        f = standing(ordered, open_date + timedelta(days=i))
        if f is not None:
            if id(f) not in cache:
                cache[id(f)] = brier_skill_score(f, answer, aliases, match)
            total += cache[id(f)]
    return total / n_days
