"""Markets whose options are written in Cyrillic, with Ø, and in Chinese survive `pastcast build`,
and `pastcast eval score` scores forecasts of them by the rules: all mass on the truth 1, all
mass on another option -1."""

import json
import shutil
from datetime import datetime, timezone
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from pastcast.cli import main as cli
from pastcast.store import read_table

SAMPLE = Path(__file__).resolve().parent.parent / "corpora" / "sample"

MARKETS = {  # id: (question, options, index of the winner, description)
    "ru-city": ("Which city will host the 2026 Veloria Chess Open final?",
                ["Москва", "Санкт-Петербург", "Казань"], 2,
                "The organisers pick one of three candidate cities: Москва, Санкт-Петербург or Казань."),
    "no-player": ("Who will be named captain of the Kestrel Bay Rovers for the spring season?",
                  ["Martin Ødegaard", "Erling Haaland", "Sander Berge"], 0,
                  "The club names its captain for the spring; the shortlist is Martin Ødegaard, "
                  "Erling Haaland and Sander Berge."),
    "zh-chair": ("Who will be elected chair of the Harbour Trade Council in March 2026?",
                 ["王伟", "李娜", "张伟"], 1,
                 "The council elects its chair from three candidates: 王伟, 李娜 and 张伟."),
}
CREATED = datetime(2026, 1, 20, 12, tzinfo=timezone.utc)
RESOLVED = datetime(2026, 3, 10, 12, tzinfo=timezone.utc)


def _ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)


def _manifold_market(mid: str, question: str, options: list[str], winner: int, description: str) -> dict:
    return {
        "id": mid, "creatorId": "c", "creatorUsername": "tester", "createdTime": _ms(CREATED),
        "closeTime": _ms(RESOLVED), "question": question, "slug": mid,
        "url": f"https://manifold.markets/tester/{mid}", "outcomeType": "MULTIPLE_CHOICE",
        "mechanism": "cpmm-multi-1", "description": description, "token": "MANA",
        "answers": [{"id": f"{mid}-{i}", "index": i, "text": text, "probability": 0.9 if i == winner else 0.05,
                     "resolution": "YES" if i == winner else "NO"} for i, text in enumerate(options)],
        "volume": 100.0, "uniqueBettorCount": 5, "isResolved": True, "resolution": "CHOOSE_ONE",
        "resolutionTime": _ms(RESOLVED),
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("multilingual")
    corpus = root / "corpus"
    shutil.copytree(SAMPLE / "warc", corpus / "warc")
    dump = {"markets": [_manifold_market(mid, *spec) for mid, spec in MARKETS.items()], "bets": []}
    (corpus / "markets").mkdir()
    (corpus / "markets" / "manifold.json").write_text(json.dumps(dump, ensure_ascii=False), encoding="utf-8")
    result = CliRunner().invoke(cli, ["build", "--corpus", str(corpus), "--work", str(root / "work"),
                                      "--snapshots", str(root / "snapshots"), "--name", "multi"])
    assert result.exit_code == 0, result.output + repr(result.exception)
    return root


def _market_questions(root: Path) -> dict[str, dict]:
    questions = read_table(root / "snapshots" / "multi" / "v1", "questions")
    out = {}
    for q in questions.iter_rows(named=True):
        for mid in MARKETS:
            if f"manifold:{mid}" in (q["source_ids"] or []):
                out[mid] = q
    return out


def test_markets_with_options_in_other_scripts_survive_the_build(built):
    kept = _market_questions(built)
    assert set(kept) == set(MARKETS), pl.read_parquet(built / "work" / "questions" / "drops.parquet") \
        if (built / "work" / "questions" / "drops.parquet").exists() else kept
    for mid, (_question, options, winner, _d) in MARKETS.items():
        assert kept[mid]["answer"] == options[winner]
        assert set(kept[mid]["candidate_outcomes"]) == set(options)


@pytest.mark.parametrize("pick,expected", [("truth", 1.0), ("other", -1.0)])
def test_eval_score_gives_one_to_the_truth_and_minus_one_to_another_option(built, tmp_path, pick, expected):
    kept = _market_questions(built)
    lines = []
    for mid, (_question, options, winner, _d) in MARKETS.items():
        choice = options[winner] if pick == "truth" else options[(winner + 1) % len(options)]
        q = kept[mid]
        lines.append(json.dumps({"question_id": q["question_id"], "date": q["open_date"].isoformat(),
                                 "forecast": {choice: 1.0}}, ensure_ascii=False))
    forecasts = tmp_path / "forecasts.jsonl"
    forecasts.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["eval", "score", "--snapshot", "multi/v1", "--root",
                                      str(built / "snapshots"), "--forecasts", str(forecasts),
                                      "--out", str(tmp_path / "run"), "--agent", pick])
    assert result.exit_code == 0, result.output + repr(result.exception)
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["accepted"] == len(MARKETS) and run["rejected"] == 0
    scores = pl.read_parquet(tmp_path / "run" / "scores.parquet")
    ours = scores.filter(pl.col("question_id").is_in([q["question_id"] for q in kept.values()]))
    assert ours.height == len(MARKETS)
    assert ours["bss"].to_list() == pytest.approx([expected] * len(MARKETS))
