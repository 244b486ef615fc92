"""Adding one crawl day: what it costs next to building every day again.

Writes a synthetic CC-NEWS-like corpus of ``--days + 1`` crawl days (``--files-per-day`` WARC
files a day named ``CC-NEWS-YYYYMMDDhhmmss-NNNNN.warc.gz``, ``--articles-per-day`` dated news
pages a day, some of them syndicated or re-crawled copies of earlier days' stories, a few
leading with an outcome report the extractive generator turns into a question), then, in one
run, with the library functions the Dagster assets call:

1. **full N**: days 1..N from scratch, the per-day stages as one range (``ingest_news_days``
   with 2 workers, ``dedup_news_days``, ``generate_news``), then the unpartitioned tail
   (``gather_news``, ``generate_markets``, ``gather_candidates``, ``filter_questions_stage``,
   ``snapshot(..., publish=True)``);
2. **+1 day**: a copy of that working folder (and of its snapshots folder, so the new version
   has a parent, as in production), then day N+1 alone: its per-day stages, then the same tail.
   The copy is not timed (a deployment keeps its folder; the copy only keeps run 1 intact);
3. **full N+1**: days 1..N+1 from scratch, the result run 2 must equal (same article ids, same
   candidate and question ids: printed OK or MISMATCH) and the fairest baseline for run 2.

A warm-up (day 1 alone, in a throwaway folder) runs first so that no measured build pays for
first imports and a cold page cache. Prints seconds per stage, the ratios full/incremental (per-day part and overall) and the
incremental run's share spent in the tail. Results in ``.bench-cache/incremental_days.json``.

    .venv/bin/python bench/incremental_days.py [--days 30] [--articles-per-day 300]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import random
import shutil
import sys
import time
import uuid
import zlib
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import CACHE, environment, table, write_json  # noqa: E402

import polars as pl  # noqa: E402
from warcio.statusandheaders import StatusAndHeaders  # noqa: E402
from warcio.warcwriter import WARCWriter  # noqa: E402

from pastcast.sources import crawl_days

from pastcast import pipeline  # noqa: E402
from pastcast.snapshot import sha256_file  # noqa: E402

HERE = CACHE / "incremental-days"
RESULTS = CACHE / "incremental_days.json"
FIRST_DAY = date(2026, 1, 5)
PER_DAY = ("ingest", "dedup", "generate_news")
TAIL = ("gather_news", "generate_markets", "gather_candidates", "filter", "snapshot")

# -- a synthetic news corpus ---------------------------------------------------------------------

FUNCTION = ("the", "a", "of", "to", "in", "and", "for", "on", "with", "at", "by", "from", "as",
            "that", "it", "was", "is", "has", "had", "after", "before", "over", "about", "this")
CONTENT = """
council budget harbour bridge school hospital railway station tariff rate inflation market
shares investors factory workers union strike contract minister mayor election campaign voters
ballot poll district province region village city coast river storm flood drought harvest farmers
prices fuel energy grid solar wind turbine pipeline port shipping cargo airline airport runway
tourism hotel museum festival concert theatre film novel author prize award club coach player
season league match goal stadium fans police court judge ruling appeal law bill parliament senate
committee report survey study scientists researchers university students teachers exam library
housing rent mortgage bank lender loan credit deficit surplus export import trade agreement talks
summit delegation embassy border customs ferry road repairs traffic cyclists pedestrians park
forest wildlife fishing quota boats fleet weather forecast temperatures snow heatwave water supply
reservoir pipes leak inspection safety regulator license company chief executive board profits
losses quarter revenue sales retailers shoppers consumers software startup funding platform users
data privacy hospital nurses doctors patients clinic vaccine outbreak testing programme charity
volunteers residents neighbours protest petition hearing inquiry review plan proposal vote delay
cost estimate official spokesperson statement interview morning evening weekend week month year
""".split()
ADJ = ("new", "local", "national", "regional", "public", "private", "annual", "early", "late",
       "major", "small", "long", "short", "rising", "falling", "strong", "weak", "final", "key")
VERBS = ("said", "announced", "approved", "rejected", "delayed", "opened", "closed", "raised",
         "cut", "reported", "warned", "promised", "reviewed", "planned", "discussed", "confirmed")
TOWNS = ("Kestrel Bay", "Port Alder", "Veloria", "Hollin Ford", "Marrow Vale", "Eastmere", "Tarnwick",
         "Saltbridge", "Ormsby", "Quillon", "Redcastle", "Fenwater", "Larkspur", "Dunmore Heights")
FIRST = ("Ana", "Mara", "Tomas", "Lena", "Jonas", "Ines", "Oskar", "Priya", "Samuel", "Yara",
         "Felix", "Noor", "Elias", "Rosa", "Kofi", "Hana", "Dario", "Ilse")
LAST = ("Ruiz", "Lind", "Okafor", "Brandt", "Moreau", "Castel", "Varga", "Holm", "Adeyemi",
        "Sato", "Novak", "Fischer", "Quint", "Delacroix", "Amari", "Berg")
EVENTS = ("mayoral election", "regional council election", "Harbour Cup", "Coastal Marathon",
          "Book Prize", "Film Festival award", "Chess Open", "Rowing Championship")
PUBLISHERS = tuple(f"{w}-{k}.example" for w in ("daily", "herald", "courier", "gazette", "post",
                                                 "tribune", "observer", "chronicle", "record", "star")
                   for k in ("news", "times", "online"))


def _sentence(rng: random.Random) -> str:
    words = []
    for _ in range(rng.randint(9, 24)):
        r = rng.random()
        words.append(rng.choice(FUNCTION) if r < 0.38 else rng.choice(ADJ) if r < 0.48
                     else rng.choice(VERBS) if r < 0.56 else rng.choice(CONTENT))
    if rng.random() < 0.35:
        words.insert(rng.randrange(len(words)), rng.choice(TOWNS))
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words)), f"{rng.choice(FIRST)} {rng.choice(LAST)}")
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


def _story(rng: random.Random, day: date, serial: int) -> dict:
    """A fresh story: title, paragraphs, and sometimes an outcome report as its lead."""
    sentences = [_sentence(rng) for _ in range(rng.randint(8, 22))]
    title = " ".join(rng.choice(CONTENT) for _ in range(rng.randint(4, 8))).capitalize()
    title = f"{rng.choice(TOWNS)} {title.lower()}" if rng.random() < 0.5 else title
    if rng.random() < 0.04:  # an outcome report the extractive generator turns into a question
        who, town = f"{rng.choice(FIRST)} {rng.choice(LAST)}", rng.choice(TOWNS)
        event = f"{day.year} {town} {rng.choice(EVENTS)}"
        sentences.insert(0, f"{who} won the {event}, officials said on {day:%A}.")
        title = f"{who} wins the {event}"
    paragraphs = [" ".join(sentences[i:i + 3]) for i in range(0, len(sentences), 3)]
    return {"title": title, "paragraphs": paragraphs, "slug": f"{day:%Y/%m/%d}/story-{serial}"}


def _html(story: dict, published: datetime, publisher: str, byline: str) -> str:
    body = "".join(f"<p>{p}</p>" for p in story["paragraphs"])
    stamp = published.strftime("%Y-%m-%dT%H:%M:%S+00:00")
    return (f"<html><head><meta charset='utf-8'><title>{story['title']} | {publisher}</title>"
            f"<meta property='article:published_time' content='{stamp}'></head><body>"
            f"<nav><a href='/'>Home</a> <a href='/news'>News</a> <a href='/sport'>Sport</a></nav>"
            f"<article><h1>{story['title']}</h1><div class='byline'>By {byline}</div>{body}</article>"
            f"<footer>Copyright {publisher}. <a href='/about'>About</a></footer></body></html>")


def _gzip(data: bytes) -> bytes:
    compressor = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)  # gzip, mtime 0
    return compressor.compress(data) + compressor.flush()


def _record(url: str, when: datetime, html: str) -> bytes:
    body = html.encode("utf-8")
    http = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8"),
                                       ("Content-Length", str(len(body)))], protocol="HTTP/1.1")
    plain = io.BytesIO()
    writer = WARCWriter(plain, gzip=False, warc_version="1.0")
    record = writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http,
                                       warc_headers_dict={
                                           "WARC-Record-ID": f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, url + when.isoformat())}>",
                                           "WARC-Date": when.strftime("%Y-%m-%dT%H:%M:%SZ")})
    writer.write_record(record)
    return _gzip(plain.getvalue())


def write_corpus(folder: Path, days: int, per_day: int, files_per_day: int, seed: int) -> list[Path]:
    """``days`` crawl days of WARC files, byte-for-byte the same for the same arguments. Of a
    day's pages ~8% are syndicated copies of a story of the last 1-5 days (another publisher,
    another byline, one sentence changed: near duplicates), ~3% re-crawls of an earlier day's
    URL (exact duplicates), the rest new stories."""
    key = hashlib.sha256(Path(__file__).read_bytes() + f"{days}|{per_day}|{files_per_day}|{seed}".encode()).hexdigest()
    stamp = folder / "corpus.key"
    files = sorted(folder.glob("CC-NEWS-*.warc.gz"))
    if stamp.is_file() and stamp.read_text() == key and len(files) == days * files_per_day:
        return files
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    rng = random.Random(seed)
    history: list[tuple[date, dict, str, datetime]] = []  # (day, story, url, published)
    serial = 0
    for i in range(days):
        day = FIRST_DAY + timedelta(days=i)
        pages = []
        for _ in range(per_day):
            crawled = datetime(day.year, day.month, day.day, tzinfo=timezone.utc) + timedelta(
                seconds=rng.randrange(86_400))
            roll = rng.random()
            recent = [h for h in history if (day - h[0]).days <= 5]
            if roll < 0.08 and recent:
                _, story, _, published = rng.choice(recent)
                story = dict(story, paragraphs=list(story["paragraphs"]))
                j = rng.randrange(len(story["paragraphs"]))
                story["paragraphs"][j] = story["paragraphs"][j] + " " + _sentence(rng)
                publisher = rng.choice(PUBLISHERS)
                url = f"https://www.{publisher}/wire/{story['slug']}-{serial}"
            elif roll < 0.11 and history:
                _, story, url, published = rng.choice(history[-per_day * 3:])
                publisher = url.split("/")[2].removeprefix("www.")
            else:
                serial += 1
                story = _story(rng, day, serial)
                publisher = rng.choice(PUBLISHERS)
                url = f"https://www.{publisher}/news/{story['slug']}"
                published = crawled - timedelta(minutes=rng.randrange(10, 36 * 60))
                history.append((day, story, url, published))
            byline = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
            pages.append((crawled, _record(url, crawled, _html(story, published, publisher, byline))))
        pages.sort(key=lambda p: p[0])
        for n in range(files_per_day):
            chunk = pages[n::files_per_day]
            name = f"CC-NEWS-{chunk[0][0]:%Y%m%d%H%M%S}-{i * files_per_day + n:05d}.warc.gz"
            (folder / name).write_bytes(b"".join(data for _, data in chunk))
    stamp.write_text(key)
    return sorted(folder.glob("CC-NEWS-*.warc.gz"))


# -- the builds ----------------------------------------------------------------------------------

def _timed(times: dict, stage: str, fn):
    start = time.perf_counter()
    result = fn()
    times[stage] = time.perf_counter() - start
    return result


def build(label: str, files: list[Path], work: Path, snapshots: Path, days: list[date], workers: int) -> dict:
    """The per-day stages for ``days`` (one range run), then the unpartitioned tail; seconds per stage."""
    inputs = [f for f in files if crawl_days.warc_day(f) <= days[-1]]  # the corpus as it stood
    times: dict[str, float] = {}
    t0 = time.perf_counter()

    def progress(stage: str, report=None) -> None:
        extra = f" ({report.rows_in} in, {report.rows_out} out)" if report is not None else ""
        print(f"  [{label}] {stage:<17} {times[stage]:7.2f} s{extra}", flush=True)

    for stage, fn in (
            ("ingest", lambda: pipeline.ingest_news_days(files, work, days, workers=workers)),
            ("dedup", lambda: pipeline.dedup_news_days(work, days)),
            ("generate_news", lambda: pipeline.generate_news(work, days)),
            ("gather_news", lambda: pipeline.gather_news(work)),
            ("generate_markets", lambda: pipeline.generate_markets(work)),
            ("gather_candidates", lambda: pipeline.gather_candidates(work)),
            ("filter", lambda: pipeline.filter_questions_stage(work))):
        progress(stage, _timed(times, stage, fn))
    folder = _timed(times, "snapshot", lambda: pipeline.snapshot(
        work, snapshots, "bench", inputs, config={"bench": "incremental_days"}, publish=True))
    progress("snapshot")
    start = time.perf_counter()  # how much of the snapshot is hashing the input WARC files
    for f in inputs:
        sha256_file(f)
    times_inputs = time.perf_counter() - start
    total = time.perf_counter() - t0 - times_inputs
    print(f"  [{label}] total             {total:7.2f} s", flush=True)
    return {"days": len(days), "seconds": {k: round(v, 3) for k, v in times.items()},
            "per_day_seconds": round(sum(times[s] for s in PER_DAY), 3),
            "tail_seconds": round(sum(times[s] for s in TAIL), 3), "total_seconds": round(total, 3),
            "snapshot_hashing_inputs_seconds": round(times_inputs, 3), "input_files": len(inputs),
            "snapshot": str(folder), "result": result_of(work, folder)}


def result_of(work: Path, folder: Path) -> dict:
    def ids(path: Path, column: str) -> list[str]:
        return sorted(pl.read_parquet(path, columns=[column])[column].to_list()) if path.is_file() else []

    return {"article_ids": ids(folder / "articles.parquet", "article_id"),
            "candidate_ids": ids(work / "question_candidates.parquet", "question_id"),
            "question_ids": ids(folder / "questions.parquet", "question_id")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=30, help="N: the days built before the one added")
    parser.add_argument("--articles-per-day", type=int, default=300)
    parser.add_argument("--files-per-day", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    n = args.days
    start = time.perf_counter()
    print(f"corpus: {n + 1} days x {args.articles_per_day} pages in {args.files_per_day} files a day "
          f"-> {HERE / 'warc'}", flush=True)
    files = write_corpus(HERE / "warc", n + 1, args.articles_per_day, args.files_per_day, args.seed)
    print(f"  {len(files)} files, {sum(f.stat().st_size for f in files) / 2**20:.1f} MiB "
          f"({time.perf_counter() - start:.1f} s, cached after the first run)", flush=True)
    all_days = crawl_days.DayFiles.of(files).days()
    assert len(all_days) == n + 1, all_days
    runs_dir = HERE / "runs"
    shutil.rmtree(runs_dir, ignore_errors=True)
    full, inc, scratch = (runs_dir / name for name in ("full", "incremental", "scratch"))

    print("0. warm-up, not counted: day 1 alone in a throwaway folder (imports, worker start, caches)",
          flush=True)
    build("warm-up", files, runs_dir / "warmup" / "work", runs_dir / "warmup" / "snapshots",
          all_days[:1], args.workers)
    shutil.rmtree(runs_dir / "warmup")

    print(f"1. full build of days 1..{n} ({all_days[0]}..{all_days[n - 1]}) from scratch", flush=True)
    r_full = build(f"full {n}", files, full / "work", full / "snapshots", all_days[:n], args.workers)

    print(f"2. copy of that folder (not timed), then day {n + 1} ({all_days[n]}) alone", flush=True)
    t = time.perf_counter()
    shutil.copytree(full, inc)
    copy_seconds = time.perf_counter() - t
    r_inc = build("+1 day", files, inc / "work", inc / "snapshots", all_days[n:], args.workers)
    r_inc["copy_seconds_not_counted"] = round(copy_seconds, 3)

    print(f"3. full build of days 1..{n + 1} from scratch (cross-check and baseline)", flush=True)
    r_scratch = build(f"full {n + 1}", files, scratch / "work", scratch / "snapshots", all_days, args.workers)

    # -- report --------------------------------------------------------------------------------
    rows = []
    for stage in (*PER_DAY, *TAIL):
        a, b, c = (r["seconds"][stage] for r in (r_full, r_inc, r_scratch))
        rows.append([stage + (" *" if stage in TAIL else ""), f"{a:.2f}", f"{b:.2f}", f"{c:.2f}",
                     f"{c / b:.1f}x" if b else "-"])
    for key, name in (("per_day_seconds", "per-day stages"), ("tail_seconds", "tail *"),
                      ("total_seconds", "total")):
        a, b, c = (r[key] for r in (r_full, r_inc, r_scratch))
        rows.append([name, f"{a:.2f}", f"{b:.2f}", f"{c:.2f}", f"{c / b:.1f}x"])
    print()
    print(table(["stage (* = unpartitioned tail)", f"full {n} days", "+1 day", f"full {n + 1} days",
                 f"full {n + 1} / +1"], rows, title="seconds per stage"))

    ratios = {
        "per_day_full_n_over_incremental": r_full["per_day_seconds"] / r_inc["per_day_seconds"],
        "per_day_full_n1_over_incremental": r_scratch["per_day_seconds"] / r_inc["per_day_seconds"],
        "total_full_n_over_incremental": r_full["total_seconds"] / r_inc["total_seconds"],
        "total_full_n1_over_incremental": r_scratch["total_seconds"] / r_inc["total_seconds"],
        "incremental_tail_share": r_inc["tail_seconds"] / r_inc["total_seconds"],
        "incremental_per_day_over_full_n1_per_day_per_day":
            r_inc["per_day_seconds"] / (r_scratch["per_day_seconds"] / (n + 1)),
        "tail_incremental_over_tail_full_n1": r_inc["tail_seconds"] / r_scratch["tail_seconds"],
    }
    tail_stage = max(TAIL, key=lambda s: r_inc["seconds"][s])
    same = {k: r_inc["result"][k] == r_scratch["result"][k] for k in r_inc["result"]}
    print()
    print(f"per-day stages: full {n} / +1 = {ratios['per_day_full_n_over_incremental']:.1f}x, "
          f"full {n + 1} / +1 = {ratios['per_day_full_n1_over_incremental']:.1f}x "
          f"(the added day's per-day work is {ratios['incremental_per_day_over_full_n1_per_day_per_day']:.2f}x "
          f"an average day of the full build)")
    print(f"overall:        full {n} / +1 = {ratios['total_full_n_over_incremental']:.1f}x, "
          f"full {n + 1} / +1 = {ratios['total_full_n1_over_incremental']:.1f}x")
    print(f"tail: {100 * ratios['incremental_tail_share']:.0f}% of the +1 day run "
          f"({r_inc['tail_seconds']:.2f} s, largest: {tail_stage} {r_inc['seconds'][tail_stage]:.2f} s); "
          f"the tail reads every day, so it grows with N "
          f"(+1 day tail = {ratios['tail_incremental_over_tail_full_n1']:.2f}x the full {n + 1}-day tail)")
    print(f"snapshot: {r_inc['snapshot_hashing_inputs_seconds']:.2f} s of hashing {r_inc['input_files']} input "
          f"WARC files ({sum(f.stat().st_size for f in files) / 2**20:.1f} MiB) is part of the "
          f"{r_inc['seconds']['snapshot']:.2f} s snapshot stage (measured again after it, not counted twice)")
    counts = {k: len(v) for k, v in r_inc["result"].items()}
    verdict = "OK" if all(same.values()) else "MISMATCH"
    print(f"cross-check +1 day == full {n + 1} from scratch: {verdict} "
          + ", ".join(f"{k} {'same' if same[k] else 'DIFFERENT'} ({counts[k]} vs {len(r_scratch['result'][k])})"
                      for k in same))
    print(f"bench total {time.perf_counter() - start:.0f} s")

    for r in (r_full, r_inc, r_scratch):
        r["result"] = {k: len(v) for k, v in r["result"].items()}
    write_json(RESULTS, {"environment": environment(),
                         "parameters": {**vars(args), "first_day": FIRST_DAY, "corpus_files": len(files),
                                        "corpus_mib": round(sum(f.stat().st_size for f in files) / 2**20, 2)},
                         "method": "full N from scratch; copy of its folder + day N+1; full N+1 from scratch",
                         "full_n": r_full, "incremental": r_inc, "full_n_plus_1": r_scratch,
                         "ratios": {k: round(v, 3) for k, v in ratios.items()},
                         "largest_tail_stage": tail_stage, "cross_check": verdict, "same": same})
    print(f"results: {RESULTS}")


if __name__ == "__main__":
    main()
