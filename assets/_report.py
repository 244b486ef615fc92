"""Stage reports to MaterializeResult metadata (shared by every asset)."""

from __future__ import annotations

import dagster as dg

from pastcast.pipeline import StageReport


def materialized(report: StageReport) -> dg.MaterializeResult:
    metadata: dict = {k: v for k, v in report.as_metadata().items() if not isinstance(v, dict)}
    metadata.update({k: dg.MetadataValue.json(v) for k, v in report.extra.items() if isinstance(v, dict)})
    metadata.update({f"path/{k}": dg.MetadataValue.path(v) for k, v in report.outputs.items()})
    metadata["dagster/row_count"] = report.extra.get("table_rows", report.rows_out)
    return dg.MaterializeResult(metadata=metadata)
