"""Resolution-date revision: articles published before a question resolves that already report
its answer move the resolution date to the earliest of them, or drop the question when too
little forecasting window is left. Synthetic corpora for each rule, the LLM judge against the
loopback OpenAI server, and the sample corpus with every case checked by hand."""

import json
from datetime import date

import polars as pl
import pytest

from evalkit import article, question, ts
from openai_server import OpenAIServer, completion
from pastcast.daily import scan_gathered
from pastcast.search.index import ArticleIndex
from pastcast.llm import LLMSettings
from pastcast.questions.revision import (LLMJudge, RevisionConfig, RevisionResult, article_sentences,
                                         decided_by, is_settled, key_terms, revise_resolution_dates)
from pastcast.questions.steps import StepResult
from pastcast.schemas import ARTICLES, QUESTIONS, frame

TITLE = "Who will win the 2026 Kestrel Bay mayoral election?"
FILLER = ("The council met on Tuesday to discuss bus lanes, library hours and the harbour wall. "
          "Residents raised concerns about parking near the market square.")


def _mayor(qid: str = "q1", open_date: str = "2026-01-01", resolution: str = "2026-03-08", **kw) -> dict:
    return question(qid, TITLE, "Lina Okafor", open_date, resolution, **kw)


def _noise() -> list[dict]:
    return [article(f"n{i}", f"Kestrel Bay council notes {i}", FILLER, ts(f"2026-02-0{i}")) for i in range(1, 6)]


def _run(tmp_path, rows: list[dict], questions: list[dict], config: RevisionConfig = RevisionConfig(),
         judge=None) -> tuple[RevisionResult, pl.DataFrame]:
    articles = frame(rows, ARTICLES)
    index = ArticleIndex.build(articles, tmp_path / "idx")
    result = revise_resolution_dates(frame(questions, QUESTIONS), index, articles, config, judge)
    return result, result.kept


def _row(kept: pl.DataFrame, qid: str) -> dict:
    return kept.filter(pl.col("question_id") == qid).row(0, named=True)


def test_answer_reported_ten_days_early_moves_the_resolution_date(tmp_path):
    rows = [*_noise(),
            article("e1", "Okafor wins Kestrel Bay mayoral election",
                    "Lina Okafor won the 2026 Kestrel Bay mayoral election on Thursday, the returning officer said.\n"
                    + FILLER, ts("2026-02-26", 21)),
            article("s1", "Okafor sworn in", "Lina Okafor was sworn in as mayor of Kestrel Bay.", ts("2026-03-08"))]
    result, kept = _run(tmp_path, rows, [_mayor(source_ids=["s1"]), _mayor("q2", original_resolution_date=None)])
    assert isinstance(result, StepResult) and result.decided_by == "lexical rule" == decided_by(None)
    assert dict(kept.schema) == QUESTIONS and kept.height == 2 and not result.drops
    for qid in ("q1", "q2"):
        q = _row(kept, qid)
        assert q["resolution_date"] == date(2026, 2, 26)  # the evidence day, 10 days early
        assert q["original_resolution_date"] == date(2026, 3, 8)  # kept, or set when it was null
        assert q["revision_evidence"] == ["e1"]
    ev = {e.question_id: e for e in result.evidence}
    e = ev["q1"]
    assert (e.stage, e.action, e.reason) == ("revision", "revise", "resolution_date")
    assert e.article_ids == ("e1",) and e.dates == ("2026-02-26",)
    assert e.spans == ("Lina Okafor won the 2026 Kestrel Bay mayoral election on Thursday, the returning officer said.",)
    assert "2026-03-08 -> 2026-02-26" in e.detail and "decided by lexical rule" in e.detail


def test_answer_reported_two_days_after_open_drops_the_question(tmp_path):
    rows = [*_noise(), article("e1", "Okafor elected", "Lina Okafor was elected mayor of Kestrel Bay on Monday.",
                               ts("2026-02-03", 8))]
    result, kept = _run(tmp_path, rows, [_mayor(open_date="2026-02-01")])
    assert kept.is_empty()
    [drop] = result.drops
    assert (drop.item_id, drop.stage, drop.reason) == ("q1", "revision", "answer_known_early")
    assert "e1" in drop.detail and "2026-02-03" in drop.detail and "was elected mayor of Kestrel Bay" in drop.detail
    assert "2 days of forecasting window left" in drop.detail
    [e] = result.evidence
    assert (e.action, e.reason, e.article_ids, e.dates) == ("drop", "answer_known_early", ("e1",), ("2026-02-03",))


