"""Manifold Markets dumps into the ``markets`` and ``market_prices`` tables.

Input shapes (https://docs.manifold.markets/api; times are epoch milliseconds), detected per
file and freely mixed across the files of one import:
- ``{"markets": [...], "bets": [...]}`` dumps (the sample corpus' shape);
- a bare list of markets (``/v0/markets`` LiteMarket or ``/v0/market/[id]`` FullMarket), one
  market object, a bare list of bets (``/v0/bets``), or ndjson of any of these.
A market seen twice (lite + full) is merged, the full object's fields winning.

Markets: BINARY (YES/NO resolved, CANCEL cancelled, MKT ambiguous with ``resolutionProbability``
as ``resolution_value``); MULTIPLE_CHOICE and FREE_RESPONSE (one winning answer, marked
``resolution: "YES"``, weighted in ``resolutions`` or named by id in old free-response markets:
resolved; CHOOSE_MULTIPLE or several winners: ambiguous; a LiteMarket alone lacks the answers:
``missing_answers``); PSEUDO_NUMERIC and NUMBER are numeric (``min``, ``max``, ``isLogScale``;
the value is ``resolutionValue``, a number given as the resolution, or ``resolutionProbability``
mapped as the docs say); POLL, BOUNTIED_QUESTION, QUADRATIC_FUNDING and STONK are
``not_a_forecast``; other types are numeric if they carry min and max, else
``unsupported_market_type``.

Tags: the market's ``groupSlugs`` (a FullMarket field; a LiteMarket has none).

Rules, chosen so an import never depends on the wall clock:
- An unresolved market is ``closed`` when its ``closeTime`` is at or before the newest time in
  the data (creation, update, bet, resolution times and bets' ``createdTime``; ``closeTime``
  itself is a schedule, so it does not count), else ``open``.
- Prices are bets' ``probAfter`` at their ``createdTime``: P(Yes) for binary markets, the
  answer's probability (``answerId``, or the answer id in ``outcome`` for old DPM markets) for
  multiple choice. Cancelled bets and unfilled limit orders (``amount`` 0) are dropped;
  numeric markets have no outcome labels, so their bets are dropped too.
- Current probabilities (``probability``, ``answers[].probability``) become prices only when
  the dump says when it was taken (a top-level ``dumpTime``/``fetchedTime``; Manifold's API
  has no such field, so plain API responses give none) and the market is unresolved.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pastcast.sources.fields import RECORD_ERRORS
from pastcast.sources.imported import Imported, records_or_drop, to_utc
from pastcast.sources.market_rows import STAGE, market_row, price_row

PLATFORM = "manifold"
MULTI = {"MULTIPLE_CHOICE", "FREE_RESPONSE"}
NOT_FORECASTS = {"POLL", "BOUNTIED_QUESTION", "QUADRATIC_FUNDING", "STONK"}
BINARY_RESOLUTIONS = {"YES": "Yes", "NO": "No"}
DUMP_TIME_KEYS = ("dumpTime", "fetchedTime")
# Times that say "the data is at least this new" (closeTime is a schedule, not an event).
EVENT_TIMES = ("createdTime", "lastUpdatedTime", "lastBetTime", "lastCommentTime", "resolutionTime")


class Skip(Exception):
    """A record that is well formed but cannot become a row; ``args`` = (reason, detail)."""


@dataclass
class Dump:
    """Every input record by role, each with where it came from (file and locator)."""

    markets: dict[str, list[tuple[str, dict]]] = field(default_factory=dict)
    bets: list[tuple[str, dict]] = field(default_factory=list)
    # (when the file was taken, where, market) for markets of dumps that say when
    snapshots: list[tuple[datetime, str, dict]] = field(default_factory=list)


@dataclass
class Built:
    """A market that reached the table, with what its bets need."""

    row: dict
    answers: dict[str, str]  # answer id -> outcome label


def read_manifold(paths: Sequence[Path]) -> Imported:
    imported, dump = Imported(), Dump()
    for path in paths:
        _read_file(Path(path), dump, imported)
    as_of = _newest(dump)
    built = {raw_id: b for raw_id, group in dump.markets.items()
             if (b := _market(raw_id, group, as_of, imported)) is not None}
    prices = list(_bet_prices(dump, built, imported)) + list(_snapshot_prices(dump, built, imported))
    for row in sorted(prices, key=lambda r: (r["market_id"], r["ts"], r["outcome"])):
        imported.add("market_prices", row)
    return imported


# ------------------------------------------------------------------ files and their shapes

def _role(obj: Any) -> str | None:
    if not isinstance(obj, dict):
        return None
    if "contractId" in obj and ("probAfter" in obj or "amount" in obj or "outcome" in obj):
        return "bet"  # comments and answers name a contractId too
    if "outcomeType" in obj or ("id" in obj and "question" in obj):
        return "market"
    return None


def _read_file(path: Path, dump: Dump, imported: Imported) -> None:
    records = records_or_drop(path, imported, STAGE)
    if records is None:
        return
    taken = None
    if len(records) == 1 and isinstance(records[0][1], dict) and (
            "markets" in records[0][1] or "bets" in records[0][1]):
        doc = records[0][1]
        records = [(f"markets[{i}]", m) for i, m in enumerate(doc.get("markets") or [])]
        records += [(f"bets[{i}]", b) for i, b in enumerate(doc.get("bets") or [])]
        roles = ["market"] * len(doc.get("markets") or []) + ["bet"] * len(doc.get("bets") or [])
        taken = _dump_time(next((doc[k] for k in DUMP_TIME_KEYS if doc.get(k) is not None), None))
    else:
        roles = [_role(obj) for _, obj in records]
        if records and not any(roles):
            imported.seen("file")
            first = records[0][1]
            shape = sorted(first)[:8] if isinstance(first, dict) else type(first).__name__
            imported.drop(path.name, "file", STAGE, "unknown_file_shape",
                          f"{path}: neither Manifold markets nor bets (first record: {shape})")
            return
    for (loc, obj), role in zip(records, roles):
        where, item = f"{path}: {loc}", f"{path.name}:{loc}"
        if role == "bet":
            dump.bets.append((where, obj))
        elif role == "market" and isinstance(obj, dict) and obj.get("id"):
            dump.markets.setdefault(str(obj["id"]), []).append((where, obj))
            if taken:
                dump.snapshots.append((taken, where, obj))
        elif role == "market":
            imported.seen("market")
            imported.drop(item, "market", STAGE, "malformed_market",
                          f"{where}: not a market object with an id")
        else:
            imported.seen("record")
            bad = isinstance(obj, Exception)
            imported.drop(item, "record", STAGE, "malformed_record" if bad else "unknown_record",
                          f"{where}: {obj if bad else 'neither a market nor a bet'}")


def _dump_time(value) -> datetime | None:
    try:
        return to_utc(value, "dump time")
    except ValueError:
        return None  # an unusable dump time only means no snapshot prices


def _newest(dump: Dump) -> datetime | None:
    """The newest event time in the data: the import's "now"."""
    values = [m.get(k) for group in dump.markets.values() for _, m in group for k in EVENT_TIMES]
    values += [b.get("createdTime") for _, b in dump.bets if isinstance(b, dict)]
    times = [taken for taken, _, _ in dump.snapshots]
    for value in values:
        try:
            times.append(to_utc(value))
        except RECORD_ERRORS:
            pass  # a bad time fails its own record later
    return max(filter(None, times), default=None)


