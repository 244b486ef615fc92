"""The bundled evaluation of a published snapshot version (launched by a sensor on each new one)."""

import dagster as dg

from assets._partitions import TRANSIENT
from assets._report import bad_input_is_final
from assets._resources import EvaluationSettings, PastcastStorage
from assets.snapshot import latest_snapshot
from pastcast.evaluate.batch import evaluate_agents
from pastcast.evaluate.leaderboard import leaderboard
from pastcast.snapshot import read_manifest, resolve


class EvaluateConfig(dg.Config):
    version: str = ""  # e.g. "v7"; empty: the version LATEST points at


@dg.asset(group_name="evaluation", deps=[latest_snapshot], retry_policy=TRANSIENT,
          description="The snapshot replayed day by day to the configured agents (default the offline "
                      "baselines), scored; one run folder per agent under the runs folder.")
@bad_input_is_final
def evaluation(context: dg.AssetExecutionContext, config: EvaluateConfig, storage: PastcastStorage,
               evaluation_settings: EvaluationSettings) -> dg.MaterializeResult:
    ref = f"{storage.snapshot_name}/{config.version}" if config.version else storage.snapshot_name
    folder = resolve(ref, storage.snapshots_dir)
    version = read_manifest(folder)["version"]
    out_root = evaluation_settings.out_root(storage.snapshot_name, version)
    dirs = evaluate_agents(folder, evaluation_settings.agent_list(), out_root,
                           on_agent=lambda agent, out: context.log.info(f"{agent}: {out}"))
    board = leaderboard(dirs)
    return dg.MaterializeResult(metadata={
        "version": version, "runs": dg.MetadataValue.path(str(out_root)),
        **{f"mean_bss/{r['agent']}": round(r["mean_bss"], 4) for r in board.iter_rows(named=True)},
        "leaderboard": dg.MetadataValue.md(_markdown(board)),
    })


def _markdown(board) -> str:
    columns = [c for c in ("agent", "mean_bss", "accuracy", "forecast", "questions") if c in board.columns]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in board.iter_rows(named=True):
        lines.append("| " + " | ".join(f"{row[c]:.3f}" if isinstance(row[c], float) else str(row[c])
                                       for c in columns) + " |")
    return "\n".join(lines)
