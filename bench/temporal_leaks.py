"""Temporal leaks on real questions against a real corpus: how often would the check fire, and
on what?

Corpus (real pages only, read where they are, never copied): the 256 fundus news pages of the
CC-NEWS-like WARC (extracted by pastcast, dated by their gold publication date) and the
trafilatura evaluation pages that carry a gold date (728), plus, with ``--cf-july FILE``, the
source articles of the third-party July 2024 question set (github.com/dpaleka/
consistency-forecasting @ ed41073d, ``.../2024-07-01_to_2024-07-31/.../strict_res_checking_fqs_
cleaned.jsonl``: title, description and the truncated content, dated by ``article_date``).

Question sets: ForecastBench (both sets, through ``pastcast questions import`` as a build reads
them), Autocast (1,364 questions, opened on ``publish_time``, resolving on ``close_time``) and,
with ``--cf-july``, the 117 yes/no questions an LLM wrote as of 2024-06-30 from July 2024 news
(each question's source article is in the corpus, as a news-generated question's is).
ForecastBench and Autocast were written by people on their open dates: every firing there is a
false positive, or a leak from a later edit of the text (read them). The July set names July
news by construction.

Split by source, never by row (``_common.split_half``): ForecastBench by its platform or data
source, Autocast by platform (G: Good Judgment Open, M: Metaculus, C: CSET Foretell), the July
set by source article. The rule's parameters are chosen on the tune half (at most 1% of the
people-written questions fired there, then most July questions fired) and reported on the
held-out half.

    .venv/bin/python bench/temporal_leaks.py [--cf-july /tmp/cf_july.jsonl] [--read 10]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import itertools
import json
import re
import sys
import tempfile
import time
from collections import Counter
from datetime import date, datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (CACHE, DATA, FUNDUS_MANIFEST, FUNDUS_WARC, HALVES, TRAFILATURA, environment,  # noqa: E402
                     publisher, read_page_bytes, require_data, split_half, table, trafilatura_eval,
                     trafilatura_page_path, write_json)

import polars as pl  # noqa: E402

from pastcast.questions.temporal import TemporalConfig, temporal_leaks  # noqa: E402
from pastcast.questions.temporal.corpus import CorpusView  # noqa: E402
from pastcast.schemas import ARTICLES, QUESTIONS, complete  # noqa: E402
from pastcast.search.index import ArticleIndex  # noqa: E402

FORECASTBENCH = DATA / "markets" / "forecastbench"
AUTOCAST = DATA / "markets" / "autocast" / "autocast_competition_test_set.json"
CORPUS_CACHE = CACHE / "temporal_corpus.parquet"
RESULTS = CACHE / "temporal_leaks.json"
PEOPLE_SETS = ("forecastbench", "autocast")  # written by people on their open dates


# -- corpus ---------------------------------------------------------------------------------

def _article(article_id: str, url: str, title: str, text: str, published: datetime, source: str) -> dict:
    return {"article_id": article_id, "url": url, "domain": publisher(url), "title": title or "", "text": text or "",
            "published_at": published.astimezone(timezone.utc), "date_source": f"gold:{source}"}


def _key() -> str:
    from pastcast.curate import extract

    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(Path(extract.__file__).read_bytes())
    return digest.hexdigest()[:16]


def real_pages(cache: bool = True) -> pl.DataFrame:
    """The fundus and dated trafilatura pages as articles (with ``cache``, kept under .bench-cache)."""
    key = _key()
    stamp = CORPUS_CACHE.with_suffix(".key")
    if cache and CORPUS_CACHE.is_file() and stamp.is_file() and stamp.read_text() == key:
        return pl.read_parquet(CORPUS_CACHE)
    from pastcast.curate.extract import decode_html, extract_html
    from pastcast.sources.warc import HtmlPage, iter_html_pages

    gold = {}
    for line in FUNDUS_MANIFEST.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            gold[row["warc_record_id"]] = datetime.fromisoformat(row["gold_publishing_date"])
    rows = []
    for page in iter_html_pages(FUNDUS_WARC):
        if isinstance(page, HtmlPage) and page.record_id in gold:
            title, text = extract_html(decode_html(page.body, page.http_headers), page.url)
            rows.append(_article(f"fundus:{page.record_id.strip('<>').split(':')[-1][:12]}", page.url, title, text,
                                 gold[page.record_id], "fundus"))
    for url, item in sorted(trafilatura_eval().items()):
        try:  # a handful of gold dates are malformed ("2022-29-11"): left out, not guessed
            published = datetime.fromisoformat(item.get("date") or "").replace(tzinfo=timezone.utc)
        except ValueError:
            continue
        title, text = extract_html(decode_html(read_page_bytes(trafilatura_page_path(item["file"])), {}), url)
        if not (title or text):
            continue
        digest = hashlib.sha256(url.encode()).hexdigest()[:12]
        rows.append(_article(f"trafilatura:{digest}", url, title, text, published, "trafilatura"))
    frame = complete(pl.DataFrame(rows), ARTICLES)
    if cache:
        CORPUS_CACHE.parent.mkdir(parents=True, exist_ok=True)
        frame.write_parquet(CORPUS_CACHE)
        stamp.write_text(key)
    return frame


_TRUNCATED = re.compile(r"…?\s*\[\+\d+ chars\]\s*$")


def cf_july(path: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(source articles, questions) of the July 2024 set."""
    articles, questions = {}, []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        info = r["metadata"]["article_information"]
        url = info["article_url"]
        aid = f"cf:{hashlib.sha256(url.encode()).hexdigest()[:12]}"
        text = "\n\n".join(x for x in (info.get("article_description"), _TRUNCATED.sub("", info.get("article_content") or ""))
                           if x)
        articles[aid] = _article(aid, url, info.get("article_title"), text,
                                 datetime.fromisoformat(info["article_date"]).replace(tzinfo=timezone.utc), "cf_july")
        questions.append({"question_id": f"cf:{r['id']}", "title": r["title"], "background": None,
                          "resolution_criteria": r["body"], "answer": "Yes" if r["resolution"] else "No",
                          "answer_type": "binary", "open_date": date.fromisoformat(r["created_date"][:10]),
                          "resolution_date": date.fromisoformat(r["resolution_date"][:10]),
                          "source_kind": "news", "source_ids": [aid], "_split": aid, "_set": "cf_july"})
    qs = pl.DataFrame(questions)
    return complete(pl.DataFrame(list(articles.values())), ARTICLES), qs


