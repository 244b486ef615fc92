"""Question categories against hand labels: the keyword rule that was replaced beside the classifier.

The labels (``bench/labels/categories.jsonl``, one category of ``VOCABULARY`` per question,
assigned by reading its title; the guideline is in bench/README.md, "Categories benchmark"):

- 384 ForecastBench questions (``markets/forecastbench``): all 336 market questions of the two
  question sets (Manifold, Metaculus, Polymarket, INFER) and 48 dataset questions (8 each of
  ACLED, FRED, DBnomics, yfinance; 16 of Wikipedia, whose subjects vary);
- 60 Autocast questions (``markets/autocast``, Metaculus and Good Judgment Open questions of
  2019-2022), the only real set at hand whose questions carry their platform's tags. pastcast
  has no Autocast reader: the bench reads its JSON and passes the tags as a reader would.

ForecastBench questions are classified the way the pipeline does it: the markets come from
``read_forecastbench`` on the real files (so titles are the reader's), and each row goes through
``category_of(question, tags=, source=market_source(market_id))``, as in ``market_questions``.

Split: tune and held-out halves by ``_common.split_half`` of the title's template family
(``split_key``: names and numbers masked, frozen with the labels), so near-copies
("Will Google / xAI / Anthropic have the top AI model on December 31?") fall in one half. The
keyword lists were tuned on the tune half only.

Printed, per half and group (market questions, dataset questions, Autocast, all):
accuracy of the replaced rule (``category_v1``), of the classifier, of the classifier on the
title alone (no tags, no source: what the text rules do by themselves) and of ``CATEGORIES``
run first-match (the vectorised approximation peer imports use); each also in the replaced
rule's six classes (every other class read as ``other``), where the old rule is not penalised
for the classes it never had. Then the held-out confusions of both rules, the classifier's
per-class recall and precision on the held-out half, and the categories the pipeline gives the
1,615 real ForecastBench questions before and after.

    .venv/bin/python bench/categories.py [--json PATH]   # ~5 s
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

from _common import CACHE, DATA, ROOT, environment, require_data, split_half, table, write_json

import polars as pl  # noqa: E402

LABELS = ROOT / "bench" / "labels" / "categories.jsonl"
FORECASTBENCH = DATA / "markets" / "forecastbench"
AUTOCAST = DATA / "markets" / "autocast" / "autocast_competition_test_set.json"
OUT = CACHE / "categories.json"
MARKET_SOURCES = ("manifold", "metaculus", "polymarket", "infer")
GROUPS = ("markets", "datasets", "autocast", "all")
HALVES = ("tune", "heldout")


def load_labels(path: Path = LABELS) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def group_of(row: dict) -> str:
    if row["set"] == "autocast":
        return "autocast"
    return "markets" if row["source"] in MARKET_SOURCES else "datasets"


# The split's key is frozen with the labels: the title masked as pastcast's template families
# were when the set was labelled (numbers, quoted strings and capitalised names). A later change
# to the library's families must not move labelled rows between the halves.
_NUMBER = re.compile(r"\d[\d,.\-/:]*")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|“[^”]*”|‘[^’]*’")
_WORD = re.compile(r"\b[^\W\d_][\w\-&.]*")
_NAMES = re.compile(r"N(?:\s+N)+")
_JOINED_NAMES = re.compile(r"N(?:\s*[–—-]\s*N)+")


def split_key(title: str) -> str:
    masked = _QUOTED.sub("Q", _NUMBER.sub("#", title or ""))
    masked = _NAMES.sub("N", _WORD.sub(lambda w: "N" if w[0][0].isupper() else w[0], masked))
    return " ".join(_JOINED_NAMES.sub("N", masked).split())


def half_of(title: str) -> str:
    return split_half(f"categories:{split_key(title)}")


def attach_inputs(labels: list[dict]) -> list[dict]:
    """Each label with what the classifier is given: the reader's market row for ForecastBench
    questions (title, tags, source), the Autocast question's title and tags."""
    from pastcast.questions.categories import market_source
    from pastcast.schemas import MARKETS
    from pastcast.sources.forecastbench import read_forecastbench

    markets = read_forecastbench(sorted(FORECASTBENCH.glob("*.json"))).frame("markets", MARKETS)
    by_id = {m["market_id"]: m for m in markets.iter_rows(named=True)}
    autocast: dict[str, dict] = {}
    for q in json.loads(AUTOCAST.read_text(encoding="utf-8")):  # an id's first question (its negation follows)
        autocast.setdefault(f"autocast:{q['id']}", q)
    out = []
    for row in labels:
        if row["set"] == "autocast":
            q = autocast[row["id"]]
            title, tags, source = q["question"], q.get("tags") or [], None
        else:
            m = by_id[row["id"]]
            title, tags, source = m["question"], m["tags"], market_source(m["market_id"])
        if title != row["title"]:
            raise SystemExit(f"{row['id']}: the data's title {title!r} is not the labelled {row['title']!r}")
        if half_of(title) != row["half"]:
            raise SystemExit(f"{row['id']}: the split puts it in {half_of(title)}, the labels in {row['half']}")
        out.append({**row, "group": group_of(row), "tags": tags, "source": source})
    return out


def predictions(rows: list[dict]) -> dict[str, list[str]]:
    from pastcast.questions.categories import category_of, category_v1
    from pastcast.questions.extractive import CATEGORIES

    def first_match(title: str) -> str:
        return next((name for name, pattern in CATEGORIES if pattern.search(title)), "other")

    return {
        "v1 keywords": [category_v1(r["title"]) for r in rows],
        "classifier": [category_of(r["title"], tags=r["tags"], source=r["source"]) for r in rows],
        "title only": [category_of(r["title"]) for r in rows],
        "CATEGORIES first match": [first_match(r["title"]) for r in rows],
    }


