"""Prediction-market dumps into the ``markets`` and ``market_prices`` tables.

Manifold (public API ``/v0/market`` objects plus ``bets``) is read here; timestamps are
milliseconds since the epoch. A multiple-choice market resolves ``CHOOSE_ONE`` with the
winning answer marked ``resolution: YES`` (older free-response markets name the answer id).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import polars as pl

from pastcast.drops import Drop, drops_frame
from pastcast.schemas import MARKET_PRICES, MARKETS, frame

STAGE = "markets"
BINARY_RESOLUTIONS = {"YES": "Yes", "NO": "No"}


def from_ms(value) -> datetime | None:
    if value in (None, ""):
        return None
    return datetime.fromtimestamp(int(value) / 1000, tz=timezone.utc)


def read_manifold(path: str | Path) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """A Manifold dump ({"markets": [...], "bets": [...]}, or a bare list of markets)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a readable Manifold JSON dump: {exc}") from exc
    raw_markets = data.get("markets", []) if isinstance(data, dict) else data
    raw_bets = data.get("bets", []) if isinstance(data, dict) else []
    markets, drops = [], []
    for i, raw in enumerate(raw_markets):
        try:
            markets.append(_manifold_market(raw))
        except (KeyError, TypeError, ValueError) as exc:
            drops.append(Drop(str(raw.get("id", f"{path.name}[{i}]")) if isinstance(raw, dict)
                              else f"{path.name}[{i}]", "market", STAGE, "malformed_market",
                              f"{path}: market #{i}: {exc!r}"))
    # Bets name their market by Manifold's raw id and their answer by answer id.
    by_raw_id = {m["market_id"].removeprefix("manifold:"): m["market_id"] for m in markets}
    answer_text = {(raw.get("id"), a.get("id")): a.get("text")
                   for raw in raw_markets if isinstance(raw, dict) for a in raw.get("answers") or []}
    prices = []
    for i, bet in enumerate(raw_bets):
        market_id = by_raw_id.get(bet.get("contractId"))
        if market_id is None:
            drops.append(Drop(str(bet.get("id", i)), "market_price", STAGE, "unknown_market",
                              f"{path}: bet #{i} refers to {bet.get('contractId')!r}"))
            continue
        outcome = (answer_text.get((bet["contractId"], bet["answerId"])) if bet.get("answerId")
                   else "Yes")
        if outcome is None or bet.get("probAfter") is None or bet.get("createdTime") is None:
            drops.append(Drop(str(bet.get("id", i)), "market_price", STAGE, "malformed_bet",
                              f"{path}: bet #{i} has no known answer, probability or time"))
            continue
        prices.append({"market_id": market_id, "ts": from_ms(bet["createdTime"]),
                       "outcome": outcome, "price": float(bet["probAfter"])})
    prices_df = frame(prices, MARKET_PRICES).sort("market_id", "ts", "outcome")
    return frame(markets, MARKETS), prices_df, drops_frame(drops)


def _manifold_market(raw: dict) -> dict:
    kind = raw["outcomeType"]
    answers = raw.get("answers") or []
    if kind == "BINARY":
        outcome_type, outcomes = "binary", ["Yes", "No"]
    elif kind in ("MULTIPLE_CHOICE", "FREE_RESPONSE"):
        outcome_type, outcomes = "multiple_choice", [a["text"] for a in answers]
    else:
        outcome_type, outcomes = "numeric", []
    resolution = None
    if raw.get("isResolved"):
        res = raw.get("resolution")
        if outcome_type == "binary":
            resolution = BINARY_RESOLUTIONS.get(res)  # CANCEL and MKT stay None
        elif outcome_type == "multiple_choice":
            winners = [a["text"] for a in answers if a.get("resolution") == "YES"]
            by_id = [a["text"] for a in answers if a.get("id") == res]
            picked = winners or by_id
            resolution = picked[0] if len(picked) == 1 else None
    return {
        "market_id": f"manifold:{raw['id']}",
        "platform": "manifold",
        "question": raw["question"].strip(),
        "background": _text(raw.get("description")),
        "resolution_criteria": _text(raw.get("resolutionCriteria")) or None,
        "outcome_type": outcome_type,
        "outcomes": outcomes,
        "created_at": from_ms(raw["createdTime"]),
        "close_at": from_ms(raw.get("closeTime")),
        "resolved_at": from_ms(raw.get("resolutionTime")) if raw.get("isResolved") else None,
        "resolution": resolution,
        "url": raw.get("url"),
    }


def _text(value) -> str:
    """Manifold descriptions are plain strings or TipTap JSON documents."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    parts: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("type") == "text":
                parts.append(node.get("text", ""))
            for child in node.get("content", []) or []:
                walk(child)
            if node.get("type") == "paragraph":
                parts.append("\n")
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(value)
    return "".join(parts).strip()
