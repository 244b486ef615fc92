"""Polymarket API dumps into the ``markets`` and ``market_prices`` tables.

Inputs: every file of one import at once (price histories name tokens of markets defined in
other files). Each file's role is read from its JSON shape; any may be plain, gzip or zstd, one
document, a list or ndjson (see ``jsonfiles``):
- Gamma ``GET /events``: a list of events (or one event object), each with nested ``markets``.
- Gamma ``GET /markets``: a list of markets (or one market object).
- CLOB ``GET /prices-history``: ``{"history": [{"t": <unix seconds>, "p": <price>}, ...]}`` for
  one outcome token. The token id is, in order: a ``"market"`` key beside ``history`` (the
  request's own parameter, saved with the response), else the file name ``<token id>.json``.
  A mapping ``{"<token id>": {"history": [...]}, ...}`` holds several tokens in one file.
A file of any other shape is dropped whole (kind ``file``, ``unknown_shape``).

Gamma quirks: ``outcomes``, ``outcomePrices`` and ``clobTokenIds`` are JSON strings inside the
JSON (plain lists pass too); times are ISO with or without ``Z`` (``closedTime`` reads
``2024-11-06 10:02:09+00``).

Markets:
- Outcomes Yes/No make a ``binary`` market ``polymarket:<market id>``; other two-outcome markets
  (``["Up", "Down"]``, team names) are ``multiple_choice`` over their own labels.
- A ``negRisk`` event with two or more markets is ONE ``multiple_choice`` market
  ``polymarket:event:<event id>``: outcomes are the markets' ``groupItemTitle``, each outcome's
  prices come from its market's Yes token, and it resolves to the market that resolved Yes; the
  binary sub-markets count as kept (merged). Markets of a ``/markets`` dump are grouped by the
  event embedded in them (``events[0]``) when the import has no such event. Markets of other
  events stay separate.
- Status: not ``closed`` -> open; closed while ``umaResolutionStatus`` is set but not
  ``resolved`` (proposed, disputed) -> closed; else resolved to the one outcome whose final
  price is >= 0.99, cancelled when every final price is ~0 (nothing paid out), ambiguous when
  the prices are all equal (a 50/50 settlement) or UMA says resolved at another price
  (``resolution_value`` = final P(Yes)); otherwise closed.
- ``tags``: the labels of the market's ``tags`` (Gamma sends them with ``include_tag=true``)
  and its ``category`` (older markets), then those of its event (``tags``, ``category``).
- ``resolved_at`` = ``closedTime`` (set when Polymarket closes a resolved market), else
  ``endDate``. ``url`` is constructed: ``https://polymarket.com/event/<event slug>`` (the
  market's own slug when no event is known).

Prices: a binary market's series is its Yes token's history. Points of its No token are dropped
(``no_token``), never converted to 1-p, so a market has one P(Yes) series, never two that
disagree. Points of tokens no market in the import has are dropped (``unknown_market``).

The assembly (records -> events/markets -> rows -> prices) is shared with ``kalshi``
(``market_events``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pastcast.sources.imported import MISSING, Imported, to_utc
from pastcast.sources.market_events import (
    SETTLED,
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
from pastcast.sources.market_rows import BINARY, market_row

PLATFORM = "polymarket"
WON = 0.99  # a final price this close to 1 is a payout, not a trading price


def read_polymarket(paths: Sequence[Path]) -> Imported:
    """Gamma events/markets and CLOB price histories; tables ``markets`` and ``market_prices``."""
    imported = Imported()
    recs = load_records(paths, _classify, imported, "Polymarket")
    targets = build_markets(recs, POLYMARKET, imported)
    add_prices(recs, targets, POLYMARKET, imported)
    return imported


def _classify(rec: Any, path: Path) -> list[Rec] | None:
    """The records in one JSON value, by its shape; None for a shape Polymarket never sends."""
    if not isinstance(rec, dict):
        return None
    if isinstance(rec.get("history"), list):  # CLOB /prices-history
        return _points(rec["history"], str(rec.get("market") or file_stem(path)), "")
    if isinstance(rec.get("markets"), list) and "question" not in rec:  # Gamma event
        ref = None if rec.get("id") is None else str(rec["id"])
        return [Rec("event", "", rec)] + [Rec("market", f" markets[{i}]", m, ref)
                                          for i, m in enumerate(rec["markets"])]
    if "question" in rec and any(k in rec for k in ("outcomes", "clobTokenIds", "conditionId")):
        return [Rec("market", "", rec)]
    if rec and all(isinstance(v, dict) and isinstance(v.get("history"), list) for v in rec.values()):
        return [pt for token, v in rec.items() for pt in _points(v["history"], str(token), f" {token}")]
    return None


def _points(history: list, token: str, where: str) -> list[Rec]:
    return [Rec("price", f"{where} history[{i}]", pt, token) for i, pt in enumerate(history)]


def _jlist(value: Any) -> list:
    """Gamma's ``'["Yes", "No"]'``: a JSON list inside a JSON string (a plain list passes)."""
    if value in MISSING:
        return []
    items = json.loads(value) if isinstance(value, str) else value
    if not isinstance(items, list):
        raise ValueError(f"{value!r} is not a list")
    return items


