"""`pastcast questions import`: peer question sets (OpenForesight, FutureSim, ForecastBench,
pastcast's JSON lines) to candidate questions, every row kept or dropped with a reason naming
its file and row, then through `pastcast questions filter` like generated questions."""

from __future__ import annotations

import json
from datetime import date

import polars as pl
import pytest
from click.testing import CliRunner

from evalkit import article, ts
from pastcast.cli import main
from pastcast.questions.leakage import find_pairs
from pastcast.questions.peers import import_questions, read_peer_questions
from pastcast.questions.peers.common import ImportConfig
from pastcast.schemas import ARTICLES, QUESTIONS, frame
from pastcast.text import normalise
from warcs import SHARED, needs_shared

OF_COLUMNS = ["qid", "question_title", "background", "resolution_criteria", "answer_type", "answer", "url",
              "article_publish_date", "resolution_date", "question_start_date"]


def of_row(qid, title, answer, answer_type="string (name)", background="", resolves="2026-03-20",
           opens="2026-02-01", criteria="Resolves to the outcome named in the official announcement."):
    return {"qid": qid, "question_title": title, "background": background, "resolution_criteria": criteria,
            "answer_type": answer_type, "answer": answer, "url": f"https://news.example/{qid}",
            "article_publish_date": resolves, "resolution_date": resolves, "question_start_date": opens}


# An OpenForesight split with the flaw of its kind: answers standing in sibling questions' text.
LEAKY = [
    of_row("of-mayor", "Who will win the Port Ellis mayoral election in March 2026?", "Maria Santos"),
    of_row("of-ferry", "Which operator will Maria Santos pick for the Port Ellis ferry contract by March 2026?",
           "Bluewater Lines", answer_type="organization", resolves="2026-03-25"),
    of_row("of-coach", "Who will Kestrel Bay Rovers appoint as head coach in 2026?", "Simone Carvell",
           resolves="2026-03-18"),
    of_row("of-derby", "Which team will win the Kestrel Bay derby in March 2026?", "Kestrel Bay Rovers",
           answer_type="string (organization)", background="Simone Carvell's side hosts the derby.",
           resolves="2026-03-28"),
    # clean ones, typed as OpenForesight types them
    of_row("of-games", "Where will the 2027 Harbour Games be held, as announced in March 2026?", "Lisbon",
           answer_type="string (location)", resolves="2026-03-15"),
    of_row("of-conductor", "Who will be named principal conductor of the Aldermoor Philharmonic in 2026?",
           "Yara Castellane", resolves="2026-03-12"),
    of_row("of-prize", "Who will win the 2026 Halvard Prize for Literature?", "Nell Oduya", resolves="2026-03-22"),
]


def write_of(path, rows):
    pl.DataFrame(rows, schema={c: pl.String for c in OF_COLUMNS}).write_parquet(path)
    return path


@pytest.fixture
def articles_dir(tmp_path):
    """A small corpus with nothing about the questions: the window is January to April 2026."""
    folder = tmp_path / "articles"
    folder.mkdir()
    rows = [article(f"a{i}", f"Weather report {i}", "Rain and wind along the coast again today.", ts(d))
            for i, d in enumerate(["2026-01-02", "2026-02-10", "2026-03-01", "2026-04-28"])]
    frame(rows, ARTICLES).write_parquet(folder / "articles.parquet")
    return folder


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result


def visible(q: dict) -> str:
    return normalise(" ".join([q["title"] or "", q["background"] or "", q["resolution_criteria"] or "",
                               *(q["candidate_outcomes"] or [])]))


