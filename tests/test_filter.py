"""The question filter end to end: planted problems of every kind are caught with the right
reason and clean questions survive (synthetic and on the sample corpus); the audit report,
the CLI contract and the snapshot checks."""

import json
from datetime import date

import polars as pl
import pytest
from click.testing import CliRunner

from evalkit import article, question, ts
from openai_server import OpenAIServer, completion
from pastcast.daily import scan_gathered
from pastcast.cli import main
from pastcast.questions.difficulty import DifficultyConfig
from pastcast.questions.filter import FilterConfig, filter_questions, revision_problems, write_filter_run
from pastcast.questions.validate import ValidateConfig, validate
from pastcast.schemas import ARTICLES, QUESTIONS, frame

WINDOW = ValidateConfig(window_start=date(2026, 1, 1), window_end=date(2026, 3, 31))


def q(qid, title, answer, open_date="2026-02-01", resolution_date="2026-03-08", **kw):
    kw.setdefault("resolution_criteria", "As reported by the electoral office.")
    kw.setdefault("source_ids", [f"src-{qid}"])
    return question(qid, title, answer, open_date, resolution_date, **kw)


def test_validation_rules_each_have_their_reason():
    rows = [
        q("ok", "Who will win the 2026 Kestrel Bay mayoral election?", "Lina Okafor"),
        q("nocrit", "Who will win the 2026 Brennick mayoral election?", "Ana Ruiz", resolution_criteria=""),
        q("vague", "Who will win the 2026 Saltmere by-election?", "Unknown"),
        q("long", "Who will win the 2026 Orvane regional vote?", "the candidate of the united left alliance party"),
        q("type", "Who will win the 2026 Orvane council vote?", "Ana Ruiz", answer_type="colour"),
        q("yes", "Who will win the 2026 Tillford vote?", "Yes"),
        q("bare", "Who will chair the 2026 Larkhaven board?", "42"),
        q("late", "Who will win the 2026 Hollin Cross race?", "Bo Lind", resolution_date="2026-04-20"),
        q("short", "Who will win the 2026 Marrowgate race?", "Bo Lind", open_date="2026-03-05"),
        q("statement", "The 2026 Marrowgate race winner", "Bo Lind"),
        q("past", "Who won the Marrowgate race?", "Bo Lind"),
        q("binary", "Will the council approve the harbour plan by March 2026?", "Yes", answer_type="binary",
          candidate_outcomes=["Yes", "No"]),
        q("figure", "What will the benchmark rate be in March 2026?", "3.75", answer_type="number"),
        q("named", "Will Anna Berg win the 2026 Orrin Prize?", "Anna Berg", answer_type="binary",
          background="Anna Berg won the 2026 Orrin Prize."),  # typed binary: the leak checks would skip it
    ]
    result = validate(frame(rows, QUESTIONS), WINDOW)
    # an unknown answer type is kept as "other", the label recorded; never a drop for a spelling
    assert sorted(result.kept["question_id"]) == ["binary", "figure", "ok", "type"]
    typed = result.kept.filter(pl.col("question_id") == "type").row(0, named=True)
    assert (typed["answer_type"], typed["answer_type_original"]) == ("other", "colour")
    assert {d.item_id: d.reason for d in result.drops} == {
        "nocrit": "missing_field", "vague": "placeholder_answer", "long": "answer_too_long",
        "yes": "yes_no_answer", "bare": "bare_number",
        "late": "outside_window", "short": "short_window", "statement": "not_a_question",
        "past": "not_about_future", "named": "binary_answer_not_yes_no"}
    assert all(d.stage == "validate" and d.detail for d in result.drops)


def test_future_cues_and_market_questions_without_one():
    rows = [
        q("by-month", "Gemini 3.0 Flash released by December 31?", "Yes", answer_type="binary"),
        q("by-eoy", "Half-Life 3 confirmed by EOY?", "No", answer_type="binary"),
        q("news-past", "Was the harbour plan approved?", "Yes", answer_type="binary"),
        # a market opens before it resolves: no cue needed, unless it asks about the past
        q("market", "Tesla Robotaxi unveiling delayed?", "No", answer_type="binary", source_kind="market"),
        q("market-past", "Was synthetic video data used in training Sora?", "Yes", answer_type="binary",
          source_kind="market"),
        # the past tense wins over any cue, for every question
        q("past-by", "Did the deal close by EOY?", "Yes", answer_type="binary"),
        q("past-year", "Was the bill passed by March 2026?", "Yes", answer_type="binary"),
        q("tagged", "[Politics] Was Biden re-elected?", "No", answer_type="binary", source_kind="market"),
        q("who-won", "Who won the 2026 Marrowgate race?", "Bo Lind", source_kind="market"),
    ]
    result = validate(frame(rows, QUESTIONS), WINDOW)
    assert sorted(result.kept["question_id"]) == ["by-eoy", "by-month", "market"]
    assert {d.item_id: d.reason for d in result.drops} == {
        k: "not_about_future" for k in ("news-past", "market-past", "past-by", "past-year", "tagged", "who-won")}


