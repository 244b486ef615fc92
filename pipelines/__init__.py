"""The Dagster code location: the definitions assembled from ``assets``, with jobs, schedules and
sensors. It imports the assets and their resources, partitions and executor choice; nothing in
``assets`` imports it."""
