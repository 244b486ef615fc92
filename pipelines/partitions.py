"""Partitions of the asset graph."""

import dagster as dg

# Publication days (UTC). CC-NEWS starts in August 2016; a fixed literal start keeps the keys
# stable. The last partition is yesterday: a day is complete before its questions are built.
DAILY = dg.DailyPartitionsDefinition(start_date="2016-08-01", timezone="UTC")
