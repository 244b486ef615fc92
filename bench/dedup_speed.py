"""Dedup speed: pastcast's MinHash vs datasketch, LSH candidate recall at equal settings, and
the cost of adding a day to the persistent index.

  speed        the same documents (>= 20,000: the real base texts, then seeded near-copies of
               them), the same parameters (128 permutations, 5-word shingles of lower-cased
               ``\\w+`` words): ``pastcast.curate.minhash.signatures`` vs ``datasketch.MinHash``
               through its batch API (``MinHash.generator``, the lazy form of ``MinHash.bulk``;
               shingles are the same 5-word strings, UTF-8). Both timed from raw text to
               signatures, alternating in 2 rounds (pastcast first, then datasketch first).
  lsh          on the labelled set of dedup_labelled.py: candidate pairs from pastcast's
               ``band_keys`` and from ``datasketch.MinHashLSH(num_perm=128, params=(32, 4))``,
               their recall of the gold duplicate pairs; then the same verification for both
               (DedupConfig's default rule: Jaccard >= 0.8, or containment >= 0.9 at a length
               ratio >= 0.5) with transitive clusters, and pastcast's ``deduplicate`` itself.
  incremental  two ``DedupIndex`` folders under .bench-cache, built with N = 2 and N = 40
               synthetic days of 2,000 articles (real sentences recombined; 10 % near-copies of
               the day before); then the time to add one more day of the same size to each,
               alternating in 2 rounds with two different new days.

Writes the "speed", "lsh" and "incremental" sections of ``.bench-cache/dedup_bench.json``.
Run: ``make bench-dedup`` or ``.venv/bin/python bench/dedup_speed.py [--only speed,lsh,incremental]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing
import os
import random
import shutil
import statistics
import sys
import time
from collections import defaultdict
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import CACHE, environment, table, write_json  # noqa: E402
from dedup_labelled import (KINDS, OUT, SEED, T0, WORD, CopyMaker, _version, library_fingerprint,  # noqa: E402
                            build_pool, evaluate, labelled_dataset, load_texts, pairs_within,
                            sentences)

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from pastcast.curate.dedup import DedupConfig, deduplicate  # noqa: E402
from pastcast.curate.dedup_index import DedupIndex  # noqa: E402
from pastcast.curate.extract import content_hash  # noqa: E402
from pastcast.curate.minhash import MinHashConfig, band_keys, containment, jaccard, signatures  # noqa: E402
from pastcast.schemas import ARTICLES, frame  # noqa: E402

try:
    from datasketch import MinHash, MinHashLSH
except ImportError:  # pragma: no cover - the bench extra is not installed
    sys.exit("dedup_speed.py needs datasketch: `make bench-dedup` installs it "
             "(or: .venv/bin/pip install -e '.[bench]')")

CONFIG = MinHashConfig()  # 128 permutations, 32 bands x 4 rows, 5-word shingles
INDEX_ROOT = CACHE / "dedup-incremental"
SPEED_GOAL = 5.0


def ds_shingles(text: str, k: int = 5) -> list[bytes]:
    """pastcast's shingles as strings: lower-cased \\w+ words (Unicode \\w as polars has it,
    see WORD), k at a time (fewer-word texts: one shingle of all their words), UTF-8."""
    w = WORD.findall(text.lower())
    if len(w) < k:
        return [" ".join(w).encode("utf-8")] if w else []
    return [" ".join(w[i:i + k]).encode("utf-8") for i in range(len(w) - k + 1)]


def datasketch_signatures(texts: list[str]) -> np.ndarray:
    gen = MinHash.generator((ds_shingles(t) for t in texts), num_perm=CONFIG.num_perm)
    return np.stack([m.hashvalues for m in gen])


# ---------------------------------------------------------------------------------- speed


def speed_documents(pool, n: int, seed: int) -> list[str]:
    """The real base texts, then seeded near-copies of them (all copy kinds) up to ``n``."""
    rng = random.Random(seed + 1)
    maker = CopyMaker(pool, rng)
    texts = [b.text for b in pool[:n]]
    while len(texts) < n:
        base = pool[len(texts) % len(pool)]
        texts.append(maker.copy(base, rng.choice(KINDS))[0])
    return texts


def _timed(fn, *args):
    gc.collect()
    started = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - started, out


def _memory_mb(field_name: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _child(name: str, texts: list[str], conn) -> None:
    """One timed run in a fresh process (spawned: no state left by the other system)."""
    fn = (lambda t: signatures(t, CONFIG)[0]) if name == "pastcast" else datasketch_signatures
    fn(texts[:50])  # imports and first-call set-up outside the timing
    gc.collect()
    start = _memory_mb("VmRSS")
    started = time.perf_counter()
    sigs = fn(texts)
    seconds = time.perf_counter() - started
    conn.send({"seconds": seconds, "extra_peak_mb": _memory_mb("VmHWM") - start, "sigs": sigs})
    conn.close()


def _run_in_child(name: str, texts: list[str]) -> dict:
    ctx = multiprocessing.get_context("spawn")
    receive, send = ctx.Pipe(duplex=False)
    process = ctx.Process(target=_child, args=(name, texts, send))
    process.start()
    out = receive.recv()
    process.join()
    return out


def bench_speed(pool, n: int, rounds: int, seed: int) -> dict:
    texts = speed_documents(pool, n, seed)
    n_words = sum(len(WORD.findall(t)) for t in texts[:2000]) / min(2000, len(texts))
    runs = {"pastcast": [], "datasketch": []}
    memory = {"pastcast": [], "datasketch": []}
    agreement = None
    for r in range(rounds):
        order = ("pastcast", "datasketch") if r % 2 == 0 else ("datasketch", "pastcast")
        sigs = {}
        for name in order:
            out = _run_in_child(name, texts)
            seconds, sigs[name] = out["seconds"], out["sigs"]
            runs[name].append(seconds)
            memory[name].append(out["extra_peak_mb"])
            print(f"  round {r + 1}: {name:10s} {seconds:6.1f} s  {n / seconds:8.0f} docs/s  "
                  f"peak +{out['extra_peak_mb']:,.0f} MB", flush=True)
        if agreement is None:
            agreement = _agreement(texts, sigs["pastcast"], sigs["datasketch"], pool, seed)
    shingling = _timed(lambda: [ds_shingles(t) for t in texts[:2000]])[0] * len(texts) / min(2000, len(texts))
    rate = {k: n / statistics.mean(v) for k, v in runs.items()}
    per_round = [runs["datasketch"][i] / runs["pastcast"][i] for i in range(rounds)]
    return {
        "peak_memory_above_start_mb": {k: round(max(v), 0) for k, v in memory.items()},
        "measured_in": "a fresh spawned process per run (first call on 50 docs untimed)",
        "documents": n, "mean_words_per_document": round(n_words, 1),
        "parameters": {"num_perm": CONFIG.num_perm, "shingle_words": CONFIG.shingle_words,
                       "tokens": "lower-cased \\w+ words",
                       "datasketch": "MinHash.generator(shingle lists, num_perm=128): default "
                                     "scheme affine32, sha1_hash32"},
        "seconds": {k: [round(s, 2) for s in v] for k, v in runs.items()},
        "docs_per_s": {k: round(v, 1) for k, v in rate.items()},
        "ratio": round(rate["pastcast"] / rate["datasketch"], 2),
        "ratio_per_round": [round(x, 2) for x in per_round],
        "goal_ratio": SPEED_GOAL,
        "datasketch_python_shingling_seconds_estimate": round(shingling, 2),
        "estimate_agreement": agreement,
    }


def _agreement(texts, ours, theirs, pool, seed) -> dict:
    """Both estimate the same Jaccard: mean |difference| on (copy, base) pairs of the set."""
    n_pool = min(len(pool), len(texts))
    copies = np.arange(n_pool, len(texts))
    bases = copies % len(pool)
    if not len(copies):
        return {}
    a = jaccard(ours[copies], ours[bases])
    b = jaccard(theirs[copies], theirs[bases])
    return {"pairs": int(len(copies)), "mean_estimate_pastcast": round(float(a.mean()), 4),
            "mean_estimate_datasketch": round(float(b.mean()), 4),
            "mean_abs_difference": round(float(np.abs(a - b).mean()), 4)}


# ------------------------------------------------------------------------------------ lsh


def _band_candidates(keys: np.ndarray) -> set[tuple[int, int]]:
    n, bands = keys.shape
    frame_ = pl.DataFrame({"row": np.repeat(np.arange(n), bands), "band": np.tile(np.arange(bands), n),
                           "key": keys.ravel()})
    buckets = frame_.group_by("band", "key").agg(pl.col("row").unique().sort()).filter(pl.col("row").list.len() > 1)
    out = set()
    for rows in buckets["row"].to_list():
        out.update((rows[i], rows[j]) for i in range(len(rows)) for j in range(i + 1, len(rows)))
    return out


def _verified_clusters(pairs, sigs, sizes, n, config: DedupConfig) -> set[tuple[int, int]]:
    """DedupConfig's rule on candidate pairs, then transitive clusters; their pairs."""
    if pairs:
        p = np.array(sorted(pairs))
        j = jaccard(sigs[p[:, 0]], sigs[p[:, 1]])
        c = containment(j, sizes[p[:, 0]], sizes[p[:, 1]])
        ratio = np.minimum(sizes[p[:, 0]], sizes[p[:, 1]]) / np.maximum(np.maximum(sizes[p[:, 0]], sizes[p[:, 1]]), 1)
        ok = (j >= config.jaccard) | ((c >= config.containment) & (ratio >= config.min_length_ratio))
        edges = p[ok].tolist()
    else:
        edges = []
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        parent[find(a)] = find(b)
    groups = defaultdict(list)
    for i in range(n):
        groups[find(i)].append(i)
    return pairs_within(groups)