# -- planted leaks of every kind ------------------------------------------------------------

def _corpus():
    articles = [
        # previews name the candidates: never evidence
        article("p1", "Three run for mayor", "Lina Okafor, Ana Ruiz and Tomas Berg are the candidates in the "
                "Kestrel Bay mayoral election; polls say Okafor could win.", ts("2026-02-10")),
        # the cup result was reported ten days before the question's resolution date
        article("early", "Rovers win the Veloria Cup", "Kestrel Bay Rovers won the Veloria Cup final on Saturday, "
                "beating Aldermoor United 2-1 at Crown Park.", ts("2026-02-26", 18)),
        # the rate decision was reported the day after the question opened
        article("quick", "Central bank sets rate", "The Central Bank of Veloria set its benchmark rate at 3.75% "
                "on Tuesday, the bank said.", ts("2026-02-03", 9)),
        article("result", "Okafor elected", "Lina Okafor was elected mayor of Kestrel Bay on Sunday.",
                ts("2026-03-08", 22)),
    ]
    questions = [
        q("clean", "Who will win the 2026 Kestrel Bay mayoral election?", "Lina Okafor", answer_type="person",
          background="Three candidates are running.", source_ids=["result"]),
        q("selfleak", "Who will be named chair of the Veloria Film Board in 2026?", "Mara Lind",
          background="Outgoing chair Mara Lind's term ends in March.", resolution_date="2026-03-10"),
        q("abbrev", "Which body will take over supervision of Veloria's banks in 2026?", "European Central Bank",
          answer_type="organisation", background="The ECB is expected to decide in March.",
          resolution_date="2026-03-12"),
        q("cup", "Who will win the 2026 Veloria Cup?", "Kestrel Bay Rovers", answer_type="organisation",
          open_date="2026-01-20", resolution_date="2026-03-08"),
        q("rate", "At what level will the Central Bank of Veloria set its benchmark rate in February 2026?",
          "3.75%", answer_type="number", open_date="2026-02-02", resolution_date="2026-03-01"),
        # cross leak: the answer of "coach" is in the background of "fixture", open at the same time
        q("coach", "Who will Halvard Rovers appoint as head coach in 2026?", "Piet Voss", answer_type="person",
          resolution_date="2026-03-15"),
        q("fixture", "Which team will win the 2026 Halvard derby?", "Brennick Athletic", answer_type="organisation",
          background="Halvard Rovers, coached by Piet Voss since January, host the derby.",
          resolution_date="2026-03-20"),
        # the same event asked twice (a market question and a news question)
        q("dupnews", "Who will win the 2026 Saltmere by-election?", "Tomas Berg", answer_type="person",
          open_date="2026-02-10", resolution_date="2026-03-05"),
        q("dupmarket", "Who will win the Saltmere by-election in 2026?", "Tomas Berg", answer_type="option",
          candidate_outcomes=["Tomas Berg", "Ana Ruiz"], open_date="2026-01-25", resolution_date="2026-03-05",
          source_kind="market", source_ids=["manifold:x"]),
    ]
    return frame(articles, ARTICLES), frame(questions, QUESTIONS)


@pytest.fixture(scope="module")
def planted():
    articles, questions = _corpus()
    return articles, questions, filter_questions(questions, articles, FilterConfig(validate=WINDOW))