PREVIEWS = [
    ("Okafor favourite in Kestrel Bay", "Lina Okafor is expected to win the 2026 Kestrel Bay mayoral election, "
                                        "analysts announced."),
    ("Kestrel Bay candidates confirmed", "The returning officer confirmed the candidates Lina Okafor, Ana Ruiz and "
                                         "Tomas Berg for the Kestrel Bay mayoral election."),
    ("Candidates: Ruiz, Berg, Okafor", "Candidates Lina Okafor, Ana Ruiz and Tomas Berg were named for the Kestrel "
                                      "Bay mayoral election."),
    ("What if Okafor wins?", "If Lina Okafor wins the Kestrel Bay mayoral election, she would be the first Green mayor."),
    ("Debate night", "Lina Okafor won the Kestrel Bay mayoral election debate, according to a poll of viewers."),
    ("Okafor's record", "Lina Okafor, who won a council seat in 2019, defeated Ruiz's budget in the Kestrel Bay "
                        "council before the mayoral election."),
    ("Can Okafor do it?", "Can Lina Okafor win the Kestrel Bay mayoral election?"),
    ("Okafor not elected", "Lina Okafor was not elected in the Kestrel Bay mayoral election of 2026, early reports "
                           "wrongly said."),
    ("Race tightens", "Lina Okafor could be elected mayor of Kestrel Bay, and may win the election outright."),
    ("Harbour wall repairs", "Work on the harbour wall starts in May.\nRead more: Lina Okafor won the Kestrel Bay "
                             "mayoral election\nRelated: Okafor elected Kestrel Bay mayor, Lina Okafor said"),
]


def test_previews_naming_the_answer_as_a_candidate_are_not_evidence(tmp_path):
    rows = [*_noise(), *(article(f"p{i}", t, body, ts(f"2026-02-{10 + i}")) for i, (t, body) in enumerate(PREVIEWS))]
    result, kept = _run(tmp_path, rows, [_mayor()])
    assert not result.evidence and not result.drops
    assert kept.equals(frame([_mayor()], QUESTIONS))


def test_articles_on_or_after_the_resolution_date_are_ignored(tmp_path):
    body = "Lina Okafor was elected mayor of Kestrel Bay on Sunday, defeating Ana Ruiz."
    rows = [*_noise(), article("s1", "Okafor elected Kestrel Bay mayor", body, ts("2026-03-08", 0, 30)),
            article("later", "Okafor elected Kestrel Bay mayor", body, ts("2026-03-10"))]
    result, kept = _run(tmp_path, rows, [_mayor(source_ids=["s1"])])
    assert not result.evidence and _row(kept, "q1")["resolution_date"] == date(2026, 3, 8)
    assert result.searches == 1


def test_an_earlier_syndicated_copy_is_evidence(tmp_path):
    body = "Lina Okafor was elected mayor of Kestrel Bay on Sunday, defeating Ana Ruiz by four points."
    source = article("s1", "Okafor ousts Ruiz in Kestrel Bay", body, ts("2026-03-08", 21))
    copy = article("c1", "Okafor ousts Ruiz in Kestrel Bay", body, ts("2026-03-07", 22)) | {
        "domain": "wire.example", "url": "https://wire.example/c1"}
    result, kept = _run(tmp_path, [*_noise(), source, copy], [_mayor(source_ids=["s1"])])
    q = _row(kept, "q1")
    assert q["resolution_date"] == date(2026, 3, 7) and q["revision_evidence"] == ["c1"]


