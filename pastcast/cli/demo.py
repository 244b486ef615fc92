"""``pastcast demo`` (the Dagster code location's demo, run in-process from a checkout) and
``pastcast build`` (the same stages without Dagster)."""

from __future__ import annotations

import os
import sys

import click

from pastcast.cli._shared import console, ingest_progress, out, print_checks, progress


NOT_A_CHECKOUT = ("the demo runs from a checkout of the repository: run `make demo` in it (no Dagster "
                  "code location `pipelines` in this folder)")


@click.command()
@click.option("--snapshots", "snapshots_dir", default="snapshots", show_default=True,
              type=click.Path(file_okay=False), help="Where snapshot versions are written.")
def demo(snapshots_dir: str) -> None:
    """Run the whole product once on the bundled sample corpus, offline.

    Materializes every Dagster asset in-process on a local instance (./.dagster), writes a new
    snapshot version, replays it to the baseline agents and prints the leaderboard.
    """
    os.environ["PASTCAST_SNAPSHOTS_DIR"] = snapshots_dir  # read by the code location's storage
    # The code location (pipelines/, assets/) is not part of the installed library: it is
    # imported from the checkout in the working directory, as `python -m` would, and only
    # here, so this is the library's one path to Dagster.
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        from pipelines.demo import main as run_demo
    except ModuleNotFoundError as exc:
        if exc.name not in ("pipelines", "pipelines.demo"):
            raise
        raise click.ClickException(NOT_A_CHECKOUT) from exc
    try:
        code = run_demo()
    except FileNotFoundError as exc:  # e.g. no corpora/sample: not run from the checkout
        raise click.ClickException(f"{exc}; the demo runs from a checkout of the repository "
                                   "(`make demo` there)") from exc
    raise SystemExit(code)


@click.command()
@click.option("--corpus", "corpus_dir", default="corpora/sample", show_default=True,
              type=click.Path(exists=True, file_okay=False),
              help="Corpus folder with warc/, markets/ and social/ subfolders.")
@click.option("--work", "work_dir", default=".pastcast/work/sample", show_default=True,
              type=click.Path(file_okay=False), help="Working tables (reused to resume).")
@click.option("--snapshots", "snapshots_dir", default="snapshots", show_default=True,
              type=click.Path(file_okay=False))
@click.option("--name", default="sample", show_default=True, help="Snapshot name.")
@click.option("--days", default=None, metavar="FIRST..LAST",
              help="Crawl days to build (e.g. 2026-04-01..2026-06-30, or one day); days built before are "
                   "kept. Default: every day of the corpus.")
@click.option("--allow-input-loss", is_flag=True,
              help="Publish even when an input file was not read whole (unreadable, truncated, undated) or a "
                   "table kept less than half the parent version's rows; recorded in the manifest.")
@click.option("--full", is_flag=True,
              help="Search every question in the whole corpus again and check every part of the new version "
                   "(default: what the build before searched and checked is reused; a first build is full).")
@click.option("--wait", "wait_seconds", type=click.IntRange(min=0), default=0, show_default=True, metavar="SECONDS",
              help="When another build (a Dagster run, another `pastcast build`) is writing the working folder, "
                   "wait this long for it before giving up (default: stop at once, saying who writes).")
def build(corpus_dir: str, work_dir: str, snapshots_dir: str, name: str, days: str | None,
          allow_input_loss: bool, full: bool, wait_seconds: int) -> None:
    """Build a snapshot from a corpus folder without Dagster (same stages as the assets).

    One build writes a working folder at a time: this one holds the folder's writer lease from
    start to end (docs/operations.md)."""
    from pastcast import lease
    from pastcast.snapshot import PointerError, latest_version
    from pastcast.sources.crawl_days import parse_days

    try:  # bad arguments and a damaged LATEST are named before anything is written, in one line
        chosen = parse_days(days) if days else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--days") from exc
    try:
        latest_version(snapshots_dir, name)
    except PointerError as exc:
        raise click.ClickException(str(exc)) from exc

    def waiting(owner: dict, waited: float) -> None:  # a line a minute (lease.WAIT_REPORT_SECONDS)
        console.print(f"waiting for {lease.describe(owner)} to finish writing {work_dir} ({waited:.0f} s)")

    try:
        with lease.holding(work_dir, lease.process_owner("pastcast build"), wait_seconds=wait_seconds,
                           on_wait=waiting):
            _build(corpus_dir, work_dir, snapshots_dir, name, chosen, allow_input_loss, full)
    except lease.StoreBusy as exc:
        raise click.ClickException(f"{exc}: wait for it to end, or pass --wait SECONDS") from exc


def _build(corpus_dir: str, work_dir: str, snapshots_dir: str, name: str, chosen: list | None,
           allow_input_loss: bool, full: bool) -> None:
    from pastcast import pipeline
    from pastcast.snapshot import is_unchanged_build, latest_version
    from pastcast.snapshot_checks import publish_if_sound
    from pastcast.stage_checks import news_questions_in_window

    def report(r: pipeline.StageReport) -> None:
        drops = ", ".join(f"{k}={v}" for k, v in r.drops.items()) or "none"
        console.print(f"[bold]{r.stage}[/]: {r.rows_in} in, {r.rows_out} kept; drops: {drops}")

    parent = latest_version(snapshots_dir, name)  # read under the lease: no build moves it now
    with progress() as bar:
        folder = pipeline.run_all(corpus_dir, work_dir, snapshots_dir, name, on_stage=report,
                                  on_progress=ingest_progress(bar), publish=False, days=chosen,
                                  allow_input_loss=allow_input_loss, full=full)
    for problem in news_questions_in_window(work_dir).problems:  # warns, never blocks
        console.print(f"[yellow]warning:[/] {problem}", highlight=False, soft_wrap=True)
    if is_unchanged_build(folder, parent):  # no change, no version: nothing to check or publish
        out.print(f"unchanged: the tables are {parent}'s, so no new version (LATEST stays {folder})")
        return
    if not print_checks(publish_if_sound(folder, full or None)):
        console.print(f"[red]{folder}: blocking checks failed; LATEST not moved[/]")
        raise SystemExit(1)
    out.print(f"snapshot written: {folder} (LATEST)")
