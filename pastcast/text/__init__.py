"""Text handling every stage shares, for every script: normalisation and tokens
(``normalise``), mentions of a phrase in a text (``mentions``), lengths of texts in scripts
written with or without spaces (``scripts``) and the English words stages read text with:
months, weekdays, stop words, hedges, yes/no (``vocabulary``, imported from there)."""

from pastcast.text.mentions import (Mention, contains_phrase, find_mention, mention_tokens,
                                    phrase_tokens, searchable)
from pastcast.text.normalise import (LEADING_ARTICLE, normalise, sentences, tokens,
                                     transliteration, word_count, words, written_without_spaces)

__all__ = ["LEADING_ARTICLE", "Mention", "contains_phrase", "find_mention", "mention_tokens",
           "normalise", "phrase_tokens", "searchable", "sentences", "tokens", "transliteration",
           "word_count", "words", "written_without_spaces"]
