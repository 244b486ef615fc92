from datetime import date

import pytest

from pastcast.matching import edit_distance, matches, normalise
from pastcast.evaluate.scoring import (
    InvalidForecast,
    brier_skill_score,
    time_weighted_bss,
    top1_accuracy,
    validate,
)

# -- matching ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("  The  Élysée   Palace! ", "elysee palace"),
        ("A Tribe Called Quest", "tribe called quest"),
        ("Theodore Roosevelt", "theodore roosevelt"),  # "the" only as a whole leading word
        ("O'Brien", "obrien"),
        ("AT&T", "at and t"),
        ("1,250,000", "1250000"),
        ("45%", "45 percent"),
        ("São-Paulo", "sao paulo"),
        ("", ""),
        (None, ""),
    ],
)
def test_normalise(raw, expected):
    assert normalise(raw) == expected


def test_edit_distance():
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("", "abc") == 3
    assert edit_distance("same", "same") == 0
    assert edit_distance("москва", "масква") == 1


@pytest.mark.parametrize("raw, expected", [
    ("Москва", "москва"), ("Martin Ødegaard", "martin odegaard"), ("北京", "北 京"),
    ("Ελλάδα", "ελλαδα"), ("ＵＮＩＣＥＦ", "unicef"),
])
def test_normalise_keeps_every_script(raw, expected):
    assert normalise(raw) == expected


@pytest.mark.parametrize("outcome, answer, expected", [
    ("москва", "Москва", True),  # case, in Cyrillic
    ("Moskva", "Москва", True),  # a Latin spelling matches the native answer
    ("Москва", "Moskva", True),  # and the other way round
    ("FC Spartak Moskva", "Спартак Москва", True),  # more specific, through the Latin spelling
    ("Moscow", "Москва", False),  # a translation is for the judge
    ("Ellada", "Ελλάδα", True),
    ("Odegaard", "Ødegaard", True),
    ("李娜", "李娜", True),
    ("娜李", "李娜", False),  # the same characters in another order
    ("张伟", "章伟", False),  # the same pinyin (Zhang Wei), two names
    ("Zhang Wei", "张伟", False),  # Han is never transliterated
    ("北京市", "北京", False),  # a run of characters is one word: the judge decides
    ("南京市人民政府", "北京市人民政府", False),  # one character apart is never a typo
    ("Ельцин", "Эльцин", False),  # both "Eltsin" in Latin letters: native forms compare
])
def test_matches_in_every_script(outcome, answer, expected):
    assert matches(outcome, answer) is expected


@pytest.mark.parametrize("answer, other", [("Москва", "Казань"), ("王伟", "李娜"), ("Ελλάδα", "Κύπρος")])
def test_bss_of_answers_in_other_scripts(answer, other):
    assert brier_skill_score({answer: 1.0}, answer) == pytest.approx(1.0)
    assert brier_skill_score({other: 1.0}, answer) == pytest.approx(-1.0)
    assert brier_skill_score({other: 0.5, answer: 0.5}, answer) == pytest.approx(0.5)
    assert top1_accuracy({answer: 0.6, other: 0.4}, answer) == 1.0


def test_bss_of_a_latin_spelling_of_a_cyrillic_answer():
    assert brier_skill_score({"Moskva": 1.0}, "Москва") == pytest.approx(1.0)
    assert brier_skill_score({"Kazan": 0.7, "Moskva": 0.3}, "Москва") == pytest.approx(1 - (0.49 + 0.49))
    assert brier_skill_score({"Beijing": 1.0}, "北京") == pytest.approx(-1.0)  # a translation: the judge's call


@pytest.mark.parametrize(
    "outcome, answer, aliases, expected",
    [
        ("ana ruiz", "Ana Ruiz", [], True),  # case
        ("Ana Ruíz", "Ana Ruiz", [], True),  # accents
        ("The United Kingdom", "United Kingdom", [], True),  # leading article
        ("UK", "United Kingdom", ["UK", "Britain"], True),  # alias
        ("Ruiz, Ana", "Ana Ruiz", [], True),  # token-set equality
        ("Ana María Ruiz", "Ana Ruiz", [], True),  # more specific counts
        ("Ruiz", "Ana Ruiz", [], False),  # vaguer does not
        ("Ruiz or Garcia", "Ruiz", [], False),  # a disjunction is not more specific
        ("45 to 50", "45", [], False),  # nor a range around a number
        ("Ana Ruiz Garcia Lopez Smith", "Ruiz", [], False),  # too many extra tokens
        ("Anna Ruizz", "Ana Ruiz", [], False),  # two typos in a short name: ratio 0.8
        ("Volodymir Zelensky", "Volodymyr Zelensky", [], True),  # typo, ratio >= 0.9
        ("Paris", "Pariss", [], False),  # too short for the typo rule
        ("12345678901", "12345678902", [], False),  # numbers are never typos
        ("", "Ana Ruiz", [], False),
        ("Ana Ruiz", None, [], False),
    ],
)
def test_matches(outcome, answer, aliases, expected):
    assert matches(outcome, answer, aliases) is expected


# -- validation ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "forecast, fragment",
    [
        ({f"o{i}": 0.1 for i in range(6)}, "at most 5"),
        ({"A": 0.7, "B": 0.4}, "sum"),
        ({"A": -0.1}, "[0, 1]"),
        ({"A": 1.5}, "[0, 1]"),
        ({"A": float("nan")}, "finite"),
        ({"A": True}, "finite number"),
        ({"A": "0.5"}, "finite number"),
        ({"": 0.5}, "empty"),
        ({" ?! ": 0.5}, "empty"),
        ({"Unknown": 0.5}, "placeholder"),
        ({"N/A": 0.5}, "placeholder"),
        ({"None of the above": 0.2}, "placeholder"),
        ({"Other": 0.2}, "placeholder"),
        ({"TBD": 0.2}, "placeholder"),
        ({"Ana Ruiz": 0.3, "ana  ruíz": 0.2}, "same after normalisation"),
        ([("A", 0.5)], "mapping"),
    ],
)
def test_validate_rejects(forecast, fragment):
    with pytest.raises(InvalidForecast) as err:
        validate(forecast)
    assert fragment in err.value.reason


