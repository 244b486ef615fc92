"""A market question's answer is revealed no earlier than it is certain: deadlines named in its
title (in English and eight other languages, and where in the title they stand), and markets
that close before their event (issue 17, item 5)."""

from datetime import date, datetime, timezone

import polars as pl
import pytest

from pastcast.questions.deadline_words import LANGUAGES
from pastcast.questions.deadlines import deadline_spans, known_from, named_deadline, without_deadlines
from pastcast.questions.markets import market_questions
from pastcast.schemas import MARKETS, frame
from pastcast.text.vocabulary import MONTH_NAMES
from warcs import SHARED, needs_shared

REF = date(2024, 6, 1)


@pytest.mark.parametrize("title, expected", [
    ("Will Scotland leave the United Kingdom before 2025?", ("by", date(2025, 1, 1))),
    ("Will Lionel Messi retire before the end of 2024?", ("by", date(2025, 1, 1))),
    ("Will any country leave NATO in 2025?", ("by", date(2026, 1, 1))),
    ("Will an AI system solve a Millennium Prize Problem before July 2025?", ("by", date(2025, 7, 1))),
    ("Will Musk step down by the end of March 2025?", ("by", date(2025, 4, 1))),
    ("Will Nicolás Maduro be president of Venezuela on 11 January 2025?", ("on", date(2025, 1, 12))),
    ("Will Elon Musk be the richest person in the world on December 31, 2025?", ("on", date(2026, 1, 1))),
    ("Will Google have the top AI model on December 31?", ("on", date(2025, 1, 1))),  # the next Dec 31
    ("Will Ethereum hit $7,000 by December 31?", ("by", date(2025, 1, 1))),
    ("Will a testing center issue a certificate between 1 April 2024 and 31 March 2025?", ("by", date(2025, 4, 1))),
    ("By 31 December 2024, will enriched uranium be found?", ("by", date(2025, 1, 1))),
    ("Will Gold close at $2,700-2,800 at the end of 2025?", ("on", date(2026, 1, 1))),
    # found by a review: "on or before" is the day after; EOY; "of YEAR"; halves, quarters, ISO
    ("Will X happen on or before June 30, 2025?", ("by", date(2025, 7, 1))),
    ("Half-Life 3 confirmed by EOY?", ("by", date(2025, 1, 1))),
    ("Will Superman be the top grossing movie of 2025?", ("on", date(2026, 1, 1))),
    ("Will X happen by mid-2025?", ("by", date(2025, 7, 1))),
    ("Will X happen in Q3 2025?", ("by", date(2025, 10, 1))),
    ("Will X ship by 2025-06-30?", ("by", date(2025, 7, 1))),
    ("Will the index be higher on 2024-07-28 than on 2024-07-21?", ("on", date(2024, 7, 29))),
    # the latest date counts, not the first
    ("Will the champion, crowned in July 2024, keep the title in 2026?", ("by", date(2027, 1, 1))),
])
def test_deadlines_named_in_titles(title, expected):
    assert named_deadline(title, REF) == expected


def test_explicit_deadlines_only_when_strict():
    title = "Following its launch in March 2024, will Starship reach orbit?"
    assert named_deadline(title, REF) == ("by", date(2024, 4, 1))
    assert named_deadline(title, REF, strict=True) is None  # "in March 2024" may date another event
    assert named_deadline("Will X happen before 2025?", REF, strict=True) == ("by", date(2025, 1, 1))


@pytest.mark.parametrize("title", [
    "Will USA top the Olympic Medal Table at Paris 2024?",  # an event, no date
    "Will Australia win the 2026 FIFA World Cup?",  # a year naming an edition
    "Will Michael Penix win the 2025–26 NFL MVP award?",
    "Will Ding Liren repeat as World Chess Champion?",
])
def test_titles_without_a_deadline(title):
    assert named_deadline(title, REF) is None


