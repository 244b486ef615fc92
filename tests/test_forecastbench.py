"""ForecastBench question and resolution sets: the real files under ../shared/data, and small
hand-made sets for the cases they lack. Fields follow the files of
forecastingresearch/forecastbench-datasets (question sets: id, source, question, background,
resolution_criteria, market_info_open_datetime, market_info_close_datetime,
market_info_resolution_criteria, url, freeze_datetime, freeze_datetime_value,
freeze_datetime_value_explanation, resolution_dates; resolution sets: id, source, direction,
resolution_date, resolved_to, resolved)."""

import ast
import json
from collections import Counter
from datetime import date, datetime, timezone

import polars as pl

from pastcast.questions.markets import market_questions
from pastcast.schemas import MARKET_PRICES, MARKETS
from pastcast.sources.forecastbench import DATASET_SOURCES, MARKET_SOURCES, read_forecastbench
from warcs import SHARED, needs_shared

FB = SHARED / "markets" / "forecastbench"


def _dates(raw) -> list[str]:
    return [] if raw in ("N/A", None) else list(ast.literal_eval(raw) if isinstance(raw, str) else raw)


@needs_shared
def test_every_real_forecastbench_row_is_a_market_a_price_or_a_drop():
    files = sorted(FB.glob("*.json"))
    imported = read_forecastbench(files)
    assert imported.unaccounted() == {}
    markets = imported.frame("markets", MARKETS)
    prices = imported.frame("market_prices", MARKET_PRICES)
    drops = imported.drops_frame()

    # Independent count from the raw files.
    docs = [json.loads(p.read_text()) for p in files]
    question_sets = [d for d in docs if "questions" in d]
    resolution_sets = [d for d in docs if "resolutions" in d]
    asked = {(d["forecast_due_date"], q["source"], q["id"]): q for d in question_sets for q in d["questions"]}
    rows = [(d["forecast_due_date"], r) for d in resolution_sets for r in d["resolutions"]]
    combos = sum(isinstance(r["id"], list) for _, r in rows)
    orphans = sum(not isinstance(r["id"], list) and (due, r["source"], r["id"]) not in asked for due, r in rows)
    assert len(asked) == sum(len(d["questions"]) for d in question_sets) == 700
    assert len(rows) == 8751 and combos == 5992 and orphans == 973
    assert imported.read["question"] == 700 and imported.used["question"] == 700
    assert imported.read["resolution"] == len(rows)
    assert Counter(drops["reason"]) == {"combination_question": combos, "question_not_in_set": orphans}
    assert imported.used["resolution"] == len(rows) - combos - orphans

    # One market per market question (across rounds) and per dataset question and horizon.
    expected = {f"forecastbench:{s}:{i}" for (_, s, i) in asked if s in MARKET_SOURCES}
    for (due, s, i), q in asked.items():
        if s in DATASET_SOURCES:
            expected |= {f"forecastbench:{s}:{i}:{due}:{d}" for d in _dates(q["resolution_dates"])}
    for due, r in rows:
        if not isinstance(r["id"], list) and r["source"] in DATASET_SOURCES and (due, r["source"], r["id"]) in asked:
            expected.add(f"forecastbench:{r['source']}:{r['id']}:{due}:{r['resolution_date']}")
    assert set(markets["market_id"]) == expected and markets["market_id"].n_unique() == markets.height

    # Resolutions as the rows say; placeholders filled in; prices only for market questions.
    by_id = {m["market_id"]: m for m in markets.iter_rows(named=True)}
    for due, r in rows:
        if isinstance(r["id"], list) or (due, r["source"], r["id"]) not in asked or not r["resolved"]:
            continue
        key = (f"forecastbench:{r['source']}:{r['id']}" if r["source"] in MARKET_SOURCES
               else f"forecastbench:{r['source']}:{r['id']}:{due}:{r['resolution_date']}")
        m = by_id[key]
        if r["resolved_to"] in (0.0, 1.0):
            assert m["status"] == "resolved" and m["resolution"] == ("Yes" if r["resolved_to"] == 1.0 else "No")
            if r["source"] in DATASET_SOURCES:
                assert m["resolved_at"].date().isoformat() == r["resolution_date"]
    assert not markets.filter(pl.col("question").str.contains("{resolution_date}", literal=True)).height
    assert set(prices["market_id"].str.split(":").list.get(1)) <= MARKET_SOURCES
    freeze_values = sum(q["source"] in MARKET_SOURCES and q["freeze_datetime_value"] not in ("N/A", None)
                        for q in asked.values())
    assert imported.read["price"] == freeze_values
    assert prices.filter(pl.col("price").is_between(0, 1).not_()).is_empty()