def test_every_planted_leak_is_caught_with_its_reason_and_clean_questions_survive(planted):
    _, questions, run = planted
    reasons = {(d.item_id, d.stage, d.reason) for d in run.drops}
    assert reasons == {
        ("selfleak", "self_leak", "answer_in_own_text"),
        ("abbrev", "self_leak", "answer_in_own_text"),
        ("dupnews", "dedup", "duplicate_question"),
        ("rate", "revision", "answer_known_early"),
        ("coach", "cross_leak", "answer_in_other_question"),
    }
    kept = {r["question_id"]: r for r in run.questions.iter_rows(named=True)}
    assert set(kept) == {"clean", "cup", "fixture", "dupmarket"}
    assert len(kept) + len(run.drops) == questions.height
    # the early cup report moved the resolution date, with the evidence kept
    cup = kept["cup"]
    assert cup["resolution_date"] == date(2026, 2, 26) and cup["original_resolution_date"] == date(2026, 3, 8)
    assert cup["revision_evidence"][0] == "early"
    # the merged question keeps the earliest open date and both sources
    assert kept["dupmarket"]["open_date"] == date(2026, 1, 25)
    assert set(kept["dupmarket"]["source_ids"]) == {"manifold:x", "src-dupnews"}
    # the preview naming the candidates did not move the election question
    assert kept["clean"]["resolution_date"] == date(2026, 3, 8)
    assert revision_problems(run.questions, planted[0]) == []
    assert run.decided_by.startswith("lexical rule")


def test_the_audit_report_and_the_cli_files(planted, tmp_path):
    articles, questions, run = planted
    paths = write_filter_run(run, tmp_path / "out")
    audit = paths["audit"].read_text()
    assert "| revision | " in audit and "answer_known_early" in audit and "`early` (2026-02-26)" in audit
    assert "Kestrel Bay Rovers won the Veloria Cup final" in audit  # the matching span
    assert "`coach` | `fixture`" in audit  # the cross-question pair
    assert "decided by: **lexical rule" in audit
    drops = pl.read_parquet(paths["drops"])
    assert drops.columns == ["question_id", "stage", "reason", "detail"] and drops.height == 5
    evidence = pl.read_parquet(paths["evidence"])
    assert {"revise", "drop", "pair", "merge"} <= set(evidence["action"])

    qfile, adir = tmp_path / "q.parquet", tmp_path / "articles"
    questions.write_parquet(qfile)
    adir.mkdir()
    articles.write_parquet(adir / "articles.parquet")
    result = CliRunner().invoke(main, ["questions", "filter", "--questions", str(qfile), "--articles", str(adir),
                                       "--out", str(tmp_path / "cli"), "--window-start", "2026-01-01",
                                       "--window-end", "2026-03-31"])
    assert result.exit_code == 0, result.output
    assert "9 candidates -> 4 questions" in result.output
    assert sorted(p.name for p in (tmp_path / "cli").iterdir()) == ["audit.md", "drops.parquet", "evidence.parquet",
                                                                   "filter.json", "quality.parquet",
                                                                   "questions.parquet"]
    assert pl.read_parquet(tmp_path / "cli" / "questions.parquet").equals(run.questions)


def test_revision_problems_catch_dates_without_evidence(planted):
    articles, _, run = planted
    tampered = run.questions.with_columns(
        pl.when(pl.col("question_id") == "cup").then(pl.lit([], dtype=pl.List(pl.String)))
        .otherwise(pl.col("revision_evidence")).alias("revision_evidence"),
        pl.when(pl.col("question_id") == "clean").then(pl.lit(date(2026, 3, 1)))
        .otherwise(pl.col("resolution_date")).alias("resolution_date"))
    problems = revision_problems(tampered, articles)
    assert sorted(p.split(":")[0] for p in problems) == ["clean", "cup"]
    assert any("with no evidence" in p for p in problems)


def test_difficulty_filters_use_the_llm_and_are_off_by_default(tmp_path, planted):
    articles, questions, _ = planted
    from pastcast.llm import LLMSettings

    known = {"Veloria Cup": ("Kestrel Bay Rovers", "2000-01-01"),  # known long before: too easy
             "mayoral election": ("Lina Okafor", "2026-03-01"),  # known by resolution: fine
             "Saltmere": ("Tomas Berg", "2026-03-01")}  # the derby winner is never known: label noise

    def script(body, n):
        system, user = body["messages"][0]["content"], body["messages"][1]["content"]
        as_of = system.split("as they stood\non ", 1)[1][:10] if "as they stood\non " in system else \
            system.split("as they stood on ", 1)[1][:10]
        asked = user.split("\n", 1)[0]  # the question line (the excerpts may name other events)
        answer = next((a for key, (a, since) in known.items() if key in asked and as_of >= since), "Ana Ruiz")
        return completion(json.dumps({"answer": answer, "probability": 0.8}))

    with OpenAIServer(script) as server:
        settings = LLMSettings(model="openai/test-model", api_base=server.url, api_key="k",
                               cache_dir=tmp_path / "c", backoff_base=0.01)
        config = FilterConfig(validate=WINDOW, difficulty=DifficultyConfig(too_easy=True, label_noise=True))
        run = filter_questions(questions, articles, config, llm_settings=settings)
        # one probe for the too-easy cup question, two for each of the other three
        assert len(server.requests) == 7
    assert {d.item_id: d.reason for d in run.drops if d.stage == "difficulty"} == {
        "cup": "too_easy", "fixture": "unanswerable"}
    assert set(run.questions["question_id"]) == {"clean", "dupmarket"}
    dropped = [e for e in run.evidence if e.stage == "difficulty" and e.action == "drop"]
    assert {e.spans[0] for e in dropped} == {"Kestrel Bay Rovers", "Ana Ruiz"}  # the model's answers
    off = filter_questions(questions, articles, FilterConfig(validate=WINDOW))
    assert "difficulty" not in {s["stage"] for s in off.stages}
    with pytest.raises(ValueError, match="need an LLM"):
        filter_questions(questions, articles, config)


