"""Ingest accuracy: publication dates and main-text extraction, on real third-party pages.

Three measurements, each side by side with the plain library pastcast builds on:

  fundus dates       256 real news pages in a CC-NEWS-style WARC (with crawl times), day-level
                     accuracy of ``date_html`` vs htmldate alone (uncapped, and capped at crawl
                     day + 1), against publisher-verified gold dates.
  trafilatura dates  the 728 pages of trafilatura's evaluation set that carry a gold date
                     (no crawl time: pastcast's ceiling is now), vs htmldate fast/extensive.
  extraction         trafilatura's evaluation set (990 pages, 'with'/'without' snippets),
                     precision/recall/F1 computed as trafilatura's tests/comparison*.py do, for
                     ``extract_html`` (pastcast's default, fast pass only, full pass always)
                     and ``trafilatura.extract`` (default settings, and the settings of
                     trafilatura's own comparison script), with docs/s.

Prints a compact table per measurement and writes everything (including every miss) to
``.bench-cache/ingest_accuracy.json``. Run: ``make bench-ingest`` or
``.venv/bin/python bench/ingest_accuracy.py [--only fundus,trafilatura-dates,extraction]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import re
import sys
import time
from collections import Counter
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (CACHE, DATA, FUNDUS_MANIFEST, FUNDUS_WARC, TRAFILATURA, Timer,  # noqa: E402
                     environment, read_page_bytes, require_data, table, trafilatura_eval,
                     trafilatura_page_path, write_json)

import trafilatura  # noqa: E402
from htmldate import find_date  # noqa: E402

from pastcast.curate.dating import date_html  # noqa: E402
from pastcast.curate.extract import ExtractConfig, decode_html, extract_html  # noqa: E402
from pastcast.sources.warc import HtmlPage, iter_html_pages  # noqa: E402

OUT = CACHE / "ingest_accuracy.json"
GOALS = {"fundus_dates": 0.97, "trafilatura_dates": 0.90, "extraction_f1": 0.92}
DAY = "%Y-%m-%d"


def _htmldate(html: str, **kwargs) -> str | None:
    try:
        return find_date(html, original_date=True, outputformat=DAY, **kwargs)
    except Exception:  # noqa: BLE001 - a crash is a page without a date
        return None


NO_AGE_LIMIT = timedelta(days=36_500)


def _pastcast_date(html: str, url: str, crawled_at=None, headers=None):
    """date_html's PageDate, or an error string: a crash counts as no date (and is listed).

    Dating accuracy is measured without the ingest's archive policy (pages dated over two
    years before their crawl are dropped there); the fundus section counts that policy apart.
    """
    try:
        return date_html(html, url, crawled_at, headers, max_age=NO_AGE_LIMIT), None
    except Exception as exc:  # noqa: BLE001
        return None, f"{type(exc).__name__}: {str(exc)[:120]}"


def _miss_kind(predicted: date | None, gold: date) -> str:
    if predicted is None:
        return "no_date"
    gap = abs((predicted - gold).days)
    if gap == 1:
        return "off_by_one_day"
    if predicted.year == gold.year and predicted.month == gold.month:
        return "same_month"
    return "other_day"


def _acc(hits: int, n: int) -> float:
    return round(hits / n, 4) if n else 0.0


# --------------------------------------------------------------------------- fundus dates


def bench_fundus_dates() -> dict:
    """Day-level date accuracy on the CC-NEWS-like fundus WARC; denominator: all gold rows."""
    gold = [json.loads(line) for line in FUNDUS_MANIFEST.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    pages: dict[str, HtmlPage] = {}
    read_drops = Counter()
    for item in iter_html_pages(FUNDUS_WARC):
        if isinstance(item, HtmlPage):
            pages[item.record_id] = item
        else:
            read_drops[item.reason] += 1

    systems = ("pastcast", "htmldate", "htmldate_capped")
    hits = {s: Counter() for s in systems}  # "utc" / "local" day matches
    timers = {s: Timer() for s in systems}
    sources, source_hits = Counter(), Counter()
    misses, errors = [], []
    archive_policy = 0  # dated pages the ingest would drop as archive pages (too old)
    for row in gold:
        g = datetime.fromisoformat(row["gold_publishing_date"])
        gold_utc, gold_local = g.astimezone(timezone.utc).date(), g.date()
        page = pages.get(row["warc_record_id"])
        if page is None:
            misses.append({"url": row["url"], "why": "record not read as an HTML page"})
            continue
        html = decode_html(page.body, page.http_headers)
        with timers["pastcast"]:
            dated, error = _pastcast_date(html, page.url, page.crawled_at, page.http_headers)
        with timers["htmldate"]:
            plain = _htmldate(html, extensive_search=True)
        cap = (page.crawled_at + timedelta(days=1)).date().isoformat()
        with timers["htmldate_capped"]:
            capped = _htmldate(html, extensive_search=True, max_date=cap)

        archive_policy += bool(dated and dated.published_at and date_html(
            html, page.url, page.crawled_at, page.http_headers).published_at is None)
        published = dated.published_at if dated else None
        ours_utc = published.date() if published else None
        ours_local = dated.local_date if dated else None
        days = {
            "pastcast": (ours_utc, ours_local),
            "htmldate": (date.fromisoformat(plain),) * 2 if plain else (None, None),
            "htmldate_capped": (date.fromisoformat(capped),) * 2 if capped else (None, None),
        }
        for s, (utc_day, local_day) in days.items():
            hits[s]["utc"] += utc_day == gold_utc
            hits[s]["local"] += local_day == gold_local
        source = dated.source if dated else "error"
        sources[source or "none"] += 1
        source_hits[source or "none"] += ours_utc == gold_utc
        if error:
            errors.append({"url": page.url, "error": error})
        if ours_utc != gold_utc:
            misses.append({
                "url": page.url,
                "crawled_at": page.crawled_at.isoformat(),
                "gold": row["gold_publishing_date"],
                "pastcast": published.isoformat() if published else None,
                "source": dated.source if dated else error,
                "kind": _miss_kind(ours_utc, gold_utc),
                "local_day_ok": ours_local == gold_local,
                "htmldate": plain, "htmldate_capped": capped,
                "rejected": list(dated.rejected[:5]) if dated else [],
            })
    n = len(gold)
    return {
        "file": str(FUNDUS_WARC.relative_to(DATA)),
        "gold_records": n,
        "html_pages_read": len(pages),
        "read_drops": dict(read_drops),
        "dropped_by_archive_policy": archive_policy,
        "accuracy_utc_day": {s: _acc(hits[s]["utc"], n) for s in systems},
        "accuracy_local_day": {s: _acc(hits[s]["local"], n) for s in systems},
        "seconds": {s: round(t.seconds, 2) for s, t in timers.items()},
        "pastcast_by_source": {s: {"pages": c, "utc_day_correct": source_hits[s]}
                               for s, c in sources.most_common()},
        "pastcast_miss_kinds": dict(Counter(m.get("kind", "unread") for m in misses)),
        "pastcast_errors": errors,
        "pastcast_misses": misses,
    }


# ------------------------------------------------------------------ trafilatura-set dates


GOLD_DAY = re.compile(r"(\d{4})\D(\d{1,2})\D(\d{1,2})")


def _gold_day(value: str) -> date:
    """The gold day. Four entries are malformed and read as meant: '2022-01.26', '2022-11-1',
    and two with month and day swapped ('2022-29-11', '2022-25-10')."""
    y, m, d = (int(x) for x in GOLD_DAY.match(value).groups())
    return date(y, d, m) if m > 12 else date(y, m, d)


def bench_trafilatura_dates() -> dict:
    items = [(url, item) for url, item in trafilatura_eval().items() if item.get("date")]
    systems = ("pastcast", "htmldate_fast", "htmldate_extensive")
    hits, timers = Counter(), {s: Timer() for s in systems}
    local_hits = 0
    sources, source_hits = Counter(), Counter()
    misses, errors = [], []
    for url, item in items:
        gold = _gold_day(item["date"])
        html = decode_html(read_page_bytes(trafilatura_page_path(item["file"])), {})
        with timers["pastcast"]:
            dated, error = _pastcast_date(html, url)
        with timers["htmldate_fast"]:
            fast = _htmldate(html, extensive_search=False)
        with timers["htmldate_extensive"]:
            extensive = _htmldate(html, extensive_search=True)
        published = dated.published_at if dated else None
        ours = published.date() if published else None
        ours_local = getattr(dated, "local_date", None) if dated else None
        hits["pastcast"] += ours == gold
        local_hits += ours_local == gold
        hits["htmldate_fast"] += fast is not None and date.fromisoformat(fast) == gold
        hits["htmldate_extensive"] += (extensive is not None
                                       and date.fromisoformat(extensive) == gold)
        source = (dated.source or "none") if dated else "error"
        sources[source] += 1
        source_hits[source] += ours == gold
        if error:
            errors.append({"url": url, "file": item["file"], "error": error})
        if ours != gold:
            misses.append({
                "url": url, "file": item["file"], "gold": item["date"],
                "pastcast": published.isoformat() if published else None,
                "source": dated.source if dated else error,
                "kind": _miss_kind(ours, gold),
                "local_date": ours_local.isoformat() if ours_local else None,
                "htmldate_extensive": extensive,
                "rejected": list(dated.rejected[:5]) if dated else [],
            })
    n = len(items)
    return {
        "pages_with_gold_date": n,
        "accuracy_day": {s: _acc(hits[s], n) for s in systems},
        "accuracy_day_pastcast_local_date": _acc(local_hits, n),
        "note": "pastcast: the UTC day of published_at; pastcast_local_date: PageDate.local_date "
                "(the day in the offset the page wrote); gold and htmldate: the page's own day",
        "seconds": {s: round(t.seconds, 2) for s, t in timers.items()},
        "pastcast_by_source": {s: {"pages": c, "day_correct": source_hits[s]}
                               for s, c in sources.most_common()},
        "pastcast_miss_kinds": dict(Counter(m["kind"] for m in misses)),
        "pastcast_errors": errors,
        "pastcast_misses": misses,
    }


# ---------------------------------------------------------------------------- extraction


def evaluate_result(result, item) -> tuple[int, int, int, int]:
    """trafilatura's tests/comparison_small.py evaluate_result: (tp, fn, fp, tn)."""
    tp = fn = fp = tn = 0
    if result is not None and isinstance(result, str):
        for to_include in item["with"]:
            if to_include in result:
                tp += 1
            else:
                fn += 1
        for to_exclude in item["without"]:
            if to_exclude in result:
                fp += 1
            else:
                tn += 1
    else:
        fn += len(item["with"])
        tn += len(item["without"])
    return tp, fn, fp, tn