def test_an_openforesight_set_with_answers_in_sibling_questions_loses_its_leaks_and_keeps_clean_ones(
        tmp_path, articles_dir):
    split = write_of(tmp_path / "test-00000-of-00001.parquet", LEAKY)
    imported = run("questions", "import", "--format", "openforesight", split, "--out", tmp_path / "peer")
    assert imported.exit_code == 0, imported.output
    candidates = pl.read_parquet(tmp_path / "peer" / "questions.parquet")
    assert sorted(candidates["question_id"]) == sorted(r["qid"] for r in LEAKY)  # the peer's ids kept
    assert find_pairs(candidates), "the input must hold a cross leak for this test to mean anything"

    filtered = run("questions", "filter", "--questions", tmp_path / "peer" / "questions.parquet",
                   "--articles", articles_dir, "--out", tmp_path / "filtered")
    assert filtered.exit_code == 0, filtered.output
    kept = pl.read_parquet(tmp_path / "filtered" / "questions.parquet")
    drops = pl.read_parquet(tmp_path / "filtered" / "drops.parquet")
    assert "answer_in_other_question" in drops["reason"].to_list()
    # no kept answer is visible in another kept question's text (checked here without the finder too)
    rows = kept.to_dicts()
    for a in rows:
        for b in rows:
            if a["question_id"] != b["question_id"]:
                assert normalise(a["answer"]) not in visible(b), (a["question_id"], b["question_id"])
    assert find_pairs(kept) == []
    by_id = {r["question_id"]: r for r in rows}
    for qid, typed, label in (("of-games", "place", "string (location)"),
                              ("of-conductor", "person", "string (name)"), ("of-prize", "person", "string (name)")):
        assert qid in by_id, f"{qid} is clean and must be kept: {drops.filter(pl.col('question_id') == qid)}"
        assert (by_id[qid]["answer_type"], by_id[qid]["answer_type_original"]) == (typed, label)
        assert f"openforesight:{qid}" in by_id[qid]["source_ids"]


def test_filtered_imports_make_a_snapshot_that_passes_the_blocking_checks(tmp_path, articles_dir):
    from pastcast.questions.filter import filter_questions
    from pastcast.snapshot import write_snapshot
    from pastcast.snapshot_checks import run_blocking_checks

    result = read_peer_questions("openforesight", [write_of(tmp_path / "s.parquet", LEAKY)])
    articles = pl.read_parquet(articles_dir / "articles.parquet")
    run_ = filter_questions(result.questions, articles)
    folder = write_snapshot({"questions": run_.questions, "articles": articles, "drops": run_.drops_frame()},
                            tmp_path / "snaps", "peer", (date(2026, 1, 1), date(2026, 4, 30)))
    outcomes = {o.name: o for o in run_blocking_checks(folder)}
    assert run_.questions.height and all(o.passed for o in outcomes.values()), {
        n: o.examples for n, o in outcomes.items() if not o.passed}


def test_answer_types_map_to_the_vocabulary_and_keep_the_label(tmp_path):
    labels = {"string (location)": "place", "string (name)": "person", "organization": "organisation",
              "string (date)": "date", "numeric": "number", "String(Location)": "place",
              "string (flavour)": "other", "": "other"}
    rows = [of_row(f"q{i}", f"Who will win prize {i} in 2026?", f"Answer {i}", answer_type=label)
            for i, label in enumerate(labels)]
    q = read_peer_questions("openforesight", [write_of(tmp_path / "t.parquet", rows)]).questions
    got = {r["answer_type_original"] or "": r["answer_type"] for r in q.iter_rows(named=True)}
    assert got == labels  # an unknown label is kept as other, never a drop


def test_categories_are_the_generators_categories(tmp_path):
    from pastcast.questions.extractive import category_of

    q = read_peer_questions("openforesight", [write_of(tmp_path / "t.parquet", LEAKY)]).questions
    assert q["category"].to_list() == [category_of(t) for t in q["title"]]
    assert len(set(q["category"])) > 1


