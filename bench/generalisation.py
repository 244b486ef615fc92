"""Generalisation: pastcast's ingest vs the plain libraries, on publishers it was not tuned on.

Every heuristic of the ingest (dates, extraction, drops) is tuned on the tuning half of the gold
sets and reported here on the held-out half, split by publisher (``_common.split_half``: a
SHA-256 of ``SPLIT_SEED`` and the page's registered domain). Both halves are printed, each
labelled. On every set the plain-library pipeline runs beside pastcast in the same run, and a
page a pipeline leaves out of its output counts as a miss (day wrong, text F1 0, snippets
missed):

  fundus WARC       ``warc/derived/CC-NEWS-like-fundus-256.warc.gz`` (256 real news pages, real
                    crawl times). pastcast: ``ingest_paths`` with the default ``ExtractConfig``,
                    exactly what ``pastcast ingest`` keeps and drops. Plain: warcio, then
                    ``trafilatura.extract`` (default settings) and ``htmldate.find_date``
                    (default, ``original_date=True``) on the record's bytes; it keeps every page
                    trafilatura returns text for. Day accuracy against the gold publisher-local
                    day, token F1 of the text against fundus's expected article body, articles
                    dated after their crawl + 1 day.
  fundus pages      ``dates/fundus`` html.gz + ``manifest_derived.jsonl``: checked to be the same
                    pages as the WARC (same URLs, crawl times and gold), so not run twice.
  trafilatura eval  ``extraction/trafilatura/evaldata.json`` (990 pages): snippet precision /
                    recall / F1 as ``bench/ingest_accuracy.py`` counts them, a page pastcast drops
                    extracting nothing; day accuracy on the 728 pages with a gold date. No crawl
                    time: the crawl time given to pastcast is the time of the run (as
                    ``ingest_accuracy.py``'s ceiling of now).

Also: a per-language table of the held-out half (language of the gold text, py3langid through
``pastcast.curate.extract.detect_language``) and every page pastcast drops, by reason.

Run: ``make bench-generalisation`` or ``.venv/bin/python bench/generalisation.py [--workers 2]
[--seed S]``; about 1 minute on 2 cores. Writes ``.bench-cache/generalisation.json``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (CACHE, DATA, FUNDUS_MANIFEST, FUNDUS_PAGES, FUNDUS_WARC, HALVES,  # noqa: E402
                     SPLIT_SEED, TRAFILATURA, environment, fundus_gold, half_counts, publisher,
                     read_page_bytes, require_data, split_half, table, trafilatura_eval,
                     trafilatura_page_path, write_json)
from ingest_accuracy import _gold_day, calculate_scores, evaluate_result  # noqa: E402

from pastcast.text.normalise import IDEOGRAPHIC, MARKS, SEGMENTED  # noqa: E402

OUT = CACHE / "generalisation.json"
SLACK = timedelta(days=1)
SYSTEMS = ("pastcast", "plain")
HALF_LABEL = {"tune": "tune", "heldout": "held-out"}

# ------------------------------------------------------------------------------- metrics

# Token-level F1 of an extracted text against the gold body: lower-cased words; each Han/kana
# character and each letter of Thai, Lao, Myanmar, Khmer is its own token (those scripts have
# no spaces), so every language is scored on comparable units. The script classes are
# pastcast.text's (one definition; Tibetan separates syllables with the tsheg).
_UNSPACED = IDEOGRAPHIC + SEGMENTED
TOKEN = re.compile(f"[{_UNSPACED}]|(?:(?![{_UNSPACED}])[^\\W_]|[{MARKS}])+")


def tokens(text: str | None) -> Counter:
    return Counter(TOKEN.findall(text.lower())) if text else Counter()


def token_prf(predicted: str | None, gold: str) -> tuple[float, float, float]:
    """(precision, recall, F1) of the bag of tokens; nothing extracted scores 0."""
    got, want = tokens(predicted), tokens(gold)
    common = sum((got & want).values())
    if not common:
        return 0.0, 0.0, 0.0
    p, r = common / sum(got.values()), common / sum(want.values())
    return p, r, 2 * p * r / (p + r)


def _mean(values) -> float:
    values = list(values)
    return round(sum(values) / len(values), 4) if values else 0.0


def _share(hits: int, n: int) -> float:
    return round(hits / n, 4) if n else 0.0


# ------------------------------------------------------------------- plain-library worker


def plain_page(task: tuple[str, bytes]) -> tuple[str | None, str | None]:
    """The plain loop on one page's bytes: trafilatura.extract (default settings) and
    htmldate.find_date (default, original_date=True); a crash is no result."""
    import trafilatura
    from htmldate import find_date

    url, body = task
    try:
        text = trafilatura.extract(body, url=url)
    except Exception:  # noqa: BLE001 - the usual loop skips what crashes
        text = None
    try:
        day = find_date(body, original_date=True)
    except Exception:  # noqa: BLE001
        day = None
    return text or None, day


def pastcast_page(task: tuple[str, str, bytes, datetime]) -> dict:
    """pastcast's page-to-article path (default ExtractConfig) on a page outside any WARC."""
    from pastcast.curate.extract import page_to_article
    from pastcast.drops import Drop
    from pastcast.sources.warc import HtmlPage

    url, record_id, body, crawled_at = task
    page = HtmlPage(warc_file="trafilatura-evaldata", record_id=record_id, url=url,
                    crawled_at=crawled_at, http_headers={}, body=body, offset=0)
    try:
        row = page_to_article(page)
    except Exception as exc:  # noqa: BLE001 - a crash is a drop, listed
        return {"kept": False, "reason": "crash", "detail": f"{type(exc).__name__}: {exc}"[:300]}
    if isinstance(row, Drop):
        return {"kept": False, "reason": row.reason, "detail": row.detail}
    return {"kept": True, **_pastcast_fields(row)}