def test_the_earliest_report_wins_even_when_search_ranks_a_later_one_first(tmp_path):
    early = article("early", "Weekend roundup",
                    "Lina Okafor won the Kestrel Bay mayoral election, officials said.\n" + FILLER * 3,
                    ts("2026-02-10"))
    late = article("late", "Kestrel Bay mayoral election: Okafor wins Kestrel Bay",
                   "Lina Okafor won the 2026 Kestrel Bay mayoral election.\nThe Kestrel Bay mayoral election "
                   "result: Lina Okafor, Kestrel Bay mayor, won the Kestrel Bay election.", ts("2026-02-25"))
    rows = [*_noise(), early, late]
    articles = frame(rows, ARTICLES)
    index = ArticleIndex.build(articles, tmp_path / "idx")
    query = " ".join(["2026", "Kestrel", "Bay", "mayoral", "election", "Lina Okafor"])
    assert [h.article_id for h in index.search(query, date(2026, 3, 7), 1)] == ["late"]  # ranked first

    questions = frame([_mayor()], QUESTIONS)
    result = revise_resolution_dates(questions, index, articles, RevisionConfig(k=1))
    q = _row(result.kept, "q1")
    assert q["resolution_date"] == date(2026, 2, 10) and q["revision_evidence"] == ["early", "late"]
    assert result.searches == 3  # late; then gated before it: early; then before that: nothing
    assert "3 search rounds" in result.evidence[0].detail
    # bounded: one round finds only what the first search ranked
    one = revise_resolution_dates(questions, index, articles, RevisionConfig(k=1, max_rounds=1))
    assert _row(one.kept, "q1")["resolution_date"] == date(2026, 2, 25)


def test_yes_no_questions_are_searched_for_their_outcome_and_unlocatable_answers_skipped(tmp_path):
    """A yes/no question's outcome is its event, not the word "Yes": "Will Okafor win?" answered
    Yes is known on the day an article reports she won; "Will Ruiz win?" answered No stands (no
    article says she can no longer win); a one-character answer cannot be searched for and is
    skipped with its reason."""
    rows = [*_noise(), article("e1", "Yes: Okafor elected", "Yes. Lina Okafor won the 2026 Kestrel Bay mayoral "
                                                            "election, with 7 seats for her party. No recount.",
                               ts("2026-02-20"))]
    questions = [
        question("b1", "Will Lina Okafor win the 2026 Kestrel Bay mayoral election?", "Yes", "2026-01-01",
                 "2026-03-08", answer_type="binary"),
        question("b2", "Will Ana Ruiz win the 2026 Kestrel Bay mayoral election?", "No", "2026-01-01",
                 "2026-03-08", answer_type="option"),
        question("n1", "How many seats will the Greens win in the 2026 Kestrel Bay council election?", "7",
                 "2026-01-01", "2026-03-08", answer_type="number"),
    ]
    result, kept = _run(tmp_path, rows, questions)
    assert _row(kept, "b1")["resolution_date"] == date(2026, 2, 20)
    assert _row(kept, "b1")["revision_evidence"] == ["e1"]
    assert _row(kept, "b2")["resolution_date"] == date(2026, 3, 8)
    assert _row(kept, "n1")["resolution_date"] == date(2026, 3, 8)
    assert [e.question_id for e in result.evidence] == ["b1"] and "Okafor won" in result.evidence[0].spans[0]
    assert result.skipped == {"n1": "answer_not_locatable"} and result.checked == 2


def test_the_question_period_must_match(tmp_path):
    title = "At what level will the Bank of Veloria set its benchmark rate in March 2026?"
    rows = [*_noise(),
            article("jan", "Bank of Veloria cuts", "The Bank of Veloria cut its benchmark rate to 3.25% in January.",
                    ts("2026-02-10")),
            article("stood", "Rates", "The Bank of Veloria benchmark rate has stood at 3.25% since January.",
                    ts("2026-02-20")),
            article("mar", "Bank of Veloria cuts benchmark rate",
                    "The Bank of Veloria cut its benchmark rate to 3.25% on Wednesday, its second cut this year.",
                    ts("2026-03-04", 13))]
    result, kept = _run(tmp_path, rows, [question("r1", title, "3.25%", "2026-02-05", "2026-03-05",
                                                  answer_type="number")])
    q = _row(kept, "r1")
    assert q["resolution_date"] == date(2026, 3, 4) and q["revision_evidence"] == ["mar"]


def test_sentences_and_key_terms():
    assert article_sentences("Okafor wins", "Okafor wins\nLina Okafor won. Turnout was 61%.\n"
                                            "Read more: Ruiz concedes") == ["Okafor wins", "Lina Okafor won.",
                                                                            "Turnout was 61%."]
    assert key_terms(TITLE, ["Lina Okafor"]) == ["2026", "kestrel", "bay", "mayor", "elect"]
    assert is_settled("The Bank of Veloria held its benchmark rate at 3.50% on Thursday.")
    assert not is_settled("Board members held final interviews with Sunita Rao.")


