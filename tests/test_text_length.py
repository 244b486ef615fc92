"""Lengths of texts in every script: words where words are spaced, characters where not."""

import pytest

from pastcast.text.normalise import CJK_CHARS_PER_WORD, SEGMENTED_LETTERS_PER_WORD
from pastcast.text.scripts import text_length, word_units


def test_spaced_scripts_count_words():
    for text, words in [("The council met on Tuesday.", 5), ("Москва — столица России.", 3),
                        ("Η Αθήνα είναι πρωτεύουσα.", 4), ("القاهرة عاصمة مصر", 3),
                        ("नमस्ते दुनिया के लोगों", 4), ("서울은 한국의 수도이다", 3),
                        ("Ødegaard scored twice in 2024.", 5)]:
        length = text_length(text)
        assert (length.words, length.ideographs, length.segmented_letters) == (words, 0, 0), text
        assert not length.unspaced


@pytest.mark.parametrize("text", ["日本銀行は政策金利を据え置いた", "中国人民银行维持利率不变", "カタカナとひらがな"])
def test_chinese_and_japanese_count_words_by_characters(text):
    length = text_length(text)
    assert length.ideographs == len(text) and length.unspaced
    assert length.word_units == -(-len(text) // CJK_CHARS_PER_WORD)  # not 1, as spaces would say


def test_thai_counts_letters_by_the_average_word_length():
    text = "ประเทศไทยมีประชากรมาก" * 4  # 20 letters and one vowel sign a copy
    length = text_length(text)
    assert length.segmented_letters == len(text) - 4
    assert length.word_units == -(-length.segmented_letters // SEGMENTED_LETTERS_PER_WORD) and length.unspaced


def test_mixed_scripts_add_up_and_the_description_says_how():
    length = text_length("東京で G7 summit")
    assert (length.words, length.ideographs, length.word_units) == (2, 3, 4)
    assert "3 CJK characters" in length.describe() and "4 word units" in length.describe()


def test_length_grows_with_text_in_every_script():
    for unit in ("word ", "слово ", "字", "คำ"):
        assert word_units(unit * 200) >= word_units(unit * 100) > 0
    assert word_units("") == word_units(None) == 0