# -- questions ------------------------------------------------------------------------------

def forecastbench() -> pl.DataFrame:
    from pastcast.questions.peers import read_peer_questions

    q = read_peer_questions("forecastbench", [FORECASTBENCH]).questions
    return q.with_columns(pl.col("source_ids").list.first().str.split(":").list.get(1).alias("_split"),
                          pl.lit("forecastbench").alias("_set"))


def autocast() -> pl.DataFrame:
    rows = []
    for q in json.loads(AUTOCAST.read_text(encoding="utf-8")):
        choices = q["choices"] if isinstance(q["choices"], list) else []
        rows.append({"question_id": f"autocast:{q['id']}", "title": q["question"], "background": q["background"],
                     "resolution_criteria": None, "answer": None, "answer_type": q["qtype"],
                     "candidate_outcomes": [str(c) for c in choices] if q["qtype"] == "mc" else [],
                     "open_date": datetime.fromisoformat(q["publish_time"]).date(),
                     "resolution_date": datetime.fromisoformat(q["close_time"]).date(),
                     "source_kind": "market", "source_ids": [f"autocast:{q['id']}"],
                     "_split": f"autocast:{q['id'][0]}", "_set": "autocast"})
    return pl.DataFrame(rows).unique("question_id", keep="first", maintain_order=True)


def with_halves(questions: pl.DataFrame) -> pl.DataFrame:
    halves = {s: split_half(s) for s in questions["_split"].unique().to_list()}
    return questions.with_columns(pl.col("_split").replace_strict(halves).alias("_half"))


def all_questions(july: pl.DataFrame | None) -> pl.DataFrame:
    parts = [forecastbench(), autocast(), *([july] if july is not None else [])]
    cols = [*QUESTIONS, "_split", "_set"]
    return with_halves(pl.concat([complete(p, {**QUESTIONS, "_split": pl.String, "_set": pl.String}).select(cols)
                                  for p in parts]))


# -- runs -----------------------------------------------------------------------------------

_VIEWS: dict[int, CorpusView] = {}  # the index's answers, by window: the grid asks the same


def run(questions: pl.DataFrame, index: ArticleIndex, config: TemporalConfig) -> dict:
    """Counts of one run of the step over ``questions`` (all of one set and half)."""
    view = _VIEWS.setdefault(config.window_days, CorpusView(index, config.window_days))
    result = temporal_leaks(complete(questions, QUESTIONS), index, config, corpus=view, keep_checks=True)
    reopened = sum(1 for e in result.evidence if e.action == "reopen")
    fired_phrases = result.phrases.get("new", 0)
    after = {"new", "weak", "uncovered"}  # first seen after the open date while it was open
    naive = [qid for qid, checks in result.checks.items() if any(c.outcome in after for c in checks)]
    return {"questions": questions.height, "examined": result.examined, "skipped": dict(Counter(result.skipped.values())),
            "phrases_after_open": sum(result.phrases.get(o, 0) for o in after), "naive_fired": len(naive),
            "naive": naive,
            "phrases": dict(result.phrases), "phrases_checked": sum(result.phrases.values()),
            "phrases_fired": fired_phrases, "dropped": len(result.drops), "reopened": reopened,
            "fired": len(result.drops) + reopened, "result": result}