def _score(found: set, gold: set) -> dict:
    tp = len(found & gold)
    return {"pairs": len(found), "recall": round(tp / max(1, len(gold)), 4),
            "precision": round(tp / max(1, len(found)), 4)}


def bench_lsh(dataset) -> dict:
    texts = [d.text for d in dataset.docs]
    n = len(texts)
    groups = defaultdict(list)
    for i, d in enumerate(dataset.docs):
        groups[d.base].append(i)
    gold = pairs_within(groups)
    config = DedupConfig()

    t0 = time.perf_counter()
    sigs_p, sizes_p = signatures(texts, CONFIG)
    cand_p = _band_candidates(band_keys(sigs_p, CONFIG))
    seconds_p = time.perf_counter() - t0

    t0 = time.perf_counter()
    shingle_lists = [ds_shingles(t) for t in texts]
    minhashes = MinHash.bulk(shingle_lists, num_perm=CONFIG.num_perm)
    lsh = MinHashLSH(num_perm=CONFIG.num_perm, params=(CONFIG.bands, CONFIG.rows))
    with lsh.insertion_session() as session:
        for i, m in enumerate(minhashes):
            session.insert(i, m)
    cand_d = {(min(i, j), max(i, j)) for i, m in enumerate(minhashes) for j in lsh.query(m) if j != i}
    seconds_d = time.perf_counter() - t0
    sigs_d = np.stack([m.hashvalues for m in minhashes])
    sizes_d = np.array([len(set(s)) for s in shingle_lists])

    library = evaluate(dataset, config)
    result = {
        "articles": n, "gold_pairs": len(gold), "bands": CONFIG.bands, "rows": CONFIG.rows,
        "pastcast_band_keys": {"candidates": _score(cand_p, gold),
                               "verified_clusters": _score(_verified_clusters(cand_p, sigs_p, sizes_p, n, config), gold),
                               "seconds": round(seconds_p, 2)},
        "datasketch_MinHashLSH": {"candidates": _score(cand_d, gold),
                                  "verified_clusters": _score(_verified_clusters(cand_d, sigs_d, sizes_d, n, config), gold),
                                  "seconds": round(seconds_d, 2)},
        "pastcast_deduplicate_default": {"pairs": library["predicted_pairs"], "recall": library["recall"],
                                         "precision": library["precision"]},
        "shingle_count_mismatches": int((sizes_p != sizes_d).sum()),
    }
    return result


