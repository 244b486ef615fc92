"""Readers that turn raw inputs (WARC files, market and social dumps) into rows and drops: the
first stage, importing only the shared layers."""
