"""Forecasting questions, the stage after curation: generation (offline extractive, LLM,
market-derived), then the filter (validation, leakage, question dedup, resolution-date
revision, difficulty). Imports sources, curate and the shared layers; never the evaluator."""
