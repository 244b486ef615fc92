"""Per-run overhead of a one-day `build_news` run: Dagster's multiprocess executor (each step in a
subprocess of its own) beside in-process execution (every step in the run's process), side by
side in one run of this script.

On a copy of the sample corpus, with a persistent Dagster instance in a temporary DAGSTER_HOME:
the dumps are imported and every day but the last is built (untimed, in process); that state is
kept. Then, ``--rounds`` times, for each executor (and with none given: the job's default, the
executor it ran on read from its events), the state is restored and the last day is
built as the nightly schedule or the landing sensor would request it, in a fresh interpreter as
a run worker is (``dg.execute_job`` of the reconstructable job with the day's partition tag, the
executor chosen by run config). Wall is the fresh interpreter's whole life (start, imports, the
run); from the run's event log come its span (first event to last), its steps and the sum of
their durations (STEP_START to STEP_SUCCESS: the work); overhead = wall - work. Prints the
medians and the ratios; results in ``.bench-cache/run_overhead.json``.

    .venv/bin/python bench/run_overhead.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, Path(__file__).resolve().parent):  # run as `python bench/run_overhead.py` from anywhere
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

# the executor's config in the run config; None: none given, the job's default (in process since issue 38)
EXECUTORS = {"multiprocess": {"multiprocess": {}}, "in_process": {"in_process": {}}, "job default": None}
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}  # the events are read from the instance


def build_news():
    """The job as the code location defines it (a module-level function: step subprocesses
    rebuild the job from it)."""
    from pipelines.definitions import defs

    return defs.resolve_job_def("build_news")


def import_dumps():
    from pipelines.definitions import defs

    return defs.resolve_job_def("import_dumps")


def _events(instance, run_id: str) -> list:
    return [e for e in instance.all_logs(run_id) if e.dagster_event is not None]


def _executor_used(instance, run_id: str) -> str:
    """What the run's engine events say it ran on (the job default is checked, not assumed)."""
    for e in _events(instance, run_id):
        text = e.message or ""
        if "in process (pid" in text or "in-process" in text.lower():
            return "in_process"
        if "multiprocess" in text.lower():
            return "multiprocess"
    return "unknown"


def measure(instance, run_id: str) -> dict:
    events = _events(instance, run_id)
    starts, work = {}, {}
    for e in events:
        kind, step = e.dagster_event.event_type_value, e.dagster_event.step_key
        if kind == "STEP_START":
            starts[step] = e.timestamp
        elif kind == "STEP_SUCCESS" and step in starts:
            work[step] = e.timestamp - starts[step]
    span = events[-1].timestamp - events[0].timestamp if events else 0.0
    total = sum(work.values())
    return {"run_span_s": round(span, 2), "steps": len(work), "step_work_s": round(total, 2),
            "slowest_steps": dict(sorted(((k, round(v, 2)) for k, v in work.items()), key=lambda kv: -kv[1])[:3])}


