"""The versioned snapshot and its blocking checks."""

import dagster as dg
import polars as pl

from assets.markets import markets
from assets.news import articles
from assets.questions import questions
from assets.social import posts
from pastcast import pipeline, snapshot as snapshots
from pastcast.questions.filter import revision_problems, snapshot_leaks
from pastcast.questions.markets import market_question_problems
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
                description="No question shows its own answer (or an alias, abbreviation, surname or "
                            "near spelling) in its title, background or resolution criteria.")
def no_answer_in_own_text(storage: PastcastStorage) -> dg.AssetCheckResult:
    leaks = snapshot_leaks(pl.read_parquet(_latest(storage) / "questions.parquet"))["self"]
    return dg.AssetCheckResult(passed=not leaks, metadata={"leaking_questions": len(leaks),
                                                           "examples": "; ".join(leaks[:5])})


@dg.asset_check(asset=snapshot, blocking=True,
                description="No question's answer appears in the visible text of another question open "
                            "at the same time.")
def no_answer_in_other_questions(storage: PastcastStorage) -> dg.AssetCheckResult:
    pairs = snapshot_leaks(pl.read_parquet(_latest(storage) / "questions.parquet"))["cross"]
    return dg.AssetCheckResult(passed=not pairs, metadata={"pairs": len(pairs), "examples": "; ".join(pairs[:5])})


@dg.asset_check(asset=snapshot, blocking=True,
                description="Every revised resolution date is backed by stored evidence: articles in the "
                            "snapshot, the earliest published on the new date.")
def revised_dates_have_evidence(storage: PastcastStorage) -> dg.AssetCheckResult:
    folder = _latest(storage)
    questions = pl.read_parquet(folder / "questions.parquet")
    problems = revision_problems(questions, pl.read_parquet(folder / "articles.parquet",
                                                            columns=["article_id", "published_at"]))
    revised = questions.filter(pl.col("resolution_date") != pl.col("original_resolution_date")).height
    return dg.AssetCheckResult(passed=not problems, metadata={"revised": revised, "problems": len(problems),
                                                              "examples": "; ".join(problems[:5])})


@dg.asset_check(asset=snapshot, blocking=True,
                description="Market questions open after their market existed and reveal the answer "
                            "no earlier than the market resolved.")
def market_questions_follow_their_markets(storage: PastcastStorage) -> dg.AssetCheckResult:
    folder = _latest(storage)
    problems = market_question_problems(pl.read_parquet(folder / "questions.parquet"),
                                        pl.read_parquet(folder / "markets.parquet"))
    return dg.AssetCheckResult(passed=not problems, metadata={"problems": len(problems),
                                                              "examples": "; ".join(problems[:5])})