# -- the judge -------------------------------------------------------------------------------

MODEL = "openai/test-model"
DEBATE = article("r1", "Debate night in Kestrel Bay", "Lina Okafor won the Kestrel Bay mayoral election debate "
                                                       "on Tuesday, organisers said.", ts("2026-02-20"))
RESULT = article("c2", "Okafor wins", "Lina Okafor won the Kestrel Bay mayoral election on Saturday.",
                 ts("2026-02-28"))


def _judge(body: dict, n: int):
    user = body["messages"][1]["content"]
    debate = "debate" in user.split("Passage:", 1)[1]
    return completion(json.dumps({"reveals": not debate,
                                  "reason": "a debate, not the election" if debate else "states the result"}))


def _settings(server, tmp_path) -> LLMSettings:
    return LLMSettings(model=MODEL, api_base=server.url, api_key="test-key", concurrency=4, backoff_base=0.01,
                       timeout=5.0, cache_dir=tmp_path / "cache")


def test_llm_judge_rejects_one_candidate_and_confirms_another(tmp_path):
    rows = [*_noise(), DEBATE, RESULT]
    lexical, _ = _run(tmp_path / "lex", rows, [_mayor()])
    assert lexical.evidence[0].article_ids == ("r1", "c2")  # the rule alone takes the debate too

    with OpenAIServer(_judge) as server:
        with LLMJudge(_settings(server, tmp_path)) as judge:
            result, kept = _run(tmp_path / "a", rows, [_mayor()], judge=judge)
            assert judge.usage.requests == 2
        assert len(server.requests) == 2  # one per candidate; not asked again in round 2
        assert "Passage: Lina Okafor won the Kestrel Bay mayoral election debate" in \
            server.requests[0]["messages"][1]["content"] + server.requests[1]["messages"][1]["content"]
        with LLMJudge(_settings(server, tmp_path)) as judge:  # a rerun: all from the cache
            again, _ = _run(tmp_path / "b", rows, [_mayor()], judge=judge)
            assert judge.usage.cache_hits == 2
        assert len(server.requests) == 2
    assert result.decided_by == "LLM judge (openai/test-model)" == decided_by(judge)
    assert (result.judged, result.judge_rejected, result.judge_no_verdict) == (2, 1, 0)
    q = _row(kept, "q1")
    assert q["resolution_date"] == date(2026, 2, 28) and q["revision_evidence"] == ["c2"]
    [e] = result.evidence
    assert e.article_ids == ("c2",) and "decided by LLM judge (openai/test-model): states the result" in e.detail
    assert again.evidence == result.evidence


def test_a_judge_without_a_verdict_falls_back_to_the_lexical_rule(tmp_path):
    with OpenAIServer(lambda body, n: completion("not json")) as server:
        with LLMJudge(_settings(server, tmp_path)) as judge:
            result, kept = _run(tmp_path, [*_noise(), DEBATE, RESULT], [_mayor()], judge=judge)
        assert len(server.requests) == 4  # each call: one request and one repair
    assert result.judge_no_verdict == 2 and _row(kept, "q1")["resolution_date"] == date(2026, 2, 20)
    assert "gave no verdict" in result.evidence[0].detail and "lexical rule decided" in result.evidence[0].detail


def test_a_callable_judge_with_mention_scope_sees_previews_too(tmp_path):
    seen = []

    def my_judge(q, answer, art, span):
        seen.append(art.article_id)
        return art.article_id == "p0", "trusted"

    rows = [*_noise(), article("p0", "Okafor favourite", PREVIEWS[0][1], ts("2026-02-15"))]
    result, kept = _run(tmp_path, rows, [_mayor()], RevisionConfig(judge_scope="mention"), judge=my_judge)
    assert seen == ["p0"] and result.decided_by == "judge (my_judge)"
    assert _row(kept, "q1")["resolution_date"] == date(2026, 2, 15)
    outcome, _ = _run(tmp_path / "o", rows, [_mayor()], judge=my_judge)  # default scope: the rule's positives
    assert not outcome.evidence and outcome.judged == 0