@needs_shared
def test_real_forecastbench_markets_become_questions_or_reasoned_drops():
    imported = read_forecastbench(sorted(FB.glob("*.json")))
    markets = imported.frame("markets", MARKETS)
    questions, drops = market_questions(markets)
    assert questions.height + drops.height == markets.height
    assert set(drops["reason"]) <= {"unresolved", "ambiguous_resolution", "cancelled", "short_window",
                                   "resolution_date_unknown"}
    resolved = markets.filter(pl.col("status") == "resolved")
    # the shortest horizon is a week: none too short; a Metaculus copy resolving on its close day
    # with no deadline the close reaches has no known answer day
    unknown = drops.filter(pl.col("reason") == "resolution_date_unknown")
    assert questions.height + unknown.height == resolved.height
    assert unknown["item_id"].str.starts_with("forecastbench:metaculus:").all()
    assert set(questions["answer"]) == {"Yes", "No"}
    fred = questions.filter(pl.col("source_ids").list.get(0).str.starts_with("forecastbench:fred:DTB3:2024-07-21:"))
    assert fred.height >= 4 and (fred["open_date"] == date(2024, 7, 21)).all()


@needs_shared
def test_explanations_after_the_question_mark_go_to_the_criteria_and_the_questions_validate():
    from pastcast.questions.validate import ValidateConfig, validate

    imported = read_forecastbench(sorted(FB.glob("*.json")))
    markets = imported.frame("markets", MARKETS)
    assert markets.filter(pl.col("question").str.contains("\n", literal=True)).is_empty()
    by_source = markets.with_columns(pl.col("market_id").str.split(":").list.get(1).alias("source"))
    for source in ("acled", "yfinance"):
        part = by_source.filter(pl.col("source") == source)
        assert part.height and part["question"].str.ends_with("?").all(), source
    assert by_source.filter(pl.col("source") == "yfinance")["resolution_criteria"].str.contains(
        "Stock splits", literal=True).all()
    questions, _ = market_questions(markets)
    source_of = dict(zip(questions["question_id"], questions["source_ids"].list.get(0).str.split(":").list.get(1)))
    result = validate(questions, ValidateConfig())
    dropped = {(source_of[d.item_id], d.reason) for d in result.drops}
    assert not {r for s, r in dropped if s in ("acled", "yfinance") and r == "not_a_question"}
    kept = set(result.kept["source_ids"].list.get(0).str.split(":").list.get(1))
    assert {"acled", "yfinance"} <= kept


def test_a_title_with_notes_after_its_question_mark_is_split(tmp_path):
    from pastcast.sources.forecastbench import _title_and_criteria

    q = {"question": "Will X close higher on {resolution_date}?\n\nStock splits are accounted for.",
         "resolution_criteria": "Resolves from the close price."}
    assert _title_and_criteria(q) == ("Will X close higher on {resolution_date}?",
                                      "Stock splits are accounted for.\n\nResolves from the close price.")
    plain = {"question": "Will Y happen?", "resolution_criteria": "As reported."}
    assert _title_and_criteria(plain) == ("Will Y happen?", "As reported.")
    inline = {"question": "Will Z win? (Resolves on the official count)", "resolution_criteria": ""}
    assert _title_and_criteria(inline)[0] == "Will Z win? (Resolves on the official count)"