# (title, the deadline phrase in it, kind, first day after)
OTHER_LANGUAGES = [
    # German
    ("Wird Anna Weber bis Ende 2024 zurücktreten?", "bis Ende 2024", "by", date(2025, 1, 1)),
    ("Wird der Vertrag bis zum 30. Juni 2025 unterzeichnet?", "bis zum 30. Juni 2025", "by", date(2025, 7, 1)),
    ("Tritt sie vor dem 1. Juli 2025 zurück?", "vor dem 1. Juli 2025", "by", date(2025, 7, 1)),
    ("Wird Halden im Jahr 2025 fusionieren?", "im Jahr 2025", "by", date(2026, 1, 1)),
    ("Ist Anna Weber am 31. Dezember 2025 noch Chefin?", "am 31. Dezember 2025", "on", date(2026, 1, 1)),
    ("Wird der Vertrag bis 30.06.2025 unterzeichnet?", "bis 30.06.2025", "by", date(2025, 7, 1)),
    ("Wird der Vertrag bis Ende März 2025 unterzeichnet?", "bis Ende März 2025", "by", date(2025, 4, 1)),
    ("Wird die Bahn Ende 2025 pünktlicher sein?", "Ende 2025", "on", date(2026, 1, 1)),
    # French: "1er", either apostrophe
    ("Le traité sera-t-il signé d'ici fin 2024 ?", "d'ici fin 2024", "by", date(2025, 1, 1)),
    ("Démissionnera-t-il avant le 1er juillet 2025 ?", "avant le 1er juillet 2025", "by", date(2025, 7, 1)),
    ("L'accord sera-t-il signé d'ici le 30 juin 2025 ?", "d'ici le 30 juin 2025", "by", date(2025, 7, 1)),
    ("La France organisera-t-elle un référendum en 2025 ?", "en 2025", "by", date(2026, 1, 1)),
    ("Sera-t-il Premier ministre au 31 décembre 2025 ?", "au 31 décembre 2025", "on", date(2026, 1, 1)),
    ("La BCE baissera-t-elle ses taux d’ici juin 2025 ?", "d’ici juin 2025", "by", date(2025, 7, 1)),
    # Spanish: "de" inside the date; "a finales de" is "at the end of": a state then
    ("¿Dimitirá el ministro antes del 1 de julio de 2025?", "antes del 1 de julio de 2025", "by", date(2025, 7, 1)),
    ("¿Se firmará el acuerdo para finales de 2024?", "para finales de 2024", "by", date(2025, 1, 1)),
    ("¿Estará el euro por encima de 1,10 a finales de 2024?", "a finales de 2024", "on", date(2025, 1, 1)),
    ("¿Habrá elecciones anticipadas en 2025?", "en 2025", "by", date(2026, 1, 1)),
    ("¿Será Sánchez presidente el 31 de diciembre de 2025?", "el 31 de diciembre de 2025", "on", date(2026, 1, 1)),
    ("¿Bajará el BCE los tipos en marzo de 2025?", "en marzo de 2025", "by", date(2025, 4, 1)),
    # Italian: "1°"
    ("Il governo cadrà entro la fine del 2024?", "entro la fine del 2024", "by", date(2025, 1, 1)),
    ("L'accordo sarà firmato entro il 30 giugno 2025?", "entro il 30 giugno 2025", "by", date(2025, 7, 1)),
    ("Si dimetterà prima del 1° luglio 2025?", "prima del 1° luglio 2025", "by", date(2025, 7, 1)),
    ("Sarà ancora premier al 31 dicembre 2025?", "al 31 dicembre 2025", "on", date(2026, 1, 1)),
    ("Ci saranno elezioni nel 2025?", "nel 2025", "by", date(2026, 1, 1)),
    # Portuguese: "1º"
    ("O acordo será assinado até o fim de 2024?", "até o fim de 2024", "by", date(2025, 1, 1)),
    ("Ele renunciará antes de 1º de julho de 2025?", "antes de 1º de julho de 2025", "by", date(2025, 7, 1)),
    ("Lula será presidente em 31 de dezembro de 2025?", "em 31 de dezembro de 2025", "on", date(2026, 1, 1)),
    ("O Brasil sediará a cúpula em 2025?", "em 2025", "by", date(2026, 1, 1)),
    # Russian: month names in the genitive, prepositional and dative; "до" a day is strictly before it
    ("Подпишут ли соглашение до конца 2024 года?", "до конца 2024 года", "by", date(2025, 1, 1)),
    ("Уйдёт ли он в отставку до 1 июля 2025 года?", "до 1 июля 2025 года", "by", date(2025, 7, 1)),
    ("Будет ли мост достроен к 30 июня 2025 года?", "к 30 июня 2025 года", "by", date(2025, 7, 1)),
    ("Пройдут ли выборы в 2025 году?", "в 2025 году", "by", date(2026, 1, 1)),
    ("Будет ли курс выше 100 рублей на 31 декабря 2025 года?", "на 31 декабря 2025 года", "on", date(2026, 1, 1)),
    ("Снизит ли ЦБ ставку в июле 2025 года?", "в июле 2025 года", "by", date(2025, 8, 1)),
    ("Будет ли мост достроен к июлю 2025 года?", "к июлю 2025 года", "by", date(2025, 8, 1)),
    ("Уйдёт ли он до декабря 2025 года?", "до декабря 2025 года", "by", date(2025, 12, 1)),
    ("Подпишут ли договор до 30 июня 2025 года включительно?", "до 30 июня 2025 года включительно", "by",
     date(2025, 7, 1)),
    # Chinese: 前 and 之前 include the day (a day late if a title meant strictly before, never early)
    ("双方2024年底前会签署协议吗？", "2024年底前", "by", date(2025, 1, 1)),
    ("该法案会在2025年6月30日前通过吗？", "在2025年6月30日前", "by", date(2025, 7, 1)),
    ("央行会在2025年7月1日之前降息吗？", "在2025年7月1日之前", "by", date(2025, 7, 2)),
    ("特斯拉2025年内会推出新车型吗？", "2025年内", "by", date(2026, 1, 1)),
    ("截至2025年12月31日，比特币价格会高于10万美元吗？", "截至2025年12月31日", "on", date(2026, 1, 1)),
    ("中国会在2025年举办峰会吗？", "在2025年", "by", date(2026, 1, 1)),
    # Japanese: までに includes the day, より前 does not
    ("日銀は2024年末までに利上げするか？", "2024年末までに", "by", date(2025, 1, 1)),
    ("法案は2025年6月30日までに成立するか？", "2025年6月30日までに", "by", date(2025, 7, 1)),
    ("首相は2025年7月1日より前に辞任するか？", "2025年7月1日より前に", "by", date(2025, 7, 1)),
    ("2025年12月31日時点で円相場は150円を超えているか？", "2025年12月31日時点で", "on", date(2026, 1, 1)),
    ("日銀は2025年に利上げするか？", "2025年に", "by", date(2026, 1, 1)),
]


