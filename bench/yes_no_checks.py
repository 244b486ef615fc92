"""Yes/no questions through every check (issue 35): how well the rule that reads a sentence as a
report of a yes/no question's outcome does, and what the new checks change on real question sets.

1. The rule (``pastcast.questions.revision.events.report``) on two labelled sets, each split in a
   tuning half and a held-out half, beside the rule it replaces (yes/no questions were skipped:
   nothing found, recall 0):
   - written: ``tests/data/yes_no_reports.jsonl`` (248 sentences in 6 languages, written and
     labelled by someone who had not seen the rule), split by a hash of the sentence;
   - real: the peer's 117 yes/no questions written from July 2024 news (``peer_yes_no``), each
     against the sentences of its own source article (571 pairs), hand-labelled blind to the
     rule (``bench/labels/yes_no_reports_cf_july.jsonl``), split by source article.
2. What the checks do on real question sets, each run with the whole filter: the peer's
   questions imported with their source articles as the corpus, and the ForecastBench build
   (``pastcast build`` of the real news WARC under a name without a CC-NEWS time stamp and the
   real ForecastBench dumps): revised dates and drops by step for yes/no questions, and ten
   of them printed for reading by hand.

    .venv/bin/python bench/yes_no_checks.py [--peer-file PATH] [--skip-build]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from collections import Counter
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import CACHE, DATA, FUNDUS_WARC, ROOT  # noqa: E402
import peer_yes_no  # noqa: E402

from pastcast.questions.revision.event_reports import report  # noqa: E402
from pastcast.questions.revision.events import YesNoEvent  # noqa: E402

WRITTEN = ROOT / "tests" / "data" / "yes_no_reports.jsonl"
LABELS = ROOT / "bench" / "labels" / "yes_no_reports_cf_july.jsonl"
CLASSES = (("reports_event", ("event", "crossing")), ("reports_impossible", ("impossible",)))


def half(key: str) -> str:
    return "tune" if int(hashlib.sha256(key.encode("utf-8")).hexdigest(), 16) % 2 == 0 else "held-out"


def _score(items: list[tuple[dict, str, bool, str]]) -> dict:
    """items: (question row, sentence, headline, label) -> per class {called, correct, labelled}."""
    out = {c: Counter() for c, _ in CLASSES}
    for q, sentence, headline, label in items:
        ev = YesNoEvent.of(q)
        got = report(sentence, ev, ev.outcomes, headline=headline) if ev else None
        for cls, outcomes in CLASSES:
            hit = got is not None and got.outcome in outcomes
            out[cls]["called"] += hit
            out[cls]["correct"] += hit and label == cls
            out[cls]["labelled"] += label == cls
    return out


def _cell(c: Counter) -> str:
    p = f"{c['correct'] / c['called']:.2f} ({c['correct']}/{c['called']})" if c["called"] else "- (0 called)"
    r = f"{c['correct'] / c['labelled']:.2f} ({c['correct']}/{c['labelled']})" if c["labelled"] else "-"
    return f"{p} | {r}"


def written_items() -> list[tuple[str, str, tuple]]:
    rows = [json.loads(line) for line in WRITTEN.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = []
    for r in rows:
        q = {"title": r["title"], "answer": r["answer"], "answer_type": "binary", "open_date": date(2025, 1, 1),
             "resolution_date": date(2026, 1, 1)}
        headline = not r["sentence"].rstrip().endswith((".", "。", "!", "»", '"', "”"))
        out.append((half(r["sentence"]), r["language"], (q, r["sentence"], headline, r["label"])))
    return out


def peer_question(row: dict) -> dict:
    """A peer row as a question: its body is its resolution criteria; it resolves at the end of
    its resolution day, so its answer is revealed the day after."""
    resolves = datetime.fromisoformat(row["resolution_date"])
    reveal = resolves.date() + timedelta(days=1) if resolves.time().hour == 23 else resolves.date()
    return {"question_id": row["id"], "title": row["title"], "background": "", "resolution_criteria": row["body"],
            "answer": "Yes" if row["resolution"] else "No", "answer_aliases": [], "answer_type": "binary",
            "candidate_outcomes": [], "open_date": datetime.fromisoformat(row["created_date"]).date(),
            "resolution_date": reveal, "original_resolution_date": None, "revision_evidence": [],
            "source_kind": "news", "source_ids": [f"peer:{row['id']}", _article_id(row)],
            "generator": "import:consistency-forecasting", "category": None}


def _article_id(row: dict) -> str:
    return hashlib.sha1((peer_yes_no.article_of(row).get("article_url") or row["id"]).encode()).hexdigest()[:16]


def peer_articles(rows: list[dict]) -> list[dict]:
    """The peer's source articles (title, description and truncated content) as a corpus."""
    seen, out = set(), []
    for row in rows:
        a = peer_yes_no.article_of(row)
        aid = _article_id(row)
        if aid in seen:
            continue
        seen.add(aid)
        published = datetime.fromisoformat(a["article_date"]).replace(tzinfo=timezone.utc)
        text = "\n".join(peer_yes_no.field_text(a, f) for f in ("article_description", "article_content"))
        out.append({"article_id": aid, "url": a.get("article_url"), "domain": "apnews.com", "title": a["article_title"],
                    "text": text, "language": "en", "published_at": published, "date_source": "peer",
                    "date_confidence": 1.0, "crawled_at": published, "warc_file": "peer", "warc_record_id": aid,
                    "content_hash": aid, "dup_cluster": aid, "word_count": len(text.split())})
    return out