def _write(path, doc):
    path.write_text(json.dumps(doc))
    return path


def test_handmade_sets_cover_na_fields_horizons_ambiguity_and_bad_rows(tmp_path):
    q_market = {"id": "abc", "source": "manifold", "question": "Will the bridge open in 2026?",
                "background": "<p>Works began in <b>2024</b>.</p>", "resolution_criteria": "See the market.",
                "market_info_open_datetime": "N/A", "market_info_close_datetime": "2026-12-31T00:00:00+00:00",
                "market_info_resolution_criteria": "N/A", "url": "https://manifold.markets/x/bridge",
                "freeze_datetime": "2026-01-01T00:00:00+00:00", "freeze_datetime_value": "0.42",
                "freeze_datetime_value_explanation": "The market value.", "resolution_dates": "N/A"}
    q_data = {"id": "DGS10", "source": "fred", "question": "Will the yield be higher on {resolution_date} "
              "than on {forecast_due_date}?", "background": "A daily series.",
              "resolution_criteria": "Resolves from FRED.", "market_info_open_datetime": "N/A",
              "market_info_close_datetime": "N/A", "market_info_resolution_criteria": "N/A",
              "url": "https://fred.stlouisfed.org/series/DGS10", "freeze_datetime": "2026-01-01T00:00:00+00:00",
              "freeze_datetime_value": "4.1", "freeze_datetime_value_explanation": "The latest value.",
              "resolution_dates": "['2026-01-15']"}
    q_bad = {"id": "x", "source": "manifold"}  # no question text
    q_odd = dict(q_market, id="zzz", source="kaggle")
    sets = [
        _write(tmp_path / "2026-01-08-llm.json", {"forecast_due_date": "2026-01-08", "question_set": "2026-01-08-llm.json",
                                                  "questions": [q_market, q_data, q_bad, q_odd]}),
        _write(tmp_path / "2026-01-08-human.json", {"forecast_due_date": "2026-01-08", "question_set": "2026-01-08-human.json",
                                                    "questions": [q_market]}),  # same question, same round
        _write(tmp_path / "2026-01-08_resolution_set.json", {
            "forecast_due_date": "2026-01-08", "question_set": "2026-01-08-llm.json", "resolutions": [
                {"id": "abc", "source": "manifold", "direction": None, "resolution_date": "2026-03-01",
                 "resolved_to": 0.37, "resolved": False},
                {"id": "DGS10", "source": "fred", "direction": None, "resolution_date": "2026-01-15",
                 "resolved_to": 1.0, "resolved": True},
                {"id": "DGS10", "source": "fred", "direction": None, "resolution_date": "2026-02-07",
                 "resolved_to": 0.5, "resolved": True},  # a horizon the set did not list; not 0/1
                {"id": ["abc", "DGS10"], "source": "manifold", "direction": [1, -1],
                 "resolution_date": "2026-01-15", "resolved_to": 0.0, "resolved": True},
                {"id": "nope", "source": "manifold", "direction": None, "resolution_date": "2026-01-15",
                 "resolved_to": 1.0, "resolved": True},
                {"id": "abc", "source": "manifold", "resolution_date": "soon"},
            ]}),
        _write(tmp_path / "notes.json", {"hello": "world"}),
    ]
    (tmp_path / "broken.json").write_text("{not json")
    imported = read_forecastbench([*sets, tmp_path / "broken.json"])
    assert imported.unaccounted() == {}
    markets = {m["market_id"]: m for m in imported.frame("markets", MARKETS).iter_rows(named=True)}
    assert set(markets) == {"forecastbench:manifold:abc", "forecastbench:fred:DGS10:2026-01-08:2026-01-15",
                            "forecastbench:fred:DGS10:2026-01-08:2026-02-07"}
    bridge = markets["forecastbench:manifold:abc"]
    assert bridge["status"] == "open" and bridge["background"] == "Works began in 2024."
    # no open time given: the freeze time is the first time it is known to exist
    assert bridge["created_at"] == datetime(2026, 1, 1, tzinfo=timezone.utc)
    short = markets["forecastbench:fred:DGS10:2026-01-08:2026-01-15"]
    assert short["question"] == "Will the yield be higher on 2026-01-15 than on 2026-01-08?"
    assert short["status"] == "resolved" and short["resolution"] == "Yes"
    assert short["created_at"] == datetime(2026, 1, 8, tzinfo=timezone.utc)
    assert "Latest value as of 2026-01-01: 4.1 (The latest value.)" in short["background"]
    late = markets["forecastbench:fred:DGS10:2026-01-08:2026-02-07"]
    assert late["question"] == "Will the yield be higher on 2026-02-07 than on 2026-01-08?"
    assert late["status"] == "ambiguous" and late["resolution_value"] == 0.5 and late["resolution"] is None
    prices = imported.frame("market_prices", MARKET_PRICES)
    # the freeze value, and the open market's value on 03-01, visible from the next day
    assert prices.select("market_id", "ts", "price").rows() == [
        ("forecastbench:manifold:abc", datetime(2026, 1, 1, tzinfo=timezone.utc), 0.42),
        ("forecastbench:manifold:abc", datetime(2026, 3, 2, tzinfo=timezone.utc), 0.37)]
    reasons = Counter(zip(imported.drops_frame()["item_kind"], imported.drops_frame()["reason"]))
    assert reasons == {("file", "unknown_shape"): 1, ("file", "unreadable_file"): 1,
                       ("question", "malformed_question"): 1, ("question", "unknown_source"): 1,
                       ("resolution", "combination_question"): 1, ("resolution", "question_not_in_set"): 1,
                       ("resolution", "malformed_resolution"): 1}
    assert imported.read["question"] == 5 and imported.used["question"] == 3  # the repeat is merged