def _pastcast_fields(row: dict) -> dict:
    """What the bench reads from an article row. The publisher's local day when the row has
    it (``published_local_date``, added in issue 15), else the UTC day of ``published_at``."""
    published = row["published_at"]
    local = row.get("published_local_date")
    return {"text": row["text"], "published_at": published, "crawled_at": row["crawled_at"],
            "day": local or (published.date() if published else None),
            "day_kind": "local" if local else "utc", "language": row.get("language"),
            "date_source": row.get("date_source")}


def _pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("forkserver"))


# ------------------------------------------------------------------------------ fundus WARC


def _plain_warc_pages(path: Path) -> list[dict]:
    """warcio reading, as a plain loop does: HTTP 200 text/html responses."""
    from warcio.archiveiterator import ArchiveIterator

    pages = []
    with open(path, "rb") as fh:
        for record in ArchiveIterator(fh):
            if record.rec_type != "response" or record.http_headers is None:
                continue
            if record.http_headers.get_statuscode() != "200":
                continue
            if not (record.http_headers.get_header("Content-Type") or "").lower().startswith("text/html"):
                continue
            pages.append({"record_id": record.rec_headers.get_header("WARC-Record-ID"),
                          "url": record.rec_headers.get_header("WARC-Target-URI"),
                          "warc_date": record.rec_headers.get_header("WARC-Date"),
                          "body": record.content_stream().read()})
    return pages


def _ingest_fundus(workers: int) -> tuple[dict, dict, dict]:
    """``pastcast ingest`` on the fundus WARC: {record id: article fields}, {record id: drop},
    and what else came out."""
    import polars as pl

    from pastcast.curate.ingest import ingest_paths

    out = Path(tempfile.mkdtemp(prefix="generalisation-", dir=CACHE))
    try:
        result = ingest_paths([FUNDUS_WARC], out, workers=workers)
        articles = pl.read_parquet(result.articles_path)
        drops = pl.read_parquet(result.drops_path)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    has_local = "published_local_date" in articles.columns
    kept = {row["warc_record_id"]: _pastcast_fields(row) for row in articles.iter_rows(named=True)}
    dropped = {}
    for row in drops.iter_rows(named=True):
        record_id = row["item_id"].split("#", 1)[1] if "#" in row["item_id"] else row["item_id"]
        dropped[record_id] = {"reason": row["reason"], "stage": row["stage"], "detail": row["detail"]}
    info = {"articles": articles.height, "drops": drops.height, "seconds": round(result.seconds, 1),
            "drops_by_reason": result.drops_by_reason,
            "published_local_date_column": has_local}
    return kept, dropped, info


