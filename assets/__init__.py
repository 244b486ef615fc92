"""Dagster assets, one module per stage. Thin: each calls one library stage.

The private modules are what the assets are wired with: ``_resources`` (the resources and
their environment), ``_partitions`` (daily partitions, retry policy), ``_executors`` (the
executor choice and the LLM pool), ``_report`` (stage reports to Dagster results). None
imports the code location (``pipelines``)."""