def grid(tune: dict[str, pl.DataFrame], index: ArticleIndex, base: TemporalConfig) -> list[dict]:
    """Every combination of the rule's parameters on the tune half: the share of people-written
    questions fired (false positives) and of July questions fired."""
    out = []
    for lookback, window, chance, coverage, holders, kinds in itertools.product(
            (30, 90, 365), (7, 30), (0.01, 0.05, 0.2), (10, 20, 50), (1, 2, 3),
            (("title", "name"), ("title", "name", "figure"))):
        config = dataclasses.replace(base, lookback_days=lookback, window_days=window, max_chance=chance,
                                     min_coverage=coverage, min_holders=holders, kinds=kinds)
        row = {"lookback_days": lookback, "window_days": window, "max_chance": chance, "min_coverage": coverage,
               "min_holders": holders, "kinds": "+".join(kinds)}
        for name, qs in tune.items():
            counts = run(qs, index, config)
            row[name] = {k: v for k, v in counts.items() if k not in ("result", "naive")}
        out.append(row)
    return out


def _share(counts: dict) -> float:
    return counts["fired"] / counts["examined"] if counts["examined"] else 0.0


def steady_holders(row: dict) -> int:
    """How many holders in its first days a phrase new after the open date needs to fire on a
    corpus publishing the same number of articles every day (the rule's power where the
    corpus is dense): the fewest h >= ``min_holders`` with (W / (W + L))^h <= ``max_chance``."""
    share = row["window_days"] / (row["window_days"] + row["lookback_days"])
    h = max(1, row["min_holders"])
    while share ** h > row["max_chance"]:
        h += 1
    return h


def people_fired(row: dict) -> tuple[int, int]:
    return (sum(row[s]["fired"] for s in PEOPLE_SETS if s in row),
            sum(row[s]["examined"] for s in PEOPLE_SETS if s in row))


def choose(rows: list[dict]) -> dict:
    """The parameters for the filter: those firing on the fewest people-written questions of the
    tune half (every firing there is a false positive, unless a later edit), then the most
    powerful on a steady corpus (``steady_holders``), then the fewest July firings (those read by
    hand were all names in the news long before), then the more cautious (more holders, a
    smaller chance), then the more questions examined (less coverage asked for)."""
    return min(rows, key=lambda r: (people_fired(r)[0], steady_holders(r), r.get("cf_july", {}).get("fired", 0),
                                    -r["min_holders"], r["max_chance"], r["min_coverage"], r["lookback_days"],
                                    r["window_days"], r["kinds"]))


def print_grid(rows: list[dict]) -> None:
    """The tune half's firings by the two parameters that decide most (the others at their
    best), then the ten configurations firing most July questions."""
    def fired(r, sets):
        return sum(r[s]["fired"] for s in sets if s in r), sum(r[s]["examined"] for s in sets if s in r)
    lines = []
    for holders, chance in itertools.product((1, 2, 3), (0.01, 0.05, 0.2)):
        sub = [r for r in rows if r["min_holders"] == holders and r["max_chance"] == chance]
        people = [fired(r, PEOPLE_SETS) for r in sub]
        july = [fired(r, ("cf_july",)) for r in sub]
        lines.append([holders, chance, f"{min(f for f, _ in people)}..{max(f for f, _ in people)} of {people[0][1]}",
                      f"{min(f for f, _ in july)}..{max(f for f, _ in july)} of {july[0][1]}" if july[0][1] else "-"])
    print(table(["min holders", "max chance", "people-written fired (range over the rest)", "July fired"], lines,
                "tune half, every combination"))