@needs_shared
def test_replaying_real_forecastbench_markets_shows_each_price_only_from_its_time(tmp_path):
    from datetime import timedelta

    from evalkit import write_snapshot
    from pastcast.evaluate.environment import ReplayEnvironment

    imported = read_forecastbench(sorted(FB.glob("*.json")))
    markets = imported.frame("markets", MARKETS)
    prices = imported.frame("market_prices", MARKET_PRICES)
    questions, _ = market_questions(markets)
    priced = set(prices["market_id"])
    questions = questions.filter(pl.col("source_ids").list.get(0).is_in(priced))
    assert questions.height >= 20
    first, last = prices["ts"].min().date(), questions["resolution_date"].max()
    snap = write_snapshot(tmp_path / "fb", [], questions.to_dicts(), first.isoformat(), last.isoformat(),
                          markets=markets.to_dicts(), prices=prices.to_dicts())
    by_market = {m: part.sort("ts") for (m,), part in prices.group_by(["market_id"])}
    env, checked = ReplayEnvironment(snap), 0
    # every day a price appears or the day before it, for each priced question
    days = sorted({d for t in prices["ts"] for d in (t.date() - timedelta(days=1), t.date())})
    for day in days:
        if not env.start <= day <= env.end or day < env.today:
            continue
        if day > env.today:
            env.advance((day - env.today).days)
        for q in questions.iter_rows(named=True):
            shown = env.market_consensus(q["question_id"])
            if not env.is_open(q["question_id"]):
                assert shown is None
                continue
            series = by_market[q["source_ids"][0]]
            visible = series.filter(pl.col("ts") < datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
                                    + timedelta(days=1))
            expected = visible["price"].to_list()[-1] if visible.height else None
            assert (shown or {}).get("Yes") == expected, (q["question_id"], day)
            checked += 1
    assert checked > 100