def calculate_scores(c: Counter) -> dict:
    """trafilatura's calculate_scores: precision, recall, accuracy, F1 from the counts."""
    tp, fn, fp, tn = c["tp"], c["fn"], c["fp"], c["tn"]
    return {
        "precision": round(tp / (tp + fp), 4) if tp + fp else 0.0,
        "recall": round(tp / (tp + fn), 4) if tp + fn else 0.0,
        "accuracy": round((tp + tn) / (tp + tn + fp + fn), 4) if tp + tn + fp + fn else 0.0,
        "f1": round(2 * tp / (2 * tp + fp + fn), 4) if tp + fp + fn else 0.0,
    }


def pastcast_extractors() -> dict:
    """pastcast's extraction settings to compare, whichever API the library has now.

    Older: ``extract_html(html, fast=...)``. Current: ``extract_html(html, config=...)`` with
    ``ExtractConfig.full_extraction_below_words`` (trafilatura's fast pass, then its full pass
    with fallbacks when the fast pass finds fewer words): 0 means fast only, a huge value
    means the full pass on every page (after the fast one).
    """
    if "fast" in inspect.signature(extract_html).parameters:
        return {"pastcast fast=True": lambda html: extract_html(html, fast=True)[1],
                "pastcast fast=False": lambda html: extract_html(html, fast=False)[1]}
    found = {"pastcast default": lambda html: extract_html(html)[1]}
    if "full_extraction_below_words" in {f.name for f in dataclasses.fields(ExtractConfig)}:
        default = ExtractConfig().full_extraction_below_words
        found = {f"pastcast default (full pass < {default} words)": found["pastcast default"]}
        fast, full = (ExtractConfig(full_extraction_below_words=n) for n in (0, 10 ** 9))
        found["pastcast fast pass only"] = lambda html: extract_html(html, config=fast)[1]
        found["pastcast full pass always"] = lambda html: extract_html(html, config=full)[1]
    return found


