"""The shared text layer in every script: one normaliser (letters of every script kept, safe
accent folding, NFKC), tokens for scripts written without spaces, the one mention finder, and
transliteration as an extra alias only."""

import random
import unicodedata

import pytest

from pastcast.text import (contains_phrase, find_mention, mention_tokens, normalise, searchable,
                           sentences, tokens, transliteration, word_count, words,
                           written_without_spaces)
from pastcast.text.mentions import Doc
from pastcast.text.normalise import _fold_ascii, _fold_unicode

# -- the normaliser -------------------------------------------------------------------------


@pytest.mark.parametrize("raw, expected", [
    ("Москва", "москва"),
    ("Ødegaard", "odegaard"),
    ("Łukasz", "lukasz"),
    ("Nguyễn", "nguyen"),
    ("Ελλάδα", "ελλαδα"),
    ("ΕΛΛΆΔΑ", "ελλαδα"),  # tonos folded, capitals case-folded
    ("القاهرة", "القاهرة"),
    ("الْقَاهِرَة", "القاهرة"),  # tashkeel folded
    ("שָׁלוֹם", "שלום"),  # niqqud folded
    ("北京", "北 京"),  # every Han character is a token
    ("東京都", "東 京 都"),
    ("がっこう", "が っ こ う"),  # the dakuten stays: が is not か
    ("ｶﾞｯｺｳ", "ガ ッ コ ウ"),  # NFKC: half-width katakana
    ("Ａ１ ﬁnance", "a1 finance"),  # NFKC: full-width forms and ligatures
    ("İstanbul", "istanbul"),
    ("Straße", "strasse"),
    ("Đorđe Þórsson Æsir Œuvre", "dorde thorsson aesir oeuvre"),
    ("Йошкар-Ола", "йошкар ола"),  # the breve stays: й is a letter of its own
    ("Ёлка", "елка"),  # but ё is commonly written е
    ("भारत की राजधानी", "भारत की राजधानी"),  # Devanagari vowel signs stay
    ("Mos\u00adcow", "moscow"),  # a soft hyphen is invisible
    ("٣٬٠٠٠ ٪", "3000 percent"),  # Arabic-Indic digits, thousands separator and percent sign
    ("O’Brien & Ødegaard’s 45%", "obrien and odegaards 45 percent"),
    ("The Élysée", "elysee"),
])
def test_normalise_keeps_every_script(raw, expected):
    assert normalise(raw) == expected


def test_thai_keeps_its_marks_and_splits_per_letter():
    toks = tokens("ไทยแลนด์")
    assert "".join(toks) == "ไทยแลนด์" and len(toks) == 7 and toks[-1] == "ด์"


# A pool of words in many scripts, for the properties below.
POOL = ["Москва", "Ødegaard", "Łukasz", "Nguyễn", "Ελλάδα", "القاهرة", "北京", "東京都", "がっこう",
        "서울", "भारत", "ไทยแลนด์", "O'Brien", "Okafor's", "3,500.50", "45%", "per cent", "AT&T",
        "Ａ１", "ﬁnance", "İstanbul", "Straße", "Йошкар-Ола", "שלום", "Zürich", "2026", "the", "—",
        "«Спартак»", "(KBR)", "我今天去北京了", "Ꭰ", "¿Qué?", "e.g.", "Ūnus", "ǅemal", "ｶﾞｯｺｳ"]


def _texts(n, seed):
    rng = random.Random(seed)
    for _ in range(n):
        yield rng.choice([" ", "", ", ", ". "]).join(rng.choice(POOL) for _ in range(rng.randrange(1, 8)))


def _ascii_texts(n, seed):
    rng = random.Random(seed)
    alphabet = "abcXYZ019 ,.'`&%-_!?()\"/:;\t\n"
    for _ in range(n):
        yield "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))


def test_the_ascii_fast_path_agrees_with_the_unicode_path():
    for s in _ascii_texts(2000, seed=1):
        assert _fold_ascii(s) == _fold_unicode(s), s


def test_tokens_are_a_fixed_point():
    for s in _texts(500, seed=2):
        toks = tokens(s)
        assert tokens(" ".join(toks)) == toks, s
        assert normalise(normalise(s)) == normalise(s) or normalise(s).startswith(("the ", "a ", "an "))


def test_no_letter_is_lost():
    """Every word with a letter keeps a token, in every script; case never matters."""
    for w in POOL:
        if any(unicodedata.category(c)[0] == "L" for c in w):
            assert tokens(w), w
        assert tokens(w.upper()) == tokens(w.lower()) or w in ("Straße",), w


def test_unspaced_scripts_give_one_token_per_character():
    assert tokens("我今天去北京了") == list("我今天去北京了")
    assert tokens("東京で G7 summit") == ["東", "京", "で", "g7", "summit"]
    assert written_without_spaces("東京") and not written_without_spaces("Moskva Москва")