def _old_vocabulary(name: str) -> str:
    from pastcast.questions.categories import V1_VOCABULARY

    return name if name in V1_VOCABULARY else "other"


def accuracy(rows: list[dict], predicted: list[str], half: str, group: str, collapse: bool = False) -> dict:
    pairs = [(r["label"], p) for r, p in zip(rows, predicted)
             if r["half"] == half and (group == "all" or r["group"] == group)]
    if collapse:
        pairs = [(_old_vocabulary(a), _old_vocabulary(b)) for a, b in pairs]
    right = sum(a == b for a, b in pairs)
    return {"n": len(pairs), "correct": right, "accuracy": right / len(pairs) if pairs else None}


def confusions(rows: list[dict], predicted: list[str], half: str = "heldout", top: int = 12) -> list[list]:
    wrong = Counter((r["label"], p) for r, p in zip(rows, predicted) if r["half"] == half and r["label"] != p)
    return [[label, got, n] for (label, got), n in wrong.most_common(top)]


def per_class(rows: list[dict], predicted: list[str], half: str = "heldout") -> list[dict]:
    from pastcast.questions.categories import VOCABULARY

    pairs = [(r["label"], p) for r, p in zip(rows, predicted) if r["half"] == half]
    out = []
    for name in VOCABULARY:
        labelled = sum(a == name for a, _ in pairs)
        chosen = sum(b == name for _, b in pairs)
        right = sum(a == b == name for a, b in pairs)
        if labelled or chosen:
            out.append({"category": name, "labelled": labelled, "chosen": chosen, "correct": right,
                        "recall": right / labelled if labelled else None,
                        "precision": right / chosen if chosen else None})
    return out


def pipeline_categories() -> dict:
    """Categories of the real ForecastBench questions ``market_questions`` makes, with the
    classifier and with the replaced rule on the same titles."""
    from pastcast.questions.categories import category_v1
    from pastcast.questions.markets import market_questions
    from pastcast.schemas import MARKET_PRICES, MARKETS
    from pastcast.sources.forecastbench import read_forecastbench

    imported = read_forecastbench(sorted(FORECASTBENCH.glob("*.json")))
    questions, _ = market_questions(imported.frame("markets", MARKETS), prices=imported.frame("market_prices", MARKET_PRICES))
    new = Counter(questions["category"].to_list())
    old = Counter(category_v1(t) for t in questions["title"].to_list())
    changed = sum(category_v1(t) != c for t, c in zip(questions["title"].to_list(), questions["category"].to_list()))
    return {"questions": questions.height, "changed": changed, "classifier": dict(new.most_common()),
            "v1 keywords": dict(old.most_common())}


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, default=OUT)
    args = parser.parse_args(argv)
    require_data(FORECASTBENCH, AUTOCAST)
    from pastcast.questions.categories import VOCABULARY

    rows = attach_inputs(load_labels())
    preds = predictions(rows)
    counts = Counter((r["half"], r["group"]) for r in rows)
    print(f"{len(rows)} labelled questions; " + ", ".join(
        f"{h}: " + " + ".join(f"{counts[(h, g)]} {g}" for g in GROUPS[:-1]) for h in HALVES))
    print("labels: " + ", ".join(f"{k} {v}" for k, v in Counter(r["label"] for r in rows).most_common()))
    result = {"environment": environment(), "labels": str(LABELS.relative_to(ROOT)), "vocabulary": list(VOCABULARY),
              "questions": len(rows), "accuracy": {}, "accuracy_old_vocabulary": {}}
    for key, collapse in (("accuracy", False), ("accuracy_old_vocabulary", True)):
        table_rows = []
        for name, predicted in preds.items():
            result[key][name] = {h: {g: accuracy(rows, predicted, h, g, collapse) for g in GROUPS} for h in HALVES}
            for h in HALVES:
                table_rows.append([name, h] + [_pct(result[key][name][h][g]["accuracy"]) for g in GROUPS])
        print()
        title = ("accuracy, all 13 categories" if not collapse else
                 "accuracy in the replaced rule's 6 categories (every other category read as other)")
        print(table(["rule", "half"] + [f"{g} (n {counts[('tune', g)] if g != 'all' else ''}/"
                                        f"{counts[('heldout', g)] if g != 'all' else ''})".replace(" (n /)", "")
                                        for g in GROUPS], table_rows, title=title))
    result["confusions_heldout"] = {name: confusions(rows, preds[name]) for name in ("v1 keywords", "classifier")}
    for name, conf in result["confusions_heldout"].items():
        print()
        print(table(["labelled", "given", "n"], conf, title=f"{name}: commonest held-out errors"))
    result["per_class_heldout"] = per_class(rows, preds["classifier"])
    print()
    print(table(["category", "labelled", "chosen", "correct", "recall", "precision"],
                [[c["category"], c["labelled"], c["chosen"], c["correct"], _pct(c["recall"]), _pct(c["precision"])]
                 for c in result["per_class_heldout"]], title="classifier, held-out half, per category"))
    result["pipeline"] = pipeline_categories()
    p = result["pipeline"]
    print(f"\nreal ForecastBench questions from market_questions: {p['questions']}, "
          f"{p['changed']} with another category than the replaced rule gives")
    print("  classifier:  " + ", ".join(f"{k} {v}" for k, v in p["classifier"].items()))
    print("  v1 keywords: " + ", ".join(f"{k} {v}" for k, v in p["v1 keywords"].items()))
    write_json(args.json, result)
    print(f"\nwrote {args.json}")
    return result


if __name__ == "__main__":
    main()
