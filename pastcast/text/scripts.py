"""How long a text is, in every script.

Counting words by spaces undercounts scripts written without them: a 600-character Japanese
article is "about 50 words" that way. Here a text's length is counted per script:

- scripts written with spaces (Latin, Cyrillic, Greek, Arabic, Hebrew, Devanagari, Hangul, ...):
  words, i.e. runs of letters and digits;
- Chinese characters and Japanese kana: one word unit per character, the convention of word
  processors for CJK text (a Chinese word is 1.5 characters on average, so this is the generous
  side: a real brief is never counted short);
- Thai, Lao, Khmer, Myanmar and Tibetan, written without spaces between words in alphabets
  of about ``CHARS_PER_WORD_SEGMENTED`` letters a word: letters divided by that.

A text mixing scripts adds the parts ("東京で G7 summit" is 2 + 2 word units).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# One word unit per character: Han (CJK unified ideographs and extensions, compatibility
# ideographs), hiragana, katakana (and its phonetic extensions and half-width forms).
_IDEOGRAPHIC = (
    "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uff66-\uff9f\U00020000-\U0003134f"
)
# Alphabets written without spaces between words: Thai, Lao, Tibetan, Myanmar, Khmer.
_SEGMENTED = "\u0e00-\u0e7f\u0e80-\u0eff\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff"
CHARS_PER_WORD_SEGMENTED = 4  # Thai words average 4-5 letters: the lower bound, never short

_IDEOGRAPHIC_CHAR = re.compile(f"[{_IDEOGRAPHIC}]")
_SEGMENTED_CHAR = re.compile(f"[{_SEGMENTED}]")
# a word of a spaced script: letters, digits and their combining marks, none of the above
_SPACED_WORD = re.compile(f"(?:(?![{_IDEOGRAPHIC}{_SEGMENTED}])[\\w\u0300-\u036f\u0900-\u0dff])+")


@dataclass(frozen=True)
class TextLength:
    """A text's length by kind of script."""

    words: int  # words of scripts written with spaces
    ideographs: int  # Han characters and kana
    segmented_letters: int  # letters of Thai, Lao, Khmer, Myanmar, Tibetan

    @property
    def word_units(self) -> int:
        """Words, with characters of unspaced scripts converted (see the module doc)."""
        return self.words + self.ideographs + self.segmented_letters // CHARS_PER_WORD_SEGMENTED

    @property
    def unspaced(self) -> bool:
        """Most of the text is in scripts written without spaces."""
        return self.ideographs + self.segmented_letters // CHARS_PER_WORD_SEGMENTED > self.words

    def describe(self) -> str:
        parts = [f"{self.word_units} word units"]
        if self.ideographs:
            parts.append(f"{self.ideographs} CJK characters")
        if self.segmented_letters:
            parts.append(f"{self.segmented_letters} Thai/Lao/Khmer/Myanmar/Tibetan letters")
        if self.words and len(parts) > 1:
            parts.append(f"{self.words} spaced words")
        return parts[0] if len(parts) == 1 else f"{parts[0]} ({', '.join(parts[1:])})"


def text_length(text: str | None) -> TextLength:
    """The length of ``text`` per kind of script (see the module doc)."""
    if not text:
        return TextLength(0, 0, 0)
    if text.isascii():  # most pages: skip the script scans
        return TextLength(len(_SPACED_WORD.findall(text)), 0, 0)
    return TextLength(len(_SPACED_WORD.findall(text)), len(_IDEOGRAPHIC_CHAR.findall(text)),
                      len(_SEGMENTED_CHAR.findall(text)))


def word_units(text: str | None) -> int:
    """``text_length(text).word_units``: the length used for ``word_count`` and ``too_short``."""
    return text_length(text).word_units
