"""The retrieval baseline on a real snapshot: replay speed today versus before, side by side.

Builds (once, cached in ``.bench-cache/real-replay``) a snapshot from the real files under
``../shared/data``, linked into a corpus folder, never copied: the 256 real news pages of the
CC-NEWS-like fundus WARC, the ForecastBench question and resolution sets, and the Reddit, Hacker
News and Bluesky posts. Most of its questions come from markets and data series, most of them
yes/no: the case where the baseline used to search for every question before skipping the
binary ones.

Then replays the same days to two agents in one run:

- ``retrieval``: the bundled baseline (binary questions skipped before searching, a query
  searched once a day);
- ``retrieval-before``: the same forecasts with the replay loop the baseline had before
  (``LegacyRetrieval`` below: every open question searched every day, then binary ones
  skipped).

The naive baselines (``uniform``, ``base-rate``) and the market's own prices replay the whole
window beside them: what a user has to beat on a snapshot of yes/no questions.

Measured: wall time, searches, forecasts, BSS on the free-form questions; and, for the issue's
goal, the speed ratio (>= 10x) and the candidates the baseline submits (whole names and
numbers with units). ``--days N`` replays the N days of the window with the most open questions
(the legacy loop takes about 36 minutes over all of it); the bundled agent also runs over the whole window.
Both also replay the bundled sample snapshot, whose free-form questions the new extractor
must score at least as well on as the one before.

    .venv/bin/python bench/real_replay.py [--days 30] [--rebuild]
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import CACHE, environment, table, write_json  # noqa: E402

import polars as pl  # noqa: E402

from pastcast.evaluate.agents import RetrievalAgent  # noqa: E402
from pastcast.evaluate.candidates import NameRules, name_candidates  # noqa: E402
from pastcast.matching import normalise  # noqa: E402
from pastcast.evaluate.environment import ReplayEnvironment  # noqa: E402
from pastcast.evaluate.runner import run_eval  # noqa: E402
from pastcast.search.keywords import keywords  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
HERE = CACHE / "real-replay"
RESULTS = CACHE / "real_replay.json"
LINKS = {  # corpus path -> shared data path (linked, not copied)
    "warc/CC-NEWS-like-fundus-256.warc.gz": "warc/derived/CC-NEWS-like-fundus-256.warc.gz",
    "markets/forecastbench/2024-07-21-human.json": "markets/forecastbench/2024-07-21-human.json",
    "markets/forecastbench/2024-07-21_resolution_set.json": "markets/forecastbench/2024-07-21_resolution_set.json",
    "markets/forecastbench/2025-12-07-llm.json": "markets/forecastbench/2025-12-07-llm.json",
    "markets/forecastbench/2025-12-07_resolution_set.json": "markets/forecastbench/2025-12-07_resolution_set.json",
    "social/reddit/reddit_data.zst": "social/reddit_pushshift/reddit_data.zst",
    "social/hn/hn_api_readme_items.jsonl": "social/hn/hn_api_readme_items.jsonl",
}


# The candidate extractor the baseline had before (for the side-by-side): every capitalised run
# of a hit's title and body, possessives kept, and every number as its old pattern matched.
_OLD_NUMBER = re.compile(
    r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?\s?(?:%|percent\b|per cent\b|million\b|billion\b|trillion\b"
    r"|thousand\b|bn\b|points?\b|seats?\b|votes?\b|degrees?\b|dollars?\b|euros?\b)?")


def old_candidates(text: str, answer_type: str, exclude: set[str]) -> set[str]:
    if answer_type in {"number", "numeric", "quantity", "percentage", "count"}:
        found = {m.group(0).strip() for m in _OLD_NUMBER.finditer(text)}
        return {c for c in found if normalise(c) and normalise(c) not in exclude}
    # names: the same runs, possessives kept whole and Title Case headlines read too
    return name_candidates(text, exclude, 2 if answer_type == "person" else 1, cut_possessives=False, rules=NO_RULES)


# none of the name rules chosen on the labelled excerpts (bench/candidates.py): as before
NO_RULES = NameRules(sentence_articles=False, sentence_words=False, nouns_after_articles=False, apostrophes=False)


class LegacyRetrieval(RetrievalAgent):
    """The retrieval baseline as it was before: every open question searched every day, binary
    ones skipped only afterwards (in ``forecast``), no query searched once, and the candidate
    extractor above."""

    name = "retrieval-before"

    def spans(self, q, title: str, body: str, exclude: set[str]) -> set[str]:
        return old_candidates(f"{title}. {body}", (q.answer_type or "").lower(), exclude)

    def act(self, env: ReplayEnvironment) -> None:
        if env is not self._env:
            self._env, self._last = env, {}
        for q in env.open_questions():
            forecast = self.forecast(q, env.search(" ".join(keywords(q.title)), k=self.k), env.today)
            if forecast and forecast != self._last.get(q.question_id):
                env.submit(q.question_id, forecast)
                self._last[q.question_id] = forecast


def build_snapshot(rebuild: bool) -> Path:
    from pastcast import pipeline
    from pastcast.snapshot import latest_version

    snaps = HERE / "snapshots"
    if not rebuild and (version := latest_version(snaps, "real")):
        return snaps / "real" / version
    shutil.rmtree(HERE, ignore_errors=True)
    corpus = HERE / "corpus"
    for target, source in LINKS.items():
        path = corpus / target
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(SHARED / source)
    t = time.perf_counter()
    folder = pipeline.run_all(corpus, HERE / "work", snaps, "real", allow_input_loss=True)
    print(f"snapshot built in {time.perf_counter() - t:.0f} s: {folder}", flush=True)
    return folder


def sample_snapshot() -> Path:
    """The bundled sample corpus built once (what ``make demo`` replays)."""
    from pastcast import pipeline
    from pastcast.snapshot import latest_version

    snaps = HERE / "sample" / "snapshots"
    if version := latest_version(snaps, "sample"):
        return snaps / "sample" / version
    root = Path(__file__).resolve().parent.parent
    return pipeline.run_all(root / "corpora" / "sample", HERE / "sample" / "work", snaps, "sample")


def busiest_span(snapshot: Path, first, last, days: int):
    """The ``days`` days of the window with the most open questions (summed over the days)."""
    from pastcast.store import read_table

    q = read_table(snapshot, "questions", ["open_date", "resolution_date"])
    span = (last - first).days + 1
    open_on = [0] * (span + 1)
    for opens, resolves in q.iter_rows():
        lo, hi = max((opens - first).days, 0), min((resolves - first).days, span)
        if lo < hi:
            open_on[lo] += 1
            open_on[hi] -= 1
    running, per_day = 0, []
    for i in range(span):
        running += open_on[i]
        per_day.append(running)
    days = min(days, span)
    best = max(range(span - days + 1), key=lambda i: sum(per_day[i:i + days]))
    return first + timedelta(days=best), first + timedelta(days=best + days - 1)


def candidates_on_real_text(snapshot: Path) -> dict:
    """Spans the extractor (now and before) reads from the snapshot's real news pages, for a
    name question and a number question: how many, and how many look like fragments (a
    possessive end, a headline run of 4+ capitalised words, a number cut at its comma, a
    bare number or year for a rate question)."""
    from pastcast.evaluate.candidates import extract_candidates, hit_text
    from pastcast.store import read_table

    articles = read_table(snapshot, "articles", ["title", "text"])
    rate = "What will the unemployment rate be?"
    out = {}
    for label, spans in (
            ("before", lambda t, b, kind, q: old_candidates(f"{t}. {b[:4000]}", kind, set())),
            ("now", lambda t, b, kind, q: extract_candidates(hit_text(t, b[:4000]), kind, set(), q))):
        names, numbers = set(), set()
        for title, text in articles.iter_rows():
            names |= spans(title or "", text or "", "person", "Who will win?")
            numbers |= spans(title or "", text or "", "number", rate)
        out[label] = {
            "names": len(names), "numbers": len(numbers),
            "possessive_names": sum(1 for n in names if re.search(r"['’]s$", n)),
            "long_name_runs": sum(1 for n in names if len(n.split()) >= 4),
            "numbers_cut_at_a_comma": sum(1 for n in numbers if n.endswith(",")),
            "bare_numbers_for_a_rate": sum(1 for n in numbers if re.fullmatch(r"[-+]?[\d,.]+", n)),
            "examples": {"names": sorted(names, key=lambda n: (-len(n.split()), n))[:6],
                         "numbers": sorted(numbers)[:8]}}
    return out


def replay(snapshot: Path, agent, out: Path, start=None, end=None) -> dict:
    from pastcast.evaluate.agents import get_agent

    agent = get_agent(agent) if isinstance(agent, str) else agent
    t = time.perf_counter()
    run = run_eval(snapshot, agent, out, start=start, end=end, force=True)
    seconds = time.perf_counter() - t
    scores = run.scores
    from pastcast.store import read_table

    kinds = read_table(snapshot, "questions", ["question_id", "answer_type", "candidate_outcomes"])
    free_ids = kinds.filter((pl.col("answer_type") != "binary") & (pl.col("candidate_outcomes").list.len() == 0))
    free = scores.join(free_ids.select("question_id"), on="question_id", how="semi")
    import json

    info = json.loads((out / "run.json").read_text())
    return {"agent": agent.name, "seconds": seconds, "searches": info["search"].get("searches", 0),
            "p50_ms": info["search"].get("p50_ms"), "forecast": int(scores["forecast_made"].sum()),
            "questions": scores.height, "mean_bss": run.summary["mean_bss"],
            "free_form_bss": float(free["bss"].mean()) if free.height else None,
            "free_form_questions": free.height}


def candidates_of(out: Path, limit: int = 12) -> list[dict]:
    import json

    seen, out_rows = set(), []
    for line in (out / "ledger.jsonl").read_text().splitlines():
        entry = json.loads(line)
        if entry["question_id"] not in seen:
            seen.add(entry["question_id"])
            out_rows.append({"question_id": entry["question_id"], "forecast": entry["forecast"]})
    return out_rows[:limit]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=30, help="days of the window replayed side by side")
    parser.add_argument("--rebuild", action="store_true", help="build the snapshot again")
    args = parser.parse_args()
    if not SHARED.is_dir():
        raise SystemExit(f"{SHARED} is absent: this benchmark needs the shared real data")
    snapshot = build_snapshot(args.rebuild)
    window = ReplayEnvironment(snapshot)
    start, end = busiest_span(snapshot, window.start, window.end, args.days)
    print(f"window {window.start}..{window.end}; side by side over {start}..{end}, the {args.days} days "
          "with the most open questions", flush=True)
    sample = sample_snapshot()
    on_sample = [replay(sample, LegacyRetrieval(), HERE / "runs" / "sample-before"),
                 replay(sample, RetrievalAgent(), HERE / "runs" / "sample-now")]
    print(table(["agent", "replay s", "searches", "forecast", "questions", "mean BSS", "free-form BSS",
                 "free-form questions"],
                [[r["agent"], f"{r['seconds']:.1f}", f"{r['searches']:,}", f"{r['forecast']:,}", f"{r['questions']:,}",
                  f"{r['mean_bss']:.4f}", "-" if r["free_form_bss"] is None else f"{r['free_form_bss']:.4f}",
                  f"{r['free_form_questions']:,}"] for r in on_sample],
                title="On the bundled sample snapshot (free-form BSS: goal, at least the one before)"), flush=True)
    before = replay(snapshot, LegacyRetrieval(), HERE / "runs" / "before", start, end)
    now = replay(snapshot, RetrievalAgent(), HERE / "runs" / "now", start, end)
    whole = replay(snapshot, RetrievalAgent(), HERE / "runs" / "whole")
    naive = [replay(snapshot, name, HERE / "runs" / name) for name in ("uniform", "base-rate", "market")]
    rows = [before, now, {**whole, "agent": "retrieval (whole window)"},
            *({**r, "agent": f"{r['agent']} (whole window)"} for r in naive)]
    print(table(["agent", "replay s", "searches", "p50 ms", "forecast", "questions", "mean BSS", "free-form BSS"],
                [[r["agent"], f"{r['seconds']:.1f}", f"{r['searches']:,}", f"{r['p50_ms']}", f"{r['forecast']:,}",
                  f"{r['questions']:,}", f"{r['mean_bss']:.4f}",
                  "-" if r["free_form_bss"] is None else f"{r['free_form_bss']:.4f}"] for r in rows],
                title=f"Retrieval baseline on the real snapshot ({snapshot.parent.name}/{snapshot.name})"))
    speedup = before["seconds"] / now["seconds"] if now["seconds"] else float("inf")
    print(f"speed-up over the same {args.days} days: {speedup:.1f}x (goal: >= 10x)")
    examples = candidates_of(HERE / "runs" / "whole")
    for e in examples:
        print(f"  {e['question_id']}: {e['forecast']}")
    spans = candidates_on_real_text(snapshot)
    print(table(["extractor", "names", "possessive", "4+ word runs", "numbers", "cut at a comma", "bare for a rate"],
                [[k, v["names"], v["possessive_names"], v["long_name_runs"], v["numbers"],
                  v["numbers_cut_at_a_comma"], v["bare_numbers_for_a_rate"]] for k, v in spans.items()],
                title="Candidate spans read from the snapshot's real news pages"))
    for k, v in spans.items():
        print(f"  {k}: {v['examples']}")
    write_json(RESULTS, {"environment": environment(), "days": args.days, "rows": rows, "speedup": speedup,
                         "sample": on_sample, "examples": examples,
                         "spans_on_real_text": spans, "span": [str(start), str(end)]})
    print(f"results: {RESULTS}")


if __name__ == "__main__":
    main()
