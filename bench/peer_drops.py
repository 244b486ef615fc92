"""Wrong drops on real peer sets (issue 37, item 5): how many of the validation and question-dedup
drops of real imported market questions are wrong, with the rules before and after the fix.

The peer's files (github.com/dpaleka/consistency-forecasting @ ed41073d, MIT; never copied into
the project): Manifold and Metaculus questions as JSON lines, read from ``--peer-dir`` (or
``PASTCAST_PEER_REAL``; default /tmp/peer). Halves:

- tune: ``{manifold,metaculus}_cleaned_formatted_20240301_20240701.jsonl`` (the rules were tuned
  on their drops);
- held-out: ``20240501_20240815.jsonl`` and ``20240501_20240815_resolved.jsonl`` (the second
  holds the titles the user reported), each run as its own set, minus every question whose id or
  title is in the tuning files.

Each resolved row becomes a question as ``bench/yes_no_checks.py`` builds one (body = resolution
criteria, Yes/No answer, binary), but of kind ``market``: these are Manifold and Metaculus
markets, not questions written from news. Then the steps that need no article corpus run
(``pastcast.questions.validate.validate_questions``: validation, self leaks, question dedup), once
with the rules before issue 37 (``before_rules``: the old predicates put back) and once as they
are. Every drop of the held-out sets is hand-labelled right or wrong in
``bench/labels/peer_drops_heldout.jsonl`` (keyed by a hash of question id and reason; labelled
from the drops of the old rules before the new ones were written, then the drops only the new
rules make). Prints a markdown table, writes ``.bench-cache/peer_drops.json``.

    .venv/bin/python bench/peer_drops.py [--peer-dir DIR] [--list before|after]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import CACHE, DATA, ROOT  # noqa: E402

from yes_no_checks import peer_question as news_question  # noqa: E402

from pastcast.questions import question_dedup, validate  # noqa: E402
from pastcast.schemas import QUESTIONS, frame  # noqa: E402

TUNE = ("manifold_cleaned_formatted_20240301_20240701.jsonl", "metaculus_cleaned_formatted_20240301_20240701.jsonl")
HELD_OUT = ("20240501_20240815.jsonl", "20240501_20240815_resolved.jsonl")
FORECASTBENCH = DATA / "markets" / "forecastbench"
LABELS = ROOT / "bench" / "labels" / "peer_drops_heldout.jsonl"
TUNE_LABELS = ROOT / "bench" / "labels" / "peer_drops_tune.jsonl"


def key(question_id: str, reason: str) -> str:
    return hashlib.sha256(f"{question_id}|{reason}".encode()).hexdigest()[:16]


def peer_question(row: dict) -> dict:
    """A peer row as a question (``yes_no_checks.peer_question``), of kind market: these are
    Manifold and Metaculus markets, with no source article."""
    return {**news_question(row), "source_kind": "market", "source_ids": [f"peer:{row['id']}"]}


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_sets(peer: Path) -> tuple[dict[str, list[dict]], dict]:
    """{set name: resolved rows} and how many rows were left out (unresolved, seen in tuning)."""
    tune = [r for f in TUNE for r in _read(peer / f)]
    seen_ids, seen_titles = {r["id"] for r in tune}, {r["title"] for r in tune}
    sets = {"tune": [r for r in tune if r.get("resolution") is not None]}
    info = {"tune": {"rows": len(tune), "unresolved": len(tune) - len(sets["tune"])}}
    for f in HELD_OUT:
        rows = _read(peer / f)
        same_id = sum(r["id"] in seen_ids for r in rows)
        same_title = sum(r["id"] not in seen_ids and r["title"] in seen_titles for r in rows)
        fresh = [r for r in rows if r["id"] not in seen_ids and r["title"] not in seen_titles]
        sets[f"held-out {f}"] = [r for r in fresh if r.get("resolution") is not None]
        info[f"held-out {f}"] = {"rows": len(rows), "id_in_tune": same_id, "title_in_tune": same_title,
                                 "unresolved": len(fresh) - len(sets[f"held-out {f}"])}
    return sets, info


@contextlib.contextmanager
def before_rules():
    """The rules before issue 37: a title is a question only when it ends with a question mark,
    and question dedup reads neither roles nor polarity."""
    saved = validate.is_question, question_dedup.distinct_events
    validate.is_question = lambda title: title.strip().endswith(validate.QUESTION_MARKS)
    question_dedup.distinct_events = lambda a, b: None
    try:
        yield
    finally:
        validate.is_question, question_dedup.distinct_events = saved


def drops_of(rows: list[dict]) -> list[dict]:
    """Every drop of the steps without a corpus, with what is needed to read it."""
    qs = frame([peer_question(r) for r in rows], QUESTIONS)
    _, drops = validate.validate_questions(qs)
    title = {r["id"]: r["title"] for r in rows}
    out = []
    for d in drops.iter_rows(named=True):
        other = d["detail"][5:] if d["detail"].startswith("kept=") else None
        out.append({"key": key(d["item_id"], d["reason"]), "id": d["item_id"], "reason": d["reason"],
                    "title": title[d["item_id"]], "other": title.get(other) if other else None})
    return out


def _labels(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    return {r["key"]: r["label"] for r in _read(path)}


def score(drops: list[dict], labels: dict[str, str], before: list[dict] | None = None) -> dict:
    by_reason = Counter(d["reason"] for d in drops)
    wrong = sum(labels.get(d["key"]) == "wrong" for d in drops)
    unlabelled = [d for d in drops if d["key"] not in labels]
    now = {d["key"] for d in drops}
    # a right drop of the old rules the new ones no longer make: a question wrongly kept
    lost = [d["key"] for d in before or [] if d["key"] not in now and labels.get(d["key"]) == "right"]
    return {"drops": len(drops), "wrong": wrong, "unlabelled": len(unlabelled), "right_drops_lost": len(lost),
            "wrong_rate": round(wrong / len(drops), 3) if drops else 0.0, "by_reason": dict(by_reason),
            "wrong_by_reason": dict(Counter(d["reason"] for d in drops if labels.get(d["key"]) == "wrong"))}


def forecastbench_changes() -> dict | None:
    """Another real set, unlabelled: the ForecastBench question sets in ``../shared/data``
    imported as ``pastcast questions import --format forecastbench`` does; every drop the new
    rules add or remove is printed, to read."""
    if not FORECASTBENCH.exists():
        print(f"\nForecastBench check skipped: {FORECASTBENCH} is absent")
        return None
    from pastcast.questions.peers import read_peer_questions

    qs = read_peer_questions("forecastbench", [FORECASTBENCH]).questions
    title = dict(zip(qs["question_id"], qs["title"]))

    def run() -> set[tuple[str, str]]:
        return {(d["item_id"], d["reason"]) for d in validate.validate_questions(qs)[1].iter_rows(named=True)}

    with before_rules():
        before = run()
    after = run()
    print(f"\nForecastBench ({qs.height} questions, unlabelled): {len(before)} drops before, {len(after)} after")
    for qid, reason in sorted(before ^ after):
        print(f"- {'no longer dropped' if (qid, reason) in before else 'newly dropped'} ({reason}): {title[qid]}")
    return {"questions": qs.height, "drops_before": len(before), "drops_after": len(after),
            "no_longer_dropped": len(before - after), "newly_dropped": len(after - before)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peer-dir", type=Path, default=Path(os.environ.get("PASTCAST_PEER_REAL", "/tmp/peer")))
    ap.add_argument("--list", choices=("before", "after"), help="print every drop of these rules (for labelling)")
    args = ap.parse_args(argv)
    missing = [f for f in (*TUNE, *HELD_OUT) if not (args.peer_dir / f).exists()]
    if missing:
        print(f"skipped: the peer files are not in {args.peer_dir} (missing {', '.join(missing)}); get them from "
              "github.com/dpaleka/consistency-forecasting @ ed41073d and pass --peer-dir or PASTCAST_PEER_REAL")
        return 0
    sets, info = load_sets(args.peer_dir)
    labels = {**_labels(TUNE_LABELS), **_labels(LABELS)}
    results: dict = {"peer_dir": str(args.peer_dir), "sets": {}}
    for name, rows in sets.items():
        with before_rules():
            before = drops_of(rows)
        after = drops_of(rows)
        if args.list:
            for d in before if args.list == "before" else after:
                print(json.dumps({"set": name, **d}, ensure_ascii=False))
            continue
        results["sets"][name] = {**info[name], "questions": len(rows), "before": score(before, labels),
                                 "after": score(after, labels, before),
                                 "kept_now": sorted({d["key"] for d in before} - {d["key"] for d in after}),
                                 "new_drops": sorted({d["key"] for d in after} - {d["key"] for d in before})}
    if args.list:
        return 0
    print("## Wrong drops of validation and question dedup on real peer sets (issue 37)\n")
    print("| set | questions | drops before | wrong before (rate) | drops after | wrong after (rate) | "
          "right drops lost | unlabelled (before/after) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in results["sets"].items():
        b, a = r["before"], r["after"]
        print(f"| {name} | {r['questions']} | {b['drops']} | {b['wrong']} ({b['wrong_rate']:.0%}) | {a['drops']} | "
              f"{a['wrong']} ({a['wrong_rate']:.0%}) | {a['right_drops_lost']} | {b['unlabelled']}/{a['unlabelled']} |")
    print("\nWrong drops by reason, before -> after:")
    for name, r in results["sets"].items():
        reasons = sorted(set(r["before"]["by_reason"]) | set(r["after"]["by_reason"]))
        cells = [f"{x} {r['before']['wrong_by_reason'].get(x, 0)}/{r['before']['by_reason'].get(x, 0)} -> "
                 f"{r['after']['wrong_by_reason'].get(x, 0)}/{r['after']['by_reason'].get(x, 0)}" for x in reasons]
        print(f"- {name}: " + "; ".join(cells))
    print("\nLeft out:", json.dumps(info))
    # the file whole, titles seen in tuning too: the set the user counted drops on (unlabelled here)
    whole = [r for r in _read(args.peer_dir / HELD_OUT[1]) if r.get("resolution") is not None]
    with before_rules():
        was = Counter(d["reason"] for d in drops_of(whole))
    now = Counter(d["reason"] for d in drops_of(whole))
    print(f"\n{HELD_OUT[1]} whole ({len(whole)} resolved): drops by reason before {dict(was)}, after {dict(now)}")
    results["whole_resolved_file"] = {"questions": len(whole), "before": dict(was), "after": dict(now)}
    results["forecastbench"] = forecastbench_changes()
    CACHE.mkdir(exist_ok=True)
    (CACHE / "peer_drops.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"\nwritten {CACHE / 'peer_drops.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