def read_firings(results: dict[str, dict], n: int) -> list[dict]:
    """Every firing of the chosen rule, then naive firings (a phrase first seen after the open
    date, no coverage or surprise asked for) spread over the sets, up to ``n`` in all: to read
    by hand. Each with the phrase, its first article and day."""
    picked = [{"set": name, "rule": "chosen", "question_id": e.question_id, "action": e.action,
               "phrase": e.spans[-1], "article": e.article_ids[-1], "day": e.dates[-1], "detail": e.detail}
              for name, counts in results.items() for e in counts["result"].evidence]
    pools = {}
    for name, counts in results.items():
        checks = counts["result"].checks
        pools[name] = [(qid, c) for qid in counts["naive"] for c in checks[qid] if c.outcome in ("new", "weak", "uncovered")
                       and not any(p["question_id"] == qid for p in picked)][::7]  # every 7th: not one series
    while len(picked) < n and any(pools.values()):
        for name, pool in pools.items():
            if pool and len(picked) < n:
                qid, c = pool.pop(0)
                picked.append({"set": name, "rule": "naive", "question_id": qid, "action": c.outcome,
                               "phrase": c.phrase.text, "article": c.first.article_id, "day": c.first.day.isoformat(),
                               "detail": f"{c.outcome}: none of {c.before} articles before, {c.holders} of {c.after} "
                                         f"in the window" + (f" (chance {c.chance:.2g})" if c.chance is not None else "")})
    return picked


# -- the nightly cost at scale --------------------------------------------------------------

