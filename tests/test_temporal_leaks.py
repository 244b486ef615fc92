"""The temporal-leak step: a question naming what the date-gated corpus first reports after it
opens is opened later or dropped, with the phrase and the article as evidence; what was reported
before stays; a corpus starting after the open date, or not holding the phrase, judges nothing;
ordinary words never fire. In Latin, Cyrillic and Chinese script. Then the memo (a nightly build
equals a full one) and the index queries behind it."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import polars as pl
import pytest

from evalkit import article, ts
from pastcast.questions.temporal import DROP_REASON, STAGE, TemporalConfig, temporal_leaks
from pastcast.questions.temporal.memo import TemporalMemo
from pastcast.questions.temporal.phrases import distinctive_phrases
from pastcast.questions.temporal.rule import chance_all_after
from pastcast.schemas import ARTICLES, QUESTIONS, complete, frame
from pastcast.search.index import ArticleIndex

START, END = date(2024, 3, 1), date(2024, 7, 31)
RELEASE = date(2024, 7, 12)  # the planted titles are first reported this day
ENGLISH = ["The city council met to discuss the budget for the new park and the harbor festival.",
           "Local schools reported higher attendance after the holiday, officials said on Tuesday.",
           "Farmers expect a good harvest as the weather stays mild across the region this spring."]
RUSSIAN = ["Городской совет обсудил бюджет нового парка и городской праздник.",
           "Фермеры ожидают хороший урожай, погода в регионе остаётся мягкой."]
CHINESE = ["市议会讨论了新公园的预算。本地学校出勤率上升。",
           "农民预计今年丰收，天气温和。"]


def _days(start: date, end: date):
    day = start
    while day <= end:
        yield day
        day += timedelta(days=1)


def corpus_rows(start: date = START, end: date = END) -> list[dict]:
    """Two English, one Russian and one Chinese article a day; from RELEASE on, some of them
    report a new album in each script ('The Glass Orchard', «Стеклянный сад», 《玻璃果园》)."""
    rows = []
    for i, day in enumerate(_days(start, end)):
        en = [ENGLISH[i % 3], ENGLISH[(i + 1) % 3]]
        ru, zh = RUSSIAN[i % 2], CHINESE[i % 2]
        if day >= RELEASE and (day - RELEASE).days % 2 == 0:  # every other day from the release
            en[0] += " Critics praised the new album 'The Glass Orchard' by the Harbor Quartet."
            ru += " Критики хвалят новый альбом «Стеклянный сад»."
            zh += "新专辑《玻璃果园》发行。"
            en[1] += " The village baker opened early."  # a common noun, new to the corpus too
        if day == date(2024, 7, 20):
            en[1] += " The Lantern Prize went to a newcomer."  # seen once
        rows += [article(f"en-{day}-a", "City news", en[0], ts(day, 9)),
                 article(f"en-{day}-b", "Regional news", en[1], ts(day, 15)),
                 article(f"ru-{day}", "Новости", ru, ts(day, 10)),
                 article(f"zh-{day}", "新闻", zh, ts(day, 11))]
    return rows


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return ArticleIndex.build(frame(corpus_rows(), ARTICLES), tmp_path_factory.mktemp("temporal") / "index")


def questions(*rows: dict) -> pl.DataFrame:
    base = {"answer": "Yes", "answer_type": "binary", "source_kind": "news", "source_ids": [],
            "candidate_outcomes": [], "background": None}
    return complete(pl.DataFrame([{**base, **r} for r in rows]), QUESTIONS)


def q(qid: str, title: str, opens: str | None, resolves: str, criteria: str | None = None) -> dict:
    return {"question_id": qid, "title": title, "resolution_criteria": criteria,
            "open_date": date.fromisoformat(opens) if opens else None, "resolution_date": date.fromisoformat(resolves)}


ALBUM = "Will 'The Glass Orchard' top the national album chart by July 31, 2024?"


def test_a_title_first_reported_after_the_open_date_reopens_the_question_on_that_day(index):
    result = temporal_leaks(questions(q("late", ALBUM, "2024-06-30", "2024-07-31")), index)
    assert result.drops == [] and result.examined == 1 and result.reopened == 1
    assert result.kept.row(0, named=True)["open_date"] == RELEASE
    (e,) = result.evidence
    assert (e.stage, e.action, e.reason) == (STAGE, "reopen", "open_date")
    assert e.detail.startswith(f"open date 2024-06-30 -> {RELEASE}: 'The Glass Orchard' first reported by "
                               f"en-{RELEASE}-a on {RELEASE}")
    assert e.spans == ("The Glass Orchard",) and e.article_ids == (f"en-{RELEASE}-a",)
    assert e.dates == (RELEASE.isoformat(),)


def test_with_too_little_window_left_it_is_dropped_with_the_phrase_and_the_article(index):
    result = temporal_leaks(questions(q("short", ALBUM, "2024-06-30", "2024-07-15")), index)
    assert result.kept.is_empty() and result.reopened == 0
    (d,) = result.drops
    assert (d.item_id, d.stage, d.reason) == ("short", STAGE, DROP_REASON)
    assert "'The Glass Orchard' first reported by" in d.detail and f"en-{RELEASE}-a" in d.detail
    assert "3 days of forecasting window" in d.detail
    (e,) = result.evidence
    assert e.action == "drop" and e.reason == DROP_REASON and e.article_ids == (f"en-{RELEASE}-a",)


def test_the_same_title_reported_before_the_open_date_leaves_the_question_unchanged(index):
    asked = questions(q("after", ALBUM, "2024-07-20", "2024-08-31"))
    result = temporal_leaks(asked, index)
    assert result.drops == [] and result.evidence == [] and result.examined == 1 and not result.skipped
    assert result.kept.equals(asked)


@pytest.mark.parametrize("title", ["Возглавит ли «Стеклянный сад» национальный чарт к 31 июля 2024 года?",
                                   "《玻璃果园》会在2024年7月登上榜首吗？"])
def test_other_scripts_are_judged_against_their_own_articles(index, title):
    result = temporal_leaks(questions(q("other", title, "2024-06-30", "2024-07-31")), index)
    assert result.reopened == 1, result.checks
    assert result.kept["open_date"].to_list() == [RELEASE]
    (e,) = result.evidence
    assert e.article_ids[0].split("-")[0] in ("ru", "zh") and e.dates == (RELEASE.isoformat(),)


def test_a_corpus_starting_after_the_open_date_is_skipped_with_its_reason_not_fired(index):
    result = temporal_leaks(questions(q("early", ALBUM, "2024-02-01", "2024-07-31"),
                                      q("early-ru", "Возглавит ли «Стеклянный сад» чарт?", "2024-01-15", "2024-07-31")),
                            index)
    assert result.drops == [] and result.evidence == [] and result.examined == 0
    assert result.skipped == {"early": "no_corpus_before_open_date", "early-ru": "no_corpus_before_open_date"}
    assert result.kept["open_date"].to_list() == [date(2024, 2, 1), date(2024, 1, 15)]


def test_a_phrase_the_corpus_does_not_hold_judges_nothing(index):
    result = temporal_leaks(questions(q("absent", "Will the Zanzibar Quartet tour Europe in 2024?", "2024-06-30",
                                        "2024-07-31")), index)
    assert result.skipped == {"absent": "phrases_not_in_corpus"} and result.drops == [] and result.evidence == []


def test_a_phrase_seen_once_is_weak_evidence(index):
    result = temporal_leaks(questions(q("once", "Will the Lantern Prize be awarded in July 2024?", "2024-06-30",
                                        "2024-07-31")), index, keep_checks=True)
    assert result.drops == [] and result.evidence == [] and result.examined == 1
    assert [c.outcome for c in result.checks["once"]] == ["weak"]


def test_a_name_that_is_also_a_common_word_counts_only_where_written_as_a_name(index):
    """The index folds case: "Baker" the surname is found in "the village baker", new after the
    open date; only holders writing "Baker" count."""
    result = temporal_leaks(questions(q("baker", "Will the chess title go to Mateo Rossi or to Baker in July 2024?",
                                        "2024-06-30", "2024-07-31")), index, keep_checks=True)
    assert result.drops == [] and result.reopened == 0
    assert {c.phrase.text: c.outcome for c in result.checks["baker"]}["Baker"] == "weak"


def test_ordinary_words_never_fire(index):
    ordinary = [
        q("plain", "Will the city council approve the budget for the new park by July 31, 2024?", "2024-06-30",
          "2024-07-31", "Resolves Yes if the council approves it. Officials said on Tuesday that farmers expect a "
                        "good harvest."),
        q("lower", "will schools report higher attendance after the holiday?", "2024-06-30", "2024-07-31"),
        q("frame", "Will It Happen?", "2024-06-30", "2024-07-31", "Resolution Criteria: Yes. Fine Print: UTC, July 31."),
    ]
    result = temporal_leaks(questions(*ordinary), index)
    assert result.drops == [] and result.evidence == [] and result.reopened == 0
    assert result.skipped == {"plain": "no_distinctive_phrase", "lower": "no_distinctive_phrase",
                              "frame": "no_distinctive_phrase"}


def test_no_open_date_is_skipped(index):
    result = temporal_leaks(questions(q("undated", ALBUM, None, "2024-07-31")), index)
    assert result.skipped == {"undated": "no_open_date"} and result.drops == []


def test_a_question_written_from_an_article_after_its_open_date_is_caught_by_that_article(tmp_path):
    """Its own source article is part of the corpus: the phrase first appears there."""
    rows = corpus_rows(START, date(2024, 7, 10))
    rows += [article("source", "Band unveils Copper Lanterns", "The band unveiled its album 'Copper Lanterns'.",
                     ts(date(2024, 7, 5))),
             article("echo", "Copper Lanterns reviewed", "Fans queued for 'Copper Lanterns' on release day.",
                     ts(date(2024, 7, 6)))]
    index = ArticleIndex.build(frame(rows, ARTICLES), tmp_path / "index")
    asked = questions({**q("gen", "Will 'Copper Lanterns' sell a million copies by July 31, 2024?", "2024-06-30",
                           "2024-07-31"), "source_ids": ["source"]})
    result = temporal_leaks(asked, index)
    assert result.kept["open_date"].to_list() == [date(2024, 7, 5)]
    assert result.evidence[0].article_ids == ("source",)


def test_phrases_in_every_script():
    def texts(*args):
        return [(p.text, p.kind) for p in distinctive_phrases(*args)]

    assert texts("Will Taylor Swift's 'The Tortured Poets Department' return to No. 1?",
                 "After being unseated by Eminem's 'The Death of Slim Shady (Coup de Grâce)'.") == [
        ("The Tortured Poets Department", "title"), ("The Death of Slim Shady", "title"),
        ("Taylor Swift", "name"), ("Eminem", "name")]
    assert ("Анна Смирнова", "name") in texts("Станет ли Анна Смирнова министром финансов России?")
    assert texts("《三体》第二季会播出吗？", "腾讯视频将播出「三体」续集。トランプ大統領") == [("三体", "title"), ("トランプ", "name")]
    assert texts("هل سيفوز فيلم «الطريق الطويل» بالجائزة؟") == [("الطريق الطويل", "title")]
    # a sentence's first word alone is no name; a word capitalised inside one is
    assert texts("Swift beat the record.") == []
    assert texts("Swift beat the record held by Swift.") == [("Swift", "name")]
    # frame words, months, function words and scare quotes are left out; New York is a name
    assert texts("Will the 'unborn child' wording stay? Resolution: Yes, by July 31 (UTC).",
                 "According to The New York Times.") == [("The New York Times", "name")]
    # Title Case gives no names, figures need a scale and two significant digits
    assert texts("Will Lisa From Blackpink Perform Solo At The Global Citizen Festival?") == []
    assert [t for t, k in texts("", "It cost $4.7 billion, not $1 billion, and 5.2%.") if k == "figure"] == ["$4.7 billion"]
    # the options a question lists are left out
    assert texts("Will Estvale or Tarnby win?", None, None, ["Estvale", "Tarnby"]) == []


def test_chance_all_after():
    assert chance_all_after(1, 10, 90) == pytest.approx(0.1)
    assert chance_all_after(2, 7, 90) == pytest.approx(7 / 97 * 6 / 96)
    assert chance_all_after(3, 3, 0) == 1.0


# -- the index queries ------------------------------------------------------------------------

def test_first_holding_and_phrase_days(index):
    first = index.first_holding("The Glass Orchard")
    assert first[0] == f"en-{RELEASE}-a" and first[1].date() == RELEASE
    assert index.first_holding("the glass orchard", since=RELEASE + timedelta(days=1))[1].date() == RELEASE + timedelta(days=2)
    assert index.first_holding("Glass Orchard Quartet") is None
    days = index.phrase_days("Glass Orchard", through=RELEASE + timedelta(days=4))
    assert days == {RELEASE: 1, RELEASE + timedelta(days=2): 1, RELEASE + timedelta(days=4): 1}
    assert index.phrase_days("玻璃果园", since=RELEASE, through=RELEASE) == {RELEASE: 1}
    assert index.phrase_days("果园", through=RELEASE) == {RELEASE: 1}  # inside a run of characters
    assert index.phrase_days("") is None
    assert sum(index.words_days(["и", "в"]).values()) == len(list(_days(START, END)))  # one Russian article a day
    assert sum(index.characters_days("的天").values()) == len(list(_days(START, END)))


def test_first_holding_breaks_ties_of_one_instant_by_id(tmp_path):
    rows = [article(f"t{i}", "x", "a shared phrase", ts(date(2024, 1, 2), 8)) for i in (3, 1, 2)] + [
        article(f"u{i:02d}", "y", "a shared phrase", ts(date(2024, 1, 1), 8)) for i in (20, 11, 9, 12, 30, 5, 7, 6, 8, 10)]
    index = ArticleIndex.build(frame(rows, ARTICLES), tmp_path / "ix")
    assert index.first_holding("shared phrase")[0] == "u05"  # ten tied: more than one page of hits
    assert index.first_holding("shared phrase", since=date(2024, 1, 2))[0] == "t1"


# -- the memo ---------------------------------------------------------------------------------

def _write_parts(folder, rows: list[dict], days: list[date]) -> dict:
    """One Parquet part per day, as a build gathers them: key -> (sha256, path)."""
    from pastcast.io import sha256_file

    parts = {}
    by_day = {}
    for r in rows:
        by_day.setdefault(r["published_at"].date(), []).append(r)
    for day in days:
        path = folder / f"day={day}.parquet"
        if not path.exists():
            frame(by_day.get(day, []), ARTICLES).write_parquet(path)
        parts[f"day={day}"] = (sha256_file(path), path)
    return parts


def _same(a, b):
    assert a.kept.sort("question_id").equals(b.kept.sort("question_id"))
    assert a.drops_frame().sort("item_id").equals(b.drops_frame().sort("item_id"))
    assert a.evidence_frame().sort("question_id").equals(b.evidence_frame().sort("question_id"))
    assert a.skipped == b.skipped and a.examined == b.examined and a.reopened == b.reopened
    assert a.phrases == b.phrases


def test_a_nightly_build_with_the_memo_equals_a_full_build(tmp_path):
    rows = corpus_rows()
    days = list(_days(START, END))
    asked = questions(
        q("reopen", ALBUM, "2024-06-30", "2024-07-31"), q("drop", ALBUM, "2024-06-30", "2024-07-15"),
        q("known", ALBUM, "2024-07-20", "2024-08-31"), q("absent", "Will the Zanzibar Quartet tour?", "2024-06-30",
                                                         "2024-07-31"),
        q("old", "Will the Harbor Festival draw crowds?", "2024-03-20", "2024-04-01"),
        q("ru", "Возглавит ли «Стеклянный сад» чарт?", "2024-06-30", "2024-07-31"),
        q("undated", ALBUM, None, "2024-07-31"), q("plain", "will it rain?", "2024-06-30", "2024-07-31"))
    config = TemporalConfig()
    parts_dir = tmp_path / "parts"
    parts_dir.mkdir()
    memo_path = tmp_path / "state" / "temporal.parquet"
    # nights: the corpus up to July 9 (nothing new yet), then July 12 (the release), then July 20
    for night, last in enumerate((date(2024, 7, 9), date(2024, 7, 12), date(2024, 7, 20), date(2024, 7, 20))):
        upto = [d for d in days if d <= last]
        parts = _write_parts(parts_dir, rows, upto)
        index = ArticleIndex.build(frame([r for r in rows if r["published_at"].date() <= last], ARTICLES),
                                   tmp_path / f"index-{night}")
        full = temporal_leaks(asked, index, config)
        memo = TemporalMemo(memo_path, parts)
        nightly = temporal_leaks(asked, index, config, memo=memo)
        memo.save()
        _same(nightly, full)
        if night == 0:
            assert memo.judged == asked.height and memo.reused == 0
        elif night == 3:  # nothing added: every stored outcome stands, nothing is searched
            assert memo.reused == asked.height and memo.judged == 0 and nightly.searched == 0
        else:  # the question resolved in March, the undated and the plain ones are not judged again
            assert memo.reused >= 3 and memo.judged <= asked.height - 3
    assert full.reopened == 2 and {d.item_id for d in full.drops} == {"drop"}


def test_a_part_written_again_without_the_first_report_moves_the_open_date_as_a_full_build(tmp_path):
    rows = corpus_rows()
    days = list(_days(START, END))
    parts_dir = tmp_path / "parts"
    parts_dir.mkdir()
    asked = questions(q("reopen", ALBUM, "2024-06-30", "2024-07-31"), q("old", "Will the Harbor Festival return?",
                                                                      "2024-04-01", "2024-04-10"))
    memo_path = tmp_path / "temporal.parquet"
    memo = TemporalMemo(memo_path, _write_parts(parts_dir, rows, days))
    first = temporal_leaks(asked, ArticleIndex.build(frame(rows, ARTICLES), tmp_path / "i1"), memo=memo)
    memo.save()
    assert first.kept.filter(pl.col("question_id") == "reopen")["open_date"].item() == RELEASE
    # the release day is built again without the English report: the first one is two days later
    kept = [r for r in rows if r["article_id"] != f"en-{RELEASE}-a"]
    (parts_dir / f"day={RELEASE}.parquet").unlink()
    index = ArticleIndex.build(frame(kept, ARTICLES), tmp_path / "i2")
    memo = TemporalMemo(memo_path, _write_parts(parts_dir, kept, days))
    nightly = temporal_leaks(asked, index, memo=memo)
    _same(nightly, temporal_leaks(asked, index))
    assert memo.judged == 1 and memo.reused == 1  # the question of April stands


def test_a_changed_question_or_setting_is_judged_again_and_a_gone_part_forgets_everything(tmp_path):
    rows = corpus_rows(START, date(2024, 7, 20))
    days = list(_days(START, date(2024, 7, 20)))
    parts_dir = tmp_path / "parts"
    parts_dir.mkdir()
    parts = _write_parts(parts_dir, rows, days)
    index = ArticleIndex.build(frame(rows, ARTICLES), tmp_path / "index")
    memo_path = tmp_path / "temporal.parquet"
    asked = questions(q("a", ALBUM, "2024-06-30", "2024-07-31"), q("b", "Will the Harbor Festival return?",
                                                                 "2024-04-01", "2024-04-10"))
    memo = TemporalMemo(memo_path, parts)
    temporal_leaks(asked, index, memo=memo)
    memo.save()
    changed = asked.with_columns(pl.when(pl.col("question_id") == "a").then(pl.lit(date(2024, 7, 25)))
                                 .otherwise(pl.col("open_date")).alias("open_date"))
    memo = TemporalMemo(memo_path, parts)
    result = temporal_leaks(changed, index, memo=memo)
    assert (memo.judged, memo.reused) == (1, 1) and result.reopened == 0
    memo = TemporalMemo(memo_path, parts)
    temporal_leaks(asked, index, TemporalConfig(min_holders=3), memo=memo)
    assert memo.judged == 2  # other settings: nothing stored applies
    fewer = dict(list(parts.items())[1:])
    memo = TemporalMemo(memo_path, fewer)
    temporal_leaks(asked, index, memo=memo)
    assert memo.judged == 2  # a part it was worked out against is gone


# -- real data --------------------------------------------------------------------------------

from warcs import SHARED  # noqa: E402

REAL = SHARED / "warc" / "derived" / "CC-NEWS-like-fundus-256.warc.gz"


@pytest.mark.slow  # over 10 s: `make test-slow` and CI
@pytest.mark.skipif(not (REAL.is_file() and (SHARED / "markets" / "autocast").is_dir()),
                    reason=f"real third-party data not present at {SHARED} (fresh clone)")
def test_real_questions_written_on_their_open_dates_rarely_fire_against_real_news(tmp_path):
    """ForecastBench and Autocast questions were written by people on their open dates, so every
    firing is a false positive (or a later edit). Against the real news pages of the shared data
    (bench/temporal_leaks.py) at most 1% of the examined questions may fire: the bench measures
    0.1% on the tune half and 0.2% on the held-out one with these settings."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    import temporal_leaks as bench  # bench/temporal_leaks.py

    articles = bench.real_pages(cache=False)
    index = ArticleIndex.build(articles, tmp_path / "index")
    asked = bench.all_questions(None)
    result = temporal_leaks(complete(asked, QUESTIONS), index)
    fired = len(result.drops) + result.reopened
    assert result.examined >= 0.9 * asked.height  # most questions can be judged ...
    assert fired <= 0.01 * result.examined  # ... and almost none fires
    assert set(result.skipped.values()) <= {"no_distinctive_phrase", "no_corpus_before_open_date",
                                            "phrases_not_in_corpus"}
