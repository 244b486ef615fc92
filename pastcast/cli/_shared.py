"""What every command group shares: the two consoles, the progress bar, the tables of counts by
reason, the blocking checks' lines, and a library error turned into a one-line usage error."""

from __future__ import annotations

import contextlib

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

console = Console(stderr=True)  # progress and notes
out = Console()  # results
if not out.is_terminal:  # piped or captured: do not squeeze tables to 80 columns
    out = Console(width=200)

# what a library call raises for a bad input: a missing file, a malformed value
USER_ERRORS = (FileNotFoundError, FileExistsError, ValueError)


@contextlib.contextmanager
def user_errors(*kinds: type[Exception]):
    """Within the block, an exception of ``kinds`` (default ``USER_ERRORS``) ends the command
    with its message as one ``Error:`` line and exit code 1, never a traceback."""
    try:
        yield
    except kinds or USER_ERRORS as exc:
        raise click.ClickException(str(exc)) from exc


def progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=console, transient=False)


def ingest_progress(bar: Progress):
    """A callback for the ingest stage's progress dicts, drawing them on ``bar``."""
    task = bar.add_task("ingesting", total=None)

    def update(p: dict) -> None:
        rate = p["articles"] / max(p["seconds"], 1e-9)
        bar.update(task, completed=p["files_done"], total=p["files"],
                   description=f"{p['records']:,} records, {p['articles']:,} articles ({rate:,.0f}/s)")

    return update


def reason_table(title: str, counts: dict[str, int]) -> Table:
    """Drop counts by reason, largest first."""
    table = Table("drop reason", "count", title=title)
    for reason, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        table.add_row(reason, f"{n:,}")
    return table


def print_checks(outcomes) -> bool:
    """Print each blocking check's outcome; True when all passed."""
    for o in outcomes:
        mark = "[green]passed[/]" if o.passed else f"[red]FAILED[/] ({o.problems}: {'; '.join(o.examples[:3])})"
        console.print(f"  check {o.name:<38} {mark}")
    return all(o.passed for o in outcomes)