def scale_nights(n: int, nights: int = 3) -> dict:
    """The step's cost on the working folder ``bench/scale.py --keep`` left for N articles: a
    first build with an empty memo, then ``nights`` nights each adding a day of 2,740 articles
    and its questions (``pipeline.tail`` gathers and indexes them, as the nightly build does),
    the step then run with the memo and, for comparison, without. Times of the step alone."""
    import scale  # bench/scale.py

    from pastcast import daily
    from pastcast.questions.temporal.memo import TemporalMemo
    from pastcast.search.index_store import update_or_build

    base = scale.HERE / f"n{n}"
    work, snaps = base / "work", base / "snapshots"
    if not (work / "question_candidates.parquet").is_file():
        raise SystemExit(f"no working folder at {work}: run bench/scale.py --sizes {n} --keep first")
    state = CACHE / "temporal_scale" / f"n{n}"
    state.mkdir(parents=True, exist_ok=True)
    memo_path = state / "temporal.parquet"
    for f in state.iterdir():
        f.unlink()

    def step(memo: bool) -> dict:
        parts = daily.gathered_parts(work)
        index = update_or_build(work, parts)
        asked = complete(pl.read_parquet(work / "question_candidates.parquet"), QUESTIONS)
        keeper = TemporalMemo(memo_path, {p.key: (p.sha256, p.path) for p in parts}) if memo else None
        started = time.perf_counter()
        result = temporal_leaks(asked, index, TemporalConfig(), memo=keeper)
        if keeper is not None:
            keeper.save()
        seconds = time.perf_counter() - started
        return {"seconds": round(seconds, 3), "questions": asked.height, "articles": len(index),
                "judged": result.judged, "searched": result.searched, "examined": result.examined,
                "skipped": dict(Counter(result.skipped.values())), "fired": len(result.drops) + result.reopened,
                **({"reused": keeper.reused, "rechecked": keeper.rechecked} if keeper else {})}

    first = step(memo=True)
    print(f"N={n}: first build {first}", flush=True)
    db = scale.open_state(work)
    pool = scale.paragraph_pool(__import__("random").Random(2026))
    start = int(pl.scan_parquet(str(work / "news" / "day=*" / "dedup" / "articles.parquet")).select(pl.len())
                .collect().item()) + 10_000_000  # ids never used by the scale run
    last = max(date.fromisoformat(p.key.split("=")[1]) for p in daily.gathered_parts(work))
    out = []
    for night in range(nights):
        day = last + __import__("datetime").timedelta(days=night + 1)
        articles, questions = scale.day_tables(day, scale.NEW_DAY_ARTICLES, start, pool, seed=10_000 + night)
        start += scale.NEW_DAY_ARTICLES
        scale.write_day(work, day, articles, questions, db)
        scale.run_tail(work, snaps)  # gathers the day, indexes it, builds the question candidates
        with_memo = step(memo=True)
        without = step(memo=False)
        out.append({"day": day.isoformat(), "with_memo": with_memo, "without_memo": without})
        print(f"  night {night + 1}: with the memo {with_memo}; without {without['seconds']} s", flush=True)
    db.close()
    return {"articles": n, "first": first, "nights": out}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cf-july", type=Path, default=None, help="the July 2024 question set (JSON lines)")
    parser.add_argument("--read", type=int, default=10, help="firings printed to read by hand")
    parser.add_argument("--no-grid", action="store_true", help="run the default parameters only")
    parser.add_argument("--scale", default=None,
                        help="comma-separated N of bench/scale.py --keep working folders: the nightly cost only")
    args = parser.parse_args(argv)
    if args.scale:
        rows = [scale_nights(int(n)) for n in args.scale.split(",")]
        write_json(CACHE / "temporal_scale.json", {"environment": environment(), "rows": rows})
        return {"scale": rows}
    require_data(FUNDUS_WARC, TRAFILATURA, FORECASTBENCH, AUTOCAST)
    started = time.perf_counter()
    articles = real_pages()
    july_articles, july = cf_july(args.cf_july) if args.cf_july else (None, None)
    corpus = pl.concat([articles, july_articles]) if july_articles is not None else articles
    questions = all_questions(july)
    sets = [s for s in (*PEOPLE_SETS, "cf_july") if s in set(questions["_set"].to_list())]
    halves = {h: {s: questions.filter((pl.col("_half") == h) & (pl.col("_set") == s)) for s in sets} for h in HALVES}
    print(f"corpus: {corpus.height} articles ({', '.join(f'{k} {v}' for k, v in Counter(corpus['date_source'].to_list()).items())}),"
          f" {corpus['published_at'].min():%Y-%m-%d} .. {corpus['published_at'].max():%Y-%m-%d}")
    print(table(["set", *HALVES], [[s, *(halves[h][s].height for h in HALVES)] for s in sets], "questions by half"))
    with tempfile.TemporaryDirectory(prefix="pastcast-temporal-bench-") as tmp:
        index = ArticleIndex.build(corpus, Path(tmp) / "index")
        base = TemporalConfig()
        if args.no_grid:
            chosen = dataclasses.asdict(base)
            rows = []
        else:
            rows = grid(halves["tune"], index, base)
            chosen = choose(rows)
            print_grid(rows)
        config = dataclasses.replace(base, **{k: (tuple(v.split("+")) if k == "kinds" and isinstance(v, str) else v)
                                              for k, v in chosen.items() if k in {f.name for f in dataclasses.fields(base)}})
        print(f"\nchosen on the tune half: {config}")
        report, firings = {}, {}
        for h in HALVES:
            report[h] = {}
            for s in sets:
                counts = run(halves[h][s], index, config)
                report[h][s] = counts
            print()
            print(table(["set", "questions", "examined", "skipped (why)", "phrases checked", "first seen after open",
                         "naive: questions fired", "phrases fired", "dropped", "reopened", "fired / examined"],
                        [[s, c["questions"], c["examined"],
                          ", ".join(f"{k} {v}" for k, v in sorted(c["skipped"].items())) or "-",
                          c["phrases_checked"], c["phrases_after_open"], c["naive_fired"], c["phrases_fired"],
                          c["dropped"], c["reopened"], f"{_share(c):.3f}"]
                         for s, c in report[h].items()], f"{h} half"))
            for s, c in report[h].items():
                print(f"  {s} phrase outcomes by kind: " + ", ".join(
                    f"{kind} {outcome} {n}" for (kind, outcome), n in sorted(c["result"].kinds.items())))
        example = questions.filter(pl.col("resolution_criteria").str.contains("Slim Shady"))
        if example.height:  # the example of issue 35, when the July set is given
            qid = example["question_id"][0]
            checks = next(c["result"].checks[qid] for r in report.values() for c in r.values()
                          if qid in c["result"].checks)
            print(f"\nthe issue's example, {qid}: " + "; ".join(
                f"'{c.phrase.text}' {c.outcome}" + (f" (first {c.first.day}" if c.first else "")
                + (f", {c.holders} holder{'s' if c.holders != 1 else ''} in its first week)" if c.after else
                   ")" if c.first else "")
                for c in checks))
        reading = read_firings({f"{h}:{s}": report[h][s] for h in HALVES for s in sets}, args.read)
        print("\nfirings to read (the chosen rule's, then naive ones):")
        urls = dict(zip(corpus["article_id"].to_list(), corpus["url"].to_list()))
        for f in reading:
            q = questions.filter(pl.col("question_id") == f["question_id"]).row(0, named=True)
            print(f"- [{f['rule']} {f['set']}] {f['question_id']} opens {q['open_date']} ({f['action']}): {q['title']}\n"
                  f"    '{f['phrase']}' first in {f['article']} on {f['day']} ({urls.get(f['article'])})\n"
                  f"    {f['detail'][:400]}")
    out = {"environment": environment(), "seconds": round(time.perf_counter() - started, 1),
           "corpus": corpus.height, "config": dataclasses.asdict(config), "grid": rows,
           "report": {h: {s: {k: v for k, v in c.items() if k not in ("result", "naive")} for s, c in r.items()}
                      for h, r in report.items()},
           "read": reading}
    write_json(RESULTS, out)
    return out


if __name__ == "__main__":
    main()