def test_bad_rows_are_drops_naming_file_and_row_and_the_next_row_is_read(tmp_path):
    path = tmp_path / "peer.jsonl"
    lines = [json.dumps(of_row("ok-1", "Who will win the 2026 cup?", "Reds")),
             "{not json",
             json.dumps(of_row("bad-date", "Who will win the 2026 shield?", "Blues", resolves="soon")),
             json.dumps({**of_row("no-answer", "Who will win the 2026 plate?", ""), "answer": None}),
             json.dumps(of_row("ok-2", "Who will win the 2026 bowl?", "Greens", resolves="2026-03-20T23:30:00-05:00")),
             json.dumps(of_row("ok-1", "Who will win the 2026 vase?", "Golds"))]
    path.write_text("\n".join(lines) + "\n")
    result = run("questions", "import", "--format", "openforesight", path, "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    kept = pl.read_parquet(tmp_path / "out" / "questions.parquet")
    drops = pl.read_parquet(tmp_path / "out" / "drops.parquet")
    assert kept["question_id"].to_list() == ["ok-1", "ok-2"]
    assert kept.filter(pl.col("question_id") == "ok-2")["resolution_date"].item() == date(2026, 3, 21)  # its UTC day
    reasons = dict(zip(drops["reason"], drops["detail"]))
    assert set(reasons) == {"unreadable_row", "bad_date", "missing_field", "duplicate_question_id"}
    assert reasons["unreadable_row"].startswith(f"{path} line 2: not JSON")
    assert reasons["bad_date"].startswith(f"{path} line 3: resolution_date 'soon' is not a date")
    assert f"{path} line 4" in reasons["missing_field"] and "answer" in reasons["missing_field"]
    assert "line 6" in reasons["duplicate_question_id"] and "line 1" in reasons["duplicate_question_id"]
    assert "bad_date:" in result.output and "line 3" in result.output  # the summary shows examples
    books = json.loads((tmp_path / "out" / "import.json").read_text())["records"]["row"]
    assert books == {"read": 6, "kept": 2, "dropped": 4}


@pytest.mark.parametrize("content, needle", [
    (None, "no column for question_id (qid or question_id)"),  # a required column missing
    (b"PAR1 this is not parquet", "cannot read as Parquet"),  # unreadable file
])
def test_a_file_that_cannot_be_imported_is_one_clear_error_and_nothing_is_written(tmp_path, content, needle):
    path = tmp_path / "split.parquet"
    if content is None:
        pl.DataFrame({"question_title": ["Who will win?"], "answer": ["X"],
                      "resolution_date": ["2026-03-01"]}).write_parquet(path)
    else:
        path.write_bytes(content)
    result = run("questions", "import", "--format", "openforesight", path, "--out", tmp_path / "out")
    assert result.exit_code == 1
    assert result.output.startswith("Error: ") and str(path) in result.output and needle in result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)
    assert not (tmp_path / "out").exists()


def test_futuresim_aliases_csv_and_open_dates(tmp_path):
    path = tmp_path / "custom.csv"
    path.write_text(
        "id,question,close_time,resolved_to,criteria,type,options,source_split\n"
        '7,Which city will host the 2027 Games?,2026-03-15,Larkhaven,Resolves to the host named.,'
        'multiple choice,"[""Brennick"", ""Larkhaven""]",test\n'
        "8,Who will win?,2026-03-16\n"  # a row cut short
        "9,Will the rate be cut in March 2026?,1773532800,Yes,Resolves Yes on a cut.,binary,,test\n")
    result = import_questions("futuresim", [path], tmp_path / "out", ImportConfig(open_date=date(2026, 1, 1)))
    q = {r["question_id"]: r for r in result.questions.iter_rows(named=True)}
    assert set(q) == {"7", "9"}
    assert q["7"]["candidate_outcomes"] == ["Brennick", "Larkhaven"] and q["7"]["answer_type"] == "option"
    assert q["7"]["open_date"] == date(2026, 1, 1) and q["9"]["resolution_date"] == date(2026, 3, 15)  # epoch
    assert q["9"]["source_ids"] == ["futuresim:9"] and q["9"]["generator"] == "import:futuresim"
    assert result.drops["detail"].item().startswith(f"{path} line 3: 3 fields, the header has 8")
    summary = json.loads((tmp_path / "out" / "import.json").read_text())
    assert summary["columns"][str(path)]["used"]["answer"] == "resolved_to"
    assert summary["columns"][str(path)]["ignored"] == ["source_split"]
    # without an open date, a question opens the horizon before it resolves
    default = read_peer_questions("futuresim", [path], ImportConfig(horizon_days=10)).questions
    assert default.filter(pl.col("question_id") == "7")["open_date"].item() == date(2026, 3, 5)


def test_futuresim_json_list_and_parquet_with_other_aliases(tmp_path):
    rows = [{"question_id": "a", "title": "Who will lead the 2026 council?", "resolve_time": "2026-02-01T10:00:00Z",
             "ground_truth_answer": "Ana Ruiz", "answer_type": "person", "options": None},
            {"question_id": "b", "title": "Who will chair the 2026 board?", "resolve_time": "2026-02-02",
             "ground_truth_answer": "Tomas Berg", "options": "not a list"}]
    (tmp_path / "q.json").write_text(json.dumps(rows))
    pl.DataFrame(rows[:1]).write_parquet(tmp_path / "q.parquet")
    result = read_peer_questions("futuresim", [tmp_path / "q.json"])
    assert result.questions["question_id"].to_list() == ["a"]
    assert result.drops["reason"].to_list() == ["bad_value"] and "item 1" in result.drops["detail"].item()
    pq = read_peer_questions("futuresim", [tmp_path / "q.parquet"]).questions
    assert pq.select("question_id", "answer", "resolution_date").row(0) == ("a", "Ana Ruiz", date(2026, 2, 1))


