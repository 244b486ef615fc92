"""The versioned snapshot and its blocking checks."""

import dagster as dg
import polars as pl

from assets.markets import markets
from assets.news import articles
from assets.questions import questions
from assets.social import posts
from pastcast import pipeline, snapshot as snapshots
from pastcast.questions.markets import market_question_problems
from pastcast.questions.validate import leaks_in_own_text
from pipelines.resources import PastcastStorage


@dg.asset(group_name="snapshot", kinds={"parquet"}, deps=[articles, questions, markets, posts],
          description="A new immutable snapshot version with its manifest; LATEST points to it.")
def snapshot(storage: PastcastStorage) -> dg.MaterializeResult:
    folder = pipeline.snapshot(storage.work(), snapshots_dir=storage.snapshots_dir,
                               name=storage.snapshot_name, inputs=storage.corpus().all(),
                               config=storage.model_dump())
    manifest = snapshots.read_manifest(folder)
    return dg.MaterializeResult(metadata={
        "version": manifest["version"],
        "parent_version": manifest["parent_version"] or "",
        "path": dg.MetadataValue.path(str(folder)),
        "window": f"{manifest['window']['start']}..{manifest['window']['end']}",
        **{f"rows/{t}": info["rows"] for t, info in manifest["tables"].items()},
        "drops_by_reason": dg.MetadataValue.json(manifest["drops_by_reason"]),
    })


def _latest(storage: PastcastStorage):
    return snapshots.resolve(storage.snapshot_name, root=storage.snapshots_dir)


@dg.asset_check(asset=snapshot, blocking=True,
                description="Every table's row count and sha256 match the manifest.")
def manifest_matches_files(storage: PastcastStorage) -> dg.AssetCheckResult:
    problems = snapshots.verify(_latest(storage))
    return dg.AssetCheckResult(passed=not problems, metadata={"problems": "; ".join(problems)})


@dg.asset_check(asset=snapshot, blocking=True,
                description="No question shows its own answer in its title, background or criteria.")
def no_answer_in_own_text(storage: PastcastStorage) -> dg.AssetCheckResult:
    leaks = leaks_in_own_text(pl.read_parquet(_latest(storage) / "questions.parquet"))
    return dg.AssetCheckResult(passed=not leaks, metadata={"leaking_questions": len(leaks),
                                                           "examples": ", ".join(leaks[:10])})


@dg.asset_check(asset=snapshot, blocking=True,
                description="Market questions open after their market existed and reveal the answer "
                            "no earlier than the market resolved.")
def market_questions_follow_their_markets(storage: PastcastStorage) -> dg.AssetCheckResult:
    folder = _latest(storage)
    problems = market_question_problems(pl.read_parquet(folder / "questions.parquet"),
                                        pl.read_parquet(folder / "markets.parquet"))
    return dg.AssetCheckResult(passed=not problems, metadata={"problems": len(problems),
                                                              "examples": "; ".join(problems[:5])})
