"""Search queries from question titles: the content words, stop words left out."""

from __future__ import annotations

import re

from pastcast.text import vocabulary

# The shared stop words and more English function words, "yes" and "no".
STOPWORDS = vocabulary.STOPWORDS | frozenset(
    """above again against all am any below both cent doing down during each few further had has
    have having he here hers him i itself just me more most my no now off once only other our out
    own same she so some such then through too until up very we while yes you your""".split()
)
WORD = re.compile(r"[\w'’-]+", re.UNICODE)


def keywords(text: str) -> list[str]:
    """Content words of a question title, for the search query."""
    return [w for w in WORD.findall(text or "") if w.lower() not in STOPWORDS]