def bench_fundus(workers: int) -> dict:
    from pastcast.curate.extract import detect_language

    manifest = [json.loads(line) for line in FUNDUS_MANIFEST.read_text(encoding="utf-8").splitlines()
                if line.strip()]
    gold_by_file = {row["file"]: row for row in fundus_gold()}
    t0 = time.perf_counter()
    kept, dropped, info = _ingest_fundus(workers)
    pastcast_seconds = time.perf_counter() - t0

    t0 = time.perf_counter()
    raw = {p["record_id"]: p for p in _plain_warc_pages(FUNDUS_WARC)}
    order = [r["warc_record_id"] for r in manifest if r["warc_record_id"] in raw]
    with _pool(workers) as pool:
        plain_out = dict(zip(order, pool.map(plain_page, [(raw[i]["url"], raw[i]["body"]) for i in order],
                                             chunksize=8)))
    plain_seconds = time.perf_counter() - t0

    pages = []
    for row in manifest:
        record_id = row["warc_record_id"]
        gold_dt = datetime.fromisoformat(row["gold_publishing_date"])
        crawled = datetime.fromisoformat(row["warc_date"].replace("Z", "+00:00"))
        gold = gold_by_file[row["source_file"]]
        body = gold["body_text"]
        page = {"url": row["url"], "publisher": publisher(row["url"]), "half": split_half(row["url"]),
                "fundus_publisher": gold["publisher"], "country": gold["group"],
                "language": detect_language(body) or "und",
                "gold_day": gold_dt.date(), "crawled_at": crawled, "dated": True}
        ours = kept.get(record_id)
        if ours:
            p, r, f = token_prf(ours["text"], body)
            page["pastcast"] = {"kept": True, "day": ours["day"], "day_kind": ours["day_kind"],
                                "date_source": ours["date_source"],
                                "after_crawl": ours["published_at"] > ours["crawled_at"] + SLACK,
                                "p": p, "r": r, "f1": f}
        else:
            why = dropped.get(record_id, {"reason": "missing", "detail": "neither article nor drop"})
            page["pastcast"] = {"kept": False, "reason": why["reason"], "detail": why.get("detail", ""),
                                "day": None, "after_crawl": False, "p": 0.0, "r": 0.0, "f1": 0.0}
        text, day = plain_out.get(record_id, (None, None))
        if text:
            p, r, f = token_prf(text, body)
            plain_day = date.fromisoformat(day) if day else None
            page["plain"] = {"kept": True, "day": plain_day,
                             "after_crawl": bool(plain_day and plain_day > (crawled + SLACK).date()),
                             "p": p, "r": r, "f1": f}
        else:
            page["plain"] = {"kept": False, "reason": "no_text" if record_id in raw else "not_read",
                             "day": None, "after_crawl": False, "p": 0.0, "r": 0.0, "f1": 0.0}
        pages.append(page)
    return {"file": str(FUNDUS_WARC.relative_to(DATA)), "gold_records": len(manifest),
            "ingest": info, "seconds": {"pastcast": round(pastcast_seconds, 1),
                                        "plain": round(plain_seconds, 1)},
            "day_note": "gold: the gold time's own (publisher-local) day. pastcast: "
                        "published_local_date, else the UTC day of published_at. plain: "
                        "htmldate's day as found.",
            "pages": pages}


