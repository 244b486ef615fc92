"""Curation stages: extract text, date pages, filter and deduplicate articles."""
