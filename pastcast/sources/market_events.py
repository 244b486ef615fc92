"""Assembling markets from platform API records, shared by the Polymarket and Kalshi readers.

Both platforms publish events holding binary markets, where a mutually exclusive event is one
multiple-choice question, and price series per token/ticker. A reader classifies each JSON
record (``Rec``: event, market or price point) and describes its platform (``Platform``); the
functions here read the files, build ``markets`` rows (one per market, or one per
multi-outcome event with its binary markets merged) and attach price points, keeping the
books of every record.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from pastcast.sources.fields import RECORD_ERRORS
from pastcast.sources.imported import MISSING, Imported, records_or_drop
from pastcast.sources.market_rows import STAGE, price_row

ERRORS = RECORD_ERRORS  # what bad input raises
SETTLED = ("resolved", "ambiguous", "cancelled")

# A token's (market_id, outcome label), or the drop reason for its price points.
Target = tuple[str, str] | str


@dataclass
class Rec:
    """One input record: an ``event``, a ``market`` or a ``price`` point. ``parent`` is the id
    of the event a market is nested in, or the token/ticker a price point belongs to."""
    kind: str
    where: str  # file and position, for drop details
    data: Any
    parent: str | None = None
    item: str = ""  # id used in drops, set once known


class Leg(NamedTuple):
    """A binary sub-market seen as one outcome of a multiple-choice market."""
    label: str
    status: str
    resolution: str | None
    resolved_at: datetime | None


@dataclass(frozen=True)
class Platform:
    """What differs between platforms while markets are assembled."""
    name: str
    market_key: Callable[[dict], str]
    event_key: Callable[[dict], str]
    event_ref: Callable[[dict], tuple[str | None, dict | None]]  # a market's event id (+ embedded event)
    is_multi: Callable[[dict, list[dict]], bool]
    market_row: Callable[[dict, dict | None], tuple[dict, dict[str, Target]]]
    event_row: Callable[[dict, list[dict]], tuple[dict, dict[str, Target]]]
    price: Callable[[Any], tuple[Any, Any]]  # (time, price or None)


def load_records(paths: Sequence[Path], classify: Callable[[Any, Path], list[Rec] | None],
                 imported: Imported, platform: str) -> list[Rec]:
    """Every record of every file; unreadable files and files of no known shape are drops."""
    recs: list[Rec] = []
    for path in map(Path, paths):
        records = records_or_drop(path, imported, STAGE)
        if records is None:
            continue
        found: list[Rec] = []
        bad = []
        known = False
        for loc, rec in records:
            got = None if isinstance(rec, Exception) else classify(rec, path)
            if got is None:
                bad.append((loc, rec))
                continue
            known = True
            for r in got:
                r.where = f"{path.name} {loc}{r.where}"
            found += got
        if not known:
            _drop_file(imported, path, "unknown_shape",
                       f"{path}: not a {platform} API response this reader knows ({_peek(records)})")
            continue
        kind = found[0].kind if found else "record"
        for loc, rec in bad:  # a stray record in a file whose role is known
            imported.seen(kind)
            imported.drop(f"{path.name} {loc}", kind, STAGE, f"malformed_{kind}",
                          f"{path} {loc}: not a {platform} {kind}: {str(rec)[:120]}")
        for r in found:
            imported.seen(r.kind)
        recs += found
    return recs


def build_markets(recs: list[Rec], p: Platform, imported: Imported) -> dict[str, Target]:
    """A ``markets`` row for each market or multi-outcome event read; every event and market
    record kept or dropped (once per read: the same market may come nested in an event and in
    a markets dump). Returns the price target of each token/ticker of the rows made."""
    events: dict[str, dict] = {}
    embedded: dict[str, dict] = {}
    markets: dict[str, dict] = {}
    reads: dict[tuple[str, str], list[Rec]] = defaultdict(list)
    event_of: dict[str, str] = {}
    # Markets nested in an event first, so its outcomes keep the event's order, not file order.
    records = (r for r in recs if r.kind in ("event", "market"))
    for r in sorted(records, key=lambda r: r.parent is None):
        try:
            key = str(p.event_key(r.data) if r.kind == "event" else p.market_key(r.data))
        except ERRORS as exc:
            imported.drop(r.where, r.kind, STAGE, f"malformed_{r.kind}", f"{r.where}: no id: {exc!r}")
            continue
        r.item = f"{p.name}:event:{key}" if r.kind == "event" else f"{p.name}:{key}"
        reads[r.kind, key].append(r)
        if r.kind == "event":
            events.setdefault(key, r.data)
            continue
        markets.setdefault(key, r.data)
        ref, ev = p.event_ref(r.data)
        ref = r.parent or ref
        if ref:
            event_of.setdefault(key, str(ref))
            if ev is not None:
                embedded.setdefault(str(ref), ev)
    all_events = {**embedded, **events}  # an event read beats the copy embedded in a market
    members: dict[str, list[str]] = defaultdict(list)
    for key, ref in event_of.items():
        members[ref].append(key)

    targets: dict[str, Target] = {}
    merged: set[str] = set()  # market keys taken by a multi-outcome event
    multi: set[str] = set()  # event keys made (or failed) as multi-outcome markets
    for ref, ev in all_events.items():
        keys = members.get(ref, [])
        subs = [markets[k] for k in keys]
        if len(keys) < 2 or not p.is_multi(ev, subs):
            continue
        merged.update(keys)
        multi.add(ref)
        group = reads[("event", ref)] + [r for k in keys for r in reads[("market", k)]]
        try:
            row, tokens = p.event_row(ev, subs)
        except ERRORS as exc:
            _account(imported, group, "malformed_event", f"multi-outcome event {ref}: {exc}")
            continue
        imported.add("markets", row)
        targets.update(tokens)
        _account(imported, group)

    made: set[str] = set()
    for key, m in markets.items():
        if key in merged:
            continue
        try:
            row, tokens = p.market_row(m, all_events.get(event_of.get(key, "")))
        except ERRORS as exc:
            _account(imported, reads[("market", key)], "malformed_market", str(exc))
            continue
        imported.add("markets", row)
        targets.update(tokens)
        made.add(key)
        _account(imported, reads[("market", key)])

    for ref in events:
        if ref in multi:
            continue
        keys = members.get(ref, [])
        if any(k in made for k in keys):
            _account(imported, reads[("event", ref)])
        else:
            _account(imported, reads[("event", ref)], "markets_dropped" if keys else "no_markets",
                     "none of its markets reached a row" if keys else "the event has no markets")
    return targets


def add_prices(recs: Iterable[Rec], targets: dict[str, Target], p: Platform,
               imported: Imported) -> None:
    """A ``market_prices`` row for each price point whose token/ticker belongs to a row made."""
    for r in recs:
        if r.kind != "price":
            continue
        target = targets.get(str(r.parent))
        item = f"{p.name}:{r.parent}"
        if target is None:
            imported.drop(item, "price", STAGE, "unknown_market",
                          f"{r.where}: no market in this import has {r.parent}")
            continue
        if isinstance(target, str):
            imported.drop(item, "price", STAGE, target,
                          f"{r.where}: this token/ticker's prices are not kept")
            continue
        try:
            ts, price = p.price(r.data)
            if price in MISSING:
                imported.drop(item, "price", STAGE, "no_price", f"{r.where}: no price at {ts}")
                continue
            imported.add("market_prices", price_row(target[0], ts, target[1], price))
        except ERRORS as exc:
            imported.drop(item, "price", STAGE, "malformed_price", f"{r.where}: {exc}")
            continue
        imported.kept("price")


def choose_outcome(legs: list[Leg]) -> tuple[str, str | None, datetime | None]:
    """(status, resolution, resolved_at) of a multiple-choice market from its binary legs."""
    won = [leg for leg in legs if leg.status == "resolved" and leg.resolution == "Yes"]
    if len(won) == 1:
        return "resolved", won[0].label, won[0].resolved_at
    last = max((leg.resolved_at for leg in legs if leg.resolved_at), default=None)
    if won:
        return "ambiguous", None, last  # several outcomes paid out
    statuses = {leg.status for leg in legs}
    for status in ("open", "closed"):
        if status in statuses:
            return status, None, None
    if "ambiguous" in statuses:
        return "ambiguous", None, last
    return "cancelled", None, last  # every leg resolved No or was voided: no listed outcome won


def _account(imported: Imported, reads: list[Rec], reason: str | None = None, detail: str = "") -> None:
    for r in reads:
        if reason is None:
            imported.kept(r.kind)
        else:
            imported.drop(r.item or r.where, r.kind, STAGE, reason, f"{r.where}: {detail}")


def _drop_file(imported: Imported, path: Path, reason: str, detail: str) -> None:
    imported.seen("file")
    imported.drop(path.name, "file", STAGE, reason, detail)


def _peek(records: list) -> str:
    first = next((rec for _, rec in records if not isinstance(rec, Exception)), None)
    if isinstance(first, dict):
        return f"keys {sorted(first)[:8]}"
    return f"records of type {type(first).__name__}" if records else "no records"


def file_stem(path: Path) -> str:
    """``<id>.json.gz`` -> ``<id>``: price files may be named by their token or ticker."""
    return path.name.split(".")[0]


# --- Polymarket ------------------------------------------------------------------------------
