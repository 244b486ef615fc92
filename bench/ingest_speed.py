"""Ingest speed: pastcast's parallel ingest CLI vs the common single-process pipeline.

On the large CC-NEWS-like WARC from ``bench/build_large_warc.py`` (built once, cached):

  pastcast   ``.venv/bin/pastcast ingest FILE --out DIR --workers 2`` (read, extract, date,
             filter; writes articles.parquet and drops.parquet)
  reference  the way it is usually written: one process, warcio's ArchiveIterator, and for
             each HTTP 200 HTML response ``trafilatura.extract(html, url=url,
             with_metadata=True, output_format="json")`` (default settings) and
             ``htmldate.find_date(html)``, rows written as JSON lines

The reference is too slow for the whole file within the time budget, so both run on the
same fixed prefix of the file (its first ``--prefix`` records, an exact record boundary cut
from the builder's offsets) and the ratio is computed there; pastcast also runs on the whole
file. Every measured command runs under its own fresh runner process, which polls the
command's process tree every 100 ms (sum of RSS and of PSS over the command and all its
workers; each process's own peak RSS) and reads ``getrusage(RUSAGE_CHILDREN).ru_maxrss``
once the command is done. ru_maxrss is the largest single *waited-for* descendant only: the
pastcast workers live under multiprocessing's forkserver and are not in it, so the polled
figures are the ones to read (the tree PSS counts pages shared by forked processes once).
A fresh runner per command keeps one command's maxima out of the next.

Prints records/s, articles/s, the ratio and peak memory; writes
``.bench-cache/ingest_speed.json``. Run: ``make bench-ingest`` or
``.venv/bin/python bench/ingest_speed.py [--prefix N] [--no-full]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import CACHE, ROOT, environment, table, write_json  # noqa: E402

OUT = CACHE / "ingest_speed.json"
BIN = Path(sys.executable).parent
PASTCAST = BIN / "pastcast"
WORKERS = 2
GOALS = {"ratio_min": 3.0, "pastcast_peak_memory_max_mib": 1024}


# ------------------------------------------------------------------- the reference pipeline


def reference(path: str, out: str) -> dict:
    """The common way: warcio + trafilatura.extract(with_metadata) + htmldate, one process."""
    import trafilatura
    from htmldate import find_date
    from warcio.archiveiterator import ArchiveIterator

    records = pages = articles = dated = 0
    with open(path, "rb") as fh, open(out, "w", encoding="utf-8") as sink:
        for record in ArchiveIterator(fh):
            records += 1
            if record.rec_type != "response" or record.http_headers is None:
                continue
            if record.http_headers.get_statuscode() != "200":
                continue
            ctype = record.http_headers.get_header("Content-Type") or ""
            if not ctype.lower().startswith("text/html"):
                continue
            pages += 1
            url = record.rec_headers.get_header("WARC-Target-URI")
            html = record.content_stream().read()
            try:
                doc = trafilatura.extract(html, url=url, with_metadata=True, output_format="json")
            except Exception:  # noqa: BLE001 - the usual loop skips what crashes
                doc = None
            try:
                published = find_date(html)
            except Exception:  # noqa: BLE001
                published = None
            dated += published is not None
            if doc:
                articles += 1
                row = json.loads(doc)
                sink.write(json.dumps({"url": url, "title": row.get("title"),
                                       "text": row.get("text"), "published": published,
                                       "metadata_date": row.get("date")}) + "\n")
    return {"records": records, "html_pages": pages, "articles": articles, "dated": dated}


# ------------------------------------------------------------------------- measuring


def _tree(root: int) -> list[int]:
    """The pid and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(b")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def _role(pid: int) -> str:
    """A short name for a process: its command line, shortened."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            args = [a.decode("utf-8", "replace") for a in fh.read().split(b"\0") if a]
    except OSError:
        return "?"
    return " ".join(Path(args[0]).name if i == 0 else a[:40]
                    for i, a in enumerate(args[:4]))


def _memory_kib(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process in KiB, (0, 0) when it is gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            fields = dict(line.split(":", 1) for line in fh if ":" in line and "kB" in line)
        return int(fields["Rss"].split()[0]), int(fields["Pss"].split()[0])
    except (OSError, KeyError, ValueError):
        return 0, 0


def run_measured(cmd: list[str]) -> dict:
    """Runner side: run cmd as our only child, poll its tree's memory, report the peaks."""
    peaks = {"rss": 0, "pss": 0, "processes": 0}
    per_process: dict[int, list] = {}  # pid -> [role, peak RSS KiB]
    started = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    done = threading.Event()

    def poll() -> None:
        while not done.is_set():
            pids = _tree(child.pid)
            mem = [_memory_kib(p) for p in pids]
            for pid, (rss, _) in zip(pids, mem):
                if pid not in per_process:
                    per_process[pid] = [_role(pid), 0]
                per_process[pid][1] = max(per_process[pid][1], rss)
            peaks["rss"] = max(peaks["rss"], sum(m[0] for m in mem))
            peaks["pss"] = max(peaks["pss"], sum(m[1] for m in mem))
            peaks["processes"] = max(peaks["processes"], sum(1 for m in mem if m[0]))
            done.wait(0.1)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    output = child.stdout.read().decode("utf-8", "replace")
    code = child.wait()
    wall = time.perf_counter() - started
    done.set()
    poller.join()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "cmd": cmd, "exit_code": code, "wall_seconds": round(wall, 2),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
        "ru_maxrss_mib": round(usage.ru_maxrss / 1024, 1),  # Linux: KiB; largest one process
        "tree_peak_rss_mib": round(peaks["rss"] / 1024, 1),
        "tree_peak_pss_mib": round(peaks["pss"] / 1024, 1),
        "tree_max_processes": peaks["processes"],
        "per_process_peak_rss_mib": sorted(([role, round(kib / 1024, 1)]
                                            for role, kib in per_process.values() if kib),
                                           key=lambda x: -x[1]),
        "output_tail": output[-1500:],
    }