@pytest.mark.parametrize("title, phrase, kind, first_day_after", OTHER_LANGUAGES)
def test_deadlines_in_other_languages(title, phrase, kind, first_day_after):
    assert named_deadline(title, REF) == (kind, first_day_after)
    spans = deadline_spans(title, REF)
    assert [title[s.start:s.end] for s in spans] == [phrase]  # the whole phrase, its preposition included
    assert (spans[0].kind, spans[0].first_day_after) == (kind, first_day_after)


# how each language writes 30 June 2025, June 2025 and 2025 (English first)
SAMPLE_DATES = {
    "en": {"day": "June 30, 2025", "month": "June 2025", "year": "2025"},
    "de": {"day": "30. Juni 2025", "month": "Juni 2025", "year": "2025"},
    "fr": {"day": "30 juin 2025", "month": "juin 2025", "year": "2025"},
    "es": {"day": "30 de junio de 2025", "month": "junio de 2025", "year": "2025"},
    "it": {"day": "30 giugno 2025", "month": "giugno 2025", "year": "2025"},
    "pt": {"day": "30 de junho de 2025", "month": "junho de 2025", "year": "2025"},
    "ru": {"day": "30 июня 2025 года", "month": "июня 2025 года", "year": "2025 года"},
    "zh": {"day": "2025年6月30日", "month": "2025年6月", "year": "2025年"},
    "ja": {"day": "2025年6月30日", "month": "2025年6月", "year": "2025年"},
}
TABLE_PHRASES = [(code, phrase, meaning) for code, language in LANGUAGES.items()
                 for phrase, meaning in language.phrases.items()]


@pytest.mark.parametrize("code, phrase, meaning", TABLE_PHRASES)
def test_every_phrase_of_every_language_reads_as_its_english_meaning(code, phrase, meaning):
    """Same kinds, same days, same looseness: "bis Ende {year}" reads as "by the end of 2025"."""
    kind_of_date = next(k for k in ("day", "month", "year") if f"{{{k}}}" in phrase)
    written = phrase.format(**SAMPLE_DATES[code])
    title = f"X{written}吗？" if LANGUAGES[code].joined else f"X {written}?"
    english = f"Will X happen {meaning} {SAMPLE_DATES['en'][kind_of_date]}?"
    for strict in (False, True):
        assert named_deadline(title, REF, strict) == named_deadline(english, REF, strict)
    assert [title[s.start:s.end] for s in deadline_spans(title, REF)] == [written]