# ------------------------------------------------------------------ markets

def _market(raw_id: str, group: list[tuple[str, dict]], as_of: datetime | None,
            imported: Imported) -> Built | None:
    """One row from every copy of a market (full objects override lite ones)."""
    imported.seen("market", len(group))
    market_id = f"{PLATFORM}:{raw_id}"
    merged: dict = {}
    for _, raw in sorted(group, key=lambda g: "answers" in g[1] or "description" in g[1]):
        merged.update(raw)
    try:
        built = _build(market_id, merged, as_of)
    except Skip as skip:
        reason, detail = skip.args
    except RECORD_ERRORS as exc:
        reason, detail = "malformed_market", repr(exc)
    else:
        imported.add("markets", built.row)
        imported.kept("market", len(group))
        return built
    for where, _ in group:
        imported.drop(market_id, "market", STAGE, reason, f"{where}: {detail}")
    return None


def _build(market_id: str, raw: dict, as_of: datetime | None) -> Built:
    kind = raw["outcomeType"]
    if kind in NOT_FORECASTS:
        raise Skip("not_a_forecast", f"outcomeType {kind} has no probability to forecast")
    answers = sorted(raw.get("answers") or [], key=lambda a: a.get("index", 0))
    fields: dict[str, Any]
    if kind == "BINARY":
        fields = _binary(raw)
    elif kind in MULTI:
        fields = _multi(raw, answers)
    elif kind == "PSEUDO_NUMERIC" or (raw.get("min") is not None and raw.get("max") is not None):
        fields = _numeric(raw)
    else:
        raise Skip("unsupported_market_type", f"outcomeType {kind} (no min/max to read as numeric)")
    if "status" not in fields:
        closes = to_utc(raw.get("closeTime"), "closeTime")
        fields["status"] = "closed" if closes and as_of and closes <= as_of else "open"
    resolved = fields["status"] in ("resolved", "cancelled", "ambiguous")
    url = raw.get("url") or (f"https://manifold.markets/{raw['creatorUsername']}/{raw['slug']}"
                             if raw.get("creatorUsername") and raw.get("slug") else None)
    row = market_row(
        market_id=market_id, platform=PLATFORM, question=raw["question"],
        background=_text(raw.get("description")) or raw.get("textDescription"),
        resolution_criteria=_text(raw.get("resolutionCriteria")), created_at=raw["createdTime"],
        close_at=raw.get("closeTime"), resolved_at=raw.get("resolutionTime") if resolved else None,
        url=url, tags=_list(raw.get("groupSlugs")), **fields)
    labels = {str(a["id"]): a["text"] for a in answers if a.get("id") is not None} if kind in MULTI else {}
    return Built(row, labels)