def fundus_pages_check() -> dict:
    """Are the html.gz pages of dates/fundus the WARC's pages? (Then they are not run twice.)"""
    derived = {json.loads(line)["file"]: json.loads(line) for line in
               (FUNDUS_PAGES / "manifest_derived.jsonl").read_text(encoding="utf-8").splitlines()
               if line.strip()}
    warc = {json.loads(line)["source_file"]: json.loads(line) for line in
            FUNDUS_MANIFEST.read_text(encoding="utf-8").splitlines() if line.strip()}
    differ = [f for f, w in warc.items() if f not in derived
              or derived[f]["url"] != w["url"]
              or derived[f]["publishing_date"] != w["gold_publishing_date"]
              or derived[f]["crawl_date"][:19] != w["warc_date"][:19].replace("T", " ")]
    files = sorted(str(p.relative_to(FUNDUS_PAGES)) for p in FUNDUS_PAGES.glob("*/*.html.gz"))
    outside = [f for f in files if f not in derived]
    meta = {}
    for f in outside:
        info = json.loads((FUNDUS_PAGES / f).parent.joinpath("meta.info").read_text(encoding="utf-8"))
        meta[f] = info.get(Path(f).name, {}).get("url")
    same = not differ and set(derived) == set(warc)
    return {"same_pages_as_warc": same, "pages_in_manifest": len(derived), "html_files": len(files),
            "differing": differ, "not_in_manifest": meta,
            "note": ("same URLs, crawl times (to the second) and gold dates as the WARC: not run twice"
                     if same else "differs from the WARC")}


# ------------------------------------------------------------------------ trafilatura eval


def bench_trafilatura(workers: int) -> dict:
    from pastcast.curate.extract import detect_language

    evalset = trafilatura_eval()
    crawled = datetime.now(timezone.utc).replace(microsecond=0)  # no crawl time: the run's time
    keys = [k for k, item in evalset.items() if trafilatura_page_path(item["file"]).is_file()]
    bodies = {k: read_page_bytes(trafilatura_page_path(evalset[k]["file"])) for k in keys}
    t0 = time.perf_counter()
    with _pool(workers) as pool:
        ours = list(pool.map(pastcast_page, [(k, evalset[k]["file"], bodies[k], crawled) for k in keys],
                             chunksize=8))
        pastcast_seconds = time.perf_counter() - t0
        t0 = time.perf_counter()
        plain = list(pool.map(plain_page, [(k, bodies[k]) for k in keys], chunksize=8))
        plain_seconds = time.perf_counter() - t0

    pages = []
    for key, mine, (text, day) in zip(keys, ours, plain):
        item = evalset[key]
        gold_day = _gold_day(item["date"]) if item.get("date") else None
        gold_text = " ".join(item["with"])
        page = {"url": key, "file": item["file"], "publisher": publisher(key), "half": split_half(key),
                "language": detect_language(gold_text) or "und", "gold_day": gold_day,
                "crawled_at": crawled, "dated": gold_day is not None,
                "with": len(item["with"]), "without": len(item["without"])}
        if mine["kept"]:
            counts = evaluate_result(mine["text"], item)
            page["pastcast"] = {"kept": True, "day": mine["day"], "day_kind": mine["day_kind"],
                                "date_source": mine["date_source"],
                                "after_crawl": mine["published_at"] > mine["crawled_at"] + SLACK,
                                "snippets": counts}
        else:
            page["pastcast"] = {"kept": False, "reason": mine["reason"], "detail": mine["detail"],
                                "day": None, "after_crawl": False,
                                "snippets": evaluate_result(None, item)}
        plain_day = date.fromisoformat(day) if (text and day) else None
        page["plain"] = {"kept": bool(text), "day": plain_day,
                         "after_crawl": bool(plain_day and plain_day > (crawled + SLACK).date()),
                         "snippets": evaluate_result(text, item)}
        if not text:
            page["plain"]["reason"] = "no_text"
        pages.append(page)
    return {"documents": len(keys), "missing_files": len(evalset) - len(keys),
            "crawled_at_given": crawled.isoformat(),
            "seconds": {"pastcast": round(pastcast_seconds, 1), "plain": round(plain_seconds, 1)},
            "day_note": "gold: the page's own day. pastcast: published_local_date, else the UTC "
                        "day of published_at; crawl time = the run's time (no crawl time known).",
            "pages": pages}