def _run_in_fresh_process(name: str, day: str) -> dict:
    """One measured run in a new interpreter, as the run launcher starts a run worker for each
    run: its imports and code-location load are part of the run's cost (a warm process that
    built the setup days would hide them from in-process runs)."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, __file__, "--child", name, "--day", day], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if out.returncode:
        raise RuntimeError(f"{name} run of {day} failed:\n{out.stderr[-3000:]}")
    row = json.loads(out.stdout.strip().splitlines()[-1])
    return {"wall_s": round(wall, 2), **row, "overhead_s": round(wall - row["step_work_s"], 2)}


def child(name: str, day: str) -> None:
    import dagster as dg

    with dg.DagsterInstance.get() as instance:
        with dg.execute_job(dg.reconstructable(build_news), instance=instance, tags={"dagster/partition": day},
                            run_config={**({"execution": {"config": EXECUTORS[name]}} if EXECUTORS[name] else {}),
                                        **QUIET}) as result:
            assert result.success
            row = measure(instance, result.run_id)
            row["executor"] = _executor_used(instance, result.run_id)
    print(json.dumps(row))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", choices=list(EXECUTORS), help=argparse.SUPPRESS)
    parser.add_argument("--day", help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (its path is printed)")
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.day)

    root = Path(tempfile.mkdtemp(prefix="pastcast-overhead-"))
    corpus = root / "corpus"
    shutil.copytree(ROOT / "corpora" / "sample", corpus)
    home = root / "dagster_home"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    # read when the code location loads, here and in every step subprocess
    os.environ.update(DAGSTER_HOME=str(home), PASTCAST_CORPUS_DIR=str(corpus), PASTCAST_WORK_DIR=str(root / "work"),
                      PASTCAST_SNAPSHOTS_DIR=str(root / "snapshots"), PASTCAST_SNAPSHOT_NAME="bench")
    os.environ.pop("PASTCAST_EXECUTOR", None)  # the default executor is the one measured

    import dagster as dg

    from _common import CACHE, environment, table, write_json
    from assets._partitions import RANGE_END, RANGE_START
    from pastcast.sources.crawl_days import DayFiles

    days = sorted(DayFiles.of(sorted((corpus / "warc").iterdir())).by_day)
    first, before, day = days[0], days[-2], days[-1]
    in_process = {"execution": {"config": EXECUTORS["in_process"]}, **QUIET}
    results: dict[str, list[dict]] = {name: [] for name in EXECUTORS}
    try:
        with dg.DagsterInstance.get() as instance:
            print(f"setup: dumps and {len(days) - 1} days ({first}..{before}) built in process, untimed", flush=True)
            for job, kwargs in ((import_dumps, {}),
                                (build_news, {"tags": {RANGE_START: first.isoformat(), RANGE_END: before.isoformat()}})):
                with dg.execute_job(dg.reconstructable(job), instance=instance, run_config=in_process, **kwargs) as r:
                    assert r.success, f"setup run {job.__name__} failed"
            base = root / "base"
            for folder in ("work", "snapshots"):
                shutil.copytree(root / folder, base / folder)
            for n in range(args.rounds):
                for name in EXECUTORS:
                    for folder in ("work", "snapshots"):  # the same starting state for every run
                        shutil.rmtree(root / folder)
                        shutil.copytree(base / folder, root / folder)
                    row = _run_in_fresh_process(name, day.isoformat())
                    results[name].append(row)
                    print(f"round {n + 1} {name}: {row}", flush=True)
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)

    def median(name: str, key: str) -> float:
        return statistics.median(r[key] for r in results[name])

    rows = []
    for name in EXECUTORS:
        wall, work = median(name, "wall_s"), median(name, "step_work_s")
        rows.append([f"{name} ({results[name][0]['executor']})", f"{wall:.1f}", f"{median(name, 'run_span_s'):.1f}",
                     results[name][0]["steps"],
                     f"{work:.1f}", f"{wall - work:.1f}", f"{(wall - work) / wall:.0%}"])
    print()
    print(table(["executor", "wall s", "run span s", "steps", "step work s", "overhead s", "overhead share"], rows,
                title=f"One-day build_news run ({day}, after {len(days) - 1} days built), median of {args.rounds} rounds"))
    mp, ip = median("multiprocess", "wall_s"), median("in_process", "wall_s")
    mp_over = mp - median("multiprocess", "step_work_s")
    ip_over = ip - median("in_process", "step_work_s")
    print(f"\nin-process / multiprocess: wall {ip / mp:.2f}, overhead {ip_over / mp_over:.2f} "
          f"({mp - ip:.1f} s less per run)")
    write_json(CACHE / "run_overhead.json", {"day": day.isoformat(), "days_before": len(days) - 1,
                                             "rounds": results, "environment": environment()})


if __name__ == "__main__":
    main()