def test_the_blocking_snapshot_checks_fail_on_planted_leaks(tmp_path, planted):
    from evalkit import write_snapshot

    from pastcast.snapshot_checks import (no_answer_in_other_questions, no_answer_in_own_text,
                                          revised_dates_have_evidence)

    articles, questions, run = planted
    folder = tmp_path / "s" / "v1"

    def snapshot_of(qs: pl.DataFrame) -> None:
        write_snapshot(folder, articles.to_dicts(), qs.to_dicts(), "2026-01-01", "2026-03-31")

    snapshot_of(run.questions)  # the filter's output: clean
    assert all(check(folder).passed for check in
               (no_answer_in_own_text, no_answer_in_other_questions, revised_dates_have_evidence))
    snapshot_of(questions)  # the unfiltered candidates: every kind of leak
    own, other = no_answer_in_own_text(folder), no_answer_in_other_questions(folder)
    assert not own.passed and own.problems == 2
    assert not other.passed and any("coach: answer 'Piet Voss'" in e for e in other.examples)
    tampered = run.questions.with_columns(pl.lit([], dtype=pl.List(pl.String)).alias("revision_evidence"))
    snapshot_of(tampered)
    evidence = revised_dates_have_evidence(folder)
    assert not evidence.passed and evidence.problems == 1


# -- the sample corpus, with planted problems ------------------------------------------------

@pytest.fixture(scope="module")
def sample(demo_snapshot):
    root = demo_snapshot.parents[2]  # pipeline.run_all of the sample: its work folder
    return (pl.read_parquet(root / "work" / "question_candidates.parquet"),
            scan_gathered(root / "work").collect())


def _id_of(candidates: pl.DataFrame, title: str) -> str:
    return candidates.filter(pl.col("title") == title)["question_id"].item()


