"""The ingest's drop policy in numbers, kept apart so the CLI reads them without importing the
extractor.

Every drop must be a page that is not a usable article (boilerplate only, a caption or link
list, a page with no date, a date after its crawl), never a short real article. Values are
chosen on the tuning half of the gold sets (split by publisher) and reported on the held-out
half: ``bench/drop_policy.py`` and bench/README.md.
"""

# Below this many word units (words; each Chinese or Japanese character counts one, see
# pastcast.text.scripts) the main text is a caption, teaser or link list, not an article.
MIN_WORD_UNITS = 20

# Pages dated long before their crawl (archive pages crawled again) are kept with their true
# date: the date gate shows them from that date on. A number of days here drops them.
MAX_AGE_DAYS: int | None = None