# ---------------------------------------------------------------------------- aggregation


def summarise(pages: list[dict], snippets: bool) -> dict:
    """Per system: pages, kept, day accuracy (missing = miss), after crawl + 1 day, text scores."""
    out = {"pages": len(pages), "publishers": len({p["publisher"] for p in pages}),
           "dated_pages": sum(p["dated"] for p in pages)}
    for s in SYSTEMS:
        rows = [p[s] for p in pages]
        dated = [p for p in pages if p["dated"]]
        summary = {
            "kept": sum(r["kept"] for r in rows),
            "day_correct": sum(p[s]["day"] == p["gold_day"] for p in dated),
            "day_accuracy": _share(sum(p[s]["day"] == p["gold_day"] for p in dated), len(dated)),
            "day_accuracy_kept_only": _share(sum(p[s]["day"] == p["gold_day"] for p in dated if p[s]["kept"]),
                                             sum(p[s]["kept"] for p in dated)),
            "after_crawl_plus_1d": sum(r["after_crawl"] for r in rows),
            "drops_by_reason": dict(Counter(r.get("reason") for r in rows if not r["kept"])),
        }
        if s == "pastcast":
            summary["day_kind"] = dict(Counter(r.get("day_kind") for r in rows if r["kept"]))
        if snippets:
            strict, lenient, dated_pages = Counter(), Counter(), Counter()
            for p in pages:
                r = p[s]
                tp, fn, fp, tn = r["snippets"]
                strict.update(tp=tp, fn=fn, fp=fp, tn=tn)
                if r["kept"]:
                    lenient.update(tp=tp, fn=fn, fp=fp, tn=tn)
                if p["dated"]:
                    dated_pages.update(tp=tp, fn=fn, fp=fp, tn=tn)
            summary["snippets_strict"] = calculate_scores(strict)  # a page not kept: all missed
            summary["snippets_kept_only"] = calculate_scores(lenient)  # ingest_accuracy's default
            # the pages the gold itself dates (a news pipeline drops undated pages by design):
            # still strict, a dated page not kept misses all its snippets
            summary["snippets_dated"] = calculate_scores(dated_pages)
            summary["text_f1"] = summary["snippets_strict"]["f1"]
            summary["text_f1_dated"] = summary["snippets_dated"]["f1"]
        else:
            summary.update(token_precision=_mean(r["p"] for r in rows),
                           token_recall=_mean(r["r"] for r in rows),
                           text_f1=_mean(r["f1"] for r in rows),
                           text_f1_kept_only=_mean(r["f1"] for r in rows if r["kept"]))
            summary["text_f1_dated"] = _mean(p[s]["f1"] for p in dated)
        out[s] = summary
    return out


def by_half(pages: list[dict], snippets: bool) -> dict:
    return {h: summarise([p for p in pages if p["half"] == h], snippets) for h in HALVES}


def by_language(sets: dict[str, list[dict]], half: str) -> list[dict]:
    rows = []
    for set_name, pages in sets.items():
        groups = defaultdict(list)
        for p in pages:
            if p["half"] == half:
                groups[p["language"]].append(p)
        for lang, group in groups.items():
            s = summarise(group, snippets=set_name == "trafilatura")
            rows.append({"language": lang, "set": set_name, "pages": s["pages"],
                         "publishers": s["publishers"], "dated": s["dated_pages"],
                         **{f"{k}_day": s[k]["day_accuracy"] for k in SYSTEMS},
                         **{f"{k}_text_f1": s[k]["text_f1"] for k in SYSTEMS},
                         **{f"{k}_kept": s[k]["kept"] for k in SYSTEMS}})
    rows.sort(key=lambda r: (-r["pages"], r["language"], r["set"]))
    return rows


def _plain_content(page: dict) -> str:
    """How much of the gold the plain pipeline got on a page: snippets found, or token F1."""
    plain = page["plain"]
    if "snippets" in plain:
        return f"{plain['snippets'][0]}/{page['with']} snippets"
    return f"token F1 {plain['f1']:.2f}"


