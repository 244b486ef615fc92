"""Kalshi trade-api v2 dumps into the ``markets`` and ``market_prices`` tables.

Inputs: every file of one import at once (candlesticks name markets defined in other files).
Each file's role is read from its JSON shape; any may be plain, gzip or zstd, one document, a
list or ndjson (see ``jsonfiles``):
- ``GET /markets``: ``{"markets": [...], "cursor": ...}``; ``GET /markets/{ticker}``:
  ``{"market": {...}}``; a bare market object or list of them.
- ``GET /events`` (``{"events": [...], "cursor": ...}``, markets nested with
  ``with_nested_markets=true``) and ``GET /events/{event_ticker}`` (``{"event": {...},
  "markets": [...]}``); markets of events without nesting are found by their ``event_ticker``.
- ``GET /series/{series}/markets/{ticker}/candlesticks``: ``{"ticker"?, "candlesticks": [...]}``;
  without ``ticker`` the file name ``<ticker>.json`` names the market. Also the batch form
  ``{"markets": [{"market_ticker", "candlesticks"}]}`` and the event form
  ``{"market_tickers": [...], "market_candlesticks": [[...], ...]}``.
A file of any other shape is dropped whole (kind ``file``, ``unknown_shape``).

Prices come as integer cents (``yes_bid``, ``settlement_value``, ``price.close``: 56) or, in
newer responses, dollar strings (``*_dollars``: "0.5600"); dollars win when both are present.

Markets: ``kalshi:<ticker>``, binary unless ``market_type`` is ``scalar`` (numeric, range
``floor_strike``..``cap_strike``, ``resolution_value`` = ``expiration_value``, else the
settlement payout mapped onto the range). ``status``: initialized/unopened/active/open/
inactive/paused -> open; closed/disputed -> closed (awaiting determination); determined/
amended/finalized/settled -> by ``result``: yes/no resolved, void cancelled, else ambiguous when
the payout (``settlement_value``) lies strictly between 0 and 1, else closed. An event with
``mutually_exclusive: true`` and two or more markets is ONE multiple-choice market
``kalshi:event:<event_ticker>`` labelled by ``yes_sub_title`` (else ``subtitle``, else the
ticker), resolved to the market that settled yes; its markets count as kept (merged).
question = ``title``; background = ``yes_sub_title``/``subtitle`` (events: ``sub_title``);
resolution criteria = ``rules_primary`` + ``rules_secondary``. ``resolved_at`` =
``settlement_ts``, else ``expiration_time``, else ``close_time``. ``url`` is constructed:
``https://kalshi.com/markets/<ticker>`` (the event ticker for events). ``tags``: the market's
``category`` (older responses), then its event's (deprecated there in favour of the series'
``category``, which these responses do not carry).

Candlesticks: the price at ``end_period_ts`` is ``price.close`` (last trade), else the midpoint
of the ``yes_bid``/``yes_ask`` closes; a candle with neither is dropped (``no_price``). Candles of
scalar markets are dropped (``numeric_market``): a scalar contract's price is no probability.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pastcast.sources.imported import MISSING, Imported, to_utc
from pastcast.sources.market_rows import market_row
from pastcast.sources.market_events import (
    Leg,
    Platform,
    Rec,
    Target,
    add_prices,
    build_markets,
    choose_outcome,
    file_stem,
    load_records,
)

PLATFORM = "kalshi"
URL = "https://kalshi.com/markets/"
PHASES = {
    "open": {"initialized", "unopened", "active", "open", "inactive", "paused"},
    "closed": {"closed", "disputed"},
    "settled": {"determined", "amended", "finalized", "settled"},
}
VOID = {"void", "voided", "cancelled", "canceled"}


def read_kalshi(paths: Sequence[Path]) -> Imported:
    """Markets, events and candlesticks; tables ``markets`` and ``market_prices``."""
    imported = Imported()
    recs = load_records(paths, _classify, imported, "Kalshi")
    targets = build_markets(recs, KALSHI, imported)
    add_prices(recs, targets, KALSHI, imported)
    return imported


def _classify(rec: Any, path: Path) -> list[Rec] | None:
    """The records in one JSON value, by its shape; None for a shape Kalshi never sends."""
    if not isinstance(rec, dict):
        return None
    if isinstance(rec.get("candlesticks"), list):
        ticker = rec.get("ticker") or rec.get("market_ticker") or file_stem(path)
        return _candles(rec["candlesticks"], str(ticker), "")
    if isinstance(rec.get("market_candlesticks"), list) and isinstance(rec.get("market_tickers"), list):
        return [c for t, cs in zip(rec["market_tickers"], rec["market_candlesticks"])
                for c in _candles(cs, str(t), f" {t}")]
    if isinstance(rec.get("event"), dict):  # GET /events/{event_ticker}
        return _event(rec["event"], rec.get("markets") or rec["event"].get("markets"), "")
    if isinstance(rec.get("events"), list):  # GET /events
        return [r for i, ev in enumerate(rec["events"])
                for r in _event(ev, ev.get("markets") if isinstance(ev, dict) else None, f" events[{i}]")]
    if isinstance(rec.get("market"), dict):  # GET /markets/{ticker}
        return [Rec("market", " market", rec["market"])]
    if "event_ticker" in rec and "ticker" not in rec and ("markets" in rec or "mutually_exclusive" in rec):
        return _event(rec, rec.get("markets"), "")  # a bare event
    if isinstance(rec.get("markets"), list):
        items = rec["markets"]
        if items and all(isinstance(m, dict) and "candlesticks" in m for m in items):  # batch candles
            return [c for m in items for c in _candles(m["candlesticks"], str(m.get("market_ticker")),
                                                       f" {m.get('market_ticker')}")]
        return [Rec("market", f" markets[{i}]", m) for i, m in enumerate(items)]  # GET /markets
    if "ticker" in rec and "event_ticker" in rec:  # a bare market
        return [Rec("market", "", rec)]
    return None


def _event(ev: Any, markets: Any, where: str) -> list[Rec]:
    ref = str(ev["event_ticker"]) if isinstance(ev, dict) and ev.get("event_ticker") else None
    nested = markets if isinstance(markets, list) else []
    return [Rec("event", where, ev)] + [Rec("market", f"{where} markets[{i}]", m, ref)
                                        for i, m in enumerate(nested)]


def _candles(candles: Any, ticker: str, where: str) -> list[Rec]:
    items = candles if isinstance(candles, list) else []
    return [Rec("price", f"{where} candlesticks[{i}]", c, ticker) for i, c in enumerate(items)]


def _dollars(obj: dict, key: str) -> float | None:
    """``<key>_dollars`` ("0.5600") when present, else ``<key>`` in cents (56), as dollars."""
    if obj.get(f"{key}_dollars") not in MISSING:
        return float(obj[f"{key}_dollars"])
    return None if obj.get(key) in MISSING else float(obj[key]) / 100


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _phase(m: dict) -> str:
    status = str(m.get("status") or "").lower()
    for phase, names in PHASES.items():
        if status in names:
            return phase
    raise ValueError(f"status {m.get('status')!r} is not a Kalshi market status")


def _outcome(m: dict, phase: str) -> tuple[str, str | None, float | None]:
    """(status, resolution, payout of an ambiguous settlement) of a binary market."""
    if phase != "settled":
        return phase, None, None
    result = str(m.get("result") or "").lower()
    if result in ("yes", "no"):
        return "resolved", result.title(), None
    if result in VOID:
        return "cancelled", None, None
    payout = _dollars(m, "settlement_value")
    if payout is not None and 0 < payout < 1:
        return "ambiguous", None, payout
    return "closed", None, None  # settled, but with no result we can read


def _scalar_outcome(m: dict, phase: str, low: float | None, high: float | None) -> tuple[str, float | None]:
    if phase != "settled":
        return phase, None
    if str(m.get("result") or "").lower() in VOID:
        return "cancelled", None
    value = _number(m.get("expiration_value"))
    payout = _dollars(m, "settlement_value")
    if value is None and payout is not None and low is not None and high is not None:
        value = low + payout * (high - low)  # a scalar contract pays its position in the range
    return ("resolved", value) if value is not None else ("closed", None)


def _resolved_at(m: dict, status: str) -> Any:
    if status in ("open", "closed"):
        return None
    return m.get("settlement_ts") or m.get("expiration_time") or m.get("close_time")


def _rules(m: dict) -> str:
    return "\n\n".join(s for s in (m.get("rules_primary"), m.get("rules_secondary")) if s)


def _market_row(m: dict, event: dict | None) -> tuple[dict, dict[str, Target]]:
    ticker = str(m["ticker"])
    market_id = f"{PLATFORM}:{ticker}"
    phase = _phase(m)
    common = dict(market_id=market_id, platform=PLATFORM,
                  question=m.get("title") or m.get("yes_sub_title") or "",
                  background=m.get("yes_sub_title") or m.get("subtitle"),
                  resolution_criteria=_rules(m), created_at=m.get("created_time") or m.get("open_time"),
                  close_at=m.get("close_time"), url=URL + ticker,
                  tags=[c for c in (m.get("category"), (event or {}).get("category")) if isinstance(c, str)])
    if str(m.get("market_type") or "binary").lower() == "scalar":
        low, high = _number(m.get("floor_strike")), _number(m.get("cap_strike"))
        status, value = _scalar_outcome(m, phase, low, high)
        row = market_row(**common, outcome_type="numeric", status=status, resolution_value=value,
                         range_min=low, range_max=high, resolved_at=_resolved_at(m, status))
        return row, {ticker: "numeric_market"}
    status, resolution, payout = _outcome(m, phase)
    row = market_row(**common, outcome_type="binary", status=status, resolution=resolution,
                     resolution_value=payout, resolved_at=_resolved_at(m, status))
    return row, {ticker: (market_id, "Yes")}


def _event_row(ev: dict, subs: list[dict]) -> tuple[dict, dict[str, Target]]:
    event_ticker = str(ev["event_ticker"])
    market_id = f"{PLATFORM}:event:{event_ticker}"
    labels = [str(m.get("yes_sub_title") or m.get("subtitle") or m["ticker"]).strip() for m in subs]
    if len(set(labels)) < len(labels):
        labels = [str(m["ticker"]) for m in subs]
    legs = []
    for label, m in zip(labels, subs):
        status, resolution, _ = _outcome(m, _phase(m))
        legs.append(Leg(label, status, resolution, to_utc(_resolved_at(m, status))))
    status, resolution, resolved_at = choose_outcome(legs)
    created = [to_utc(m.get("created_time") or m.get("open_time")) for m in subs]
    closes = [to_utc(m.get("close_time")) for m in subs]
    rules = dict.fromkeys(m.get("rules_primary") for m in subs if m.get("rules_primary"))
    row = market_row(
        market_id=market_id, platform=PLATFORM, question=ev.get("title") or "",
        outcome_type="multiple_choice", outcomes=labels, status=status,
        created_at=min((t for t in created if t), default=None),
        close_at=max((t for t in closes if t), default=None), resolved_at=resolved_at,
        resolution=resolution, background=ev.get("sub_title"), resolution_criteria="\n".join(rules),
        url=URL + event_ticker,
        tags=[c for c in [ev.get("category")] + [m.get("category") for m in subs] if isinstance(c, str)])
    return row, {str(m["ticker"]): (market_id, label) for label, m in zip(labels, subs)}


def _candle(c: dict) -> tuple[Any, float | None]:
    """(end_period_ts, last trade price, else the yes bid/ask midpoint) of one candlestick."""
    close = _dollars(c.get("price") or {}, "close")
    if close is None:
        bid, ask = (_dollars(c.get(side) or {}, "close") for side in ("yes_bid", "yes_ask"))
        close = None if bid is None or ask is None else round((bid + ask) / 2, 6)
    return c["end_period_ts"], close


KALSHI = Platform(
    name=PLATFORM,
    market_key=lambda m: m["ticker"],
    event_key=lambda ev: ev["event_ticker"],
    event_ref=lambda m: (m.get("event_ticker"), None),
    is_multi=lambda ev, subs: ev.get("mutually_exclusive") is True,
    market_row=_market_row,
    event_row=_event_row,
    price=_candle,
)