def _trafilatura_default(html: str) -> str | None:
    return trafilatura.extract(html)


def _trafilatura_comparison(html: str) -> str | None:
    # run_trafilatura of trafilatura's tests/comparison_small.py
    return trafilatura.extract(html, fast=True, include_comments=False,
                               include_tables=True, include_formatting=False)


TRAFILATURA_EXTRACTORS = {
    "trafilatura.extract default": _trafilatura_default,
    "trafilatura comparison-script": _trafilatura_comparison,
}


def bench_extraction() -> dict:
    """Counts as trafilatura's compute_confusion_matrix: an empty result skips the page.

    That script only adds a page's counts when the extractor returned something; the
    ``strict`` scores below count an empty result as all 'with' snippets missed.
    """
    evalset = trafilatura_eval()
    urls, items = list(evalset), list(evalset.values())
    pages = [decode_html(read_page_bytes(trafilatura_page_path(it["file"])), {})
             for it in items]
    results, outputs = {}, {}
    extractors = {**pastcast_extractors(), **TRAFILATURA_EXTRACTORS}
    for name, run in extractors.items():
        counts, strict, timer = Counter(), Counter(), Timer()
        skipped, errors, texts = [], [], []
        for item, html in zip(items, pages):
            with timer:
                try:
                    result = run(html)
                except Exception as exc:  # noqa: BLE001 - a crash is an empty result
                    errors.append(f"{item['file']}: {type(exc).__name__}: {str(exc)[:100]}")
                    result = None
            texts.append(result or "")
            tp, fn, fp, tn = evaluate_result(result, item)
            strict.update(tp=tp, fn=fn, fp=fp, tn=tn)
            if result:
                counts.update(tp=tp, fn=fn, fp=fp, tn=tn)
            else:
                skipped.append(item["file"])
        outputs[name] = texts
        results[name] = {
            **calculate_scores(counts),
            "strict": calculate_scores(strict),
            "counts": dict(counts),
            "skipped_empty": len(skipped),
            "empty_files": skipped,
            "errors": errors,
            "seconds": round(timer.seconds, 2),
            "docs_per_s": round(len(items) / timer.seconds, 1),
        }
    ours = next(iter(outputs))  # pastcast's default (or fast) setting
    return {"documents": len(items), "extractors": results,
            "worse_than_trafilatura": {"pastcast": ours, "trafilatura": "comparison-script",
                                       "pages": _worse_pages(urls, items, outputs[ours],
                                                             outputs["trafilatura comparison-script"])}}


