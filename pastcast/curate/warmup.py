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

# htmldate's last resort, dateparser, compiles every locale's patterns the first time a string
# matches none of them (about 2 s): do it here once, not in every worker.
try:
    import regex._main
    from htmldate.extractors import get_external_parser

    # dateparser's patterns for all locales outnumber the regex module's cache (500), so other
    # patterns evict them and each unparseable string recompiles hundreds (~1 s).
    regex._main._MAXCACHE = max(regex._main._MAXCACHE, 20_000)

    get_external_parser().get_date_data("3 Quux 2026")
except (ImportError, AttributeError):  # a library moved it: the workers warm up on their own, as before
    pass
