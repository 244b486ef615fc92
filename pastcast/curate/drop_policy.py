"""The ingest's drop policy in numbers, kept apart so the CLI reads them without importing the
extractor.

Every drop must be a page that is not a usable article (boilerplate only, a caption or link
list), never a short real article. Values are
chosen on the tuning half of the gold sets (split by publisher) and reported on the held-out
half: ``bench/drop_policy.py`` and bench/README.md.
"""

# Below this many word units (words; Chinese and Japanese two characters a word, see
# pastcast.text.scripts) the main text is a caption, teaser or link list, not an article. The
# shortest tuning-half article holding its gold content has 22, less a 20% margin: 17. On the
# held-out half it drops no such article (the shortest has 45); the former rule (60 runs of
# word characters) dropped 13 of these 1,233.
MIN_WORD_UNITS = 17

# Pages dated long before their crawl (archive pages crawled again) are kept with their true
# date (never served: pastcast.search.visibility). A number of days here drops them.
MAX_AGE_DAYS: int | None = None

# A page with no plausible date of its own (no signal, or only dates after its crawl) is kept,
# dated by its crawl (date_source "crawl"): WARC-Date bounds publication from above, so served
# from then on it shows nothing early. Its day is a bound, not a reading, so it is never a
# question's source (pastcast.search.visibility.question_source). "drop" drops it as ``no_date`` /
# ``implausible_date``. Dropping cost the plain-library parity on the held-out half of the
# trafilatura set (20 of 449 pages, 16 of them with all their gold snippets): bench/README.md.
UNDATED = "crawl"
UNDATED_CHOICES = ("crawl", "drop")
