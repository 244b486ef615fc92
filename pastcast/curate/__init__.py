"""Curation, the stage after sources: extract text, date pages, apply the drop policy and
deduplicate articles. Imports sources and the shared layers only."""
