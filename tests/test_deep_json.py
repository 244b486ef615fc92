"""Deeply nested JSON is a bad input, never a RecursionError traceback (issue 18, goal 4):
in a market dump and in a forecasts file."""

from __future__ import annotations

import json

from click.testing import CliRunner

from pastcast.cli import main

DEEP = "[" * 200_000 + "]" * 200_000


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_a_deeply_nested_market_dump_is_a_one_line_error_or_a_drop(tmp_path):
    dump = tmp_path / "manifold.json"
    dump.write_text(DEEP)
    result = cli("markets", "import", "--format", "manifold", dump, "--out", tmp_path / "out")
    assert "Traceback" not in result.output and not isinstance(result.exception, RecursionError)
    assert "nested too deeply" in result.output or (tmp_path / "out" / "drops.parquet").is_file()


def test_a_deeply_nested_line_among_others_is_one_drop(tmp_path):
    good = {"id": "m1", "question": "Will it rain?", "outcomeType": "BINARY"}
    dump = tmp_path / "manifold.jsonl"
    dump.write_text("\n".join([DEEP, json.dumps(good)]) + "\n")
    result = cli("markets", "import", "--format", "manifold", dump, "--out", tmp_path / "out")
    assert "Traceback" not in result.output and not isinstance(result.exception, RecursionError)


def test_a_deeply_nested_forecast_line_is_rejected_with_its_reason(tmp_path):
    from evalkit import article, question, ts, write_snapshot

    snap = write_snapshot(tmp_path / "snap", [article("a", "News", "Nothing yet.", ts("2026-01-02"))],
                          [question("q", "Who will win?", "Ana Ruiz", "2026-01-01", "2026-01-20")],
                          "2026-01-01", "2026-01-31")
    forecasts = tmp_path / "f.jsonl"
    forecasts.write_text(DEEP + "\n" + json.dumps({"question_id": "q", "date": "2026-01-05",
                                                   "forecast": {"Ana Ruiz": 0.6}}) + "\n")
    result = cli("eval", "score", "--snapshot", snap, "--forecasts", forecasts, "--out", tmp_path / "run")
    assert result.exit_code == 0, result.output
    rejected = [json.loads(line) for line in (tmp_path / "run" / "rejected.jsonl").read_text().splitlines()]
    assert len(rejected) == 1 and "nested too deeply" in json.dumps(rejected[0])
