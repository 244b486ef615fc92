"""Market and dataset question sets worth forecasting (issue 37): template families by structure,
templates that fix their answer, one data series at few horizons.

On the real ForecastBench question and resolution sets (``markets/forecastbench``, both rounds),
made into questions as a build does (``read_forecastbench`` then ``market_questions``), in one
run:

1. The fixed-answer rule, judged from a family's members resolved by a question's open date, on
   a grid of thresholds and minimum counts: precision and recall against the label "the
   question's family (by structure, over the whole set, at least 5 members) gave one answer at
   least 95% of the time". Split by template family, never by row (``_common.split_half`` of
   the family: a template is the unit that must generalise; a split by source put every fixed
   template on one side): chosen on the tuning families, reported on the held-out ones.
2. The first-round judgement's premise (a family's record predicts its next round): for each
   family asked in both rounds, whether the first round's record (at least 10 members, one
   answer at least 95%) says what the second round did.
3. Kept questions by source and by family: the replaced stage (the template stage of commit
   a0e5191: families by wording, a base rate from earlier members, no series cap) beside the
   new one.

    .venv/bin/python bench/template_families.py        (make bench-template-families)

Writes ``.bench-cache/template_families.json``.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import CACHE, DATA, ROOT, split_half  # noqa: E402

FORECASTBENCH = DATA / "markets" / "forecastbench"
REPLACED_AT = "a0e5191"  # the last commit with the template stage this one replaces
LABEL_MIN, LABEL_SHARE = 5, 0.95
GRID_SHARES = (0.8, 0.9, 0.95, 1.0)
GRID_MINIMA = (3, 5, 10, 20)
PLATFORMS = ("manifold", "metaculus", "polymarket", "infer")


def load_questions() -> pl.DataFrame:
    from pastcast.questions.markets import market_questions
    from pastcast.schemas import MARKETS
    from pastcast.sources.forecastbench import read_forecastbench

    imported = read_forecastbench(sorted(FORECASTBENCH.glob("*.json")))
    questions, _ = market_questions(imported.frame("markets", MARKETS))
    return questions.with_columns(pl.col("source_ids").list.first().str.split(":").list.get(1, null_on_oob=True)
                                  .fill_null("?").alias("_source"))


def fixed_label(questions: pl.DataFrame, families: dict[str, str]) -> dict[str, bool]:
    """question_id -> whether its family (over the whole set) is fixed: the label."""
    answers: dict[str, list[str]] = defaultdict(list)
    for qid, answer in zip(questions["question_id"], questions["answer"]):
        answers[families[qid]].append(answer)
    fixed = {f for f, a in answers.items() if len(a) >= LABEL_MIN and Counter(a).most_common(1)[0][1] / len(a) >= LABEL_SHARE}
    return {qid: families[qid] in fixed for qid in questions["question_id"]}


def score(predicted: set[str], label: dict[str, bool], ids: list[str]) -> dict:
    tp = sum(1 for q in ids if q in predicted and label[q])
    fp = sum(1 for q in ids if q in predicted and not label[q])
    fn = sum(1 for q in ids if q not in predicted and label[q])
    return {"tp": tp, "fp": fp, "fn": fn, "precision": round(tp / (tp + fp), 3) if tp + fp else None,
            "recall": round(tp / (tp + fn), 3) if tp + fn else None}


def grid(questions: pl.DataFrame, families: dict[str, str], label: dict[str, bool]) -> tuple[list[dict], dict]:
    from pastcast.questions.templates import TemplateCapConfig, fixed_answer_families

    halves = {h: [q for q in questions["question_id"] if split_half(families[q]) == h] for h in ("tune", "heldout")}
    rows = []
    for share in GRID_SHARES:
        for minimum in GRID_MINIMA:
            config = TemplateCapConfig(max_base_rate=share, base_rate_min_resolved=minimum, judged_at_open_only=True)
            dropped = {d.item_id for d in fixed_answer_families(questions, config, families).drops}
            rows.append({"share": share, "min_resolved": minimum,
                         **{h: score(dropped, label, ids) for h, ids in halves.items()}})

    def f1(r):
        p, rec = r["tune"]["precision"] or 0, r["tune"]["recall"] or 0
        return 2 * p * rec / (p + rec) if p + rec else 0

    # the tuning half's best F1 is a plateau: report it, and whether the shipped default is on it
    from pastcast.questions.templates import TemplateCapConfig as Shipped

    best = [r for r in rows if f1(r) == max(map(f1, rows))]
    default = next(r for r in rows if r["share"] == Shipped().max_base_rate
                   and r["min_resolved"] == Shipped().base_rate_min_resolved)
    chosen = {**default, "on_plateau": default in best,
              "plateau": sorted({(r["share"], r["min_resolved"]) for r in best})}
    sizes = {h: {"families": len({families[q] for q in ids}), "questions": len(ids),
                 "labelled_fixed": sum(label[q] for q in ids)} for h, ids in halves.items()}
    return rows, {"chosen": chosen, "halves": sizes}


def first_round_premise(questions: pl.DataFrame, families: dict[str, str]) -> dict:
    """Families asked in two rounds: does the first round's record say what the second did?"""
    rounds: dict[str, dict] = defaultdict(lambda: defaultdict(list))
    for qid, opens, answer in zip(questions["question_id"], questions["open_date"], questions["answer"]):
        rounds[families[qid]][opens].append(answer)
    out = Counter()
    for family, by_open in rounds.items():
        days = sorted(d for d in by_open if len(by_open[d]) >= 10)
        if len(days) < 2:
            continue
        first, second = by_open[days[0]], by_open[days[1]]
        first_fixed = Counter(first).most_common(1)[0][1] / len(first) >= LABEL_SHARE
        top = Counter(first).most_common(1)[0][0]
        second_share = second.count(top) / len(second)
        out[("fixed" if first_fixed else "mixed", "fixed" if second_share >= LABEL_SHARE else "mixed")] += 1
    return {f"first {a}, second {b}": n for (a, b), n in sorted(out.items())}


