"""Building every asset of a corpus in-process: the corpus first (unpartitioned assets), then
every publication day it holds as one run of the daily assets and everything downstream (a
single-run backfill). Used by ``make demo`` and the end-to-end tests."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from pastcast.pipeline import article_days

RANGE_START, RANGE_END = "dagster/asset_partition_range_start", "dagster/asset_partition_range_end"


def _split(defs: dg.Definitions) -> tuple[list[dg.AssetKey], list[dg.AssetKey]]:
    """(keys not downstream of a partitioned asset, the rest)."""
    graph = defs.resolve_asset_graph()
    keys = list(graph.get_all_asset_keys())
    daily = {k for k in keys if graph.get(k).partitions_def is not None}

    def downstream(key: dg.AssetKey) -> bool:
        todo, seen = list(graph.get(key).parent_keys), set()
        while todo:
            k = todo.pop()
            if k in daily:
                return True
            if k not in seen:
                seen.add(k)
                todo.extend(graph.get(k).parent_keys)
        return False

    first = [k for k in keys if k not in daily and not downstream(k)]
    return first, [k for k in keys if k not in first]


def build_corpus(defs: dg.Definitions, instance: dg.DagsterInstance, work_dir: str | Path,
                 resources: dict | None = None, run_config: dict | None = None) -> list:
    """The runs' results, in order; stops after a failed run. ``resources`` override the
    definitions' (tests point storage at a temporary folder)."""
    first, rest = _split(defs)
    assets = [*defs.assets, *defs.asset_checks]
    resources = {**(defs.resources or {}), **(resources or {})}
    results = [dg.materialize(assets, selection=first, resources=resources, instance=instance,
                              run_config=run_config, raise_on_error=False)]
    days = article_days(Path(work_dir)) if results[0].success else []
    if days:
        results.append(dg.materialize(assets, selection=rest, resources=resources, instance=instance,
                                      run_config=run_config, raise_on_error=False,
                                      tags={RANGE_START: days[0].isoformat(), RANGE_END: days[-1].isoformat()}))
    return results
