"""The snapshot: a new immutable version, its blocking checks, and LATEST moved only when they
all pass."""

import dagster as dg

from assets._partitions import WRITES
from assets._report import bad_input_is_final, warning
from assets._resources import PastcastStorage
from assets.markets import markets
from assets.news import article_corpus
from assets.questions import questions
from assets.social import posts
from pastcast import pipeline, snapshot as snapshots, stage_checks
from pastcast.daily import built_days
from pastcast.snapshot_checks import BLOCKING, CheckOutcome, needs_full_check, publish_if_sound, run_check


@dg.asset(group_name="snapshot", kinds={"parquet"}, deps=[article_corpus, questions, markets, posts],
          **WRITES, output_required=False,
          description="A new immutable snapshot version: every table, the days it covers, its parent (the "
                      "version LATEST points at). LATEST moves in `latest_snapshot`, after the checks. A build "
                      "whose tables are its parent's materializes nothing (an observation says unchanged).")
@bad_input_is_final
def snapshot(context: dg.AssetExecutionContext, storage: PastcastStorage):
    work = storage.work()
    if not built_days(work):  # e.g. dumps imported before the first day of news
        context.log.warning("no day of news is built yet, so no snapshot: run build_news for a day")
        return
    corpus = storage.corpus()
    parent = snapshots.latest_version(storage.snapshots_dir, storage.snapshot_name)
    folder = pipeline.snapshot(work, snapshots_dir=storage.snapshots_dir, name=storage.snapshot_name,
                               inputs=corpus.built_inputs(built_days(work)), config=storage.model_dump(),
                               publish=False, corpus=corpus, allow_input_loss=storage.allow_input_loss)
    manifest = snapshots.read_manifest(folder)
    if snapshots.is_unchanged_build(folder, parent):
        # no change, no version: nothing is materialized, so the checks, LATEST and the
        # evaluation downstream do not run; the build is observed against the parent
        line = f"unchanged: the tables are {parent}'s, so no new version (LATEST stays {parent})"
        context.log.info(line)
        context.log_event(dg.AssetObservation(asset_key=context.asset_key, metadata={
            "unchanged": True, "summary": line, "version": parent,
            "partitions": ", ".join(manifest["partitions"]["daily"]),
            **{f"rows/{t}": info["rows"] for t, info in manifest["tables"].items()}}))
        return
    yield dg.MaterializeResult(metadata={
        "unchanged": False,
        "version": manifest["version"],
        "parent_version": manifest["parent_version"] or "",
        "path": dg.MetadataValue.path(str(folder)),
        "window": f"{manifest['window']['start']}..{manifest['window']['end']}",
        "partitions": ", ".join(manifest["partitions"]["daily"]),
        **{f"rows/{t}": info["rows"] for t, info in manifest["tables"].items()},
        "drops_by_reason": dg.MetadataValue.json(manifest["drops_by_reason"]),
        "store/bytes_written": manifest["store"]["bytes_written"],
        "store/parts_shared": manifest["store"]["parts_shared"],
        "store/parts": manifest["store"]["parts"],
    })


@dg.asset_check(asset=snapshot, name="no_missing_days",
                description="Every day between the first and last built day that has WARC files is in the "
                            "snapshot (a warning); days with no file are listed, not failed.")
def no_missing_days(storage: PastcastStorage) -> dg.AssetCheckResult:
    days_with_files = storage.corpus().day_files.by_day
    return warning("no_missing_days", stage_checks.missing_days(storage.work(), days_with_files))


def _result(outcome: CheckOutcome) -> dg.AssetCheckResult:
    return dg.AssetCheckResult(passed=outcome.passed, metadata={
        "problems": outcome.problems, "examples": "; ".join(outcome.examples), **outcome.metadata})


def _blocking_check(name: str, run) -> dg.AssetChecksDefinition:
    @dg.asset_check(asset=snapshot, name=name, blocking=True, description=" ".join((run.__doc__ or name).split()))
    def check(storage: PastcastStorage) -> dg.AssetCheckResult:
        folder = pipeline.pending_snapshot(storage.work())
        return _result(run_check(name, folder, needs_full_check(folder)))

    return check


# One blocking check per rule of pastcast.snapshot_checks, on the version just written.
snapshot_checks = [*(_blocking_check(name, run) for name, run in BLOCKING.items()), no_missing_days]


@dg.asset(group_name="snapshot", deps=[snapshot], **WRITES,
          description="Moves the snapshot's LATEST pointer to the version just written; runs only when "
                      "the blocking checks passed (it reads their log and compares the manifest with the "
                      "files again, so it cannot be forced).")
@bad_input_is_final
def latest_snapshot(context: dg.AssetExecutionContext, storage: PastcastStorage) -> dg.MaterializeResult:
    folder = pipeline.pending_snapshot(storage.work())
    previous = snapshots.latest_version(storage.snapshots_dir, storage.snapshot_name)
    outcomes = publish_if_sound(folder, reuse_passed=True)  # the blocking checks ran just before
    failed = [o for o in outcomes if not o.passed]
    if failed:
        raise dg.Failure(description=f"{folder}: blocking checks failed, LATEST stays at {previous}: "
                                     + "; ".join(f"{o.name} ({o.problems}: {'; '.join(o.examples[:2])})" for o in failed),
                         allow_retries=False)  # the same version fails the same checks again
    context.log.info(f"LATEST {previous} -> {folder.name}")
    return dg.MaterializeResult(metadata={"name": storage.snapshot_name, "version": folder.name,
                                          "previous": previous or "", "path": dg.MetadataValue.path(str(folder))})