# ---------------------------------------------------------------------------- incremental


class DayMaker:
    """Synthetic days: each article is 12-30 real sentences drawn at random from the base
    texts (a headline first); 10 % are near-copies of the previous day's articles."""

    def __init__(self, pool, size: int, seed: int):
        seen = set()
        self.sentences = [s for b in pool for line in b.body.split("\n") for s in sentences(line)
                          if len(s.split()) >= 8 and not (s in seen or seen.add(s))]
        self.size, self.seed = size, seed
        self.texts: dict[str, list[str]] = {}

    def day(self, label: str, number: int, copy_from: str | None) -> pl.DataFrame:
        rng = random.Random(f"{self.seed}-{label}")
        source = self.texts.get(copy_from, []) if copy_from else []
        texts = []
        for i in range(self.size):
            if source and i < self.size // 10:
                parts = source[rng.randrange(len(source))].split("\n")
                body = [x for line in parts[1:] for x in sentences(line)]
                if body:
                    body[rng.randrange(len(body))] = rng.choice(self.sentences)
                texts.append("\n".join([parts[0], " ".join(body), "Read more on our site."]))
            else:
                body = rng.sample(self.sentences, rng.randint(12, 30))
                headline = " ".join(rng.choice(self.sentences).split()[:10])
                texts.append("\n".join([headline] + [" ".join(body[k:k + 4]) for k in range(0, len(body), 4)]))
        self.texts[label] = texts
        when = T0 + timedelta(days=number)
        rows = [{"article_id": f"{label}-{i:05d}", "url": f"https://site{i % 97}.example/{label}/{i}",
                 "canonical_url": f"https://site{i % 97}.example/{label}/{i}",
                 "domain": f"site{i % 97}.example", "title": t.split("\n", 1)[0], "text": t,
                 "published_at": when + timedelta(seconds=20 * i),
                 "crawled_at": when + timedelta(seconds=20 * i + 3600),
                 "content_hash": content_hash(t), "word_count": len(WORD.findall(t))}
                for i, t in enumerate(texts)]
        return frame(rows, ARTICLES)


