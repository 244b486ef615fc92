"""The one place where the Dagster definitions are assembled."""

import dagster as dg

from assets import markets, news, questions, snapshot, social
from pipelines.jobs import build_snapshot_job, nightly_rebuild
from pipelines.resources import filter_from_env, generator_from_env, storage_from_env

defs = dg.Definitions(
    assets=dg.load_assets_from_modules([news, markets, social, questions, snapshot]),
    asset_checks=dg.load_asset_checks_from_modules([snapshot]),
    jobs=[build_snapshot_job],
    schedules=[nightly_rebuild],
    resources={"storage": storage_from_env(), "generator": generator_from_env(),
               "question_filter": filter_from_env()},
)
