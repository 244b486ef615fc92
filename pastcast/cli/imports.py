"""``pastcast markets import`` and ``pastcast social import``: platform dumps to the normalised
tables, over ``pastcast.imports``."""

from __future__ import annotations

import click
from rich.table import Table

from pastcast.cli._shared import out, reason_table, user_errors


def _import_summary(result) -> None:
    table = Table("records", "read", "kept", "dropped", title=f"{result.kind} import ({', '.join(result.formats)})")
    for kind, c in result.counts.items():
        table.add_row(kind, f"{c['read']:,}", f"{c['kept']:,}", f"{c['dropped']:,}")
    out.print(table)
    out.print(reason_table("dropped, by stage/reason", result.drops_by_reason))
    rows = ", ".join(f"{name} {n:,}" for name, n in result.rows.items())
    out.print(f"{len(result.inputs)} files -> {rows}")
    for name, path in result.paths.items():
        out.print(f"{name + ':':<15}{path}")


MARKET_FORMAT_NAMES = ("manifold", "polymarket", "metaculus", "kalshi", "forecastbench")
SOCIAL_FORMAT_NAMES = ("reddit", "hn", "bluesky")


def _import_command(group: click.Group, formats: tuple[str, ...], outputs: str):
    """Make a function ``group``'s ``import`` command: --format FORMAT, INPUT..., --out DIR."""
    def decorate(f):
        f = click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
                         help=f"Output folder: {outputs}.")(f)
        f = click.argument("inputs", nargs=-1, required=True)(f)
        f = click.option("--format", "fmt", required=True, type=click.Choice(formats),
                         help="The dump's platform format.")(f)
        return group.command("import")(f)

    return decorate


def _run_import(importer, fmt: str, inputs: tuple[str, ...], out_dir: str) -> None:
    with user_errors():
        result = importer(fmt, inputs, out_dir)
    _import_summary(result)


@click.group()
def markets() -> None:
    """Import prediction-market dumps."""


@_import_command(markets, MARKET_FORMAT_NAMES, "markets.parquet, market_prices.parquet, drops.parquet, import.json")
def markets_import(fmt: str, inputs: tuple[str, ...], out_dir: str) -> None:
    """Read market dumps of one format into the normalised markets tables.

    \b
    INPUT is a file (JSON, JSON lines; .zst/.gz/.bz2/.xz compressed) or a folder of them. Give
    every file of one import together: price histories, bets and resolution sets are matched
    to the markets of the other files, e.g.
      pastcast markets import --format forecastbench 2025-12-07-llm.json 2025-12-07_resolution_set.json --out fb/
    Every input record ends up in a table or in drops.parquet with a reason.
    """
    from pastcast.imports import import_markets

    _run_import(import_markets, fmt, inputs, out_dir)


@click.group()
def social() -> None:
    """Import social-media dumps."""


@_import_command(social, SOCIAL_FORMAT_NAMES, "posts.parquet, drops.parquet, import.json")
def social_import(fmt: str, inputs: tuple[str, ...], out_dir: str) -> None:
    """Read social-media dumps of one format into the normalised posts table.

    \b
    INPUT is a file (JSON, JSON lines; .zst/.gz/.bz2/.xz compressed) or a folder of them, e.g.
      pastcast social import --format reddit RC_2026-03.zst --out social/
    Deleted and removed posts, and records that are not posts, go to drops.parquet with a reason.
    """
    from pastcast.imports import import_social

    _run_import(import_social, fmt, inputs, out_dir)
