"""pastcast.questions.row_memo: the filter's row-local rules (validation, self leaks) give the
same outcomes through the memo as without it, across builds whose window moves."""

from dataclasses import replace
from datetime import date

import polars as pl

from pastcast.questions.leakage import self_leaks
from pastcast.questions.row_memo import RowMemo
from pastcast.questions.validate import ValidateConfig, validate
from pastcast.schemas import QUESTIONS, frame


def q(qid: str, title: str, answer: str, opens: str, resolves: str, **kw) -> dict:
    row = {"question_id": qid, "title": title, "background": "", "resolution_criteria": "Reported by officials.",
           "answer": answer, "answer_aliases": [], "answer_type": "person", "candidate_outcomes": [],
           "open_date": date.fromisoformat(opens), "resolution_date": date.fromisoformat(resolves),
           "source_kind": "news", "source_ids": [], "generator": "test", "category": "politics"}
    return {**row, **kw}


CANDIDATES = frame([
    q("ok", "Who will chair the harbour board in 2026?", "Ana Ruiz", "2026-01-01", "2026-02-01"),
    q("late", "Who will chair the river board in 2026?", "Ana Ruiz", "2026-01-01", "2026-03-20"),
    q("short", "Who will chair the port board in 2026?", "Ana Ruiz", "2026-01-01", "2026-01-03"),
    # outside a late window and a short window at once: the window's reason comes first
    q("both", "Who will lead the dock board in 2026?", "Ana Ruiz", "2026-03-18", "2026-03-20"),
    q("yes", "Who will win the cup in 2026?", "Yes", "2026-01-01", "2026-02-01"),
    q("past", "Who won the cup?", "Ana Ruiz", "2026-01-01", "2026-02-01"),
    q("label", "Which firm will win the tender in 2026?", "Norvik", "2026-01-01", "2026-02-01",
      answer_type="Organization"),
    q("leak", "Will Ana Ruiz chair the harbour board in 2026?", "Ana Ruiz", "2026-01-01", "2026-02-01"),
    q("北京", "2026年哪座城市将举办博览会？", "上海", "2026-01-01", "2026-02-01", answer_type="city",
      background="上海已经确定举办。"),
], QUESTIONS)


def outcome(result) -> tuple:
    return (sorted((d.item_id, d.reason, d.detail) for d in result.drops), result.kept.to_dicts(),
            [(e.question_id, e.reason, e.spans, e.detail) for e in result.evidence])


def test_memo_outcomes_equal_fresh_ones_as_the_window_moves(tmp_path):
    path = tmp_path / "rows.parquet"
    windows = [(date(2026, 1, 1), date(2026, 3, 31)), (date(2026, 1, 1), date(2026, 2, 28)),
               (date(2026, 1, 1), date(2026, 3, 31))]
    for n, (start, end) in enumerate(windows):
        config = ValidateConfig(window_start=start, window_end=end)
        memo = RowMemo(path)
        with_memo = validate(CANDIDATES, config, memo)
        fresh = validate(CANDIDATES, config)
        assert outcome(with_memo) == outcome(fresh)
        # the first build works every row out; the later ones look every row up
        assert (memo.reused == 0) if n == 0 else (memo.computed == 0 and memo.reused == CANDIDATES.height)
        leaks, fresh_leaks = self_leaks(with_memo.kept, memo=memo), self_leaks(fresh.kept)
        assert outcome(leaks) == outcome(fresh_leaks)
        memo.save()  # keeps what this build looked up: a row only the window had left out is worked out again
        reasons = {d.item_id: d.reason for d in with_memo.drops + leaks.drops}
        assert reasons["both"] == ("outside_window" if end < date(2026, 3, 20) else "short_window")
        assert ("late" in reasons) == (end < date(2026, 3, 20))
        assert {"yes", "past", "leak", "北京"} <= set(reasons) and "ok" not in reasons
    labels = dict(with_memo.kept.select("question_id", "answer_type").iter_rows())
    assert labels["label"] == "organisation"


def test_a_changed_row_or_setting_is_worked_out_again_and_a_damaged_memo_is_ignored(tmp_path):
    path = tmp_path / "rows.parquet"
    config = ValidateConfig(window_start=date(2026, 1, 1), window_end=date(2026, 3, 31))
    memo = RowMemo(path)
    validate(CANDIDATES, config, memo)
    memo.save()
    edited = CANDIDATES.with_columns(pl.when(pl.col("question_id") == "ok").then(pl.lit("Who chaired it?"))
                                     .otherwise(pl.col("title")).alias("title"))
    memo = RowMemo(path)
    result = validate(edited, config, memo)
    assert memo.computed == 1 and "ok" in {d.item_id for d in result.drops}
    memo = RowMemo(path)
    validate(CANDIDATES, replace(config, max_answer_words=1), memo)  # another setting: all afresh
    assert memo.computed == CANDIDATES.height
    path.write_bytes(b"not parquet")
    memo = RowMemo(path)
    assert outcome(validate(CANDIDATES, config, memo)) == outcome(validate(CANDIDATES, config))
    assert memo.reused == 0


def test_bulk_and_point_lookups_agree_and_a_build_keeps_exactly_what_it_used(tmp_path):
    """Many keys go through joins, a few through a dict: the same values either way, and the
    next build holds what this one looked up, kept or put (a put over a kept row wins), and
    nothing else."""
    path = tmp_path / "rows.parquet"
    keys = [(i * 2_654_435_761) % 2**64 for i in range(1, 301)]  # spread over the whole u64 range
    first = RowMemo(path)
    assert first.outcomes("rule", keys, lambda i: {"at": i, "flags": ["x"] * (i % 3)}) == [
        {"at": i, "flags": ["x"] * (i % 3)} for i in range(300)]
    for i, key in enumerate(keys[:100]):
        first.put("pairs", key, [i, i + 1])
    first.save()

    second = RowMemo(path)
    bulk = second.outcomes("rule", keys[:250] + [7], lambda i: "computed")
    assert bulk[:250] == [{"at": i, "flags": ["x"] * (i % 3)} for i in range(250)] and bulk[250] == "computed"
    assert second.reused == 250 and second.computed == 1
    few = RowMemo(path)
    assert few.outcomes("rule", keys[:5], lambda i: "computed") == bulk[:5]  # the dict path
    assert second.get_all("pairs", keys[:150]) == [[i, i + 1] for i in range(100)] + [None] * 50
    assert [second.get("pairs", k) for k in keys[98:102]] == [[98, 99], [99, 100], None, None]
    assert second.has_all("pairs", keys[95:105]) == [True] * 5 + [False] * 5
    assert second.has_all("absent step", keys[:3]) == [False] * 3
    second.keep_all("pairs", keys[:60])
    second.put("pairs", keys[0], ["changed"])  # wins over the kept row
    second.save()

    third = RowMemo(path)
    assert third.get_all("rule", keys) == [{"at": i, "flags": ["x"] * (i % 3)} for i in range(250)] + [None] * 50
    assert third.get("rule", 7) == "computed"
    assert third.get_all("pairs", keys[:61]) == [["changed"]] + [[i, i + 1] for i in range(1, 60)] + [None]
    got = pl.read_parquet(path)
    assert got.height == got.select("step", "key").unique().height == 251 + 60