def _list(value: Any) -> list:
    """A list field of the API (``groupSlugs``), or nothing when it is absent or not a list."""
    return value if isinstance(value, list) else []


def _is_resolved(raw: dict) -> bool:
    return bool(raw.get("isResolved")) or raw.get("resolution") not in (None, "")


def _binary(raw: dict) -> dict:
    fields: dict[str, Any] = {"outcome_type": "binary"}
    if not _is_resolved(raw):
        return fields
    res = raw.get("resolution")
    if res in BINARY_RESOLUTIONS:
        return fields | {"status": "resolved", "resolution": BINARY_RESOLUTIONS[res]}
    if res == "CANCEL":
        return fields | {"status": "cancelled"}
    if res == "MKT":
        return fields | {"status": "ambiguous", "resolution_value": raw.get("resolutionProbability")}
    raise ValueError(f"unknown binary resolution {res!r}")


def _multi(raw: dict, answers: list[dict]) -> dict:
    if not answers:
        raise Skip("missing_answers", "no answers (LiteMarket omits them; /v0/market/[id] has them)")
    fields: dict[str, Any] = {"outcome_type": "multiple_choice",
                              "outcomes": [a["text"] for a in answers]}
    if not _is_resolved(raw):
        return fields
    res = raw.get("resolution")
    if res == "CANCEL":
        return fields | {"status": "cancelled"}
    # Winners: answers marked YES (cpmm-multi-1), the `resolutions` weights, or (old free
    # response) the resolution naming an answer id.
    weights = raw.get("resolutions") or {}
    winners = {a["text"] for a in answers if a.get("resolution") == "YES"
               or weights.get(str(a.get("id")), 0) > 0 or str(a.get("id")) == str(res)}
    if len(winners) == 1 and res != "CHOOSE_MULTIPLE":
        return fields | {"status": "resolved", "resolution": winners.pop()}
    if winners or res in ("MKT", "CHOOSE_MULTIPLE"):
        return fields | {"status": "ambiguous"}
    raise ValueError(f"resolution {res!r} names no answer")


