"""pastcast: date-gated forecasting benchmarks from real news, and a replay evaluator.

The library is plain Python over polars frames; it never imports Dagster. Its stages run one
way, each importing only earlier stages and the shared layers (``tests/test_layers.py``):

  sources -> curate -> questions -> snapshot -> evaluate    (then daily, pipeline, stage_checks, cli)

Shared layers below every stage, importing no stage: ``text`` (normalisation, mentions,
lengths per script, vocabularies), ``search`` (the date-gated index, what may be served and
from when, query keywords), ``matching`` (answer matching), ``llm`` (the one litellm caller),
``retry``, ``io``, ``schemas``, ``drops``. Questions and evaluate never import each other.
"""

__version__ = "0.3.0"
