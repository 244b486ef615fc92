"""Text normalisation shared by every stage, for every script.

One normaliser everywhere: a leak check and the scorer must agree on when two strings name the
same thing. ``tokens(text)`` is the list of normalised tokens; ``normalise(text)`` is them
joined by single spaces, a leading "the"/"a"/"an" dropped. The rules, in order:

1. NFKC: compatibility forms are unified (full-width "Ａ１" is "a1", the ligature "ﬁ" is "fi",
   half-width katakana is katakana, Arabic presentation forms are letters), then case folding
   ("ß" is "ss", the Greek final "ς" is "σ");
2. marks that writers commonly leave out are folded: diacritics on Latin, Greek and Cyrillic
   letters ("é", "ễ", "ά", "ё" lose them; the Cyrillic breve stays: "й" and "ў" are letters of
   their own, never written without it), Arabic tashkeel, hamza marks ("أ" is "ا", as search
   engines fold it) and the tatweel, Hebrew
   niqqud and cantillation, variation selectors and invisible format characters (soft hyphen,
   zero-width joiners, direction marks). Every other mark is part of its letter and stays:
   the Japanese dakuten ("が" is not "か"), Devanagari and Thai vowel signs, Hangul;
3. Latin letters without a decomposition are spelt in ASCII (``anyascii``): "ø" -> "o",
   "ł" -> "l", "đ" -> "d", "æ" -> "ae", "œ" -> "oe", "þ" -> "th", "ı" -> "i". Letters of every
   other script are kept as they are ("москва", "ελλαδα", "القاهرة", "北京");
4. apostrophes join ("O'Brien" -> "obrien"), thousands separators go ("1,000" -> "1000"),
   "&" is "and", "%" (and the Arabic "٪") is "percent", decimal digits of every script are
   ASCII digits ("٣" -> "3"), anything else that is not a letter, mark or digit separates tokens;
5. scripts written without spaces between words are split so that phrase search works on
   token sequences: every Han character, kana and CJK iteration mark is its own token
   ("東京都" -> "東 京 都"), and so is every letter of Thai, Lao, Khmer and Myanmar with its
   marks ("ไทย" -> "ไ ท ย"). Words of those scripts cannot be told apart without a
   dictionary, so a phrase of them is found inside a longer word; ``words`` keeps each such
   run as one word, for comparing names as sets of words.

Pure-ASCII text takes a fast path with the same result. ``transliteration`` gives the Latin
spelling of a name in an alphabetic script, for use as an extra alias only (see its doc).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from anyascii import anyascii

LEADING_ARTICLE = re.compile(r"^(?:the|a|an)\s+")
_THOUSANDS = re.compile(r"(?<=\d)[,\u066c](?=\d{3}(?:\D|$))")  # "1,000" -> "1000"
_APOSTROPHES = re.compile(r"['\u2018\u2019\u02bc`]")  # "O'Brien" -> "obrien", not "o brien"
_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def _class(*spans: tuple[int, int], categories: str = "") -> str:
    """A regex character class body of the code points in ``spans``; with ``categories``, only
    those whose general category starts with one of them (so punctuation inside a block of
    letters is left out)."""
    cat = unicodedata.category
    cps = [cp for lo, hi in spans for cp in range(lo, hi + 1)
           if not categories or cat(chr(cp))[0] in categories]
    runs: list[list[int]] = []
    for cp in cps:
        if runs and cp == runs[-1][1] + 1:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp])
    return "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
                   for a, b in runs)


# Han (CJK iteration marks and numerals, unified and compatibility ideographs and their
# extensions), hiragana and katakana (and their supplements): one token per character.
IDEOGRAPHIC = (_class((0x3005, 0x3007), (0x3021, 0x3029), (0x3031, 0x3035), (0x3038, 0x303C),
                      (0x3040, 0x30FF), (0x31F0, 0x31FF), (0xF900, 0xFAFF), (0xFF66, 0xFF9F),
                      (0x1B000, 0x1B16F),
                      categories="LN")
               + "\u3400-\u4dbf\u4e00-\u9fff\U00020000-\U000323af")  # blocks of letters only
# Alphabets written without spaces between words: Thai, Lao, Myanmar, Khmer. One token per
# letter with the marks that follow it. (Tibetan separates syllables with the tsheg, which is
# punctuation, so its syllables are tokens already.)
_SEGMENTED_BLOCKS = ((0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x19E0, 0x19FF),
                     (0xA9E0, 0xA9FF), (0xAA60, 0xAA7F))
SEGMENTED = _class(*_SEGMENTED_BLOCKS, categories="LN")
# Combining marks (of the Basic Multilingual Plane): a letter's marks stay with it.
MARKS = _class((0x0300, 0xFFFF), categories="M")
_UNSPACED_CHAR = re.compile(f"[{IDEOGRAPHIC}{SEGMENTED}]")
_IDEOGRAPHIC_CHAR = re.compile(f"[{IDEOGRAPHIC}]")
_UNSPACED_CLUSTER = re.compile(f"[{IDEOGRAPHIC}{SEGMENTED}][{MARKS}]*")

# Invisible format characters: soft hyphen, zero-width (non-)joiners, direction marks, tags.
IGNORABLE = "\u00ad\u061c\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\U000e0000-\U000e007f"
# Marks folded away after canonical decomposition (rule 2 of the module doc).
_FOLDED_MARKS = re.compile(
    "[\u0300-\u0305\u0307-\u036f\u0483-\u0489\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"
    "|(?<![\u0438\u0443])\u0306"  # the breve, except on и and у (й, ў)
    "|[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7\u06e8\u06ea-\u06ed"
    "\u08d3-\u08ff\u0640]"  # Arabic tashkeel, Quranic marks, tatweel
    "|[\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7]"  # Hebrew niqqud and cantillation
    "|[\ufe00-\ufe0f\U000e0100-\U000e01ef]"  # variation selectors
    f"|[{IGNORABLE}]"
)

_LATIN = ((0x00C0, 0x02FF), (0x1D00, 0x1DBF), (0x1E00, 0x1EFF), (0x2C60, 0x2C7F), (0xA720, 0xA7FF),
          (0xAB30, 0xAB6F), (0x1DF00, 0x1DFFF))
_SYMBOL_WORDS = {"&": " and ", "%": " percent ", "\u066a": " percent "}


def _fold_char(c: str) -> str:
    """What one character becomes after marks are folded (rules 3 and 4 of the module doc)."""
    if c in _SYMBOL_WORDS:
        return _SYMBOL_WORDS[c]
    if c.isascii():
        return c if c.isalnum() else " "
    category = unicodedata.category(c)
    if category == "Nd":
        return str(unicodedata.decimal(c))
    if category[0] not in "LMN":
        return " "
    cp = ord(c)
    if category[0] == "L" and any(lo <= cp <= hi for lo, hi in _LATIN):
        ascii_form = anyascii(c).lower()
        if ascii_form.isascii() and ascii_form.isalnum():
            return ascii_form
        return "" if category == "Lm" else c  # a modifier letter ("ʻ") is no letter of a word
    return c


class _CharTable(dict):
    """``str.translate`` table built on first sight of each character."""

    def __missing__(self, cp: int) -> str:
        out = self[cp] = _fold_char(chr(cp))
        return out


_CHARS = _CharTable()


def _fold_ascii(s: str) -> str:
    s = _THOUSANDS.sub("", s.lower())
    s = _APOSTROPHES.sub("", s).replace("&", " and ").replace("%", " percent ")
    return _NON_ALNUM.sub(" ", s).strip()


def _fold_unicode(s: str) -> str:
    s = unicodedata.normalize("NFKC", s).casefold()
    s = unicodedata.normalize("NFC", _FOLDED_MARKS.sub("", unicodedata.normalize("NFD", s)))
    s = _APOSTROPHES.sub("", _THOUSANDS.sub("", s)).translate(_CHARS)
    return " ".join(_UNSPACED_CLUSTER.sub(r" \g<0> ", s).split())


def _fold(s: str) -> str:
    """The normalised tokens of ``s`` joined by single spaces (no article dropped)."""
    return _fold_ascii(s) if s.isascii() else _fold_unicode(s)


def tokens(text: str | None) -> list[str]:
    """The normalised tokens of ``text`` (rules in the module doc); no article is dropped."""
    return _fold(text).split() if text else []


def normalise(s: str | None) -> str:
    """``tokens(s)`` joined by single spaces, a leading "the", "a" or "an" dropped."""
    if not s:
        return ""
    return LEADING_ARTICLE.sub("", _fold(s))


def written_without_spaces(s: str | None) -> bool:
    """Whether ``s`` has characters of a script written without spaces (Han, kana, Thai, ...)."""
    return bool(s) and not s.isascii() and _UNSPACED_CHAR.search(s) is not None


def words(s: str | None) -> list[str]:
    """The words of ``s``: ``tokens(s)``, except that each run of characters of a script
    written without spaces is one word ("東京 2026" -> ["東京", "2026"]). For comparing names
    as sets of words, where "京東" must not equal "東京". (``tokens`` of a normalised string
    are its own tokens: normalising twice changes nothing.)"""
    toks = tokens(s)
    if not written_without_spaces(" ".join(toks)):
        return toks
    out: list[str] = []
    run = False  # the last word is a run of unspaced characters
    for t in toks:
        unspaced = _UNSPACED_CHAR.match(t) is not None
        if unspaced and run:
            out[-1] += t
        else:
            out.append(t)
        run = unspaced
    return out


CJK_CHARS_PER_WORD = 2  # Chinese words average 1.5-2 characters: the fewer words, never more
SEGMENTED_LETTERS_PER_WORD = 4  # Thai words average 4-5 letters


def word_count(s: str | None) -> int:
    """How many words ``normalise(s)`` has: tokens of spaced scripts count one, runs of Han or
    kana one per ``CJK_CHARS_PER_WORD`` characters and runs of Thai, Lao, Khmer or Myanmar one
    per ``SEGMENTED_LETTERS_PER_WORD`` letters, rounded up (so "中华人民共和国" is 4 words)."""
    n = 0
    for w in words(normalise(s)):
        if _UNSPACED_CHAR.match(w) is None:
            n += 1
        else:
            per = CJK_CHARS_PER_WORD if _IDEOGRAPHIC_CHAR.match(w) else SEGMENTED_LETTERS_PER_WORD
            n += -(-len(_UNSPACED_CLUSTER.findall(w)) // per)
    return n


# -- transliteration ----------------------------------------------------------------------------

# Alphabets whose Latin spelling is close to one-to-one: Greek, Cyrillic, Armenian, Georgian.
# Never Han or kana (one pinyin or romaji spelling stands for many different names), nor the
# abjads (Arabic, Hebrew: the romanisation has to guess the vowels).
_TRANSLITERATED = re.compile(
    "[\u0370-\u03ff\u1f00-\u1fff\u0400-\u052f\u1c80-\u1c8f\u2de0-\u2dff\ua640-\ua69f"
    "\u0530-\u058f\ufb13-\ufb17\u10a0-\u10ff\u1c90-\u1cbf\u2d00-\u2d2f]")
_OTHER_SCRIPT_LETTER = re.compile(r"[^\W\d_a-z]")  # after normalise: a letter that is not ASCII


@lru_cache(maxsize=100_000)
def transliteration(s: str | None) -> str | None:
    """The normalised Latin spelling of a name written in Greek, Cyrillic, Armenian or Georgian
    letters (anyascii: "Москва" -> "moskva", "Ελλάδα" -> "ellada"), or None when ``s`` has no
    such letters or has letters of any other non-Latin script (Han and kana above all).

    An extra alias form only, never a replacement: compare the native forms first, and use a
    transliteration only when the other side is written in Latin letters, so that two
    different native names are never equal because their Latin spellings collide."""
    norm = normalise(s)
    if not norm or norm.isascii():
        return None
    letters = [c for c in norm if _OTHER_SCRIPT_LETTER.match(c)]
    if not letters or not all(_TRANSLITERATED.match(c) for c in letters):
        return None
    latin = normalise(anyascii(norm))
    return latin if latin and latin != norm else None


# -- sentences ------------------------------------------------------------------------------

# A sentence ends at ".", "!", "?", the Devanagari danda or the Arabic question mark followed by
# a space and a sentence start (not a lower-case letter), or at a CJK full stop, "！" or "？".
_SENTENCE_BREAK = re.compile(
    r"(?<=[.!?\u0964\u061f])\s+(?=[\"'\u201c\u00ab\u201e]|[^\W\d_])|(?<=[\u3002\uff01\uff1f])\s*(?=\S)")


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (see ``_SENTENCE_BREAK``), stripped, empty ones left out."""
    text = (text or "").replace("\n", " ")
    out, start = [], 0
    for m in _SENTENCE_BREAK.finditer(text):
        if text[m.start() - 1] not in "\u3002\uff01\uff1f" and text[m.end()].islower():  # "e.g. the"
            continue
        out.append(text[start:m.start()])
        start = m.end()
    out.append(text[start:])
    return [s.strip() for s in out if s.strip()]