def measure(cmd: list[str]) -> dict:
    """Run cmd under a fresh runner process (so RUSAGE_CHILDREN holds cmd's tree only)."""
    runner = subprocess.run([sys.executable, __file__, "--runner", json.dumps(cmd)],
                            capture_output=True, text=True, cwd=ROOT)
    if runner.returncode != 0:
        raise RuntimeError(f"runner failed: {runner.stderr[-2000:]}")
    result = json.loads(runner.stdout.strip().splitlines()[-1])
    if result["exit_code"] != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {result['exit_code']}:\n"
                           f"{result['output_tail']}")
    return result


# ----------------------------------------------------------------------------- runs


def prefix_file(info: dict, n: int) -> Path:
    """The file's first n response records (after its warcinfo), cut at a record boundary."""
    every = info["offset_every"]
    if n % every or not 0 < n <= len(info["offsets_after_records"]) * every:
        raise SystemExit(f"--prefix must be a multiple of {every} up to "
                         f"{len(info['offsets_after_records']) * every}")
    size = info["offsets_after_records"][n // every - 1]
    path = CACHE / f"large-prefix-{n}-{info['key'][:8]}.warc.gz"
    if not path.exists() or path.stat().st_size != size:
        for old in CACHE.glob(f"large-prefix-{n}-*.warc.gz"):
            old.unlink()
        with open(info["path"], "rb") as src, open(path, "wb") as dst:
            dst.write(src.read(size))
    return path


def run_pastcast(path: Path, label: str) -> dict:
    out = CACHE / "runs" / f"pastcast-{label}"
    shutil.rmtree(out, ignore_errors=True)  # the CLI skips finished files: start clean
    measured = measure([str(PASTCAST), "ingest", str(path), "--out", str(out),
                        "--workers", str(WORKERS)])
    import polars as pl

    articles = pl.read_parquet(out / "articles.parquet")
    drops = pl.read_parquet(out / "drops.parquet")
    reasons = drops.group_by("stage", "reason").len().sort("len", descending=True)
    return {**measured, "articles": articles.height, "drops": drops.height,
            "drops_by_reason": {f"{s}/{r}": n for s, r, n in reasons.iter_rows()},
            "dated_by_source": dict(articles.group_by("date_source").len().iter_rows())
            if "date_source" in articles.columns else {}}


def run_reference(path: Path, label: str) -> dict:
    out = CACHE / "runs" / f"reference-{label}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    measured = measure([sys.executable, __file__, "--reference", str(path), str(out)])
    counts = json.loads(measured["output_tail"].strip().splitlines()[-1])
    return {**measured, **counts}


def _median_run(runs: list[dict]) -> dict:
    """The run with the median wall time (the lower middle one for an even count)."""
    return sorted(runs, key=lambda r: r["wall_seconds"])[(len(runs) - 1) // 2]


def rates(run: dict, records: int) -> dict:
    wall = run["wall_seconds"]
    return {"records": records, "records_per_s": round(records / wall, 2),
            "articles_per_s": round(run["articles"] / wall, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", type=int, default=3000,
                        help="records both pipelines run on (a multiple of 100); 0: the whole "
                             "file (the reference then takes ~17 minutes a round)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="times each pipeline runs on the prefix, alternating (default 2)")
    parser.add_argument("--no-full", action="store_true",
                        help="skip pastcast on the whole file (saves ~7 minutes)")
    parser.add_argument("--runner", help=argparse.SUPPRESS)
    parser.add_argument("--reference", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.runner:
        print(json.dumps(run_measured(json.loads(args.runner))))
        return
    if args.reference:
        print(json.dumps(reference(*args.reference)))
        return

    from build_large_warc import ensure_large_warc

    if not PASTCAST.exists():
        sys.exit(f"{PASTCAST} not found: run `make venv` first")
    info = ensure_large_warc()
    started = time.perf_counter()
    whole = args.prefix == 0
    prefix = Path(info["path"]) if whole else prefix_file(info, args.prefix)
    prefix_records = info["records_total"] if whole else args.prefix + 1  # + the warcinfo record
    report = {"environment": environment(), "goals": GOALS, "workers": WORKERS,
              "file": {k: info[k] for k in ("path", "mb", "records_total", "records_by_kind",
                                            "unique_html_pages", "key")},
              "prefix": {"path": str(prefix), "records": prefix_records,
                         "mb": round(prefix.stat().st_size / 1e6, 1)}}

    # Rounds alternate the two pipelines so that drift in the machine's speed (a shared VM:
    # the reference alone has moved 18.5-21.3 records/s within an hour) hits both alike.
    label = f"prefix{args.prefix}"
    refs, ours_runs = [], []
    for round_no in range(1, args.rounds + 1):
        print(f"round {round_no}/{args.rounds}, prefix {prefix_records} records "
              f"({report['prefix']['mb']} MB): reference ...", flush=True)
        refs.append(run_reference(prefix, label))
        print(f"round {round_no}/{args.rounds}: pastcast ...", flush=True)
        ours_runs.append(run_pastcast(prefix, label))
    ref, ours = _median_run(refs), _median_run(ours_runs)
    report["prefix"]["reference"] = {**ref, **rates(ref, prefix_records)}
    report["prefix"]["pastcast"] = {**ours, **rates(ours, prefix_records)}
    report["prefix"]["rounds"] = [
        {"reference_wall_seconds": r["wall_seconds"], "pastcast_wall_seconds": o["wall_seconds"],
         "ratio": round(r["wall_seconds"] / o["wall_seconds"], 2)} for r, o in zip(refs, ours_runs)]
    # The ratio of the summed times over all rounds (each pipeline saw the same machine).
    ratio = sum(r["wall_seconds"] for r in refs) / sum(o["wall_seconds"] for o in ours_runs)
    report["prefix"]["ratio_records_per_s"] = round(ratio, 2)
    report["prefix"]["ratio_articles_per_s"] = round(
        ratio * (ours["articles"] / ref["articles"]), 2)

    if not args.no_full and not whole:
        print(f"whole file: {info['records_total']} records ({info['mb']} MB): pastcast ...",
              flush=True)
        full = run_pastcast(Path(info["path"]), "full")
        report["full"] = {"pastcast": {**full, **rates(full, info["records_total"])}}
    report["wall_seconds"] = round(time.perf_counter() - started, 1)
    write_json(OUT, report)
    _print(report)


def _print(report: dict) -> None:
    p = report["prefix"]
    runs = [(f"reference, prefix ({p['records']} rec)", p["reference"]),
            (f"pastcast --workers {report['workers']}, prefix", p["pastcast"])]
    if "full" in report:
        full = report["full"]["pastcast"]
        runs.append((f"pastcast --workers {report['workers']}, whole file "
                     f"({full['records']} rec)", full))
    rows = []
    for label, run in runs:
        rows.append([label, f"{run['wall_seconds']:.1f}", f"{run['records_per_s']:.1f}",
                     run["articles"], f"{run['articles_per_s']:.1f}",
                     f"{run['tree_peak_rss_mib']:.0f}", f"{run['tree_peak_pss_mib']:.0f}",
                     f"{max((m for _, m in run['per_process_peak_rss_mib']), default=0):.0f}",
                     f"{run['ru_maxrss_mib']:.0f}"])
    print(table(["run", "wall s", "records/s", "articles", "articles/s", "tree RSS MiB",
                 "tree PSS MiB", "largest proc MiB", "ru_maxrss MiB"], rows,
                f"\ningest speed on {Path(report['file']['path']).name} "
                f"({report['file']['mb']} MB, {report['file']['records_total']} records)"))
    for i, r in enumerate(p.get("rounds", []), 1):
        print(f"round {i}: reference {r['reference_wall_seconds']:.1f} s, "
              f"pastcast {r['pastcast_wall_seconds']:.1f} s, ratio {r['ratio']:.2f}x")
    print(f"ratio pastcast/reference on the same {p['records']} records (all rounds' time): "
          f"{p['ratio_records_per_s']:.2f}x records/s, {p['ratio_articles_per_s']:.2f}x "
          f"articles/s (goal >= {report['goals']['ratio_min']}); "
          f"written {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
