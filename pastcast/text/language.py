"""Which language a text is in, and its words as stems of that language.

``detect_language`` is py3langid (its model ships in the wheel: nothing is fetched) on up to
1,000 characters, None when it is not confident: what ingest stamps articles with.

``language_of`` is for short texts such as a question's title, where an unrestricted guess is
often wrong ("Will the UAW endorse Kamala Harris by July 2024?" scores 0.18 for English): the
script decides where it can (Han and kana, Hangul, Greek, Arabic, Hebrew, Thai; Cyrillic is
Russian unless letters of the Serbian or Ukrainian alphabet say otherwise), and otherwise the
identifier chooses among the Latin-script languages ``STEMMERS`` covers.

``stems`` runs the Snowball stemmer of a language (tantivy's, already the search index's
English analyzer) over a text's words, so "unterzeichnen" and "unterzeichnet", "подписать" and
"подписал", "signed" and "signing" compare equal; a language without a stemmer gives lower-case
words. Texts of scripts written without spaces have no words to stem: see
``pastcast.text.normalise`` (one token per character).
"""

from __future__ import annotations

import re
from functools import lru_cache

import tantivy

# ISO 639-1 code -> tantivy's (Snowball) stemmer name
STEMMERS = {"en": "english", "de": "german", "fr": "french", "es": "spanish", "it": "italian",
            "pt": "portuguese", "nl": "dutch", "sv": "swedish", "da": "danish", "no": "norwegian",
            "fi": "finnish", "hu": "hungarian", "ro": "romanian", "tr": "turkish", "ru": "russian",
            "el": "greek", "ar": "arabic"}
_SCRIPTS = (  # (language, pattern): decided by the script alone
    ("ja", re.compile(r"[\u3040-\u30ff]")),  # kana: Japanese, even among Han characters
    ("zh", re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")),
    ("ko", re.compile(r"[\uac00-\ud7af]")),
    ("el", re.compile(r"[\u0370-\u03ff]")),
    ("ar", re.compile(r"[\u0600-\u06ff]")),
    ("he", re.compile(r"[\u0590-\u05ff]")),
    ("th", re.compile(r"[\u0e00-\u0e7f]")),
)
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
# letters only one Cyrillic alphabet has (the identifier takes a Russian title for Serbian)
_CYRILLIC_LETTERS = (("sr", re.compile(r"[ђјљњћџЂЈЉЊЋЏ]")), ("uk", re.compile(r"[іїєґІЇЄҐ]")))
_LATIN_CHOICES = ["en", "de", "fr", "es", "it", "pt", "nl", "sv", "da", "no", "fi", "hu", "ro", "tr"]


@lru_cache(maxsize=1)
def _identifier():
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def detect_language(text: str) -> str | None:
    """py3langid's language of ``text`` (its first 1,000 characters), None below 0.5."""
    if not text:
        return None
    lang, prob = _identifier().classify(text[:1000])  # plenty for a confident call
    return lang if prob >= 0.5 else None


@lru_cache(maxsize=4)
def _restricted(choices: tuple[str, ...]):
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(choices))
    return identifier


def language_of(text: str) -> str:
    """The language of a short text: by its script where that decides, else the identifier's
    choice among the languages with a stemmer ("en" for an empty text)."""
    text = text or ""
    for lang, pattern in _SCRIPTS:
        if pattern.search(text):
            return lang
    if _CYRILLIC.search(text):
        return next((lang for lang, letters in _CYRILLIC_LETTERS if letters.search(text)), "ru")
    if not re.search(r"[^\W\d_]", text):
        return "en"
    return _restricted(tuple(_LATIN_CHOICES)).classify(text[:1000])[0]


@lru_cache(maxsize=32)
def _analyzer(lang: str):
    builder = (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
               .filter(tantivy.Filter.remove_long(40)).filter(tantivy.Filter.lowercase()))
    if lang in STEMMERS:
        builder = builder.filter(tantivy.Filter.stemmer(STEMMERS[lang]))
    return builder.build()


def stems(text: str, lang: str) -> list[str]:
    """The stems of ``text``'s words in ``lang`` (lower-case words where it has no stemmer)."""
    return _analyzer(lang).analyze(text or "")
