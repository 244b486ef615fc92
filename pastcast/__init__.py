"""pastcast: date-gated forecasting benchmarks from real news, and a replay evaluator.

The library is plain Python over polars frames; it never imports Dagster.
"""

__version__ = "0.3.0"
