"""ForecastBench question sets and resolution sets (forecastingresearch/forecastbench-datasets).

Inputs, recognised by shape:
- question sets ``{"forecast_due_date", "question_set", "questions": [...]}``; each question has
  ``id, source, question, background, resolution_criteria, market_info_*`` (``"N/A"`` when
  missing), ``url, freeze_datetime, freeze_datetime_value, resolution_dates``;
- resolution sets ``{"forecast_due_date", "question_set", "resolutions": [...]}``; each row is
  ``id, source, direction, resolution_date, resolved_to, resolved``.

Two kinds of question, two mappings:
- Market questions (manifold, metaculus, polymarket, infer) are one market per platform id,
  ``forecastbench:<source>:<id>``, shared by every round that asked it. The crowd value at the
  question's freeze time is a price of "Yes"; an unresolved row's ``resolved_to`` is the market
  value on its ``resolution_date`` and becomes a price visible from the day after.
- Dataset questions (acled, dbnomics, fred, wikipedia, yfinance) compare a series on
  ``{resolution_date}`` with ``{forecast_due_date}``: one binary market per round and horizon,
  ``forecastbench:<source>:<id>:<due date>:<resolution date>``, created on the due date, with
  the placeholders filled in. Their freeze value is the series' latest level, not a
  probability: it goes into the background, never into prices.

Rows with a list of ids are ForecastBench's combined questions (P(A and not B), ...): they are
derived from questions imported on their own, so they are dropped with a reason. A resolution
row whose question is in no given question set is dropped too. ``resolved_at`` is midnight UTC
of the resolution date: the day the answer becomes public in the replay.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from pastcast.sources.fields import RECORD_ERRORS
from pastcast.sources.imported import MISSING, Imported, to_utc
from pastcast.sources.jsonfiles import READ_ERRORS, failure_reason, read_json
from pastcast.sources.market_rows import STAGE, market_row, price_row
from pastcast.sources.post_rows import html_to_text

PLATFORM = "forecastbench"
MARKET_SOURCES = frozenset({"manifold", "metaculus", "polymarket", "infer"})
DATASET_SOURCES = frozenset({"acled", "dbnomics", "fred", "wikipedia", "yfinance"})


@dataclass
class _Market:
    """A market being assembled from question-set entries and resolution rows."""

    fields: dict
    where: str  # the file and entry it was first read from, for its drops
    prices: list[tuple[datetime, float]] = field(default_factory=list)
    resolution: tuple[date, float, bool] | None = None  # (date, resolved_to, resolved)


def read_forecastbench(paths: Sequence[Path]) -> Imported:
    imported = Imported()
    question_sets, resolution_sets = [], []
    for path in paths:
        imported.seen("file")
        try:
            doc = read_json(path)
        except READ_ERRORS as exc:
            imported.drop(path.name, "file", STAGE, failure_reason(exc), str(exc))
            continue
        if isinstance(doc, dict) and ("questions" in doc or "resolutions" in doc) and not _due_date(doc):
            imported.drop(path.name, "file", STAGE, "malformed_file",
                          f"{path}: field 'forecast_due_date' {str(doc.get('forecast_due_date'))[:40]!r} is not a date")
            continue
        if isinstance(doc, dict) and isinstance(doc.get("questions"), list):
            question_sets.append((path, doc))
        elif isinstance(doc, dict) and isinstance(doc.get("resolutions"), list):
            resolution_sets.append((path, doc))
        else:
            imported.drop(path.name, "file", STAGE, "unknown_shape",
                          f"{path}: neither a question set (questions) nor a resolution set (resolutions)")
            continue
        imported.kept("file")

    markets: dict[str, _Market] = {}
    # (due date, source, id) -> (the question, its market ids: dataset questions have several)
    by_question: dict[tuple[str, str, str], tuple[dict, list[str]]] = {}
    for path, doc in question_sets:
        _read_questions(path, doc, markets, by_question, imported)
    # Rounds in order, so a later round's resolution of the same market wins.
    for path, doc in sorted(resolution_sets, key=lambda pd: str(pd[1].get("forecast_due_date"))):
        _read_resolutions(path, doc, markets, by_question, imported)
    for market_id, market in markets.items():
        _emit(market_id, market, imported)
    return imported


def _due_date(doc: dict) -> str | None:
    """The round's ``forecast_due_date`` as an ISO date, or None when it is not one."""
    try:
        return str(date.fromisoformat(str(doc.get("forecast_due_date"))))
    except ValueError:
        return None


