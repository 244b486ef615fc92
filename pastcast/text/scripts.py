"""How long a text is, in every script.

Counting words by spaces undercounts scripts written without them: a 600-character Japanese
article is "about 50 words" that way. Here a raw text's length (an article's main text) is
counted per script, with the script classes and rates of ``pastcast.text.normalise`` (one
definition for article lengths and answer lengths):

- scripts written with spaces (Latin, Cyrillic, Greek, Arabic, Hebrew, Devanagari, Hangul, ...):
  words, i.e. runs of letters and digits with their marks;
- Chinese characters and Japanese kana: one word per ``CJK_CHARS_PER_WORD`` characters (a
  Chinese word averages 1.5-2 characters: this is the generous side, never too few words);
- Thai, Lao, Khmer and Myanmar, alphabets written without spaces between words: one word per
  ``SEGMENTED_LETTERS_PER_WORD`` letters.

A text mixing scripts adds the parts ("東京で G7 summit" is 2 + 2 word units).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pastcast.text.normalise import CJK_CHARS_PER_WORD, IDEOGRAPHIC, MARKS, SEGMENTED, SEGMENTED_LETTERS_PER_WORD

_IDEOGRAPHIC_CHAR = re.compile(f"[{IDEOGRAPHIC}]")
_SEGMENTED_CHAR = re.compile(f"[{SEGMENTED}]")
# a word of a spaced script: letters and digits (with their marks) of none of the classes above
_SPACED_WORD = re.compile(f"(?:(?![{IDEOGRAPHIC}{SEGMENTED}])\\w[{MARKS}]*)+")
_ASCII_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class TextLength:
    """A text's length by kind of script."""

    words: int  # words of scripts written with spaces
    ideographs: int  # Han characters and kana
    segmented_letters: int  # letters of Thai, Lao, Khmer, Myanmar

    @property
    def word_units(self) -> int:
        """Words, with characters of unspaced scripts converted (see the module doc)."""
        return (self.words + -(-self.ideographs // CJK_CHARS_PER_WORD)
                + -(-self.segmented_letters // SEGMENTED_LETTERS_PER_WORD))

    @property
    def unspaced(self) -> bool:
        """Most of the text is in scripts written without spaces."""
        return self.word_units - self.words > self.words

    def describe(self) -> str:
        parts = []
        if self.ideographs:
            parts.append(f"{self.ideographs} CJK characters")
        if self.segmented_letters:
            parts.append(f"{self.segmented_letters} Thai/Lao/Khmer/Myanmar letters")
        if parts and self.words:
            parts.append(f"{self.words} spaced words")
        return f"{self.word_units} word units" + (f" ({', '.join(parts)})" if parts else "")


def text_length(text: str | None) -> TextLength:
    """The length of ``text`` per kind of script (see the module doc)."""
    if not text:
        return TextLength(0, 0, 0)
    if text.isascii():  # most pages: skip the script scans
        return TextLength(len(_ASCII_WORD.findall(text)), 0, 0)
    return TextLength(len(_SPACED_WORD.findall(text)), len(_IDEOGRAPHIC_CHAR.findall(text)),
                      len(_SEGMENTED_CHAR.findall(text)))


def word_units(text: str | None) -> int:
    """``text_length(text).word_units``: the length used for ``word_count`` and ``too_short``."""
    return text_length(text).word_units
