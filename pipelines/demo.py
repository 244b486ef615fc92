"""`make demo`: materialize every asset on a local Dagster instance, then score the baselines.

Runs offline with no API key: the instance is SQLite under ./.dagster, the snapshot goes to
$PASTCAST_SNAPSHOTS_DIR (default ./snapshots) as a new version, and the bundled evaluator
replays it to the non-LLM baseline agents.
"""

from __future__ import annotations

import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path


def main() -> int:
    home = Path(os.environ.setdefault("DAGSTER_HOME", str(Path(".dagster").resolve())))
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists():  # a project-local instance: SQLite storage, no telemetry
        config.write_text("telemetry:\n  enabled: false\n")

    import dagster as dg
    from rich.console import Console

    from assets._resources import storage_from_env
    from pastcast.evaluate.batch import BASELINES, evaluate_agents
    from pastcast.evaluate.leaderboard import leaderboard, render_leaderboard
    from pastcast.snapshot import read_manifest, resolve
    from pipelines.build import build_corpus, corpus_days
    from pipelines.definitions import defs

    console = Console() if sys.stdout.isatty() else Console(width=120)
    started = time.monotonic()
    console.print(f"[bold]1/2[/] materializing the asset graph (Dagster instance: {home})")
    quiet = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
    days = corpus_days(storage_from_env())
    with dg.DagsterInstance.get() as instance:
        runs = build_corpus(defs, instance, run_config=quiet, days=days)
        for result in runs:
            if not result.success:
                console.print(f"[red]the Dagster run {result.run_id} failed; its log is in the UI "
                              "(`make dev`) and above[/]")
                return 1
            seen = set()
            for event in result.get_asset_materialization_events():
                key = event.asset_key.to_user_string()
                if key in seen:  # one line per asset, not per day
                    continue
                seen.add(key)
                meta = event.materialization.metadata
                rows, dropped = meta.get("dagster/row_count"), meta.get("dropped")
                detail = f"{rows.value:>6} rows, {dropped.value} dropped" if rows else meta["version"].value
                if event.partition:
                    detail += f" (days {days[0]}..{days[-1]} in one run)"
                console.print(f"  {key:<20} {detail}")
            for check in result.get_asset_check_evaluations():
                status = "passed" if check.passed else (
                    "WARNING" if check.severity == dg.AssetCheckSeverity.WARN else "FAILED")
                examples, problems = check.metadata.get("examples"), check.metadata.get("problems")
                note = ""
                if not check.passed and examples and examples.value:
                    note = f" ({problems.value} problems, e.g. {examples.value.split('; ')[0]})"
                console.print(f"  check {check.asset_key.to_user_string() + ':' + check.check_name:<42} {status}{note}")
    snapshots_dir = os.environ.get("PASTCAST_SNAPSHOTS_DIR", "snapshots")
    name = os.environ.get("PASTCAST_SNAPSHOT_NAME", "sample")
    folder = resolve(name, root=snapshots_dir)
    manifest = read_manifest(folder)
    tables = manifest["tables"]
    console.print(f"snapshot [bold]{folder}[/] ({manifest['window']['start']}..{manifest['window']['end']}): "
                  f"{tables['articles']['rows']} articles, {tables['questions']['rows']} questions, "
                  f"{tables['markets']['rows']} markets, {tables['posts']['rows']} posts, "
                  f"{tables['drops']['rows']} drops")

    console.print(f"[bold]2/2[/] replaying it to the baseline agents: {', '.join(BASELINES)}")
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    run_dirs = evaluate_agents(folder, BASELINES, Path("runs") / f"{name}-{manifest['version']}-{stamp}")
    print(render_leaderboard(leaderboard(run_dirs)), end="")
    console.print(f"done in {time.monotonic() - started:.0f} s; runs under {run_dirs[0].parent}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