def real_items(rows: list[dict]) -> list[tuple[str, str, tuple]]:
    labels = {json.loads(line)["key"]: json.loads(line)["label"]
              for line in LABELS.read_text(encoding="utf-8").splitlines() if line.strip()}
    by_id = {r["id"]: r for r in rows}
    out = []
    for p in peer_yes_no.pairs(rows):
        out.append((half(p.article_url), "en", (peer_question(by_id[p.question_id]), p.sentence,
                                                p.field == "article_title", labels[p.key])))
    return out


def rule_tables(peer_rows: list[dict] | None) -> None:
    print("## The rule on labelled sentences (precision | recall; the rule it replaces found nothing)\n")
    sets = [("written", written_items())]
    if peer_rows is not None:
        sets.append(("real (peer, July 2024)", real_items(peer_rows)))
    print("| set | half | reports of the event: P | R | that it can no longer happen: P | R |")
    print("|---|---|---|---|---|---|")
    for name, items in sets:
        for h in ("tune", "held-out"):
            s = _score([i for hh, _, i in items if hh == h])
            print(f"| {name} | {h} | {_cell(s['reports_event'])} | {_cell(s['reports_impossible'])} |")
    print("\nwritten set, held-out half, by language:\n")
    print("| language | event: P | R | impossible: P | R |\n|---|---|---|---|---|")
    items = sets[0][1]
    for lang in sorted({lang for _, lang, _ in items}):
        s = _score([i for h, la, i in items if h == "held-out" and la == lang])
        print(f"| {lang} | {_cell(s['reports_event'])} | {_cell(s['reports_impossible'])} |")


def _summary(run, title: str) -> None:
    """Revised dates and drops by step, yes/no questions apart, and ten to read."""
    from pastcast.questions.revision.events import is_yes_no

    yes_no = {q["question_id"] for q in run.candidates.iter_rows(named=True) if is_yes_no(q)}
    print(f"\n### {title}\n")
    print(f"{run.candidates.height:,} candidates ({len(yes_no):,} yes/no), {run.questions.height:,} kept.\n")
    print("| step | yes/no examined | skipped | dropped | dates revised |\n|---|---:|---:|---:|---:|")
    drops = Counter((d.stage, d.reason) for d in run.drops if d.item_id in yes_no)
    revised = Counter(e.stage for e in run.evidence if e.action == "revise" and e.question_id in yes_no)
    for step, cov in run.coverage.items():
        b = cov["by_kind"]["binary"]
        dropped = sum(n for (stage, _), n in drops.items() if stage == step)
        print(f"| {step} | {b['examined']:,} | {b['skipped']:,} | {dropped:,} | {revised.get(step, 0):,} |")
    print(f"\nDrop reasons (yes/no): {dict(drops)}\n")
    shown = [e for e in run.evidence if e.question_id in yes_no and e.action in ("revise", "drop", "pair")][:10]
    titles = dict(zip(run.candidates["question_id"], run.candidates["title"]))
    for e in shown:
        print(f"- {e.stage}/{e.action} **{titles.get(e.question_id)}** ({e.question_id}): {' '.join(e.detail.split())[:400]}")


def peer_filter(rows: list[dict]) -> None:
    from pastcast.questions.filter import FilterConfig, filter_questions
    from pastcast.questions.validate import ValidateConfig
    from pastcast.schemas import ARTICLES, QUESTIONS, frame

    questions = frame([peer_question(r) for r in rows], QUESTIONS)
    articles = frame(peer_articles(rows), ARTICLES)
    config = FilterConfig(validate=ValidateConfig(window_start=date(2024, 6, 1), window_end=date(2024, 9, 30)))
    _summary(filter_questions(questions, articles, config), "The peer's yes/no questions, imported with their articles")


def forecastbench_build() -> None:
    """``pastcast build`` of the real news WARC (under a name without a time stamp) and the real
    ForecastBench dumps, then the filter's counts from its work folder."""
    from pastcast.pipeline import run_all
    from pastcast.questions.filter import FilterConfig, filter_questions
    from pastcast.daily import scan_gathered

    if not FUNDUS_WARC.is_file() or not (DATA / "markets" / "forecastbench").is_dir():
        print(f"\n(skipped the ForecastBench build: {FUNDUS_WARC} or the ForecastBench dumps are absent)")
        return
    root = Path(tempfile.mkdtemp(prefix="pastcast-yes-no-", dir=CACHE if CACHE.is_dir() else None))
    try:
        corpus = root / "corpus"
        (corpus / "warc").mkdir(parents=True)
        (corpus / "markets" / "forecastbench").mkdir(parents=True)
        (corpus / "warc" / "fundus-256.warc.gz").symlink_to(FUNDUS_WARC)
        for f in sorted((DATA / "markets" / "forecastbench").glob("*.json")):
            (corpus / "markets" / "forecastbench" / f.name).symlink_to(f)
        run_all(corpus, root / "work", root / "snapshots", "fb")
        work = root / "work"
        candidates = pl.read_parquet(work / "question_candidates.parquet")
        run = filter_questions(candidates, scan_gathered(work).collect(), FilterConfig())
        _summary(run, "The ForecastBench build (real news WARC without a time stamp, real dumps)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peer-file", default=None, help=f"the peer's file ({peer_yes_no.SOURCE})")
    parser.add_argument("--skip-build", action="store_true", help="leave out the ForecastBench build")
    args = parser.parse_args()
    peer = peer_yes_no.find_file(args.peer_file)
    if peer is None:
        print(f"(the peer's file is absent: pass --peer-file or set ${peer_yes_no.ENV}; it is {peer_yes_no.SOURCE})")
    rows = peer_yes_no.load(peer) if peer else None
    rule_tables(rows)
    print("\n## What the checks do on real question sets")
    if rows is not None:
        peer_filter(rows)
    if not args.skip_build:
        forecastbench_build()


if __name__ == "__main__":
    main()
