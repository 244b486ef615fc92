"""Social import at dump scale: throughput and peak memory, streamed in parts vs held whole.

Writes a synthetic Pushshift comment dump (zstd ndjson, Reddit's field names, ~6% deleted or
removed bodies) of ``--records`` lines, then imports it twice in fresh processes, side by side:
with the default parts of 100,000 rows (what `pastcast social import` does) and with one part
holding everything (the memory an unstreamed import would need). Prints records/s and peak RSS
of each and their ratios.

    .venv/bin/python bench/social_import.py --records 1000000
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import zstandard

WORDS = ("the match went to extra time and the rovers held on for a draw in kestrel bay while "
         "the council voted on the harbour plan after a long debate about tariffs and rates").split()


def write_dump(path: Path, n: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    with open(path, "wb") as raw, zstandard.ZstdCompressor(level=3).stream_writer(raw) as out:
        for i in range(n):
            gone = rng.random()
            body = ("[deleted]" if gone < 0.04 else "[removed]" if gone < 0.06
                    else " ".join(rng.choices(WORDS, k=rng.randint(5, 60))))
            item = {"id": f"c{i:x}", "author": f"user{rng.randint(1, 50_000)}", "body": body,
                    "created_utc": 1_767_225_600 + i * 3, "score": rng.randint(-5, 500),
                    "subreddit": rng.choice(["veloria", "football", "economics"]),
                    "link_id": f"t3_s{i // 40:x}", "parent_id": f"t3_s{i // 40:x}",
                    "permalink": f"/r/veloria/comments/s{i // 40:x}/x/c{i:x}/"}
            out.write((json.dumps(item) + "\n").encode())


CHILD = """
import resource, sys, time
from pastcast.imports import import_social
t = time.perf_counter()
r = import_social("reddit", [sys.argv[1]], sys.argv[2], part_rows=int(sys.argv[3]))
print(time.perf_counter() - t, r.rows["posts"], r.rows["drops"], resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def run(dump: Path, out: Path, part_rows: int) -> tuple[float, int, int, float]:
    """(seconds, posts, drops, peak RSS MiB) of one import in a fresh process."""
    done = subprocess.run([sys.executable, "-c", CHILD, str(dump), str(out), str(part_rows)],
                          capture_output=True, text=True, check=True)
    seconds, posts, drops, peak_kib = done.stdout.split()
    return float(seconds), int(posts), int(drops), int(peak_kib) / 1024


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pastcast-social-bench-") as tmp:
        tmp = Path(tmp)
        dump = tmp / "RC_synthetic.ndjson.zst"
        started = time.perf_counter()
        write_dump(dump, args.records)
        print(f"dump: {args.records:,} comments, {dump.stat().st_size / 2**20:.1f} MiB zstd "
              f"(written in {time.perf_counter() - started:.0f} s)")
        whole = run(dump, tmp / "whole", args.records + 1)
        parts = run(dump, tmp / "parts", 100_000)
        assert whole[1:3] == parts[1:3], (whole, parts)
    print(f"{'':<28}{'seconds':>9}{'records/s':>12}{'peak RSS MiB':>14}")
    for name, (sec, posts, drops, rss) in (("held whole (1 part)", whole), ("streamed (100k-row parts)", parts)):
        print(f"{name:<28}{sec:>9.1f}{args.records / sec:>12,.0f}{rss:>14,.0f}")
    print(f"posts {parts[1]:,}, drops {parts[2]:,}; streamed/whole: time {parts[0] / whole[0]:.2f}x, "
          f"peak memory {parts[3] / whole[3]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
