"""The ``pastcast`` command line: ``main`` and its commands, one module per group, each over
library calls (``_shared`` holds the consoles, the progress bar and the error handling):

  demo       demo, build                   (the Dagster demo from a checkout; the stages without it)
  curate     ingest, dedup
  imports    markets import, social import
  questions  questions generate, questions filter
  snapshot   snapshot list, show, verify, check, diff
  evaluate   eval run, serve, score, leaderboard, compare, aggregate, report
  native     eval mcp, eval harness         (agents in their own harnesses, over MCP)
"""

from __future__ import annotations

import click

from pastcast.cli import curate, demo, evaluate, imports, native, questions, snapshot


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="pastcast")
def main() -> None:
    """pastcast builds date-gated forecasting benchmarks from news and replays them to agents.

    \b
    Quick start:
      pastcast demo                      build the sample snapshot with Dagster and score baselines
      pastcast snapshot list             the snapshot versions under ./snapshots
      pastcast eval run --snapshot snapshots/sample/v1 --agent retrieval --out runs/r1
    """


for command in (demo.demo, demo.build, curate.ingest, curate.dedup, imports.markets, imports.social,
                questions.questions, snapshot.snapshot, evaluate.eval_group):
    main.add_command(command)
del command
for command in (native.eval_mcp, native.eval_harness):
    evaluate.eval_group.add_command(command)
del command
