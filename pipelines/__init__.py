"""The Dagster code location: definitions, resources, jobs, schedules and checks."""
