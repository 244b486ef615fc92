"""Metaculus question dumps into the ``markets`` and ``market_prices`` tables.

Input shapes (https://www.metaculus.com/api/ and the OpenAPI spec in Metaculus/metaculus
``docs/openapi.yml``), detected per record and freely mixed across the files of one import:
- posts (``/api/posts/`` and ``/api/posts/{id}/``): ``question`` (one market),
  ``group_of_questions`` (one market per sub-question), ``conditional`` and ``notebook``
  (dropped, ``unsupported_post_type``); bare question objects are read as one-question posts;
- legacy api2 questions (``/api2/questions/``): ``possibilities`` binary or continuous,
  ``resolution`` 1.0 yes / 0.0 no / -1 ambiguous / -2 annulled, continuous resolutions on the
  question's normalised 0..1 scale (mapped back through ``scale`` min, max, deriv_ratio);
- paginated list responses ``{"results": [...], "next": ...}`` of either; ndjson of either.
``market_id`` is ``metaculus:<question id>``; copies of a question in several files merge.

Rules:
- Prices are the recency-weighted community prediction, one per aggregation point at its
  ``start_time`` (``history`` plus ``latest``; the same point in two copies counts once).
  Binary: ``centers[0]`` (the median P(Yes) the site shows), else ``forecast_values[1]``, else
  ``means[0]``. Multiple choice: ``forecast_values`` (one per option, summing to 1), else
  ``centers``. api2 binary: ``community_prediction.history[].x1.q2`` and
  ``prediction_timeseries[].community_prediction``. Numeric and date questions have no
  outcome labels, so their history points are dropped (``numeric_market``); a dropped
  question's embedded history goes down with it, uncounted.
- Numeric, discrete and date questions are numeric markets with ``range_min``/``range_max``
  from ``scaling`` (log scale when ``zero_point`` is set); date values are epoch seconds.
  ``above_upper_bound``/``below_lower_bound`` resolve to the bound itself.
- ``tags`` are the names of the post's ``projects`` of kind category, topic and tag (legacy
  api2 questions: none).
- ``created_at`` is when forecasting opened (``open_time``, else ``published_at``, else
  ``created_at``): a draft is not public. Unresolved questions take their status from the
  question's ``status`` (api2: ``active_state``); without one, a question is ``closed`` when
  its close time is at or before the newest event time in the data, else ``open``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pastcast.sources.fields import RECORD_ERRORS
from pastcast.sources.imported import Imported, records_or_drop, to_utc
from pastcast.sources.market_rows import BINARY, STAGE, market_row, price_row

PLATFORM = "metaculus"
SITE = "https://www.metaculus.com"
POST_PARTS = ("question", "group_of_questions", "conditional", "notebook")
OUTCOME_TYPES = {"binary": "binary", "multiple_choice": "multiple_choice", "numeric": "numeric",
                 "discrete": "numeric", "date": "date"}
OPEN_STATES = {"open": "open", "upcoming": "open", "closed": "closed"}
PROJECT_KINDS = ("category", "topic", "tag")  # a post's projects that name its subject (tags)
NUMERIC = ("numeric", "date")  # no outcome labels: a value in a range (dates in epoch seconds)
LEGACY_CODES = {-1.0: "ambiguous", -2.0: "annulled"}  # api2's special resolution values
# Times that say "the data is at least this new" (close times are schedules, so none of them).
EVENT_TIMES = ("created_at", "published_at", "edited_at", "actual_resolve_time",
               "resolution_set_time", "created_time", "publish_time", "last_activity_time")


class Skip(Exception):
    """A record that is well formed but cannot become a row; ``args`` = (reason, detail)."""


@dataclass
class Entry:
    """One copy of one question: its post (api2: the question itself) and where it was."""

    where: str
    legacy: bool
    post: dict
    question: dict


def read_metaculus(paths: Sequence[Path]) -> Imported:
    imported = Imported()
    entries: dict[str, list[Entry]] = {}
    for path in paths:
        _read_file(Path(path), entries, imported)
    as_of = _newest(entries)
    for question_id, group in entries.items():
        _question(question_id, group, as_of, imported)
    return imported


# ------------------------------------------------------------------ files and their shapes

def _shape(obj: Any) -> str | None:
    if not isinstance(obj, dict):
        return None
    if any(k in obj for k in POST_PARTS) or ("published_at" in obj and "title" in obj):
        return "post"
    if "type" in obj and ("scheduled_close_time" in obj or "aggregations" in obj):
        return "question"
    if "possibilities" in obj or "publish_time" in obj or "created_time" in obj:
        return "legacy"
    return None


def _read_file(path: Path, entries: dict[str, list[Entry]], imported: Imported) -> None:
    records = records_or_drop(path, imported, STAGE)
    if records is None:
        return
    if len(records) == 1 and isinstance(records[0][1], dict) and isinstance(
            records[0][1].get("results"), list):
        records = [(f"results[{i}]", r) for i, r in enumerate(records[0][1]["results"])]
    shapes = [_shape(obj) for _, obj in records]
    if records and not any(shapes):
        imported.seen("file")
        first = records[0][1]
        keys = sorted(first)[:8] if isinstance(first, dict) else type(first).__name__
        imported.drop(path.name, "file", STAGE, "unknown_file_shape",
                      f"{path}: neither Metaculus posts nor questions (first record: {keys})")
        return
    for (loc, obj), shape in zip(records, shapes):
        where, item = f"{path}: {loc}", f"{path.name}:{loc}"
        if shape is None:
            imported.seen("record")
            bad = isinstance(obj, Exception)
            imported.drop(item, "record", STAGE, "malformed_record" if bad else "unknown_record",
                          f"{where}: {obj if bad else 'neither a post nor a question'}")
        elif shape == "post":
            _post_entries(obj, where, item, entries, imported)
        else:
            post = obj if shape == "legacy" else {"id": obj.get("post_id")}
            _add(entries, Entry(where, shape == "legacy", post, obj), item, imported)


def _post_entries(post: dict, where: str, item: str, entries: dict[str, list[Entry]],
                  imported: Imported) -> None:
    """A post's questions: one, a group's sub-questions, or a drop."""
    post_id = f"{PLATFORM}:post:{post.get('id')}"
    group = post.get("group_of_questions")
    if isinstance(post.get("question"), dict):
        _add(entries, Entry(where, False, post, post["question"]), item, imported)
    elif isinstance(group, dict) and group.get("questions"):
        for i, question in enumerate(group["questions"]):
            _add(entries, Entry(f"{where}: group_of_questions.questions[{i}]", False, post, question),
                 f"{item}[{i}]", imported)
    else:
        imported.seen("market")
        kind = next((k for k in ("conditional", "notebook") if post.get(k)), None)
        if kind:
            imported.drop(post_id, "market", STAGE, "unsupported_post_type",
                          f"{where}: a {kind} post is not a single forecast")
        else:
            imported.drop(post_id, "market", STAGE, "malformed_market",
                          f"{where}: a post with no question or group of questions")


def _add(entries: dict[str, list[Entry]], entry: Entry, item: str, imported: Imported) -> None:
    question_id = entry.question.get("id") if isinstance(entry.question, dict) else None
    if question_id is None:
        imported.seen("market")
        imported.drop(item, "market", STAGE, "malformed_market", f"{entry.where}: a question with no id")
        return
    entries.setdefault(str(question_id), []).append(entry)


def _newest(entries: dict[str, list[Entry]]) -> datetime | None:
    """The newest event time in the data: the import's "now"."""
    times: list[datetime] = []
    for group in entries.values():
        for e in group:
            values = [d.get(k) for d in (e.post, e.question) for k in EVENT_TIMES]
            values += [ts for _, ts, _ in _raw_points(e)]
            for value in values:
                try:
                    times.append(to_utc(value))
                except RECORD_ERRORS:
                    pass  # a bad time fails its own record later
    return max(filter(None, times), default=None)


