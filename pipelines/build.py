"""Building a corpus in-process, as a deployment's first backfill would: the dumps first (the
assets no day depends on), then every crawl day of the corpus as one run of the daily assets
and everything downstream (a single-run backfill). Used by ``make demo`` and the end-to-end
tests."""

from __future__ import annotations

import dagster as dg

from assets._partitions import RANGE_END, RANGE_START
from pastcast.sources.crawl_days import DayFiles
from pipelines.jobs import DAILY_ASSETS, EVALUATION


def corpus_days(storage) -> list:
    """Crawl days of the corpus's WARC files."""
    return DayFiles.of(storage.corpus().warc).days()


def build_corpus(defs: dg.Definitions, instance: dg.DagsterInstance, resources: dict | None = None,
                 run_config: dict | None = None, days: list | None = None) -> list:
    """The runs' results, in order; stops after a failed run. ``resources`` override the
    definitions' (tests point storage at a temporary folder); ``days`` default to every crawl
    day of the corpus, run as one range."""
    resources = {**(defs.resources or {}), **(resources or {})}
    graph = defs.resolve_asset_graph()
    downstream = DAILY_ASSETS.downstream().resolve(graph)
    everything = (dg.AssetSelection.all() - EVALUATION).resolve(graph)
    first = dg.AssetSelection.assets(*(everything - downstream))
    rest = dg.AssetSelection.assets(*(everything & downstream))
    assets = [*defs.assets, *(defs.asset_checks or [])]
    results = [dg.materialize(assets, selection=first, resources=resources, instance=instance,
                              run_config=run_config, raise_on_error=False)]
    days = sorted(days if days is not None else corpus_days(resources["storage"]))
    if results[0].success and days:
        results.append(dg.materialize(assets, selection=rest, resources=resources, instance=instance,
                                      run_config=run_config, raise_on_error=False,
                                      tags={RANGE_START: days[0].isoformat(), RANGE_END: days[-1].isoformat()}))
    return results