def _worse_pages(urls, items, ours, theirs, limit: int = 40) -> list[dict]:
    """Pages where pastcast misses snippets or keeps boilerplate that trafilatura
    (its comparison-script settings) gets right: the places to look at first."""
    worse = []
    for url, item, a, b in zip(urls, items, ours, theirs):
        missed = [w for w in item["with"] if w not in a and w in b]
        unwanted = [w for w in item["without"] if w in a and w not in b]
        if missed or unwanted:
            worse.append({"url": url, "file": item["file"], "missed": missed,
                          "unwanted": unwanted, "pastcast_chars": len(a),
                          "trafilatura_chars": len(b)})
    worse.sort(key=lambda w: -(len(w["missed"]) + len(w["unwanted"])))
    return worse[:limit]


# ---------------------------------------------------------------------------------- main


def _print_fundus(r: dict) -> None:
    u, l, s = r["accuracy_utc_day"], r["accuracy_local_day"], r["seconds"]
    rows = [[name, f"{u[k]:.3f}", f"{l[k]:.3f}", f"{r['gold_records'] / max(s[k], 1e-9):.0f}"]
            for k, name in (("pastcast", "pastcast date_html"), ("htmldate", "htmldate extensive"),
                            ("htmldate_capped", "htmldate extensive, max crawl+1d"))]
    print(table(["system", "UTC day", "gold-tz day", "pages/s"], rows,
                f"\nfundus dates: {r['gold_records']} gold records, goal >= "
                f"{GOALS['fundus_dates']} (pastcast misses: {r['pastcast_miss_kinds']})"))