# ------------------------------------------------------------------ markets

def _merged(dicts: list[dict]) -> dict:
    """Later copies win, except where they only say null."""
    out: dict = {}
    for d in dicts:
        out.update({k: v for k, v in d.items() if v is not None or k not in out})
    return out


def _question(question_id: str, group: list[Entry], as_of: datetime | None,
              imported: Imported) -> None:
    imported.seen("market", len(group))
    market_id = f"{PLATFORM}:{question_id}"
    post, question = _merged([e.post for e in group]), _merged([e.question for e in group])
    build = _legacy_market if group[-1].legacy else _post_market
    try:
        row = build(market_id, post, question, as_of)
    except Skip as skip:
        reason, detail = skip.args
    except RECORD_ERRORS as exc:
        reason, detail = "malformed_market", repr(exc)
    else:
        imported.add("markets", row)
        imported.kept("market", len(group))
        _prices(row, group, imported)
        return
    for entry in group:
        imported.drop(market_id, "market", STAGE, reason, f"{entry.where}: {detail}")


def _status(state: Any, close_at: Any, as_of: datetime | None) -> str:
    if str(state or "").lower() in OPEN_STATES:
        return OPEN_STATES[str(state).lower()]
    if str(state or "").lower() == "resolved":
        raise ValueError("status resolved without a resolution")
    closes = to_utc(close_at, "close time")
    return "closed" if closes and as_of and closes <= as_of else "open"