def test_planted_problems_on_the_sample_are_caught_and_its_clean_questions_survive(sample):
    candidates, articles = sample
    window = ValidateConfig(window_start=date(2026, 1, 5), window_end=date(2026, 3, 31))
    baseline = filter_questions(candidates, articles, FilterConfig(validate=window))
    # The sample alone: its 4 news/market pairs of the same event merged, one revision. Counts
    # are bounds (a generator that asks more passes); the planted cases are exact. The prize
    # question's answer (an author) stands in the market question's shortlist "The Salt Road
    # (Mirela Voss), Winter Ledger (...), Glass Harbour (Nell Oduya)": a candidate list, kept.
    assert candidates.height >= 32 and baseline.questions.height >= 28
    assert baseline.questions.height + len(baseline.drops) == candidates.height  # each kept or dropped
    title_of = dict(zip(candidates["question_id"], candidates["title"]))
    assert "Who will win the 2026 Halvard Prize for Literature?" in set(baseline.questions["title"])
    assert {(title_of[d.item_id], d.stage, d.reason) for d in baseline.drops} >= {
        *((t, "dedup", "duplicate_question") for t in (
            "Which city will the Veloria Athletics Federation choose to host the 2027 National Games?",
            "Who will win the 2026 Labour and Commons Party leadership contest?",
            "Who will be elected mayor of Kestrel Bay in 2026?", "Which team will win the 2026 Veloria Cup?"))}
    # nothing else fails validation or a leak check
    assert {d.stage for d in baseline.drops} <= {"cross_leak", "dedup"}
    mayor = _id_of(candidates, "Who will win the 2026 Kestrel Bay mayoral election?")
    assert [e.question_id for e in baseline.evidence if e.action == "revise"] == [mayor]

    cup = _id_of(candidates, "Who will win the 2026 Veloria Cup?")
    leader = _id_of(candidates, "Who will be the next leader of the Labour and Commons Party (Veloria)?")
    plants = [
        q("plant-vague", "Who will win the 2026 Orvane marathon?", "Unknown", "2026-02-01", "2026-03-20"),
        q("plant-self", "Who will coach the Veloria national team in 2026?", "Simone Carvell", "2026-02-01",
          "2026-03-20", answer_type="person", background="Simone Carvell is said to be the front-runner."),
        q("plant-roundup", "Will the 2026 Veloria Cup final draw a record crowd?", "Yes", "2026-02-20", "2026-03-10",
          answer_type="binary", candidate_outcomes=["Yes", "No"],
          background="Mayor-elect Lina Okafor and by-election winner Owen Tully will attend."),
        q("plant-dup", "Who will be Kestrel Bay's next mayor?", "Lina Okafor", "2026-02-20", "2026-03-08",
          answer_type="person"),
    ]
    early = [
        article("early-cup", "Aldermoor win the cup", "Aldermoor United won the Veloria Cup final on Saturday, "
                "beating Kestrel Bay Rovers 2-0 at the National Stadium.", ts("2026-02-20", 20)),
        article("early-leader", "Petrescu wins", "Jonas Petrescu won the Labour and Commons Party leadership "
                "contest on Thursday, the party said.", ts("2026-01-15", 19)),
    ]
    run = filter_questions(pl.concat([candidates, frame(plants, QUESTIONS)]),
                           pl.concat([articles, frame(early, ARTICLES)]), FilterConfig(validate=window))
    found = {(d.item_id, d.stage, d.reason) for d in run.drops}
    assert {("plant-vague", "validate", "placeholder_answer"), ("plant-self", "self_leak", "answer_in_own_text"),
            ("plant-roundup", "cross_leak", "answer_in_other_question"),
            ("plant-dup", "dedup", "duplicate_question"),
            (leader, "revision", "answer_known_early")} <= found
    kept = {r["question_id"]: r for r in run.questions.iter_rows(named=True)}
    assert len(run.drops) == len(baseline.drops) + 5  # the plants and the leadership question
    assert set(kept) == set(baseline.questions["question_id"]) - {leader}
    assert kept[cup]["resolution_date"] == date(2026, 2, 20) and kept[cup]["revision_evidence"][0] == "early-cup"
    assert revision_problems(run.questions, pl.concat([articles, frame(early, ARTICLES)])) == []


def test_cli_filter_keeps_clean_questions_in_other_scripts_and_drops_their_leaks(tmp_path):
    """Answers in Cyrillic, Greek and Chinese are real answers: the clean questions survive
    validation, dedup and the leak checks, and the self leaks among them are caught."""
    articles = [
        article("chess", "Chess open draws a record field", "The Veloria Chess Open attracted 300 players; "
                "the host city of the final is still to be decided.", ts("2026-02-05")),
        article("trade", "Harbour council to elect its chair", "Three candidates are standing for the chair "
                "of the Harbour Trade Council.", ts("2026-02-12")),
    ]
    cities = ["Москва", "Санкт-Петербург", "Казань"]
    questions = [
        q("ru_clean", "Which city will host the 2026 Veloria Chess Open final?", "Казань", answer_type="place",
          candidate_outcomes=cities, source_kind="market",
          background="The organisers pick one of three cities: Москва, Санкт-Петербург or Казань."),
        q("ru_leak", "Who will be named president of the Veloria Chess Federation in 2026?", "Ольга Смирнова",
          background="Сообщается, что Ольга Смирнова уже утверждена.", resolution_date="2026-03-10"),
        q("el_clean", "Which country will win the 2026 Veloria Sailing Cup?", "Ελλάδα", answer_type="place",
          background="Twelve crews race in March.", resolution_date="2026-03-12"),
        q("zh_clean", "Who will be elected chair of the Harbour Trade Council in March 2026?", "李娜",
          background="The council elects its chair in March."),
        q("zh_leak", "Who will be elected treasurer of the Harbour Trade Council in March 2026?", "张伟",
          background="据报道，张伟已经当选。", resolution_date="2026-03-11"),
    ]
    qfile, adir = tmp_path / "q.parquet", tmp_path / "articles"
    frame(questions, QUESTIONS).write_parquet(qfile)
    adir.mkdir()
    frame(articles, ARTICLES).write_parquet(adir / "articles.parquet")
    result = CliRunner().invoke(main, ["questions", "filter", "--questions", str(qfile), "--articles", str(adir),
                                       "--out", str(tmp_path / "out"), "--window-start", "2026-01-01",
                                       "--window-end", "2026-03-31"])
    assert result.exit_code == 0, result.output
    assert "5 candidates -> 3 questions" in result.output
    kept = pl.read_parquet(tmp_path / "out" / "questions.parquet")
    assert sorted(kept["question_id"]) == ["el_clean", "ru_clean", "zh_clean"]
    assert sorted(kept["answer"]) == sorted(["Казань", "Ελλάδα", "李娜"])
    drops = pl.read_parquet(tmp_path / "out" / "drops.parquet")
    assert {(r["question_id"], r["reason"]) for r in drops.iter_rows(named=True)} == {
        ("ru_leak", "answer_in_own_text"), ("zh_leak", "answer_in_own_text")}
    assert "'Ольга Смирнова' (exact" in drops.filter(pl.col("question_id") == "ru_leak")["detail"][0]