def _print_trafilatura_dates(r: dict) -> None:
    a, s = r["accuracy_day"], r["seconds"]
    rows = [[name, f"{a[k]:.3f}", f"{r['pages_with_gold_date'] / max(s[k], 1e-9):.0f}"]
            for k, name in (("pastcast", "pastcast date_html (UTC day)"),
                            ("htmldate_fast", "htmldate fast"),
                            ("htmldate_extensive", "htmldate extensive"))]
    rows.insert(1, ["pastcast date_html (page's day)",
                    f"{r['accuracy_day_pastcast_local_date']:.3f}", rows[0][2]])
    print(table(["system", "day", "pages/s"], rows,
                f"\ntrafilatura-set dates: {r['pages_with_gold_date']} pages, goal >= "
                f"{GOALS['trafilatura_dates']} (pastcast misses: {r['pastcast_miss_kinds']})"))


def _print_extraction(r: dict) -> None:
    rows = [[name, f"{e['precision']:.3f}", f"{e['recall']:.3f}", f"{e['f1']:.3f}",
             f"{e['strict']['f1']:.3f}", e["skipped_empty"], f"{e['docs_per_s']:.1f}"]
            for name, e in r["extractors"].items()]
    print(table(["extractor", "precision", "recall", "F1", "strict F1", "empty", "docs/s"], rows,
                f"\nextraction: {r['documents']} pages, goal F1 >= {GOALS['extraction_f1']} "
                "(F1 as trafilatura's comparison script: empty results skipped; strict counts "
                "them as misses)"))


PARTS = {
    "fundus": ("fundus_dates", bench_fundus_dates, _print_fundus),
    "trafilatura-dates": ("trafilatura_dates", bench_trafilatura_dates, _print_trafilatura_dates),
    "extraction": ("extraction", bench_extraction, _print_extraction),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(PARTS),
                        help=f"comma-separated parts to run (default all: {','.join(PARTS)})")
    args = parser.parse_args()
    require_data(FUNDUS_WARC, FUNDUS_MANIFEST, TRAFILATURA / "evaldata.json")
    chosen = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = [p for p in chosen if p not in PARTS]
    if unknown:
        parser.error(f"unknown part(s): {', '.join(unknown)}")

    report = json.loads(OUT.read_text()) if OUT.exists() and len(chosen) < len(PARTS) else {}
    report.update({"environment": environment(), "goals": GOALS})
    started = time.perf_counter()
    for part in chosen:
        key, run, show = PARTS[part]
        t0 = time.perf_counter()
        report[key] = run()
        report[key]["wall_seconds"] = round(time.perf_counter() - t0, 1)
        show(report[key])
    report["wall_seconds"] = round(time.perf_counter() - started, 1)
    write_json(OUT, report)
    print(f"\nwritten {OUT.relative_to(Path.cwd()) if OUT.is_relative_to(Path.cwd()) else OUT} "
          f"({report['wall_seconds']:.0f} s)")


if __name__ == "__main__":
    main()
