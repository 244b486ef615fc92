"""Forecasting questions: generation (offline extractive, market-derived), validation."""