def bench_incremental(pool, days: list[int], size: int, rounds: int, seed: int, keep: bool) -> dict:
    maker = DayMaker(pool, size, seed)
    config = DedupConfig()
    indexes, build = {}, {}
    for n in days:
        folder = INDEX_ROOT / f"days-{n:03d}"
        shutil.rmtree(folder, ignore_errors=True)
        index = DedupIndex(folder, CONFIG)
        per_day = []
        for d in range(n):
            df = maker.day(f"day{d:03d}", d, f"day{d - 1:03d}" if d else None)
            t0 = time.perf_counter()
            deduplicate(df, config, index)
            per_day.append(time.perf_counter() - t0)
        indexes[n] = index
        build[n] = per_day
        print(f"  built index of {n} days ({index.count():,} articles) in {sum(per_day):.1f} s", flush=True)
    added = {n: [] for n in days}
    for r in range(rounds):
        new = maker.day(f"new{r}", max(days) + 1 + r, "day000")
        for n in (days if r % 2 == 0 else list(reversed(days))):
            t0 = time.perf_counter()
            kept, drops = deduplicate(new, config, indexes[n])
            added[n].append(time.perf_counter() - t0)
            print(f"  round {r + 1}: add {size:,} articles to the {n}-day index: {added[n][-1]:.2f} s "
                  f"({drops.height} dropped as copies)", flush=True)
    result = {"day_size": size, "days": days, "rounds": rounds, "indexes": {}}
    for n in days:
        index = indexes[n]
        path = index.path
        index.close()
        size_mb = sum(p.stat().st_size for p in path.parent.iterdir()) / 2 ** 20
        result["indexes"][str(n)] = {
            "articles_before": n * size, "file_mb": round(size_mb, 1),
            "add_seconds": [round(s, 3) for s in added[n]],
            "add_seconds_mean": round(statistics.mean(added[n]), 3),
            "build_seconds_per_day_first_5": round(statistics.mean(build[n][:5]), 3),
            "build_seconds_per_day_last_5": round(statistics.mean(build[n][-5:]), 3),
            "build_seconds_total": round(sum(build[n]), 1)}
        if not keep:
            shutil.rmtree(path.parent, ignore_errors=True)
    if not keep:
        shutil.rmtree(INDEX_ROOT, ignore_errors=True)
    small, big = min(days), max(days)
    result["ratio_big_to_small"] = round(result["indexes"][str(big)]["add_seconds_mean"]
                                         / result["indexes"][str(small)]["add_seconds_mean"], 3)
    return result


# ----------------------------------------------------------------------------------- main