def drop_list(pages: list[dict], half: str | None = None) -> list[dict]:
    return [{"url": p["url"], "half": p["half"], "language": p["language"],
             "reason": p["pastcast"]["reason"], "detail": p["pastcast"].get("detail", ""),
             "plain_kept": p["plain"]["kept"], "plain_content": _plain_content(p),
             "gold_day": p["gold_day"].isoformat() if p["gold_day"] else None,
             "plain_day_ok": p["plain"]["day"] == p["gold_day"] if p["dated"] else None}
            for p in pages if not p["pastcast"]["kept"] and (half is None or p["half"] == half)]


# ----------------------------------------------------------------------------------- print

F = "{:.3f}".format


def print_split(counts: dict, seed: str) -> None:
    rows = [[name, HALF_LABEL[h], c[h]["publishers"], c[h]["pages"]]
            for name, c in counts.items() for h in HALVES]
    print(table(["set", "half", "publishers", "pages"], rows,
                f"split by publisher (registered domain), seed {seed!r}"))


def print_fundus(summary: dict) -> None:
    rows = []
    for h in HALVES:
        s = summary[h]
        for k in SYSTEMS:
            r = s[k]
            rows.append([HALF_LABEL[h], k, f"{r['kept']}/{s['pages']}", F(r["day_accuracy"]),
                         F(r["token_precision"]), F(r["token_recall"]), F(r["text_f1"]),
                         r["after_crawl_plus_1d"]])
    print(table(["half", "system", "kept", "day", "token P", "token R", "text F1", "after crawl+1d"],
                rows, "\nfundus WARC (day: gold publisher-local day; a page not kept is a miss, F1 0)"))


def print_trafilatura(summary: dict) -> None:
    rows = []
    for h in HALVES:
        s = summary[h]
        for k in SYSTEMS:
            r, st = s[k], s[k]["snippets_strict"]
            rows.append([HALF_LABEL[h], k, f"{r['kept']}/{s['pages']}", F(st["precision"]),
                         F(st["recall"]), F(st["f1"]), F(r["snippets_kept_only"]["f1"]), F(r["text_f1_dated"]),
                         f"{r['day_correct']}/{s['dated_pages']}", F(r["day_accuracy"]),
                         r["after_crawl_plus_1d"]])
    print(table(["half", "system", "kept", "precision", "recall", "F1", "F1 kept only", "F1 gold-dated", "day hits",
                 "day", "after crawl+1d"], rows,
                "\ntrafilatura eval (snippets: a page not kept misses all its 'with' snippets; "
                "crawl time = now)"))


def print_languages(rows: list[dict], half: str) -> None:
    def day(value, dated):
        return F(value) if dated else "-"

    body = [[r["language"], r["set"], r["pages"], r["dated"], day(r["pastcast_day"], r["dated"]),
             day(r["plain_day"], r["dated"]),
             F(r["pastcast_text_f1"]), F(r["plain_text_f1"]),
             f"{r['pastcast_kept']}/{r['plain_kept']}"] for r in rows]
    print(table(["language", "set", "n", "dated", "pastcast day", "plain day", "pastcast F1",
                 "plain F1", "kept p/pl"], body,
                f"\nper language, {HALF_LABEL[half]} half (text F1: token F1 on fundus, strict "
                "snippet F1 on trafilatura)"))


def print_drops(sets: dict[str, list[dict]]) -> None:
    rows = []
    for name, pages in sets.items():
        for h in HALVES:
            counts = Counter(d["reason"] for d in drop_list(pages, h))
            rows.append([name, HALF_LABEL[h], sum(counts.values()),
                         ", ".join(f"{r} {n}" for r, n in counts.most_common()) or "-"])
    print(table(["set", "half", "pastcast drops", "by reason"], rows, "\npages pastcast drops"))
    for name, pages in sets.items():
        held = drop_list(pages, "heldout")
        print(f"\nheld-out pages pastcast drops, {name} ({len(held)}):")
        for d in held:
            plain = f"plain: kept, {d['plain_content']}" if d["plain_kept"] else "plain: no text either"
            if d["plain_kept"] and d["plain_day_ok"] is not None:
                plain += ", day right" if d["plain_day_ok"] else ", day wrong"
            detail = " ".join(d["detail"].split()).removeprefix(d["url"]).strip()
            gold = f"gold day {d['gold_day']}" if d["gold_day"] else "no gold day"
            print(f"  {d['reason']:<10} {d['url'][:100]}\n  {'':<10} {gold}; {plain}"
                  + (f"; {detail[:100]}" if detail else ""))


