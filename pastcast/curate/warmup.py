"""Imported by the ingest worker pool's fork server: load once what every worker needs.

Workers fork from that server, so the imports, the language model and the date parsers'
lazily built tables are shared and ready, instead of costing each worker its first pages.
"""

from pastcast.curate.dating import date_html
from pastcast.curate.extract import detect_language, extract_html

_PAGE = ("<html><head><title>Warm up</title><meta property='article:published_time' "
         "content='2026-02-03T10:00:00+01:00'></head><body><article><p>Published 3 February 2026."
         "</p><p>" + "The council met on Tuesday to discuss the budget. " * 20 + "</p></article></body></html>")

detect_language("The council met on Tuesday to discuss the budget for the coming year.")
date_html(_PAGE, "https://warmup.example/2026/02/03/budget")
extract_html(_PAGE, "https://warmup.example/2026/02/03/budget")
