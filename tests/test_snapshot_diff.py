import json
from datetime import date

import pytest
from click.testing import CliRunner

from pastcast.cli import main
from pastcast.schemas import ARTICLES, DROPS, QUESTIONS, frame
from pastcast.snapshot import write_snapshot
from pastcast.snapshot_diff import diff_snapshots

WINDOW_A = (date(2026, 1, 1), date(2026, 3, 31))
WINDOW_B = (date(2026, 1, 1), date(2026, 4, 30))


def question(qid, title="Who will win?", resolution=date(2026, 2, 1), **kw):
    return {"question_id": qid, "title": title, "answer": "X", "answer_aliases": ["x"],
            "open_date": date(2026, 1, 5), "resolution_date": resolution,
            "original_resolution_date": resolution, "source_ids": ["a1"], "source_kind": "news", **kw}


def article(aid, text="some text", words=2, **kw):
    return {"article_id": aid, "title": f"story {aid}", "text": text, "word_count": words,
            "dup_domains": ["example.org"], **kw}


def drop(item_id, kind, stage, reason):
    return {"item_id": item_id, "item_kind": kind, "stage": stage, "reason": reason, "detail": ""}


@pytest.fixture
def pair(tmp_path):
    root = tmp_path / "snaps"
    inputs = {}
    for n in ("w1", "w2", "w3"):
        inputs[n] = tmp_path / f"{n}.warc.gz"
        inputs[n].write_bytes(n.encode())
    a = write_snapshot({
        "questions": frame([question("q_same"), question("q_dropped"), question("q_gone"),
                            question("q_moved"), question("q_retitled")], QUESTIONS),
        "articles": frame([article("a_same"), article("a_dup"), article("a_gone"),
                           article("a_edit")], ARTICLES),
        "drops": frame([drop("q_back", "question", "validate", "answer_too_long"),
                        drop("a_back", "article", "extract", "no_date")], DROPS),
    }, root, "demo", WINDOW_A, inputs=[inputs["w1"], inputs["w2"]])
    b = write_snapshot({
        "questions": frame([question("q_same"), question("q_moved", resolution=date(2026, 2, 20)),
                            question("q_retitled", title="Who will win the cup?",
                                     resolution=date(2026, 2, 9)),
                            question("q_new", title="Brand new?"), question("q_back")], QUESTIONS),
        "articles": frame([article("a_same"), article("a_edit", text="edited text here", words=3),
                           article("a_new"), article("a_back")], ARTICLES),
        "drops": frame([drop("q_dropped", "question", "filter", "answer_in_other_question"),
                        drop("a_dup", "article", "dedup", "near_duplicate")], DROPS),
    }, root, "demo", WINDOW_B, inputs=[inputs["w2"], inputs["w3"]],
        extra={"partitions": ["2026-04"]})
    return root, a, b


def test_counts_reasons_and_changed_columns(pair):
    _, a, b = pair
    diff = diff_snapshots(a, b)
    q, art = diff.tables["questions"], diff.tables["articles"]
    assert q.counts == {"added": 2, "removed": 2, "changed": 2}
    assert dict(q.removed.iter_rows()) == {"q_dropped": "filter/answer_in_other_question",
                                           "q_gone": "not_in_inputs"}
    assert dict(q.added.iter_rows()) == {"q_back": "was_dropped:validate/answer_too_long",
                                         "q_new": "new_input"}
    assert q.column_counts == {"original_resolution_date": 2, "resolution_date": 2, "title": 1}
    assert {r[0]: sorted(r[1]) for r in q.changed.iter_rows()} == {
        "q_moved": ["original_resolution_date", "resolution_date"],
        "q_retitled": ["original_resolution_date", "resolution_date", "title"]}

    assert art.counts == {"added": 2, "removed": 2, "changed": 1}
    assert art.reasons("removed") == {"dedup/near_duplicate": 1, "not_in_inputs": 1}
    assert art.reasons("added") == {"new_input": 1, "was_dropped:extract/no_date": 1}
    assert art.column_counts == {"text": 1, "word_count": 1}
    assert (art.rows_a, art.rows_b) == (4, 4)

    m = diff.manifest
    assert m["inputs"]["added"] == ["w3.warc.gz"] and m["inputs"]["removed"] == ["w1.warc.gz"]
    assert m["inputs"]["changed"] == []
    assert not m["window"]["same"] and m["window"]["b"] == {"start": "2026-01-01", "end": "2026-04-30"}
    assert m["partitions"] == {"a": None, "b": ["2026-04"], "same": False}
    assert m["parent_version"]["b"] == "v1"
    assert m["rows"]["questions"] == {"a": 5, "b": 5, "delta": 0}
    assert m["rows"]["drops"] == {"a": 2, "b": 2, "delta": 0}
    assert m["drops_by_reason"]["dedup/near_duplicate"] == {"a": 0, "b": 1, "delta": 1}


def test_as_dict_caps_examples_but_keeps_counts(pair):
    _, a, b = pair
    d = diff_snapshots(a, b).as_dict(limit=1)
    q = d["tables"]["questions"]
    assert q["added"]["count"] == 2 and len(q["added"]["examples"]) == 1
    assert q["added"]["examples"][0] == {"id": "q_back", "reason": "was_dropped:validate/answer_too_long",
                                         "title": "Who will win?"}
    assert q["removed"]["by_reason"] == {"filter/answer_in_other_question": 1, "not_in_inputs": 1}
    assert q["changed"]["examples"][0]["id"] == "q_moved"
    json.dumps(d)  # serialisable as is


def test_cli_json_and_table(pair):
    root, _, _ = pair
    runner = CliRunner()
    res = runner.invoke(main, ["snapshot", "diff", "demo/v1", "demo", "--root", str(root), "--json",
                               "--limit", "5"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.output)
    assert d["tables"]["articles"]["counts"] == {"added": 2, "removed": 2, "changed": 1}
    assert d["tables"]["questions"]["changed"]["by_column"]["resolution_date"] == 2
    assert d["manifest"]["version"] == {"a": "v1", "b": "v2", "same": False}

    res = runner.invoke(main, ["snapshot", "diff", "demo/v1", "demo/v2", "--root", str(root)])
    assert res.exit_code == 0, res.output
    for text in ("filter/answer_in_other_question", "was_dropped:extract/no_date", "resolution_date",
                 "Brand new?", "w3.warc.gz"):
        assert text in res.output


def test_self_diff_is_all_zero(pair):
    root, a, _ = pair
    diff = diff_snapshots(a, a)
    assert diff.identical
    assert all(t.counts == {"added": 0, "removed": 0, "changed": 0} for t in diff.tables.values())
    assert diff.manifest["inputs"]["added"] == diff.manifest["inputs"]["removed"] == []
    res = CliRunner().invoke(main, ["snapshot", "diff", str(a), "demo/v1", "--root", str(root), "--json"])
    assert res.exit_code == 0, res.output
    counts = [t["counts"] for t in json.loads(res.output)["tables"].values()]
    assert counts == [{"added": 0, "removed": 0, "changed": 0}] * 2


def test_missing_ref_is_a_clear_error(pair):
    root, _, _ = pair
    res = CliRunner().invoke(main, ["snapshot", "diff", "demo/v1", "demo/v7", "--root", str(root)])
    assert res.exit_code != 0
    assert "v7" in res.output and "Traceback" not in res.output
    assert not isinstance(res.exception, FileNotFoundError)