def markdown(summaries: dict) -> str:
    lines = ["| half | set | system | kept | day (missing = miss) | text F1 (missing = 0) "
             "| text F1, pages the gold dates | dated after crawl + 1 d |",
             "|---|---|---|---|---|---|---|---|"]
    for h in HALVES:
        for name, label in (("fundus", "fundus WARC"), ("trafilatura", "trafilatura eval")):
            s = summaries[name][h]
            metrics = ("day_accuracy", "text_f1", "text_f1_dated")
            best = {m: max(s[k][m] for k in SYSTEMS) for m in metrics}
            for k, sys_label in (("pastcast", "pastcast ingest"), ("plain", "plain libraries")):
                r = s[k]
                day, f1, f1_dated = (f"**{F(r[m])}**" if r[m] == best[m] else F(r[m]) for m in metrics)
                lines.append(f"| {HALF_LABEL[h]} | {label} | {sys_label} | {r['kept']}/{s['pages']} "
                             f"| {day} | {f1} | {f1_dated} | {r['after_crawl_plus_1d']} |")
    return "\n".join(lines)


def pooled_days(sets: dict[str, list[dict]]) -> dict:
    """Day accuracy over the dated pages of every set together, per half (missing = miss): the
    held-out pages of both sets are the unseen real news the dating is judged on."""
    out = {}
    for h in HALVES:
        dated = [p for pages in sets.values() for p in pages if p["half"] == h and p["dated"]]
        out[h] = {"dated_pages": len(dated),
                  **{s: _share(sum(p[s]["day"] == p["gold_day"] for p in dated), len(dated)) for s in SYSTEMS}}
        out[h]["margin"] = out[h]["pastcast"] - out[h]["plain"]
    return out


def pooled_markdown(pooled: dict) -> str:
    lines = ["| half | dated pages (both sets) | pastcast day | plain day | margin |", "|---|---|---|---|---|"]
    for h in HALVES:
        r = pooled[h]
        lines.append(f"| {HALF_LABEL[h]} | {r['dated_pages']} | {F(r['pastcast'])} | {F(r['plain'])} "
                     f"| {r['margin']:+.3f} |")
    return "\n".join(lines)


def _jsonable(pages: list[dict]) -> list[dict]:
    out = []
    for p in pages:
        q = {k: v for k, v in p.items()}
        for k in SYSTEMS:
            q[k] = {kk: vv for kk, vv in p[k].items()}
            for kk in ("p", "r", "f1"):
                if kk in q[k]:
                    q[k][kk] = round(q[k][kk], 4)
        out.append(q)
    return out