def test_revision_finds_early_reports_of_answers_in_other_scripts():
    articles = [
        article("ru", "Казань chosen", "Казань was chosen to host the Veloria Chess Open final, the organisers "
                "announced.", ts("2026-02-20")),
        article("zh", "Fair host chosen", "The Harbour Trade Fair organisers announced on Monday that 北京 was "
                "chosen to host the 2027 Harbour Trade Fair.", ts("2026-02-21")),
        article("nanjing", "Fair host chosen", "The Harbour Trade Fair organisers announced on Monday that 南京 "
                "was chosen to host the 2027 Harbour Trade Fair.", ts("2026-02-10")),  # another city
    ]
    questions = [
        q("ru", "Which city will host the 2026 Veloria Chess Open final?", "Казань", answer_type="place",
          open_date="2026-01-20", resolution_date="2026-03-20"),
        q("zh", "Which city will host the 2027 Harbour Trade Fair?", "北京", answer_type="place",
          open_date="2026-01-20", resolution_date="2026-03-20"),
    ]
    run = filter_questions(frame(questions, QUESTIONS), frame(articles, ARTICLES), FilterConfig(validate=WINDOW))
    kept = {r["question_id"]: r for r in run.questions.iter_rows(named=True)}
    assert (kept["ru"]["resolution_date"], kept["ru"]["revision_evidence"]) == (date(2026, 2, 20), ["ru"])
    assert (kept["zh"]["resolution_date"], kept["zh"]["revision_evidence"]) == (date(2026, 2, 21), ["zh"])


def test_the_audit_lists_a_bounded_number_of_questions_a_reason_and_counts_them_all(planted, monkeypatch):
    from dataclasses import replace as replaced

    from pastcast.drops import Drop, drops_frame
    from pastcast.questions import audit as audit_module
    from pastcast.questions.audit import render_audit

    _articles, _questions, run = planted
    monkeypatch.setattr(audit_module, "SHOWN", 3)
    many = [Drop(f"gen{i}", "question", "validate", "too_short_horizon", f"horizon {i} days") for i in range(10)]
    text = render_audit(replaced(run, drop_table=pl.concat([run.drop_table, drops_frame(many)])))
    assert "### validate / too_short_horizon (10)" in text
    assert sum(f"`gen{i}`" in text for i in range(10)) == 3  # listed: the first three
    assert "… and 7 more (all of them in the drops table)" in text
    assert f"## Dropped questions ({len(run.drops) + 10:,})" in text  # every drop counted


def test_articles_that_are_not_parquet_are_a_clear_error(tmp_path):
    """A snapshot's LATEST pointer (a text file) given as --articles: one Error line, no traceback."""
    latest = tmp_path / "LATEST"
    latest.write_text("v1\n", encoding="utf-8")
    questions = tmp_path / "q.parquet"
    frame([], QUESTIONS).write_parquet(questions)
    result = CliRunner().invoke(main, ["questions", "filter", "--questions", str(questions), "--articles", str(latest),
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 1 and "not a Parquet file of articles" in result.output
    assert isinstance(result.exception, SystemExit)  # a ClickException's exit, not an escaped error
    wrong_table = CliRunner().invoke(main, ["questions", "filter", "--questions", str(questions), "--articles",
                                            str(questions), "--out", str(tmp_path / "out2")])
    assert wrong_table.exit_code == 1 and "not a table of articles" in wrong_table.output
