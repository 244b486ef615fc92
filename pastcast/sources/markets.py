"""Prediction-market dumps into the ``markets`` and ``market_prices`` tables: one reader per
platform format, chosen by name (``pastcast markets import --format``)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from pathlib import Path

from pastcast.sources.imported import Imported

# format name -> "module:function"; each reader takes every input file of the import at once
# (price histories and resolution sets refer to markets defined in other files).
MARKET_FORMATS = {
    "manifold": "pastcast.sources.manifold:read_manifold",
    "polymarket": "pastcast.sources.polymarket:read_polymarket",
    "metaculus": "pastcast.sources.metaculus:read_metaculus",
    "kalshi": "pastcast.sources.kalshi:read_kalshi",
    "forecastbench": "pastcast.sources.forecastbench:read_forecastbench",
}


def reader(fmt: str, formats: dict[str, str] = MARKET_FORMATS) -> Callable[[Sequence[Path]], Imported]:
    try:
        module, func = formats[fmt].split(":")
    except KeyError:
        raise ValueError(f"unknown format {fmt!r}; known: {', '.join(sorted(formats))}") from None
    return getattr(importlib.import_module(module), func)


def read_markets(fmt: str, paths: Sequence[str | Path]) -> Imported:
    """Every file of one market format; tables ``markets`` and ``market_prices``."""
    return reader(fmt)([Path(p) for p in paths])