# ------------------------------------------------------------------------------------ main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--seed", default=SPLIT_SEED,
                        help=f"split seed (default {SPLIT_SEED!r}, the one every bench uses)")
    args = parser.parse_args()
    require_data(FUNDUS_WARC, FUNDUS_MANIFEST, FUNDUS_PAGES / "manifest_derived.jsonl",
                 TRAFILATURA / "evaldata.json")
    CACHE.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()

    fundus = bench_fundus(args.workers)
    trafilatura_set = bench_trafilatura(args.workers)
    pages_check = fundus_pages_check()
    if args.seed != SPLIT_SEED:
        for page in fundus["pages"] + trafilatura_set["pages"]:
            page["half"] = split_half(page["publisher"], seed=args.seed)
    sets = {"fundus": fundus["pages"], "trafilatura": trafilatura_set["pages"]}

    counts = {name: {h: {"publishers": len({p["publisher"] for p in pages if p["half"] == h}),
                         "pages": sum(p["half"] == h for p in pages)} for h in HALVES}
              for name, pages in sets.items()}
    if args.seed == SPLIT_SEED:  # the same as _common.half_counts over the set's URLs
        assert counts["fundus"] == half_counts(p["url"] for p in sets["fundus"])
    print_split(counts, args.seed)
    named = defaultdict(set)  # fundus names each page's publisher: one name, one half
    for page in sets["fundus"]:
        named[page["fundus_publisher"]].add(page["half"])
    straddling = sorted(name for name, halves in named.items() if len(halves) > 1)
    if straddling:
        print(f"WARNING: fundus publishers in both halves (add their domains to "
              f"_common.PUBLISHER_ALIASES): {', '.join(straddling)}")
    summaries = {"fundus": by_half(sets["fundus"], snippets=False),
                 "trafilatura": by_half(sets["trafilatura"], snippets=True)}
    print_fundus(summaries["fundus"])
    print(f"\nfundus pages (dates/fundus html.gz): {pages_check['note']}"
          + (f"; {len(pages_check['not_in_manifest'])} html.gz files in neither manifest: "
             + ", ".join(f"{f} ({u})" for f, u in pages_check["not_in_manifest"].items())
             if pages_check["not_in_manifest"] else ""))
    misses = [pg for pg in sets["fundus"] if pg["half"] == "heldout" and pg["pastcast"]["kept"]
              and pg["pastcast"]["day"] != pg["gold_day"]]
    print(f"\nheld-out fundus pages pastcast keeps with a wrong day ({len(misses)}; all misses of "
          "both sets in the JSON):")
    for pg in misses:
        print(f"  gold {pg['gold_day']} pastcast {pg['pastcast']['day']} "
              f"({pg['pastcast']['date_source']}) htmldate {pg['plain']['day']}  {pg['url'][:90]}")
    print_trafilatura(summaries["trafilatura"])
    languages = {h: by_language(sets, h) for h in HALVES}
    print_languages(languages["heldout"], "heldout")
    print_drops(sets)
    pooled = pooled_days(sets)
    md = markdown(summaries) + "\n\nDay accuracy over the dated pages of both sets:\n\n" + pooled_markdown(pooled)
    print("\nmarkdown (bench/README.md, Generalisation):\n" + md)

    report = {
        "environment": environment(),
        "seed": args.seed,
        "split": counts,
        "fundus_publishers_in_both_halves": straddling,
        "notes": {
            "missing": "a page a system leaves out of its output is a miss: day wrong, text F1 0, "
                       "all its 'with' snippets missed",
            "plain": "warcio / file bytes -> trafilatura.extract(bytes, url=url) default settings, "
                     "htmldate.find_date(bytes, original_date=True); kept when trafilatura returns text",
            "pastcast": "fundus: ingest_paths(default ExtractConfig); trafilatura: page_to_article "
                        "(default ExtractConfig) with crawl time = the run's time",
            "language": "detect_language (py3langid) on the gold text: fundus body, trafilatura "
                        "'with' snippets; 'und' when not confident",
        },
        "fundus_warc": {k: v for k, v in fundus.items() if k != "pages"},
        "fundus_pages": pages_check,
        "trafilatura_eval": {k: v for k, v in trafilatura_set.items() if k != "pages"},
        "summary": summaries,
        "pooled_day_accuracy": pooled,
        "by_language": languages,
        "pastcast_drops": {name: drop_list(pages) for name, pages in sets.items()},
        "markdown": md,
        "pages": {name: _jsonable(pages) for name, pages in sets.items()},
    }
    report["wall_seconds"] = round(time.perf_counter() - started, 1)
    write_json(OUT, report)
    shown = OUT.relative_to(Path.cwd()) if OUT.is_relative_to(Path.cwd()) else OUT
    print(f"\nwritten {shown} ({report['wall_seconds']:.0f} s)")


if __name__ == "__main__":
    main()