@pytest.mark.parametrize("title, phrase", [
    ("Wird die EZB bis Jahresende die Zinsen senken?", "bis Jahresende"),
    ("La BCE baissera-t-elle ses taux d'ici la fin de l'année ?", "d'ici la fin de l'année"),
    ("¿Bajará el BCE los tipos antes de fin de año?", "antes de fin de año"),
    ("La BCE taglierà i tassi entro fine anno?", "entro fine anno"),
    ("O BCE cortará os juros até o fim do ano?", "até o fim do ano"),
    ("Снизит ли ЦБ ставку до конца года?", "до конца года"),
    ("美联储年内会降息吗？", "年内"),
    ("日銀は年内に利上げするか？", "年内に"),
])
def test_the_end_of_the_year_in_other_languages_is_the_open_dates_year(title, phrase):
    assert named_deadline(title, REF) == ("by", date(2025, 1, 1)) == named_deadline("Will X happen by EOY?", REF)
    assert named_deadline(title, date(2025, 3, 1)) == ("by", date(2026, 1, 1))
    assert [title[s.start:s.end] for s in deadline_spans(title, REF)] == [phrase]


def test_a_day_without_a_year_in_other_languages_is_the_next_such_day():
    for title in ("Wird der Vertrag bis zum 30. Juni unterzeichnet?", "该协议会在6月30日前签署吗？"):
        assert named_deadline(title, REF) == ("by", date(2024, 7, 1))
        assert named_deadline(title, date(2024, 8, 1)) == ("by", date(2025, 7, 1))


def test_in_a_year_is_loose_in_every_language():
    for title in ("Wird Halden im Jahr 2025 fusionieren?", "¿Habrá elecciones en 2025?", "Пройдут ли выборы в 2025 году?",
                  "中国会在2025年举办峰会吗？", "日銀は2025年に利上げするか？"):
        assert named_deadline(title, REF) == ("by", date(2026, 1, 1))
        assert named_deadline(title, REF, strict=True) is None
        assert [s.loose for s in deadline_spans(title, REF)] == [True]
    assert named_deadline("Wird Halden bis Ende 2025 fusionieren?", REF, strict=True) == ("by", date(2026, 1, 1))


@pytest.mark.parametrize("title", [
    "Wird Anna Weber neue Chefin von Halden?",
    "Wird Deutschland die Fußball-WM 2026 gewinnen?",  # a year naming an edition
    "Le PSG remportera-t-il la Ligue des champions ?",
    "¿Ganará el Real Madrid la liga?",
    "¿Ganará Argentina el Mundial de 2026?",
    "Vincerà l'Inter lo scudetto?",
    "O Flamengo vencerá o Brasileirão?",
    "Станет ли Иванов новым министром?",
    "谁将出任央行行长？",
    "阿根廷会赢得2026年世界杯吗？",
    "2025年前三季度GDP会增长吗？",  # 前三季度: the first three quarters, no deadline
    "美联储明年内会降息吗？",  # next year, not the open date's
    "次の首相は誰になるか？",
])
def test_titles_without_a_deadline_in_other_languages(title):
    assert named_deadline(title, REF) is None
    assert deadline_spans(title, REF) == []
    assert without_deadlines(title, REF) == title


@pytest.mark.parametrize("title, phrase", [
    ("Will X sign the deal by the end of 2024?", "by the end of 2024"),
    ("Will X happen on or before June 30, 2025?", "on or before June 30, 2025"),
    ("Will a testing center issue a certificate between 1 April 2024 and 31 March 2025?",
     "between 1 April 2024 and 31 March 2025"),
    ("Half-Life 3 confirmed by EOY?", "by EOY"),
    ("Will X happen in Q3 2025?", "in Q3 2025"),
    ("Will X ship by 2025-06-30?", "by 2025-06-30"),
    ("Wird X bis Ende des Jahres 2025 zurücktreten?", "bis Ende des Jahres 2025"),  # a year, not the open date's
    ("双方会在2025年年底前签署协议吗？", "在2025年年底前"),
])
def test_a_span_is_the_whole_phrase(title, phrase):
    assert [title[s.start:s.end] for s in deadline_spans(title, REF)] == [phrase]