def test_validate_accepts_and_keeps_order():
    f = validate({" B ": 0.2, "A": 0.3, "C": 0})
    assert list(f) == ["B", "A", "C"] and f["C"] == 0.0
    # float rounding puts this sum at 1.0000000000000002: within the 1e-9 tolerance
    assert sum([0.01, 0.2, 0.68, 0.11]) > 1.0
    assert len(validate({"A": 0.01, "B": 0.2, "C": 0.68, "D": 0.11})) == 4
    assert validate({}) == {}


# -- Brier skill score: the worked examples of DESIGN.md --------------------------------------


def test_bss_worked_examples():
    assert brier_skill_score({}, "Ana Ruiz") == pytest.approx(0.0)  # abstain
    assert brier_skill_score({"Ana Ruiz": 1.0}, "Ana Ruiz") == pytest.approx(1.0)
    assert brier_skill_score({"Bo Li": 1.0}, "Ana Ruiz") == pytest.approx(-1.0)
    assert brier_skill_score({"Bo Li": 0.55, "Ana Ruiz": 0.15}, "Ana Ruiz") == pytest.approx(1 - (0.55**2 + 0.85**2))
    assert brier_skill_score({"Bo Li": 0.55, "Ana Ruiz": 0.15}, "Ana Ruiz") == pytest.approx(-0.025)


def test_bss_sum_below_one_and_no_match():
    # 0.6 on the truth, nothing else: 1 - 0.4^2
    assert brier_skill_score({"Ana Ruiz": 0.6}, "Ana Ruiz") == pytest.approx(0.84)
    # wrong outcomes only: the miss costs 1 on top of the squared mass
    assert brier_skill_score({"Bo Li": 0.3, "Cy Wu": 0.2}, "Ana Ruiz") == pytest.approx(1 - (0.09 + 0.04 + 1))


def test_bss_duplicates_of_truth_only_first_counts():
    # Both outcomes match "Ruiz" (the first is more specific); only the first is m, the
    # second is scored as a wrong outcome, so splitting mass across synonyms does not pay.
    f = {"Ana Ruiz": 0.5, "Ruiz": 0.3}
    assert brier_skill_score(f, "Ruiz") == pytest.approx(1 - ((0.5 - 1) ** 2 + 0.3**2))
    assert brier_skill_score({"Ruiz": 0.8}, "Ruiz") > brier_skill_score(f, "Ruiz")


def test_bss_aliases_and_order():
    assert brier_skill_score({"Britain": 0.9}, "United Kingdom", ["UK", "Britain"]) == pytest.approx(1 - 0.01)
    # submission order, not probability, picks m
    f = {"Britain": 0.2, "UK": 0.7}
    assert brier_skill_score(f, "United Kingdom", ["UK", "Britain"]) == pytest.approx(1 - (0.8**2 + 0.7**2))


def test_bss_validates():
    with pytest.raises(InvalidForecast):
        brier_skill_score({"A": 0.9, "B": 0.9}, "A")


def test_top1_accuracy():
    assert top1_accuracy({}, "A") == 0.0
    assert top1_accuracy({"Bo Li": 0.2, "Ana Ruiz": 0.5}, "Ana Ruiz") == 1.0
    assert top1_accuracy({"Bo Li": 0.5, "Ana Ruiz": 0.2}, "Ana Ruiz") == 0.0
    assert top1_accuracy({"Ana Ruiz": 0.4, "Bo Li": 0.4}, "Ana Ruiz") == 1.0  # tie: first submitted
    assert top1_accuracy({"Bo Li": 0.4, "Ana Ruiz": 0.4}, "Ana Ruiz") == 0.0
    assert top1_accuracy({"Ana Ruiz": 0.0}, "Ana Ruiz") == 0.0  # no mass, no claim


def test_time_weighted_bss():
    open_d, res_d = date(2024, 1, 1), date(2024, 1, 11)  # 10 scored days: Jan 1..10
    right, wrong = {"Ana Ruiz": 1.0}, {"Bo Li": 1.0}
    # nothing submitted: 0
    assert time_weighted_bss([], "Ana Ruiz", [], open_d, res_d) == 0.0
    # right from day 6 on: 5 days of 0, 5 days of 1
    assert time_weighted_bss([(date(2024, 1, 6), right)], "Ana Ruiz", [], open_d, res_d) == pytest.approx(0.5)
    # wrong for days 1-4, right for days 5-10
    hist = [(date(2024, 1, 1), wrong), (date(2024, 1, 5), right)]
    assert time_weighted_bss(hist, "Ana Ruiz", [], open_d, res_d) == pytest.approx((4 * -1 + 6 * 1) / 10)
    # the last of several same-day submissions stands
    hist = [(date(2024, 1, 1), wrong), (date(2024, 1, 1), right)]
    assert time_weighted_bss(hist, "Ana Ruiz", [], open_d, res_d) == pytest.approx(1.0)
    # a forecast on the resolution day itself does not count
    assert time_weighted_bss([(res_d, right)], "Ana Ruiz", [], open_d, res_d) == 0.0
    assert time_weighted_bss([(open_d, right)], "Ana Ruiz", [], open_d, open_d) == 0.0