def _resolution_fields(res: Any, outcome_type: str, outcomes: list[str],
                       numeric: Any) -> dict | None:
    """Status and resolution fields for a resolution (None: unresolved). ``numeric`` maps a
    resolution to a numeric market's value."""
    if res is None or res == "":
        return None
    text = str(res).strip().lower()
    if text == "annulled":
        return {"status": "cancelled"}
    if text == "ambiguous":
        return {"status": "ambiguous"}
    if outcome_type in NUMERIC:
        return {"status": "resolved", "resolution_value": numeric(res)}
    if outcome_type == "binary" and text in ("yes", "1", "1.0", "no", "0", "0.0"):
        return {"status": "resolved", "resolution": "Yes" if text in ("yes", "1", "1.0") else "No"}
    if outcome_type == "multiple_choice" and res in outcomes:
        return {"status": "resolved", "resolution": res}
    raise ValueError(f"resolution {res!r} is not one of {outcomes or 'the outcomes'}")


def _post_market(market_id: str, post: dict, q: dict, as_of: datetime | None) -> dict:
    kind = q["type"]
    if kind not in OUTCOME_TYPES:
        raise Skip("unsupported_market_type", f"question type {kind!r}")
    outcome_type = OUTCOME_TYPES[kind]
    outcomes = BINARY if outcome_type == "binary" else list(q.get("options") or [])
    scaling = q.get("scaling") or {}
    low, high = scaling.get("range_min"), scaling.get("range_max")

    def value(res: Any) -> float:
        if res in ("above_upper_bound", "below_lower_bound"):
            return float(high if res == "above_upper_bound" else low)
        if kind == "date":
            return to_utc(res, "date resolution").timestamp()
        return float(res)

    close_at = q.get("actual_close_time") or q.get("scheduled_close_time") or \
        post.get("scheduled_close_time")
    fields = _resolution_fields(q.get("resolution"), outcome_type, outcomes, value) or {
        "status": _status(q.get("status") or post.get("status"), close_at, as_of)}
    if outcome_type in NUMERIC:
        fields |= {"range_min": low, "range_max": high, "log_scale": scaling.get("zero_point") is not None}
    group = post.get("group_of_questions") or {}
    title, label = q.get("title") or "", q.get("label")
    if label and title in ("", label):  # a sub-question titled by its label alone
        title = f"{post.get('title') or ''} ({label})"
    title = title or post.get("title") or ""
    criteria = [q.get("resolution_criteria") or group.get("resolution_criteria"),
                q.get("fine_print") or group.get("fine_print")]
    post_id, slug = post.get("id") or q.get("post_id"), post.get("slug")
    return market_row(
        market_id=market_id, platform=PLATFORM, question=title, outcome_type=outcome_type,
        outcomes=outcomes, background=q.get("description") or group.get("description"),
        resolution_criteria="\n\n".join(c for c in criteria if c),
        created_at=q.get("open_time") or post.get("published_at") or q.get("created_at")
        or post.get("created_at"),
        close_at=close_at, resolved_at=_resolved_at(fields, q.get("actual_resolve_time"),
                                                    q.get("resolution_set_time"),
                                                    post.get("actual_resolve_time")),
        url=f"{SITE}/questions/{post_id}/{slug + '/' if slug else ''}" if post_id else None,
        tags=_project_names(post), **fields)


def _project_names(post: dict) -> list:
    """The names of a post's topical projects: ``projects.category``, ``.topic`` and ``.tag``
    (tournaments, the site feed and question series say where, not what, so they are left out)."""
    projects = post.get("projects")
    if not isinstance(projects, dict):
        return []
    return [p.get("name") for kind in PROJECT_KINDS for p in projects.get(kind) or []
            if isinstance(p, dict)]