def _fill(text: str, due: str, resolution: str | None) -> str:
    text = text.replace("{forecast_due_date}", due)
    return text.replace("{resolution_date}", resolution) if resolution else text


def _present(value) -> bool:
    return value not in MISSING


def _resolution_dates(raw) -> list[str]:
    """``resolution_dates`` is a list, a Python-repr string of one, or "N/A"."""
    if not _present(raw):
        return []
    if isinstance(raw, str):
        raw = ast.literal_eval(raw)
    return [str(date.fromisoformat(str(d))) for d in raw]


def _read_questions(path: Path, doc: dict, markets: dict, by_question: dict, imported: Imported) -> None:
    due = str(date.fromisoformat(str(doc["forecast_due_date"])))
    for i, q in enumerate(doc["questions"]):
        imported.seen("question")
        where = f"{path} question #{i}"
        try:
            source, qid = str(q["source"]), str(q["id"])
            key = (due, source, qid)
            if key in by_question:  # the same question in another set of this round
                imported.kept("question")
                continue
            if source in MARKET_SOURCES:
                ids = [_market_question(q, source, qid, markets, imported, where)]
            elif source in DATASET_SOURCES:
                ids = [_dataset_question(q, source, qid, due, when, markets, where)
                       for when in _resolution_dates(q.get("resolution_dates"))]
            else:
                imported.drop(f"{source}:{qid}", "question", STAGE, "unknown_source",
                              f"{where}: source {source!r}")
                continue
        except RECORD_ERRORS + (SyntaxError,) as exc:
            imported.drop(f"{q.get('source')}:{q.get('id')}" if isinstance(q, dict) else f"{path.name}#{i}",
                          "question", STAGE, "malformed_question", f"{where}: {exc!r}")
            continue
        by_question[key] = (q, ids)
        imported.kept("question")


def _criteria(q: dict) -> str:
    specific = q.get("market_info_resolution_criteria")
    return specific if _present(specific) else q.get("resolution_criteria") or ""


# ACLED and yfinance write how a question resolves after it, on lines of their own ("...?\n\n
# e.g. If the forecast due date is ..."; "...?\n\nStock splits ... will be accounted for").
_TITLE_THEN_NOTES = re.compile(r"(?P<title>.+?\?)[ \t]*\n\s*(?P<notes>\S.*)", re.S)


def _title_and_criteria(q: dict) -> tuple[str, str]:
    """The question line as the title; the explanation written after it joins the resolution
    criteria, ahead of them (it says how the question resolves)."""
    if not isinstance(q["question"], str):
        raise TypeError(f"question is a {type(q['question']).__name__}, not text")
    question, criteria = q["question"].strip(), _criteria(q)
    split = _TITLE_THEN_NOTES.fullmatch(question)
    if not split:
        return question, criteria
    return split["title"].strip(), "\n\n".join(t for t in (split["notes"].strip(), criteria) if t)


def _market_question(q: dict, source: str, qid: str, markets: dict, imported: Imported, where: str) -> str:
    market_id = f"{PLATFORM}:{source}:{qid}"
    freeze = to_utc(q.get("freeze_datetime"), "freeze_datetime")
    opened = to_utc(q.get("market_info_open_datetime"), "market_info_open_datetime")
    if market_id not in markets:
        title, criteria = _title_and_criteria(q)
        markets[market_id] = _Market({
            "market_id": market_id, "question": title,
            "background": html_to_text(q.get("background")),
            "resolution_criteria": criteria,
            # a market with no stated open time existed at least since its freeze time
            "created_at": opened or freeze,
            "close_at": to_utc(q.get("market_info_close_datetime"), "market_info_close_datetime"),
            "url": q.get("url"),
        }, where)
    if _present(q.get("freeze_datetime_value")):
        imported.seen("price")
        try:
            markets[market_id].prices.append((freeze, _probability(q["freeze_datetime_value"])))
            imported.kept("price")
        except RECORD_ERRORS as exc:
            imported.drop(market_id, "price", STAGE, "malformed_price", f"{where}: freeze value: {exc}")
    return market_id


def _probability(value) -> float:
    p = float(value)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{p} is not a probability")
    return p


