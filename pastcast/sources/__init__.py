"""Readers that turn raw inputs (WARC files, market and social dumps) into rows and drops."""