PARTS = ("speed", "lsh", "incremental")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--only", default=",".join(PARTS), help=f"parts to run (default: {','.join(PARTS)})")
    parser.add_argument("--docs", type=int, default=20_000, help="documents in the speed run (default 20000)")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds (default 2)")
    parser.add_argument("--days", default="2,40", help="index sizes in days (default 2,40)")
    parser.add_argument("--day-size", type=int, default=2_000, help="articles per day (default 2000)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"seed (default {SEED})")
    parser.add_argument("--keep-index", action="store_true", help=f"keep the index folders in {INDEX_ROOT}")
    args = parser.parse_args()
    chosen = [p.strip() for p in args.only.split(",") if p.strip()]
    if unknown := [p for p in chosen if p not in PARTS]:
        parser.error(f"unknown part(s): {', '.join(unknown)}")
    started = time.perf_counter()
    pool, _ = build_pool(load_texts())
    report = json.loads(OUT.read_text()) if OUT.exists() else {}
    env = environment()
    env["packages"].update({n: _version(n) for n in ("numpy", "polars", "datasketch")})
    env["load_average_at_start"] = [round(x, 2) for x in os.getloadavg()]
    env["dedup_library_fingerprint"] = library_fingerprint()
    report["environment"] = env
    report.pop("speed_warning", None)

    if "speed" in chosen:
        print(f"speed: {args.docs:,} documents, {args.rounds} alternating rounds", flush=True)
        r = report["speed"] = bench_speed(pool, args.docs, args.rounds, args.seed)
        print(table(["system", *[f"round {i + 1} s" for i in range(args.rounds)], "docs/s", "peak +MB"],
                    [[name, *r["seconds"][key], f"{r['docs_per_s'][key]:,.0f}",
                      f"{r['peak_memory_above_start_mb'][key]:,.0f}"]
                     for key, name in (("pastcast", "pastcast signatures"),
                                       ("datasketch", "datasketch MinHash.generator"))],
                    f"\nMinHash signatures, {r['documents']:,} docs (~{r['mean_words_per_document']:.0f} "
                    f"words), 128 permutations, 5-word shingles: ratio {r['ratio']:.1f}x "
                    f"(per round {r['ratio_per_round']}; goal >= {SPEED_GOAL:.0f}x)"))
        a = r["estimate_agreement"]
        if a:
            print(f"same estimates: mean Jaccard copy vs base {a['mean_estimate_pastcast']} (pastcast) vs "
                  f"{a['mean_estimate_datasketch']} (datasketch), mean |difference| {a['mean_abs_difference']}")
    if "lsh" in chosen:
        dataset = labelled_dataset(args.seed)
        r = report["lsh"] = bench_lsh(dataset)
        rows = []
        for key, name in (("pastcast_band_keys", "pastcast band_keys"),
                          ("datasketch_MinHashLSH", "datasketch MinHashLSH params=(32, 4)")):
            c, v = r[key]["candidates"], r[key]["verified_clusters"]
            rows.append([name, f"{c['pairs']:,}", f"{c['recall']:.4f}", f"{v['recall']:.4f}",
                         f"{v['precision']:.4f}"])
        d = r["pastcast_deduplicate_default"]
        rows.append(["pastcast deduplicate (default)", "", "", f"{d['recall']:.4f}", f"{d['precision']:.4f}"])
        print(table(["LSH", "candidates", "cand. recall", "verified recall", "verified precision"], rows,
                    f"\nLSH at equal settings on the labelled set ({r['articles']:,} articles, "
                    f"{r['gold_pairs']:,} gold pairs, {r['bands']} bands x {r['rows']} rows)"))
    if "incremental" in chosen:
        days = sorted(int(x) for x in args.days.split(","))
        print(f"\nincremental: indexes of {days} days x {args.day_size:,} articles", flush=True)
        r = report["incremental"] = bench_incremental(pool, days, args.day_size, args.rounds, args.seed,
                                                      args.keep_index)
        print(table(["index", "articles before", "file MB", "add 1 day: s per round", "mean s",
                     "build s/day first 5", "last 5"],
                    [[f"{n} days", f"{v['articles_before']:,}", v["file_mb"], v["add_seconds"],
                      v["add_seconds_mean"], v["build_seconds_per_day_first_5"],
                      v["build_seconds_per_day_last_5"]] for n, v in r["indexes"].items()],
                    f"\nadding one day of {r['day_size']:,} articles: ratio {max(days)} days / "
                    f"{min(days)} days = {r['ratio_big_to_small']:.2f} (1 = cost follows the new day only)"))
    report["speed_wall_seconds"] = round(time.perf_counter() - started, 1)
    if library_fingerprint() != env["dedup_library_fingerprint"]:
        report["speed_warning"] = "the dedup library changed during the run: run again"
        print("\nWARNING: pastcast/curate/{minhash,dedup,dedup_index}.py changed during the run")
    write_json(OUT, report)
    print(f"\nwritten {OUT} ({report['speed_wall_seconds']:.0f} s)")


if __name__ == "__main__":
    main()