# -- the sample corpus -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def sample(demo_snapshot, tmp_path_factory):
    work = demo_snapshot.parents[2] / "work"  # pipeline.run_all of the sample
    # The candidates, before any filter step (the pipeline's own filter revises too).
    questions = pl.read_parquet(work / "question_candidates.parquet")
    articles = scan_gathered(work).collect()
    return questions, articles, ArticleIndex.build(articles, tmp_path_factory.mktemp("sample") / "idx")


def test_sample_corpus(sample):
    """Checked by hand: the only answer public before its question resolved is the Kestrel Bay
    mayoral election on the market question, which resolves the day after the count (the
    news report came out on election night). Every other mention of an answer before its
    resolution is a shortlist, a preview, a poll or the status quo."""
    questions, articles, index = sample
    result = revise_resolution_dates(questions, index, articles)
    assert not result.drops
    assert result.kept.height == questions.height
    assert [(e.action, e.question_id) for e in result.evidence] == [
        ("revise", questions.filter((pl.col("title") == TITLE) & (pl.col("source_kind") == "market"))
         ["question_id"].item())]
    [e] = result.evidence
    title = articles.filter(pl.col("article_id") == e.article_ids[0])["title"].item()
    assert title == "Okafor ousts Ruiz to become Kestrel Bay's first Green mayor"
    assert e.dates == ("2026-03-08",) and "2026-03-09 -> 2026-03-08" in e.detail
    assert e.spans[0].startswith("Lina Okafor was elected mayor of Kestrel Bay on Sunday")
    # the sample's yes/no questions are searched too; none is settled early by its articles
    assert result.checked == questions.height - len(result.skipped) - result.on_their_day
    assert result.searches == result.checked + 1  # one question needed a second round


def test_the_memo_searches_old_questions_only_in_new_articles_published_before_they_resolve(tmp_path):
    """A question kept by the build before is searched in the part added since only when that
    part holds an article published before it resolves; the outcome equals a full search."""
    from pastcast.io import sha256_file, write_parquet
    from pastcast.questions.revision.memo import RevisionMemo

    day1 = write_parquet(frame(_noise(), ARTICLES), tmp_path / "p1.parquet")
    report = article("e1", "Okafor wins Kestrel Bay mayoral election",
                     "Lina Okafor won the 2026 Kestrel Bay mayoral election on Thursday, the returning officer "
                     "said.\n" + FILLER, ts("2026-02-26", 21))
    day2 = write_parquet(frame([report], ARTICLES), tmp_path / "p2.parquet")
    # q1 resolves after the new report (searched again, revised); q2 resolved before it (not searched)
    questions = frame([_mayor("q1"), _mayor("q2", open_date="2026-01-01", resolution="2026-02-20")], QUESTIONS)

    def build(files, forget=False):
        parts = {p.stem: (sha256_file(p), p) for p in files}
        articles = pl.concat([pl.read_parquet(p) for p in files])
        memo = RevisionMemo(tmp_path / "memo.parquet", parts, {"test": 1}, forget=forget)
        index = ArticleIndex.build(articles, tmp_path / f"idx{len(files)}{forget}")
        try:
            result = revise_resolution_dates(questions, index, articles, RevisionConfig(), None, memo)
            memo.save()
        finally:
            memo.close()
        return result, memo

    first, _ = build([day1])
    assert first.kept.height == 2 and not first.evidence  # nothing reported yet
    second, memo = build([day1, day2])
    assert memo.reused == 2 and memo.searched_new == 1 and memo.resolved_before_new == 1
    assert _row(second.kept, "q1")["resolution_date"] == date(2026, 2, 26)
    assert _row(second.kept, "q2")["resolution_date"] == date(2026, 2, 20)
    full, _ = build([day1, day2], forget=True)
    assert full.kept.sort("question_id").equals(second.kept.sort("question_id"))
    assert second.evidence_frame().equals(full.evidence_frame()) and second.evidence_frame().height
    assert second.drops_frame().equals(full.drops_frame())
    third, memo = build([day1, day2])  # nothing new: every outcome, evidence included, as stored
    assert memo.reused == 2 and memo.searched_new == 0
    assert third.evidence_frame().equals(full.evidence_frame()) and not third.evidence