def test_pastcast_jsonl_round_trips_every_column(tmp_path):
    rows = [{"question_id": "p1", "title": "Who will win the 2026 cup?", "background": "b",
             "resolution_criteria": "c", "answer": "Reds", "answer_aliases": ["The Reds"], "answer_type": "organisation",
             "answer_type_original": "club", "candidate_outcomes": ["Reds", "Blues"], "open_date": date(2026, 1, 5),
             "resolution_date": date(2026, 2, 1), "original_resolution_date": date(2026, 2, 3),
             "revision_evidence": ["a9"], "source_kind": "market", "source_ids": ["manifold:x"],
             "generator": "market/v2", "category": "sport"}]
    original = frame(rows, QUESTIONS)
    original.write_ndjson(tmp_path / "q.jsonl")
    back = read_peer_questions("jsonl", [tmp_path / "q.jsonl"]).questions
    assert back.to_dicts() == original.to_dicts()


@needs_shared
def test_forecastbench_reuses_the_market_conversion(tmp_path):
    from pastcast.questions.markets import market_questions
    from pastcast.sources.markets import read_markets

    folder = SHARED / "markets" / "forecastbench"
    result = run("questions", "import", "--format", "forecastbench", folder, "--out", tmp_path / "fb")
    assert result.exit_code == 0, result.output
    got = pl.read_parquet(tmp_path / "fb" / "questions.parquet")
    files = sorted(folder.glob("*.json"))
    imported = read_markets("forecastbench", files)
    expected, _ = market_questions(imported.frame("markets", pl.read_parquet(tmp_path / "fb" / "markets.parquet").schema),
                                   prices=imported.frame("market_prices", pl.read_parquet(
                                       tmp_path / "fb" / "market_prices.parquet").schema))
    assert got.height > 0 and got.sort("question_id").equals(expected.sort("question_id"))
    assert all(ids[0].startswith("forecastbench:") for ids in got["source_ids"])  # ForecastBench's own id
    summary = json.loads((tmp_path / "fb" / "import.json").read_text())
    markets = summary["records"]["market"]
    assert markets["read"] == markets["kept"] + markets["dropped"] == summary["rows"]["markets"]


def test_an_answer_that_is_a_list_or_object_is_a_bad_value_and_true_is_yes(tmp_path):
    rows = [{"qid": "list", "title": "Who will chair the board in 2026?", "answer": ["Anna", "Bob"],
             "resolution_date": "2026-03-20"},
            {"qid": "dict", "title": "Who will chair the council in 2026?", "answer": {"name": "Anna"},
             "resolution_date": "2026-03-20"},
            {"qid": "bool", "title": "Will the bridge open by March 2026?", "answer": True,
             "resolution_date": "2026-03-20"}]
    path = tmp_path / "peer.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    result = import_questions("futuresim", [path], tmp_path / "out", ImportConfig(open_date=date(2026, 2, 1)))
    reasons = dict(zip(result.drops["item_id"], result.drops["reason"]))
    assert reasons == {"list": "bad_value", "dict": "bad_value"}
    assert result.questions.filter(pl.col("question_id") == "bool")["answer"].to_list() == ["Yes"]


def test_an_import_never_writes_over_an_earlier_one_unless_asked(tmp_path):
    path = write_of(tmp_path / "test-00000-of-00001.parquet", LEAKY[:2])
    out = tmp_path / "out"
    assert run("questions", "import", "--format", "openforesight", path, "--out", out).exit_code == 0
    (out / "markets.parquet").write_bytes(b"left by an earlier forecastbench import")
    again = run("questions", "import", "--format", "openforesight", path, "--out", out)
    assert again.exit_code != 0 and "--force" in again.output and "Traceback" not in again.output
    forced = run("questions", "import", "--format", "openforesight", path, "--out", out, "--force")
    assert forced.exit_code == 0, forced.output
    assert not (out / "markets.parquet").exists()  # nothing of the earlier import lingers
