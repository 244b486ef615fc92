"""Building rows of the ``markets`` and ``market_prices`` tables, checked once for every reader.

Conventions every reader follows:
- ``market_id`` is ``<platform>:<the platform's own id>``; drops of a market use the same id.
- Binary markets have outcomes ``["Yes", "No"]`` and their prices are the probability of "Yes"
  (outcome "Yes"). Multiple-choice markets have one price series per outcome label.
- ``status``: open (trading), closed (trading over, not resolved), resolved (``resolution``
  names the winning label, or numeric markets carry ``resolution_value``), cancelled (annulled,
  N/A: no ground truth), ambiguous (resolved to a probability or to several outcomes at once;
  ``resolution_value`` keeps the probability when there is one).
- Numeric markets (``numeric``, or ``date`` with values in epoch seconds) have no outcome
  labels; their stated range and resolution value let the question stage bucket them.
- Times are UTC; a price is visible from its ``ts`` on.
- ``tags`` are the platform's own topic labels as it writes them (Manifold ``groupSlugs``,
  Polymarket tag labels and ``category``, Metaculus category/tag/topic names, Kalshi
  ``category``): stripped, blanks and repeats dropped, first-seen order; empty where the
  platform gives none (ForecastBench). The question stage maps them onto its categories.
"""

from __future__ import annotations

from datetime import datetime

from pastcast.schemas import MARKET_PRICES, MARKETS
from pastcast.sources import fields
from pastcast.sources.fields import BadField, check_row
from pastcast.sources.imported import to_utc

OUTCOME_TYPES = ("binary", "multiple_choice", "numeric", "date")  # date: numeric in epoch seconds
STATUSES = ("open", "closed", "resolved", "cancelled", "ambiguous")
BINARY = ["Yes", "No"]
STAGE = "markets"


def market_row(*, market_id: str, platform: str, question: str, outcome_type: str,
               status: str, created_at, outcomes: list[str] | None = None,
               background: str | None = "", resolution_criteria: str | None = None,
               close_at=None, resolved_at=None, resolution: str | None = None,
               resolution_value: float | None = None, range_min: float | None = None,
               range_max: float | None = None, log_scale: bool | None = None,
               url: str | None = None, tags=None) -> dict:
    """One ``markets`` row; a ValueError saying what is wrong when the fields disagree, a
    ``BadField`` naming a field of the wrong type or out of range."""
    if outcome_type not in OUTCOME_TYPES:
        raise ValueError(f"outcome_type {outcome_type!r} is not one of {OUTCOME_TYPES}")
    if status not in STATUSES:
        raise ValueError(f"status {status!r} is not one of {STATUSES}")
    for name, value in (("question", question), ("background", background),
                        ("resolution_criteria", resolution_criteria), ("resolution", resolution)):
        fields.text(value, name)  # a dump's number or list, not text
    if outcomes is not None and (not isinstance(outcomes, list) or not all(isinstance(o, str) for o in outcomes)):
        raise BadField("outcomes", f"{outcomes!r:.60} is not a list of labels")
    if not (question or "").strip():
        raise ValueError("the market has no question text")
    outcomes = list(BINARY if outcome_type == "binary" and not outcomes else outcomes or [])
    if outcome_type == "multiple_choice" and len(outcomes) < 2:
        raise ValueError(f"a multiple-choice market needs two or more outcomes, has {outcomes}")
    if len(set(outcomes)) != len(outcomes):
        raise ValueError(f"outcome labels repeat: {outcomes}")
    if resolution is not None:
        if status != "resolved":
            raise ValueError(f"resolution {resolution!r} given for a market that is {status}")
        if resolution not in outcomes:
            raise ValueError(f"resolution {resolution!r} is not one of the outcomes {outcomes}")
    if status == "resolved" and resolution is None and not (
            outcome_type in ("numeric", "date") and resolution_value is not None):
        raise ValueError("a resolved market needs its winning outcome (or a numeric value)")
    created = to_utc(created_at, "created_at")
    if created is None:
        raise ValueError("the market has no creation time")
    resolved = to_utc(resolved_at, "resolved_at")
    if status == "resolved" and resolved is None:
        raise ValueError("a resolved market needs its resolution time")
    return check_row({
        "market_id": market_id,
        "platform": platform,
        "question": question.strip(),
        "background": (background or "").strip(),
        "resolution_criteria": (resolution_criteria or "").strip() or None,
        "outcome_type": outcome_type,
        "outcomes": outcomes,
        "status": status,
        "created_at": created,
        "close_at": to_utc(close_at, "close_at"),
        "resolved_at": resolved,
        "resolution": resolution,
        "resolution_value": fields.number(resolution_value, "resolution_value"),
        "range_min": fields.number(range_min, "range_min"),
        "range_max": fields.number(range_max, "range_max"),
        "log_scale": log_scale,
        "url": url,
        "tags": clean_tags(tags),
    }, MARKETS)


def clean_tags(tags) -> list[str]:
    """Tag labels as strings: a platform's tag objects give their ``label`` or ``name`` (else
    ``slug``); blanks and repeats (case-insensitive) dropped, first-seen order kept."""
    out: list[str] = []
    seen: set[str] = set()
    for tag in [tags] if isinstance(tags, (str, dict)) else tags or ():
        if isinstance(tag, dict):
            tag = tag.get("label") or tag.get("name") or tag.get("slug")
        if not isinstance(tag, str) or not tag.strip():
            continue
        text = " ".join(tag.split())
        if text.casefold() not in seen:
            seen.add(text.casefold())
            out.append(text)
    return out


def price_row(market_id: str, ts, outcome: str, price) -> dict:
    """One ``market_prices`` row; a ValueError for a missing time or a price outside [0, 1]."""
    when: datetime | None = to_utc(ts, "price time")
    if when is None:
        raise ValueError("the price has no time")
    value = fields.number(price, "price")
    if value is None or not 0.0 <= value <= 1.0:
        raise BadField("price", "missing" if value is None else f"{value} is outside [0, 1]")
    return check_row({"market_id": market_id, "ts": when, "outcome": outcome, "price": value}, MARKET_PRICES)
