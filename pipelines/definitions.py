"""The one place where the Dagster definitions are assembled."""

import dagster as dg

from assets import evaluation, markets, news, questions, snapshot, social
from assets._executors import executor_from_env
from assets._resources import evaluation_from_env, filter_from_env, generator_from_env, storage_from_env
from pipelines.jobs import build_news_job, build_snapshot_job, evaluate_job, import_dumps_job
from pipelines.maintenance import snapshot_gc_job
from pipelines.schedules import nightly_rebuild
from pipelines.sensors import changed_dumps, evaluate_new_snapshots, new_warc_files

defs = dg.Definitions(
    assets=dg.load_assets_from_modules([news, markets, social, questions, snapshot, evaluation]),
    asset_checks=snapshot.snapshot_checks,
    jobs=[build_news_job, import_dumps_job, build_snapshot_job, evaluate_job, snapshot_gc_job],
    schedules=[nightly_rebuild],
    sensors=[new_warc_files, changed_dumps, evaluate_new_snapshots],
    resources={"storage": storage_from_env(), "generator": generator_from_env(),
               "question_filter": filter_from_env(), "evaluation_settings": evaluation_from_env()},
    executor=executor_from_env(),
)