def test_spans_come_in_text_order_and_the_latest_is_the_named_deadline():
    for title, phrases in [
        ("Following its launch in March 2024, will Starship reach orbit by 2026?", ["in March 2024", "by 2026"]),
        ("Nach dem Start im März 2024: Erreicht Starship bis Ende 2026 den Orbit?", ["im März 2024", "bis Ende 2026"]),
        ("Will the index be higher on 2024-07-28 than on 2024-07-21?", ["on 2024-07-28", "on 2024-07-21"]),
    ]:
        spans = deadline_spans(title, REF)
        assert [title[s.start:s.end] for s in spans] == phrases
        assert [s.loose for s in spans][:1] == [not phrases[0].startswith("on")]
    assert named_deadline("Nach dem Start im März 2024: Erreicht Starship bis Ende 2026 den Orbit?", REF) == (
        "by", date(2027, 1, 1))


def test_named_deadline_is_the_latest_span():
    titles = [t for t, *_ in OTHER_LANGUAGES] + [
        "Following its launch in March 2024, will Starship reach orbit by 2026?",
        "After the ceasefire signed on January 19, 2025, will fighting resume in 2025?",
        "Will the index be higher on 2024-07-28 than on 2024-07-21?",
        "Will Superman be the top grossing movie of 2025?",
    ]
    for title in titles:
        latest = max(deadline_spans(title, REF), key=lambda s: (s.first_day_after, s.kind == "on", not s.loose))
        assert named_deadline(title, REF) == (latest.kind, latest.first_day_after)
        assert named_deadline(title, REF, strict=True) == (None if latest.loose else named_deadline(title, REF))


@pytest.mark.parametrize("title, event", [
    ("Will X sign the deal by the end of 2024?", "Will X sign the deal?"),
    ("By 31 December 2024, will enriched uranium be found?", "Will enriched uranium be found?"),
    ("Will X (by 2025) sign the deal?", "Will X sign the deal?"),
    ("Will X, by the end of 2024, sign the deal?", "Will X sign the deal?"),
    ("Le traité sera-t-il signé d'ici fin 2024 ?", "Le traité sera-t-il signé ?"),  # French spacing kept
    ("Wird Anna Weber bis Ende 2024 zurücktreten?", "Wird Anna Weber zurücktreten?"),
    ("¿Se firmará el acuerdo antes del 1 de julio de 2025?", "¿Se firmará el acuerdo?"),
    ("Antes de 2025, ¿ganará el Real Madrid la liga?", "¿Ganará el Real Madrid la liga?"),
    ("¿Antes de 2025 ganará el Real Madrid la liga?", "¿Ganará el Real Madrid la liga?"),
    ("Il governo cadrà entro la fine del 2024?", "Il governo cadrà?"),
    ("Подпишут ли соглашение до конца 2024 года?", "Подпишут ли соглашение?"),
    ("2024年底前，双方会签署协议吗？", "双方会签署协议吗？"),
    ("央行会在2025年7月1日之前降息吗？", "央行会降息吗？"),
    ("现在年内会降息吗？", "现在会降息吗？"),  # 在 of 现在 (now) stays
    ("日銀は2024年末までに利上げするか？", "日銀は利上げするか？"),
    ("Will Ding Liren repeat as World Chess Champion?", "Will Ding Liren repeat as World Chess Champion?"),
])
def test_without_deadlines_keeps_the_event(title, event):
    assert without_deadlines(title, REF) == event


def test_a_month_name_shared_by_languages_is_one_month():
    numbers: dict[str, set[int]] = {}
    for months in MONTH_NAMES.values():
        assert len(months) == 12
        for number, forms in enumerate(months, 1):
            for name in forms:
                numbers.setdefault(name, set()).add(number)
    assert all(len(found) == 1 for found in numbers.values())
    assert numbers["mai"] == {5} and numbers["agosto"] == {8} and numbers["июля"] == {7}


def test_an_event_up_to_a_deadline_is_certain_after_it_only_when_it_did_not_happen():
    assert known_from("by", date(2025, 1, 1), "No") == date(2025, 1, 1)
    assert known_from("by", date(2025, 1, 1), "Yes") is None  # it happened: may be known earlier
    assert known_from("on", date(2025, 1, 12), "Yes") == date(2025, 1, 12)


def _utc(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=timezone.utc)


def market(market_id: str, question: str, created: str, close: str, resolved: str, resolution: str) -> dict:
    return {"market_id": market_id, "platform": "forecastbench", "question": question, "background": "",
            "resolution_criteria": "Resolves as the source resolves.", "outcome_type": "binary",
            "outcomes": ["Yes", "No"], "status": "resolved", "created_at": _utc(created),
            "close_at": _utc(close), "resolved_at": _utc(resolved), "resolution": resolution}


