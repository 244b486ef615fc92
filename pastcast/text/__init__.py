"""Text handling every stage shares, for every script: normalisation (``normalise``), mentions
of a phrase in a text (``mentions``) and lengths of texts in scripts written with or without
spaces (``scripts``)."""

from pastcast.text.normalise import LEADING_ARTICLE, contains_phrase, normalise, sentences

__all__ = ["LEADING_ARTICLE", "contains_phrase", "normalise", "sentences"]