def _dataset_question(q: dict, source: str, qid: str, due: str, when: str, markets: dict, where: str) -> str:
    market_id = f"{PLATFORM}:{source}:{qid}:{due}:{when}"
    background = html_to_text(q.get("background"))
    if _present(q.get("freeze_datetime_value")):
        explained = q.get("freeze_datetime_value_explanation")
        stamp = str(q.get("freeze_datetime") or "")[:10]
        background += (f"\n\nLatest value as of {stamp}: {q['freeze_datetime_value']}"
                       + (f" ({explained})" if _present(explained) else ""))
    title, criteria = _title_and_criteria(q)
    markets[market_id] = _Market({
        "market_id": market_id, "question": _fill(title, due, when),
        "background": background.strip(),
        "resolution_criteria": _fill(criteria, due, when),
        "created_at": to_utc(due), "close_at": to_utc(when), "url": q.get("url"),
    }, where)
    return market_id


def _read_resolutions(path: Path, doc: dict, markets: dict, by_question: dict, imported: Imported) -> None:
    due = str(date.fromisoformat(str(doc["forecast_due_date"])))
    for i, row in enumerate(doc["resolutions"]):
        imported.seen("resolution")
        where = f"{path} resolution #{i}"
        try:
            source, when = str(row["source"]), str(date.fromisoformat(str(row["resolution_date"])))
            if isinstance(row["id"], list):
                imported.drop(f"{source}:{'+'.join(map(str, row['id']))}:{when}", "resolution", STAGE,
                              "combination_question",
                              f"{where}: combines {len(row['id'])} questions (directions "
                              f"{row.get('direction')}); its parts are imported on their own")
                continue
            qid = str(row["id"])
            known = by_question.get((due, source, qid))
            if known is None:
                imported.drop(f"{source}:{qid}:{when}", "resolution", STAGE, "question_not_in_set",
                              f"{where}: no question set of round {due} holds {source} {qid}")
                continue
            value, resolved = float(row["resolved_to"]), bool(row["resolved"])
        except RECORD_ERRORS as exc:
            imported.drop(f"{path.name}#{i}", "resolution", STAGE, "malformed_resolution", f"{where}: {exc!r}")
            continue
        question, ids = known
        if source in DATASET_SOURCES:
            market_id = f"{PLATFORM}:{source}:{qid}:{due}:{when}"
            if market_id not in markets:  # a horizon the question set did not list
                ids.append(_dataset_question(question, source, qid, due, when, markets, where))
        else:
            market_id = ids[0]
        markets[market_id].resolution = (date.fromisoformat(when), value, resolved)
        imported.kept("resolution")


def _emit(market_id: str, market: _Market, imported: Imported) -> None:
    fields = dict(market.fields)
    status, resolution, value, resolved_at = _status(fields, market.resolution)
    prices = list(market.prices)
    if market.resolution and not market.resolution[2] and fields["market_id"].split(":")[1] in MARKET_SOURCES:
        # ForecastBench scores open market questions against the market value on that date.
        # Visible from the next day: the row does not say when on that day it was read.
        when, p, _ = market.resolution
        if 0.0 <= p <= 1.0:
            prices.append((to_utc(when) + timedelta(days=1), p))
    try:
        row = market_row(platform=PLATFORM, outcome_type="binary", status=status, resolution=resolution,
                         resolution_value=value, resolved_at=resolved_at, **fields)
    except RECORD_ERRORS as exc:
        imported.seen("market")  # its own kind: a market is made from question and resolution rows
        imported.drop(market_id, "market", STAGE, "malformed_market", f"{market.where}: {exc}")
        return
    imported.add("markets", row)
    for ts, p in sorted(prices, key=lambda tp: (tp[0] is None, str(tp[0]))):
        try:
            imported.add("market_prices", price_row(market_id, ts, "Yes", p))
        except RECORD_ERRORS as exc:  # a price without a time, or not a number
            imported.seen("price_row")  # its own kind: "price" counts the dump's freeze values
            imported.drop(f"{market_id}@{ts}", "price_row", STAGE, "malformed_price", f"{market.where}: {exc}")


def _status(fields: dict, resolution: tuple[date, float, bool] | None):
    """(status, winning label, value, resolved_at) from the latest resolution row."""
    if resolution is None or not resolution[2]:
        closes = fields.get("close_at")
        as_of = to_utc(resolution[0]) if resolution else None
        closed = closes is not None and as_of is not None and closes <= as_of
        return ("closed" if closed else "open"), None, None, None
    when, value, _ = resolution
    resolved_at = datetime(when.year, when.month, when.day, tzinfo=timezone.utc)
    if value in (0.0, 1.0):
        return "resolved", "Yes" if value == 1.0 else "No", None, resolved_at
    # resolved to a probability (e.g. Manifold's MKT): no single winning outcome
    return "ambiguous", None, value, resolved_at