def _numeric(raw: dict) -> dict:
    low, high, log = float(raw["min"]), float(raw["max"]), bool(raw.get("isLogScale"))
    fields: dict[str, Any] = {"outcome_type": "numeric", "range_min": low, "range_max": high,
                              "log_scale": log}
    if not _is_resolved(raw):
        return fields
    res = raw.get("resolution")
    if res == "CANCEL":
        return fields | {"status": "cancelled"}
    value = raw.get("resolutionValue")
    if value is None:
        value = _number(res)  # a number given as the resolution itself
    if value is None and raw.get("resolutionProbability") is not None:
        p = float(raw["resolutionProbability"])  # the API docs' mapping from probability
        value = (high - low + 1) ** p + low - 1 if log else low + (high - low) * p
    if value is None:
        return fields | {"status": "ambiguous"}
    return fields | {"status": "resolved", "resolution_value": float(value)}


def _number(value) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


# ------------------------------------------------------------------ prices

def _bet_prices(dump: Dump, built: dict[str, Built], imported: Imported) -> Iterator[dict]:
    outcome_by_id: dict[str, str | None] = {}  # bet id -> drop reason (None: kept)
    for where, bet in dump.bets:
        imported.seen("price")
        bet_id = str(bet.get("id") or where) if isinstance(bet, dict) else where
        if bet_id in outcome_by_id:  # the same bet in two files: one row
            previous = outcome_by_id[bet_id]
            if previous is None:
                imported.kept("price")
            else:
                imported.drop(bet_id, "price", STAGE, previous, f"{where}: repeats bet {bet_id}")
            continue
        try:
            row = _bet_row(bet, built, dump)
        except Skip as skip:
            reason, detail = skip.args
        except RECORD_ERRORS as exc:
            reason, detail = "malformed_price", repr(exc)
        else:
            outcome_by_id[bet_id] = None
            imported.kept("price")
            yield row
            continue
        outcome_by_id[bet_id] = reason
        imported.drop(bet_id, "price", STAGE, reason, f"{where}: {detail}")


def _bet_row(bet: dict, built: dict[str, Built], dump: Dump) -> dict:
    contract = str(bet["contractId"])
    market = built.get(contract)
    if market is None:
        reason = "dropped_market" if contract in dump.markets else "unknown_market"
        raise Skip(reason, f"bet on market {contract!r}, which is not in the markets table")
    if bet.get("isCancelled"):
        raise Skip("cancelled_bet", "a cancelled limit order moved no price")
    if (bet.get("limitProb") is not None or bet.get("isFilled") is False) and not bet.get("amount"):
        raise Skip("unfilled_limit_order", "a limit order nothing has filled yet")
    row = market.row
    if row["outcome_type"] == "numeric":
        raise Skip("numeric_market", "numeric markets have no outcome to price")
    outcome = "Yes"
    if row["outcome_type"] == "multiple_choice":
        answer = bet.get("answerId") or bet.get("outcome")
        outcome = market.answers.get(str(answer))
        if outcome is None:
            raise Skip("unknown_answer", f"answer {answer!r} is not one of the market's answers")
    return price_row(row["market_id"], bet["createdTime"], outcome, bet["probAfter"])


def _snapshot_prices(dump: Dump, built: dict[str, Built], imported: Imported) -> Iterator[dict]:
    """Current probabilities at their dump's time, for unresolved markets (see module doc)."""
    for taken, where, raw in dump.snapshots:
        market = built.get(str(raw["id"]))
        if market is None or market.row["status"] not in ("open", "closed"):
            continue
        row = market.row
        if row["outcome_type"] == "binary":
            points = [("Yes", raw.get("probability"))]
        elif row["outcome_type"] == "multiple_choice":
            points = [(market.answers.get(str(a.get("id"))), a.get("probability"))
                      for a in raw.get("answers") or [] if isinstance(a, dict)]
        else:
            points = []
        for outcome, p in points:
            if p is None or outcome is None:
                continue
            imported.seen("price")
            try:
                price = price_row(row["market_id"], taken, outcome, p)
            except RECORD_ERRORS as exc:
                imported.drop(row["market_id"], "price", STAGE, "malformed_price",
                              f"{where}: current probability of {outcome!r}: {exc!r}")
                continue
            imported.kept("price")
            yield price


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