def replaced_stage():
    """The template stage of commit REPLACED_AT, loaded beside the new one."""
    modules = {}
    tmp = Path(tempfile.mkdtemp(prefix="pastcast-replaced-"))
    for name, path in (("families", "pastcast/text/families.py"), ("templates", "pastcast/questions/templates.py")):
        source = subprocess.run(["git", "-C", str(ROOT), "show", f"{REPLACED_AT}:{path}"], check=True,
                                capture_output=True, text=True).stdout
        source = source.replace("from pastcast.text.families import", "from replaced_families import")
        (tmp / f"replaced_{name}.py").write_text(source, encoding="utf-8")
    sys.path.insert(0, str(tmp))
    for name in ("families", "templates"):
        spec = importlib.util.spec_from_file_location(f"replaced_{name}", tmp / f"replaced_{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[f"replaced_{name}"] = module
        spec.loader.exec_module(module)
        modules[name] = module
    return modules["templates"]


def describe(kept: pl.DataFrame) -> dict:
    from pastcast.questions.templates import series_of
    from pastcast.text.families import template_families

    families = template_families(kept["title"].to_list())
    answers: dict[str, list[str]] = defaultdict(list)
    for f, a in zip(families, kept["answer"]):
        answers[f].append(a)
    fixed = {f: a for f, a in answers.items() if len(a) >= LABEL_MIN and Counter(a).most_common(1)[0][1] / len(a) >= LABEL_SHARE}
    series = Counter(s for s in (series_of(ids[0]) for ids in kept["source_ids"]) if s)
    binary = kept.filter(pl.col("answer_type") == "binary")
    return {
        "kept": kept.height,
        "by_source": dict(Counter(kept["_source"]).most_common()),
        "data_series_share": round(sum(1 for s in kept["_source"] if s not in PLATFORMS) / max(kept.height, 1), 3),
        "largest_families": [[len(a), f[:90]] for f, a in sorted(answers.items(), key=lambda x: -len(x[1]))[:6]],
        "in_fixed_families": sum(map(len, fixed.values())),
        "fixed_families_of_5_plus": len(fixed),
        "series_at_most_horizons": max(series.values(), default=0),
        "platform_prefixes": kept.filter(pl.col("title").str.contains(r"^\s*\[|\[[^\]]*\]\s*$")).height,
        "probability_titles_yes_no": binary.filter(pl.col("title").str.contains(r"(?i)\bprobability that\b")).height,
    }


def main() -> None:
    if not FORECASTBENCH.is_dir():
        print(f"skipped: {FORECASTBENCH} is absent (the real ForecastBench sets, ../shared/data)")
        return
    from pastcast.questions.templates import families_of, template_steps

    questions = load_questions()
    families = families_of(questions)
    label = fixed_label(questions, families)
    rows, choice = grid(questions, families, label)
    print("## The fixed-answer rule, judged at the open date (label: family of >= 5 with one answer >= 95%)\n")
    print(f"halves by template family: {choice['halves']}\n")
    print("| share | min resolved | tune P | tune R | held-out P | held-out R |\n|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['share']} | {r['min_resolved']} | {r['tune']['precision']} | {r['tune']['recall']} | "
              f"{r['heldout']['precision']} | {r['heldout']['recall']} |")
    c = choice["chosen"]
    print(f"\nthe tuning half's best F1 (share, min): {c['plateau']}; the default (share {c['share']}, min "
          f"{c['min_resolved']}) on it: {c['on_plateau']}; held out: {c['heldout']}")
    from pastcast.questions.templates import TemplateCapConfig, fixed_answer_families

    whole = {d.item_id for d in fixed_answer_families(questions, TemplateCapConfig(), families).drops}
    halves = {h: [q for q in questions["question_id"] if split_half(families[q]) == h] for h in ("tune", "heldout")}
    full_rule = {h: score(whole, label, ids) for h, ids in halves.items()}
    print(f"\nthe rule as shipped (at the open date, and a first round by its other rounds): {full_rule}")
    premise = first_round_premise(questions, families)
    print(f"\n## A family's first round against its second (families with >= 10 in both): {premise}")

    replaced = replaced_stage()
    before = replaced.template_steps(questions).kept
    after = template_steps(questions)
    result = {"grid": rows, "choice": choice, "rule_as_shipped": full_rule, "first_round_premise": premise, "questions": questions.height,
              "replaced": describe(before), "new": describe(after.kept),
              "new_drops": dict(Counter(d.reason for d in after.drops))}
    print("\n## Kept, the replaced stage beside the new one (market_questions of both rounds)\n")
    for key in ("kept", "data_series_share", "in_fixed_families", "fixed_families_of_5_plus",
                "series_at_most_horizons", "by_source", "largest_families"):
        print(f"- {key}: replaced {result['replaced'][key]} | new {result['new'][key]}")
    # both stages read the titles market_questions wrote (already read as a forecaster reads them)
    print(f"- kept titles with a platform label: {result['new']['platform_prefixes']}; 'probability' titles "
          f"with a yes/no answer: {result['new']['probability_titles_yes_no']}")
    print(f"- new drops: {result['new_drops']}")
    real = questions.filter(pl.col("_source").is_in(PLATFORMS))["question_id"]
    lost = set(real) - set(after.kept["question_id"])
    named = Counter(d.reason for d in after.drops if d.item_id in lost)
    print(f"- real-market questions: {len(real)}; kept {len(real) - len(lost)}; dropped with a reason: {dict(named)}")
    result["real_market"] = {"questions": len(real), "kept": len(real) - len(lost), "dropped": dict(named)}
    CACHE.mkdir(exist_ok=True)
    (CACHE / "template_families.json").write_text(json.dumps(result, indent=1, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