def test_market_questions_reveal_answers_when_certain():
    rows = [
        # Metaculus closes before the Games; the copy's resolution day is the close day
        market("forecastbench:metaculus:7664", "Will USA top the Olympic Medal Table at Paris 2024?",
               "2024-05-01", "2024-07-25T23:00:00", "2024-07-25", "Yes"),
        # the close reaches the deadline: kept, revealed the day after the deadline
        market("forecastbench:metaculus:1", "Will Scotland leave the United Kingdom before 2025?",
               "2024-09-01", "2024-12-31T09:00:00", "2024-12-31", "No"),
        # a Yes up to a deadline may be known early: the date stays
        market("forecastbench:manifold:2", "Will Kamala Harris be the Democratic Nominee for President in 2024?",
               "2024-06-01", "2024-11-05T16:59:59", "2024-08-05", "Yes"),
        # a state on a named day: known the day after, whatever the answer
        market("forecastbench:infer:3", "Will Nicolás Maduro be president of Venezuela on 11 January 2025?",
               "2024-10-01", "2025-01-11T05:00:00", "2025-01-11", "Yes"),
    ]
    questions, drops = market_questions(frame(rows, MARKETS))
    by_market = {q["source_ids"][0]: q for q in questions.iter_rows(named=True)}
    assert set(by_market) == {"forecastbench:metaculus:1", "forecastbench:manifold:2", "forecastbench:infer:3"}
    assert drops.filter(pl.col("item_id") == "forecastbench:metaculus:7664")["reason"].to_list() == [
        "resolution_date_unknown"]
    assert by_market["forecastbench:metaculus:1"]["resolution_date"] == date(2025, 1, 1)
    assert by_market["forecastbench:manifold:2"]["resolution_date"] == date(2024, 8, 5)
    assert by_market["forecastbench:infer:3"]["resolution_date"] == date(2025, 1, 12)
    for q in questions.iter_rows(named=True):
        assert q["original_resolution_date"] == q["resolution_date"]  # no revision yet


@needs_shared
def test_no_real_forecastbench_answer_is_revealed_before_its_named_deadline_or_event():
    from pastcast.sources.forecastbench import read_forecastbench

    markets = read_forecastbench(sorted((SHARED / "markets" / "forecastbench").glob("*.json"))).frame(
        "markets", MARKETS)
    questions, drops = market_questions(markets)
    early = []
    for q in questions.iter_rows(named=True):
        deadline = named_deadline(q["title"], q["open_date"])
        known = known_from(*deadline, q["answer"]) if deadline else None
        if known and q["resolution_date"] < known:
            early.append(q["title"])
    assert early == []
    assert "Will USA top the Olympic Medal Table at Paris 2024?" not in set(questions["title"])
    # the raw sets did reveal answers early: the check is not vacuous
    moved = questions.join(markets.select("market_id", pl.col("resolved_at").dt.date().alias("raw")),
                           left_on=pl.col("source_ids").list.first(), right_on="market_id")
    assert moved.filter(pl.col("resolution_date") > pl.col("raw")).height >= 10


def test_a_side_clause_date_does_not_excuse_a_metaculus_close():
    """The latest date counts: a Metaculus copy closing just after a side clause's date, with
    the question's own deadline a year later, is dropped, not revealed a year early."""
    title = "After the ceasefire signed on January 19, 2025, will fighting resume in 2025?"
    assert named_deadline(title, date(2025, 1, 1)) == ("by", date(2026, 1, 1))
    assert named_deadline(title, date(2025, 1, 1), strict=True) is None
    rows = [market("forecastbench:metaculus:9", title, "2025-01-01", "2025-01-20T00:00:00", "2025-01-20", "Yes")]
    questions, drops = market_questions(frame(rows, MARKETS))
    assert questions.is_empty() and drops["reason"].to_list() == ["resolution_date_unknown"]
    assert named_deadline("Will X remain CEO through 2025?", REF) == ("on", date(2026, 1, 1))  # a state


def test_a_number_right_after_a_japanese_deadline_does_not_shorten_it():
    """"2025年6月までに5%を超えるか" is "by the end of June" (までに), a figure after it or not;
    only a tail ending in 前 or 内 is barred from a number ("2025年前三季度": the first three quarters)."""
    title = "日本のインフレ率は2025年6月までに5%を超えるか？"
    [span] = deadline_spans(title, date(2025, 1, 1))
    assert title[span.start:span.end] == "2025年6月までに" and span.kind == "by"
    assert not deadline_spans("2025年前三季度的GDP会增长吗？", date(2025, 1, 1))
