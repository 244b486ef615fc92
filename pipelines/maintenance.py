"""Maintenance jobs: retention of snapshot versions."""

import dagster as dg

from assets._executors import writer_pool
from assets._resources import PastcastStorage
from pastcast.snapshot_gc import collect_garbage
from pipelines.jobs import WRITES_TAGS


class RetentionConfig(dg.Config):
    keep: int = 5  # the last published versions kept (LATEST always among them)
    dry_run: bool = False  # report what would go, remove nothing


@dg.op(pool=writer_pool(), description="Removes the versions beyond the last `keep` published ones and the parts only they "
                   "referenced (`pastcast snapshot gc`); never a part a kept version names.")
def collect_snapshot_garbage(context: dg.OpExecutionContext, config: RetentionConfig,
                             storage: PastcastStorage) -> dg.Output[None]:
    try:
        result = collect_garbage(storage.snapshots_dir, storage.snapshot_name, config.keep, dry_run=config.dry_run)
    except (ValueError, FileNotFoundError) as exc:  # a bad keep, no such snapshot, an unreadable manifest
        raise dg.Failure(description=str(exc), allow_retries=False) from exc
    verb = "would remove" if config.dry_run else "removed"
    context.log.info(f"{storage.snapshot_name}: {verb} {len(result.removed_versions)} versions and "
                     f"{result.removed_parts} parts ({result.freed_bytes} bytes); kept {result.kept_versions}")
    return dg.Output(None, metadata={
        "removed_versions": dg.MetadataValue.json(result.removed_versions),
        "kept_versions": dg.MetadataValue.json(result.kept_versions),
        "removed_parts": result.removed_parts, "freed_bytes": result.freed_bytes, "dry_run": config.dry_run})


# One writer of the store at a time: gc queues behind a build (the tag's limit of 1).
@dg.job(name="snapshot_gc", tags=WRITES_TAGS,
        description="Retention: keep the last N published snapshot versions, remove the rest and their "
                    "unshared parts.")
def snapshot_gc_job():
    collect_snapshot_garbage()
