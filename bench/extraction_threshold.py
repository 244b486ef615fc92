"""How ``ExtractConfig.full_extraction_below_words`` is chosen: on the tuning half only.

pastcast extracts with trafilatura's precision-first fast pass and runs the slower, balanced
full pass (with its fallback extractors) only when the fast pass finds fewer word units than
this threshold. A higher threshold buys recall with time (``ms/page``: the extraction time a
threshold would spend per page, measured in this run, one process per worker). For each candidate threshold this
script extracts every page of two gold sets once and scores it:

  trafilatura eval   990 real pages; strict snippet F1 (``ingest_accuracy.evaluate_result``).
  fundus pages       256 real news pages (``dates/fundus``); token F1 against the fundus body
                     (``generalisation.token_prf``).

The rule: on the tuning half, the mean of the two F1s (both sets count alike); the smallest
threshold within ``TOLERANCE`` of the best mean (differences that small are one or two
snippets: noise, and every step up costs a full pass on more pages). The held-out half (split by publisher, ``_common.split_half``)
is reported beside it, never used to choose. Extraction only: dates and drops do not enter.

Run: ``make bench-extraction-threshold`` or ``.venv/bin/python bench/extraction_threshold.py
[--workers 2]``; writes ``.bench-cache/extraction_threshold.json``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (CACHE, FUNDUS_PAGES, HALVES, TRAFILATURA, environment, fundus_gold,  # noqa: E402
                     read_page_bytes, require_data, split_half, table, trafilatura_eval,
                     trafilatura_page_path, write_json)
from generalisation import token_prf  # noqa: E402
from ingest_accuracy import calculate_scores, evaluate_result  # noqa: E402

from pastcast.curate.extract import ExtractConfig  # noqa: E402

OUT = CACHE / "extraction_threshold.json"
THRESHOLDS = (0, 50, 100, 150, 200, 300, 500, 10 ** 9)  # 0: fast pass only; 10**9: full pass always
TOLERANCE = 0.001


def _extract(task: tuple[str, bytes]) -> tuple[str, dict[int, str], dict[int, bool], dict[int, float]]:
    """The page's text at every threshold, from one fast pass and at most one full pass, and
    the extraction time each threshold would spend on it (the fast pass, plus the full pass
    where it runs)."""
    from pastcast.curate.extract import _trafilatura, decode_html
    from pastcast.curate.htmltree import parse_html
    from pastcast.text.scripts import text_length

    url, body = task
    html = decode_html(body, {})
    t0 = time.perf_counter()
    fast = _trafilatura(parse_html(html), url, fast=True)
    units = text_length(fast).word_units
    t1 = time.perf_counter()
    full = _trafilatura(parse_html(html), url, fast=False) if units < max(THRESHOLDS) else ""
    t2 = time.perf_counter()
    texts = {t: ((full or fast) if units < t else fast) for t in THRESHOLDS}
    seconds = {t: (t1 - t0) + ((t2 - t1) if units < t else 0.0) for t in THRESHOLDS}
    return url, texts, {t: units < t for t in THRESHOLDS}, seconds


def _pages() -> list[dict]:
    pages = []
    for key, item in trafilatura_eval().items():
        path = trafilatura_page_path(item["file"])
        if path.is_file():
            pages.append({"set": "trafilatura", "url": key, "half": split_half(key), "item": item,
                          "body": read_page_bytes(path)})
    for row in fundus_gold():
        pages.append({"set": "fundus", "url": row["url"], "half": split_half(row["url"]),
                      "gold": row["body_text"], "body": read_page_bytes(FUNDUS_PAGES / row["file"])})
    return pages


def score(pages: list[dict], results: dict[str, tuple[dict, dict]]) -> list[dict]:
    rows = []
    for half in HALVES:
        for t in THRESHOLDS:
            snippets, f1s, full_pass, n, seconds = Counter(), [], 0, 0, 0.0
            for p in pages:
                if p["half"] != half:
                    continue
                texts, ran_full, secs = results[p["set"] + p["url"]]
                n += 1
                full_pass += ran_full[t]
                seconds += secs[t]
                if p["set"] == "trafilatura":
                    tp, fn, fp, tn = evaluate_result(texts[t], p["item"])
                    snippets.update(tp=tp, fn=fn, fp=fp, tn=tn)
                else:
                    f1s.append(token_prf(texts[t], p["gold"])[2])
            s = calculate_scores(snippets)
            rows.append({"half": half, "threshold": t, "snippet_precision": s["precision"],
                         "snippet_recall": s["recall"], "snippet_f1": s["f1"],
                         "fundus_token_f1": round(sum(f1s) / len(f1s), 4) if f1s else None,
                         "full_pass_share": round(full_pass / n, 3) if n else None,
                         "ms_per_page": round(1000 * seconds / n, 1) if n else None})
    return rows


def _mean_f1(row: dict) -> float:
    return (row["snippet_f1"] + row["fundus_token_f1"]) / 2


def choose(rows: list[dict]) -> int:
    tune = [r for r in rows if r["half"] == "tune"]
    best = max(_mean_f1(r) for r in tune)
    return min(r["threshold"] for r in tune if _mean_f1(r) >= best - TOLERANCE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    require_data(TRAFILATURA / "evaldata.json", FUNDUS_PAGES / "manifest_derived.jsonl")
    t0 = time.perf_counter()
    pages = _pages()
    with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        out = pool.map(_extract, [(p["url"], p["body"]) for p in pages], chunksize=8)
        results = {p["set"] + url: (texts, ran, secs) for p, (url, texts, ran, secs) in zip(pages, out)}
    rows = score(pages, results)
    chosen, default = choose(rows), ExtractConfig().full_extraction_below_words
    label = {0: "fast only", 10 ** 9: "full always"}
    print(table(["half", "threshold", "full pass on", "ms/page", "snippet P", "snippet R", "snippet F1", "fundus token F1",
                 "mean F1"],
                [[r["half"], label.get(r["threshold"], r["threshold"]), r["full_pass_share"],
                  r["ms_per_page"], r["snippet_precision"], r["snippet_recall"], r["snippet_f1"], r["fundus_token_f1"],
                  round(_mean_f1(r), 4)] for r in rows]))
    print(f"\nchosen on the tuning half: {chosen} (within {TOLERANCE} of the best tuning mean F1); "
          f"ExtractConfig default: {default}" + ("" if chosen == default else "  <- differs"))
    write_json(OUT, {"environment": environment(), "thresholds": list(THRESHOLDS), "tolerance": TOLERANCE,
                     "rows": rows, "chosen": chosen, "default": default,
                     "wall_seconds": round(time.perf_counter() - t0, 1)})
    print(f"written {OUT}")


if __name__ == "__main__":
    main()