def test_words_keep_runs_of_unspaced_characters_together():
    assert words("東京 2026") == ["東京", "2026"]
    assert words("北 京") == ["北京"]
    assert words("Ana Ruiz") == ["ana", "ruiz"]


@pytest.mark.parametrize("raw, n", [
    ("Ana María Ruiz", 3), ("The Hague", 1), ("中华人民共和国", 4), ("李娜", 1), ("王伟", 1),
    ("北京 Olympic Park", 3), ("Москва", 1), ("", 0),
])
def test_word_count_per_script(raw, n):
    assert word_count(raw) == n


# -- transliteration ------------------------------------------------------------------------


@pytest.mark.parametrize("raw, latin", [
    ("Москва", "moskva"), ("Ελλάδα", "ellada"), ("Йошкар-Ола", "yoshkar ola"),
    ("Спартак Москва 2026", "spartak moskva 2026"),
    ("北京", None), ("がっこう", None), ("القاهرة", None),  # never Han, kana or abjads
    ("Москва 北京", None),  # a Han letter anywhere: no Latin spelling
    ("Moscow", None), ("", None),  # nothing to transliterate
])
def test_transliteration_only_for_alphabets(raw, latin):
    assert transliteration(raw) == latin


# -- mentions -------------------------------------------------------------------------------


@pytest.mark.parametrize("text, answer, span", [
    ("我今天去北京了", "北京", "北京"),
    ("東京都で会議が開かれた。", "東京", "東京"),
    ("大会は東京都で開かれる", "東京都", "東京都"),
    ("Премьер-министр прибыл в Москву, затем в Москва-Сити.", "Москва", "Москва"),
    ("Η Ελλάδα κέρδισε τον τελικό.", "Ελλάδα", "Ελλάδα"),
    ("فاز فريق القاهرة بالكأس", "القاهرة", "القاهرة"),
    ("ทีมจากกรุงเทพชนะ", "กรุงเทพ", "กรุงเทพ"),
    ("The mayor of Moskva said", "Москва", "Moskva"),  # transliteration, from the native answer
    ("Martin Odegaard scored", "Martin Ødegaard", "Martin Odegaard"),
])
def test_mentions_are_found_in_every_script(text, answer, span):
    m = find_mention(text, answer, (), "place")
    assert m is not None and m.span == span and text[m.start:m.end] == span
    assert contains_phrase(text, answer) == (m.rule == "exact")


@pytest.mark.parametrize("text, answer", [
    ("我今天去京北了", "北京"),  # the same characters in another order
    ("南京市人民政府发布通知", "北京市人民政府"),  # one character apart: another city, never fuzzy
    ("章伟当选主席", "张伟"),  # the same pinyin (Zhang Wei), another name
    ("Zhang Wei was elected", "张伟"),  # Han is never transliterated
    ("The rim of the crater", "Рим"),  # a transliteration under 4 letters is not looked for
    ("がっこうの先生", "かっこう"),  # が is not か
])
def test_false_friends_across_scripts(text, answer):
    assert find_mention(text, answer, (), "place") is None


def test_spans_stay_aligned_in_every_script():
    """Every mention token comes from the text at its span, whatever the script."""
    for text in _texts(300, seed=3):
        doc = Doc(text)
        assert doc.toks == mention_tokens(text)
        for i, t in enumerate(doc.toks):
            s, e = doc.span(i, i + 1)
            assert t in mention_tokens(text[s:e]) or t == "percent", (text, t, text[s:e])


def test_searchable_holds_every_token():
    """``searchable`` is a safe prefilter: every token of the text is a substring of it."""
    for text in [*_texts(500, seed=4), *_ascii_texts(500, seed=5)]:
        view = searchable(text)
        for t in [*tokens(text), *mention_tokens(text)]:
            assert t in view, (text, t)


def test_contains_phrase_uses_the_mention_tokens():
    assert contains_phrase("Supporters cheered Okafor's speech.", "Okafor")
    assert contains_phrase("Rates stayed at 3.5 per cent.", "3.50%")
    assert contains_phrase("我今天去北京了", "北京") and not contains_phrase("我今天去北京了", "京了去")
    assert not contains_phrase("Ruiz spoke", "") and not contains_phrase("", "Ruiz")


# -- sentences ------------------------------------------------------------------------------


def test_sentences_in_every_script():
    assert sentences("Путин выиграл. Москва ждёт. Итоги в 2026. e.g. this") == [
        "Путин выиграл.", "Москва ждёт.", "Итоги в 2026. e.g. this"]
    assert sentences("我去了北京。然后回家！你呢？") == ["我去了北京。", "然后回家！", "你呢？"]
    assert sentences("He won. \"Yes,\" she said. it was 5 p.m. Then") == [
        "He won.", "\"Yes,\" she said. it was 5 p.m.", "Then"]