def _outcomes(m: dict) -> tuple[list[str], list[float], list[str]]:
    """(labels, final prices, token ids), aligned; Yes/No labels normalised to ``BINARY``."""
    labels = [str(o) for o in _jlist(m.get("outcomes"))]
    if [o.lower() for o in labels] == ["yes", "no"]:
        labels = list(BINARY)
    prices = [float(p) for p in _jlist(m.get("outcomePrices"))]
    tokens = [str(t) for t in _jlist(m.get("clobTokenIds"))]
    if len(prices) not in (0, len(labels)) or len(tokens) not in (0, len(labels)):
        raise ValueError(f"outcomes {labels}, outcomePrices {prices} and clobTokenIds differ in length")
    return labels, prices, tokens


def _settle(m: dict, labels: list[str], prices: list[float]) -> tuple[str, str | None, float | None]:
    """(status, winning label, final P(Yes) of an ambiguous settlement) from Gamma's flags."""
    if not m.get("closed"):
        return "open", None, None
    uma = str(m.get("umaResolutionStatus") or "").lower()
    if (uma and uma != "resolved") or not prices:
        return "closed", None, None  # proposed or disputed: the outcome may still change
    won = [label for label, p in zip(labels, prices) if p >= WON]
    if len(won) == 1:
        return "resolved", won[0], None
    p_yes = prices[labels.index("Yes")] if "Yes" in labels else None
    if max(prices) < 1 - WON:
        return "cancelled", None, None
    if max(prices) - min(prices) < 1 - WON or uma == "resolved":
        return "ambiguous", None, p_yes
    return "closed", None, None


def _resolved_at(m: dict, status: str) -> Any:
    return (m.get("closedTime") or m.get("endDate")) if status in SETTLED else None


def _criteria(m: dict) -> str:
    """Gamma's ``description`` is the resolution text; ``resolutionSource`` is a URL."""
    source = m.get("resolutionSource")
    return "\n\n".join(s for s in (m.get("description"), source and f"Resolution source: {source}") if s)


def _url(event: dict | None, m: dict) -> str | None:
    slug = (event or {}).get("slug") or m.get("slug")
    return f"https://polymarket.com/event/{slug}" if slug else None


def _tags(*records: dict | None) -> list:
    """Tag objects (``{"label", "slug"}``) and ``category`` strings of the records, in order."""
    out: list = []
    for rec in records:
        if not isinstance(rec, dict):
            continue
        if isinstance(rec.get("tags"), list):
            out += [t for t in rec["tags"] if isinstance(t, (dict, str))]
        if isinstance(rec.get("category"), str):
            out.append(rec["category"])
    return out


def _market_row(m: dict, event: dict | None) -> tuple[dict, dict[str, Target]]:
    labels, prices, tokens = _outcomes(m)
    binary = labels == BINARY
    status, resolution, p_yes = _settle(m, labels, prices)
    market_id = f"{PLATFORM}:{m['id']}"
    row = market_row(
        market_id=market_id, platform=PLATFORM, question=m.get("question") or "",
        outcome_type="binary" if binary else "multiple_choice", outcomes=labels, status=status,
        created_at=m.get("createdAt") or m.get("startDate"), close_at=m.get("endDate"),
        resolved_at=_resolved_at(m, status), resolution=resolution,
        resolution_value=p_yes if binary else None, resolution_criteria=_criteria(m),
        url=_url(event, m), tags=_tags(m, event))
    targets: dict[str, Target] = {token: "no_token" if binary and label == "No" else (market_id, label)
                                  for label, token in zip(labels, tokens)}
    return row, targets


def _event_row(ev: dict, subs: list[dict]) -> tuple[dict, dict[str, Target]]:
    market_id = f"{PLATFORM}:event:{ev['id']}"
    labels = [str(m.get("groupItemTitle") or m.get("question") or "").strip() for m in subs]
    if len(set(labels)) < len(labels):
        labels = [str(m.get("question")) for m in subs]
    legs, targets = [], {}
    for label, m in zip(labels, subs):
        outcomes, prices, tokens = _outcomes(m)
        if outcomes != BINARY:
            raise ValueError(f"sub-market {m.get('id')} has outcomes {outcomes}, not Yes/No")
        status, resolution, _ = _settle(m, outcomes, prices)
        legs.append(Leg(label, status, resolution, to_utc(_resolved_at(m, status))))
        targets.update(zip(tokens, [(market_id, label), "no_token"]))
    status, resolution, resolved_at = choose_outcome(legs)
    created = ev.get("createdAt") or ev.get("startDate") or min(
        to_utc(m.get("createdAt") or m.get("startDate")) for m in subs)
    row = market_row(
        market_id=market_id, platform=PLATFORM, question=ev.get("title") or "",
        outcome_type="multiple_choice", outcomes=labels, status=status, created_at=created,
        close_at=ev.get("endDate"), resolved_at=resolved_at, resolution=resolution,
        resolution_criteria=_criteria(ev), url=_url(ev, {}), tags=_tags(ev, *subs))
    return row, targets


def _embedded_event(m: dict) -> tuple[str | None, dict | None]:
    """Gamma ``/markets`` items carry their event as ``events[0]``."""
    events = m.get("events")
    if isinstance(events, list) and events and isinstance(events[0], dict) and events[0].get("id"):
        return str(events[0]["id"]), events[0]
    return None, None


POLYMARKET = Platform(
    name=PLATFORM,
    market_key=lambda m: m["id"],
    event_key=lambda ev: ev["id"],
    event_ref=_embedded_event,
    is_multi=lambda ev, subs: bool(ev.get("negRisk") or all(m.get("negRisk") for m in subs)),
    market_row=_market_row,
    event_row=_event_row,
    price=lambda pt: (pt["t"], pt["p"]),
)