def _legacy_market(market_id: str, post: dict, q: dict, as_of: datetime | None) -> dict:
    possibilities = q["possibilities"]
    kind = possibilities.get("type")
    if kind not in ("binary", "continuous"):
        raise Skip("unsupported_market_type", f"api2 possibilities type {kind!r}")
    outcome_type = "binary" if kind == "binary" else "numeric"
    fields: dict[str, Any] = {}
    if outcome_type == "numeric":
        scale = possibilities["scale"]
        # Date questions give their range as dates: a date market, in epoch seconds.
        if not isinstance(scale["min"], (int, float)):
            outcome_type = "date"
        low, high = (float(v) if isinstance(v, (int, float)) else to_utc(v).timestamp()
                     for v in (scale["min"], scale["max"]))
        ratio = float(scale.get("deriv_ratio") or 1)
        fields = {"range_min": low, "range_max": high, "log_scale": ratio != 1}

        def value(res: Any) -> float:  # the inverse of api2's normalisation onto 0..1
            r = float(res)
            return low + (high - low) * ((ratio ** r - 1) / (ratio - 1) if ratio != 1 else r)
    else:
        value = float
    res = q.get("resolution")
    if res not in (None, "") and float(res) in LEGACY_CODES:
        res = LEGACY_CODES[float(res)]
    fields |= _resolution_fields(res, outcome_type, [], value) or {
        "status": _status(q.get("active_state"), q.get("close_time"), as_of)}
    page = q.get("page_url") or f"/questions/{q['id']}/"
    return market_row(
        market_id=market_id, platform=PLATFORM, question=q.get("title") or "",
        outcome_type=outcome_type, background=q.get("description"),
        resolution_criteria=q.get("resolution_criteria") or q.get("fine_print"),
        created_at=q.get("publish_time") or q.get("created_time"), close_at=q.get("close_time"),
        resolved_at=_resolved_at(fields, q.get("resolve_time")),
        url=page if page.startswith("http") else SITE + page, **fields)


def _resolved_at(fields: dict, *candidates: Any) -> Any:
    if fields["status"] not in ("resolved", "cancelled", "ambiguous"):
        return None
    return next((c for c in candidates if c not in (None, "")), None)


# ------------------------------------------------------------------ prices

def _raw_points(entry: Entry) -> Iterator[tuple[str, Any, dict]]:
    """(locator, time, point) for each community-prediction point of one question copy."""
    q = entry.question
    if entry.legacy:
        for i, p in enumerate(_list(_dict(q.get("community_prediction")).get("history"))):
            yield f"community_prediction.history[{i}]", _dict(p).get("t"), p
        for i, p in enumerate(_list(q.get("prediction_timeseries"))):
            yield f"prediction_timeseries[{i}]", _dict(p).get("t"), p
        return
    weighted = _dict(_dict(q.get("aggregations")).get("recency_weighted"))
    for i, p in enumerate(_list(weighted.get("history"))):
        yield f"recency_weighted.history[{i}]", _dict(p).get("start_time"), p
    if weighted.get("latest"):
        latest = weighted["latest"]
        yield "recency_weighted.latest", _dict(latest).get("start_time"), latest


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _values(row: dict, legacy: bool, point: dict) -> list[float]:
    """The point's probabilities, one per outcome ("Yes" only for binary)."""
    if legacy:
        x1 = point.get("x1")
        return [x1["q2"] if isinstance(x1, dict) else point["community_prediction"]]
    if row["outcome_type"] == "binary":
        for key, i in (("centers", 0), ("forecast_values", 1), ("means", 0)):
            if point.get(key):
                return [point[key][i]]
        raise ValueError("no centers, forecast_values or means")
    values = point.get("forecast_values") or point.get("centers") or []
    if len(values) != len(row["outcomes"]):
        raise ValueError(f"{len(values)} values for {len(row['outcomes'])} options")
    return values


def _prices(row: dict, group: list[Entry], imported: Imported) -> None:
    market_id, done, rows = row["market_id"], set(), []
    for entry in group:
        for loc, ts, point in _raw_points(entry):
            imported.seen("price")
            where = f"{entry.where}: {loc}"
            try:
                if row["outcome_type"] in NUMERIC:
                    raise Skip("numeric_market", "numeric markets have no outcome to price")
                when = to_utc(ts, "start_time")
                if when in done:  # the same point in another copy (or history and latest)
                    imported.kept("price")
                    continue
                labels = row["outcomes"][:1] if row["outcome_type"] == "binary" else row["outcomes"]
                prices = [price_row(market_id, when, o, v)
                          for o, v in zip(labels, _values(row, entry.legacy, point), strict=True)]
            except Skip as skip:
                imported.drop(market_id, "price", STAGE, skip.args[0], f"{where}: {skip.args[1]}")
                continue
            except RECORD_ERRORS as exc:
                imported.drop(market_id, "price", STAGE, "malformed_price", f"{where}: {exc!r}")
                continue
            done.add(when)
            imported.kept("price")
            rows += prices
    for price in sorted(rows, key=lambda r: r["ts"]):
        imported.add("market_prices", price)
