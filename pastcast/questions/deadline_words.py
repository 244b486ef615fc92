"""How titles in languages other than English state a deadline: one table per language, and
``find_phrases``, which finds them in a text.

Each phrase is written as it reads, with ``{day}``, ``{month}`` or ``{year}`` where the date
goes ("bis zum {day}", "{year}底前"), and means the English words whose kind and day
``pastcast.questions.deadlines`` gives (``BY_END`` reads as "by the end of"). A space in a
phrase stands for any run of whitespace; in Chinese and Japanese any whitespace is optional.
Month names come from ``pastcast.text.vocabulary.MONTH_NAMES``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from pastcast.text.vocabulary import MONTH_NAMES

# The English words a phrase means (see deadlines._day_deadline and friends)
BEFORE, BY, ON, UNTIL, IN, DURING = "before", "by", "on", "until", "in", "during"
BY_END, AT_END, BY_MID = "by the end of", "at the end of", "by mid"
FIRST_HALF, SECOND_HALF = "in the first half of", "in the second half of"
Q1, Q2, Q3, Q4 = "q1", "q2", "q3", "q4"  # as in "Q3 2025"

_YEAR = r"(?P<y>(?:19|20)\d\d)(?!\d)"
_DAY = r"(?P<d>3[01]|[12]\d|0?[1-9])(?!\d)"
# 30.06.2025, 30/06/2025 (day first, as every language here writes it) and 2025-06-30
_NUMERIC_DAY = (r"(?:(?P<nd>3[01]|[12]\d|0?[1-9])(?P<sep>[./])(?P<nm>1[0-2]|0?[1-9])(?P=sep)(?P<ny>(?:19|20)\d\d)"
                r"|(?P<iy>(?:19|20)\d\d)-(?P<im>1[0-2]|0[1-9])-(?P<id>3[01]|[12]\d|0[1-9]))(?!\d)")
_RUSSIAN_YEAR_WORD = r"(?:\s*(?:года|году|год|г\.|г(?!\w)))?"  # "2025 года", "2025 г."
_SPLIT_YEAR = r"(?![-–/]\d)"  # not the first year of a season ("2025-26")
# Chinese and Japanese: 2025年6月30日 (the year optional), 2025年6月, 2025年; not a fiscal year (年度)
_CJK_DAY = r"(?<!\d)(?:(?P<y>(?:19|20)\d\d)\s*年\s*)?(?P<mn>1[0-2]|0?[1-9])\s*月\s*(?P<d>3[01]|[12]\d|0?[1-9])\s*[日号]"
_CJK_MONTH = r"(?<!\d)(?P<y>(?:19|20)\d\d)\s*年\s*(?P<mn>1[0-2]|0?[1-9])\s*月(?!\s*\d)"
_CJK_YEAR = r"(?<!\d)(?P<y>(?:19|20)\d\d)\s*年(?!\s*\d)(?!度)"


def _month(language: str) -> str:
    names = sorted({name for forms in MONTH_NAMES[language] for name in forms}, key=len, reverse=True)
    return rf"(?P<m>{'|'.join(names)})(?!\w)"


@dataclass(frozen=True)
class Language:
    day: str  # a day: groups d and m (a month's name) or mn (its number), y when the year is given
    month: str  # a month of a year: m or mn, and y
    year: str  # a year: y
    phrases: dict[str, str]  # "bis zum {day}": BY
    end_of_year: tuple[str, ...] = ()  # "bis Jahresende": by the end of the open date's year
    joined: bool = False  # words not separated by spaces (Chinese, Japanese)
    # words that may come before any phrase without changing it: 在 in "在2025年7月1日之前"
    frames: tuple[str, ...] = ()
    not_frames: tuple[str, ...] = ()  # words that end in a frame but are none: 现在 (now)


def _spaced(language: str, day: str, month: str, year_word: str = "", **table) -> Language:
    """A language written with spaces: ``day`` and ``month`` patterns over {D}ay, {M}onth name,
    {Y}ear and {N}umeric date; ``year_word`` may follow a year ("2025 года")."""
    year = _YEAR + year_word
    return Language(day.format(D=_DAY, M=_month(language), Y=year, N=_NUMERIC_DAY),
                    month.format(M=_month(language), Y=year), _YEAR + _SPLIT_YEAR + year_word, **table)


GERMAN = _spaced(
    "de", r"(?:{D}\.?\s*{M}(?:\s+{Y})?|{N})", r"{M}\s+{Y}",
    phrases={
        "bis {day}": BY, "bis zum {day}": BY, "bis spätestens {day}": BY, "bis spätestens zum {day}": BY,
        "spätestens am {day}": BY, "bis einschließlich {day}": BY, "vor dem {day}": BEFORE, "am {day}": ON,
        "bis {month}": BY, "bis Ende {month}": BY_END, "vor {month}": BEFORE, "im {month}": IN, "Ende {month}": AT_END,
        "bis {year}": BY, "bis Ende {year}": BY_END, "bis Ende des Jahres {year}": BY_END, "vor Ende {year}": BY_END,
        "vor {year}": BEFORE, "im Jahr {year}": IN, "im Jahre {year}": IN, "im Laufe des Jahres {year}": DURING,
        "Ende {year}": AT_END, "bis Mitte {year}": BY_MID, "im ersten Halbjahr {year}": FIRST_HALF,
        "im zweiten Halbjahr {year}": SECOND_HALF,
    },
    end_of_year=("bis Ende des Jahres", "bis zum Ende des Jahres", "bis Ende dieses Jahres", "bis Jahresende",
                 "bis zum Jahresende", "vor Jahresende", "vor Ende des Jahres", "noch in diesem Jahr",
                 "noch dieses Jahr"))

FRENCH = _spaced(
    "fr", r"(?:{D}(?:er|ᵉʳ)?\s+{M}(?:\s+{Y})?|{N})", r"{M}\s+{Y}",
    phrases={
        "avant le {day}": BEFORE, "d'ici le {day}": BY, "d'ici au {day}": BY, "au plus tard le {day}": BY,
        "le {day}": ON, "au {day}": ON, "jusqu'au {day}": UNTIL,
        "avant {month}": BEFORE, "d'ici {month}": BY, "en {month}": IN, "d'ici fin {month}": BY_END,
        "avant fin {month}": BY_END, "avant la fin de {month}": BY_END, "fin {month}": AT_END,
        "jusqu'en {month}": UNTIL,
        "avant {year}": BEFORE, "d'ici {year}": BY, "d'ici à {year}": BY, "en {year}": IN,
        "d'ici fin {year}": BY_END, "d'ici la fin de {year}": BY_END, "d'ici à la fin de {year}": BY_END,
        "avant fin {year}": BY_END, "avant la fin de {year}": BY_END, "fin {year}": AT_END,
        "à la fin de {year}": AT_END, "jusqu'en {year}": UNTIL, "d'ici mi-{year}": BY_MID, "mi-{year}": BY_MID,
        "au cours de {year}": DURING, "courant {year}": DURING, "au premier semestre {year}": FIRST_HALF,
        "au second semestre {year}": SECOND_HALF, "au deuxième semestre {year}": SECOND_HALF,
    },
    end_of_year=("d'ici la fin de l'année", "d'ici à la fin de l'année", "d'ici fin d'année",
                 "d'ici la fin de cette année", "avant la fin de l'année", "avant la fin de cette année"))

# "1 de julio de 2025", "1º de julio", "julio de 2025"
_DE_DAY, _DE_MONTH = r"(?:{D}(?:º|°|\.º)?\s+(?:de\s+)?{M}(?:\s+(?:del?\s+)?{Y})?|{N})", r"{M}\s+(?:del?\s+)?{Y}"

SPANISH = _spaced(
    "es", _DE_DAY, _DE_MONTH,
    phrases={
        "antes del {day}": BEFORE, "antes de {day}": BEFORE, "para el {day}": BY, "a más tardar el {day}": BY,
        "no más tarde del {day}": BY, "el {day}": ON, "al {day}": ON, "hasta el {day}": UNTIL,
        "antes de {month}": BEFORE, "para {month}": BY, "en {month}": IN, "para finales de {month}": BY_END,
        "antes de finales de {month}": BY_END, "a finales de {month}": AT_END, "hasta {month}": UNTIL,
        "antes de {year}": BEFORE, "antes del {year}": BEFORE, "para {year}": BY, "en {year}": IN,
        "en el año {year}": IN, "durante {year}": DURING, "para finales de {year}": BY_END,
        "para fines de {year}": BY_END, "para fin de {year}": BY_END, "antes de finales de {year}": BY_END,
        "antes de fin de {year}": BY_END, "antes del fin de {year}": BY_END, "antes de que termine {year}": BY_END,
        "a finales de {year}": AT_END, "a fines de {year}": AT_END, "al final de {year}": AT_END,
        "hasta {year}": UNTIL, "hasta finales de {year}": UNTIL, "para mediados de {year}": BY_MID,
        "a mediados de {year}": BY_MID, "en el primer semestre de {year}": FIRST_HALF,
        "en el segundo semestre de {year}": SECOND_HALF,
    },
    end_of_year=("antes de fin de año", "antes de finales de año", "antes del final del año",
                 "antes de que termine el año", "para finales de año", "para fin de año", "para fines de año"))

ITALIAN = _spaced(
    "it", r"(?:{D}(?:°|º)?\s+{M}(?:\s+{Y})?|{N})", r"{M}\s+(?:del\s+)?{Y}",
    phrases={
        "entro il {day}": BY, "entro l'{day}": BY, "entro {day}": BY, "entro e non oltre il {day}": BY,
        "non oltre il {day}": BY, "prima del {day}": BEFORE, "prima dell'{day}": BEFORE, "il {day}": ON,
        "al {day}": ON, "fino al {day}": UNTIL,
        "entro {month}": BY, "prima di {month}": BEFORE, "a {month}": IN, "nel {month}": IN,
        "entro la fine di {month}": BY_END, "entro fine {month}": BY_END, "a fine {month}": AT_END,
        "alla fine di {month}": AT_END, "fino a {month}": UNTIL,
        "entro il {year}": BY, "entro {year}": BY, "prima del {year}": BEFORE, "nel {year}": IN,
        "durante il {year}": DURING, "entro la fine del {year}": BY_END, "entro fine {year}": BY_END,
        "prima della fine del {year}": BY_END, "a fine {year}": AT_END, "alla fine del {year}": AT_END,
        "fino al {year}": UNTIL, "entro metà {year}": BY_MID, "entro la metà del {year}": BY_MID,
        "nel primo semestre del {year}": FIRST_HALF, "nella prima metà del {year}": FIRST_HALF,
        "nel secondo semestre del {year}": SECOND_HALF, "nella seconda metà del {year}": SECOND_HALF,
    },
    end_of_year=("entro fine anno", "entro la fine dell'anno", "entro fine dell'anno",
                 "prima della fine dell'anno"))

PORTUGUESE = _spaced(
    "pt", _DE_DAY, _DE_MONTH,
    phrases={
        "até {day}": BY, "até o dia {day}": BY, "até dia {day}": BY, "antes de {day}": BEFORE,
        "antes do dia {day}": BEFORE, "em {day}": ON, "no dia {day}": ON,
        "até {month}": BY, "antes de {month}": BEFORE, "em {month}": IN, "até o fim de {month}": BY_END,
        "até o final de {month}": BY_END, "até ao fim de {month}": BY_END, "no fim de {month}": AT_END,
        "no final de {month}": AT_END,
        "até {year}": BY, "antes de {year}": BEFORE, "em {year}": IN, "durante {year}": DURING,
        "até o fim de {year}": BY_END, "até o final de {year}": BY_END, "até ao fim de {year}": BY_END,
        "até ao final de {year}": BY_END, "antes do fim de {year}": BY_END, "antes do final de {year}": BY_END,
        "no fim de {year}": AT_END, "no final de {year}": AT_END, "até meados de {year}": BY_MID,
        "no primeiro semestre de {year}": FIRST_HALF, "no segundo semestre de {year}": SECOND_HALF,
    },
    end_of_year=("até o fim do ano", "até o final do ano", "até ao fim do ano", "antes do fim do ano",
                 "antes do final do ano"))

# "до" before a day is strictly before it ("до 1 июля": by 30 June); "включительно" includes it
RUSSIAN = _spaced(
    "ru", r"(?:{D}\s+{M}(?:\s+{Y})?|{N}(?:\s*(?:года|г\.))?)", r"{M}\s+{Y}", _RUSSIAN_YEAR_WORD,
    phrases={
        "до {day}": BEFORE, "к {day}": BY, "не позднее {day}": BY, "до {day} включительно": BY,
        "на {day}": ON, "по состоянию на {day}": ON, "по {day}": UNTIL,
        "до {month}": BEFORE, "к {month}": BY, "в {month}": IN, "до конца {month}": BY_END,
        "к концу {month}": BY_END, "в конце {month}": AT_END,
        "до {year}": BEFORE, "к {year}": BY, "в {year}": IN, "в течение {year}": DURING,
        "до конца {year}": BY_END, "к концу {year}": BY_END, "в конце {year}": AT_END,
        "на конец {year}": AT_END, "до середины {year}": BY_MID, "к середине {year}": BY_MID,
        "в первой половине {year}": FIRST_HALF, "во второй половине {year}": SECOND_HALF,
    },
    end_of_year=("до конца года", "до конца этого года", "до конца текущего года", "к концу года",
                 "к концу этого года"))

# 前 and 之前 are read as including the day ("6月30日前" is "by 30 June" in a notice): where a
# title meant "strictly before", that reveals the answer a day late, never a day early
CHINESE = Language(
    _CJK_DAY, _CJK_MONTH, _CJK_YEAR,
    phrases={
        "{day}前": BY, "{day}之前": BY, "{day}以前": BY, "{day}或之前": BY, "不晚于{day}": BY,
        "早于{day}": BEFORE, "在{day}": ON, "于{day}": ON, "{day}当天": ON, "截至{day}": ON,
        "截止{day}": ON, "到{day}为止": UNTIL,
        "{month}前": BY, "{month}之前": BY, "{month}以前": BY, "{month}底前": BY_END,
        "{month}底之前": BY_END, "{month}末前": BY_END, "在{month}": IN, "于{month}": IN,
        "{month}底": AT_END, "{month}末": AT_END, "截至{month}底": AT_END,
        "{year}前": BY, "{year}之前": BY, "{year}以前": BY, "{year}内": BY, "{year}之内": BY,
        "{year}以内": BY, "{year}年内": BY, "{year}底前": BY_END, "{year}底之前": BY_END,
        "{year}底以前": BY_END, "{year}年底前": BY_END, "{year}年底之前": BY_END, "{year}末前": BY_END,
        "{year}年末前": BY_END, "在{year}": IN, "于{year}": IN, "{year}期间": DURING,
        "{year}底": AT_END, "{year}年底": AT_END, "{year}末": AT_END, "{year}年末": AT_END,
        "截至{year}底": AT_END, "截至{year}年底": AT_END, "{year}上半年": FIRST_HALF,
        "{year}下半年": SECOND_HALF, "{year}第一季度": Q1, "{year}第二季度": Q2, "{year}第三季度": Q3,
        "{year}第四季度": Q4,
    },
    end_of_year=("年底前", "年底之前", "年末前", "今年底前", "今年年底前", "年内", "今年内"),
    joined=True, frames=("在", "于"),
    not_frames=("现在", "正在", "存在", "实在", "所在", "自在", "由于", "关于", "对于", "至于", "属于",
                "位于", "等于"))

# までに is "by" (the day included), より前 "strictly before", 以前 includes the day
JAPANESE = Language(
    _CJK_DAY, _CJK_MONTH, _CJK_YEAR,
    phrases={
        "{day}までに": BY, "{day}以前に": BY, "{day}以前": BY, "{day}前に": BY,
        "{day}より前に": BEFORE, "{day}より前": BEFORE, "{day}に": ON, "{day}時点で": ON,
        "{day}時点": ON, "{day}の時点で": ON, "{day}まで": UNTIL,
        "{month}までに": BY, "{month}以前に": BY, "{month}より前に": BEFORE, "{month}末までに": BY_END,
        "{month}に": IN, "{month}中に": DURING, "{month}末に": AT_END, "{month}末時点で": AT_END,
        "{month}末時点": AT_END, "{month}まで": UNTIL,
        "{year}までに": BY, "{year}以前に": BY, "{year}より前に": BEFORE, "{year}内に": BY,
        "{year}末までに": BY_END, "{year}に": IN, "{year}中に": DURING, "{year}末に": AT_END,
        "{year}末時点で": AT_END, "{year}末時点": AT_END, "{year}末": AT_END, "{year}まで": UNTIL,
        "{year}半ばまでに": BY_MID, "{year}前半に": FIRST_HALF, "{year}上半期に": FIRST_HALF,
        "{year}後半に": SECOND_HALF, "{year}下半期に": SECOND_HALF,
    },
    end_of_year=("年末までに", "今年末までに", "年内に", "今年内に", "今年中に"),
    joined=True)

LANGUAGES = {"de": GERMAN, "fr": FRENCH, "es": SPANISH, "it": ITALIAN, "pt": PORTUGUESE, "ru": RUSSIAN,
             "zh": CHINESE, "ja": JAPANESE}

# a name several languages share ("mai", "marzo", "agosto") is the same month in each
MONTH_NUMBER = {name: number for months in MONTH_NAMES.values() for number, forms in enumerate(months, 1)
                for name in forms}


@dataclass(frozen=True)
class Phrase:
    """A deadline phrase at ``text[start:end]``, the English words it means, and its date: a
    ``day`` (``year`` may be None: the title gave none), a ``month`` of a year, a ``year``, or
    ``end_of_year`` (the end of the open date's year: no date given)."""
    start: int
    end: int
    meaning: str
    date_kind: str
    year: int | None = None
    month: int | None = None
    day: int | None = None


def _key(words: str) -> str:
    """A phrase's words as the tables spell them: lower case, one space, a plain apostrophe."""
    return " ".join(words.replace("’", "'").lower().split())


def _words(phrase: str, joined: bool) -> str:
    """A pattern of ``phrase``'s words: any whitespace between them, either apostrophe."""
    gap = r"\s*" if joined else r"\s+"
    return gap.join(re.escape(w) for w in phrase.split()).replace("'", "['’]")


def _longest_first(patterns: set[str]) -> str:
    return "|".join(sorted(patterns, key=len, reverse=True))


@dataclass(frozen=True)
class _Form:
    """One language's phrases around one kind of date (a day, a month or a year), compiled."""
    date_kind: str
    pattern: re.Pattern
    meanings: dict[tuple[str, str], str]  # (words before the date, words after it): English words
    frames: frozenset[str]

    def meaning(self, m: re.Match) -> tuple[str, int, int] | None:
        """The English words a match means and the span of the phrase that says so: the words
        on both sides of the date, else those before it, else those after it."""
        lead, tail = _key(m.groupdict().get("lead") or ""), _key(m.groupdict().get("tail") or "")
        options = [((lead, tail), *m.span())]
        if lead in self.frames:
            options.append((("", tail), *m.span()))
        options += [((lead, ""), m.start(), m.end("date")), (("", tail), m.start("date"), m.end())]
        for key, start, end in options:
            if key != ("", "") and key in self.meanings:
                return self.meanings[key], start, end
        return None


# Chinese and Japanese: 前 of "2025年前三季度" (the first three quarters of 2025) is no deadline;
# 明年内, 5年内 are next year and within five years, not this one
_NOT_AFTER_JOINED_WORDS = r"(?![\d〇一二三四五六七八九十几两个])"
_NOT_BEFORE_JOINED_END_OF_YEAR = r"(?<![\d〇一二三四五六七八九十百千几两多今明去来昨前后每])"
_JOINED_CUES = frozenset("年月")  # every Chinese and Japanese date and end of the year has one


@dataclass(frozen=True)
class _Reader:
    """One language's tables compiled, with the words one of which a title must hold to hold
    any of its phrases (a cheap test that spares the patterns most titles)."""
    joined: bool
    cues: frozenset[str]
    forms: tuple[_Form, ...]
    end_of_year: re.Pattern

    def may_match(self, text: str, words: set[str]) -> bool:
        return any(cue in text for cue in self.cues) if self.joined else not self.cues.isdisjoint(words)


def _lead(language: Language, words: str) -> str:
    """A pattern of the words before a date; a frame not as the end of another word (现在)."""
    not_after = (rf"(?<!{re.escape(word[:-len(words)])})" for word in language.not_frames
                 if words in language.frames and word.endswith(words))
    return "".join(not_after) + _words(words, language.joined)


def _reader(language: Language) -> _Reader:
    joined, gap = language.joined, (r"\s*" if language.joined else r"\s+")
    by_date_kind: dict[str, list[tuple[str, str, str]]] = {}  # "day": [(words before, words after, meaning)]
    for phrase, meaning in language.phrases.items():
        lead, date_kind, tail = re.split(r"\{(day|month|year)\}", phrase)
        by_date_kind.setdefault(date_kind, []).append((lead, tail, meaning))
    frames = {_lead(language, frame) for frame in language.frames}
    forms = []
    for date_kind, phrases in by_date_kind.items():
        # words before a date end with a space unless they run into it ("mi-2025", "dell'8")
        leads = {_lead(language, lead) + (gap if joined or lead.endswith(" ") else "") for lead, _, _ in phrases if lead}
        leads |= {frame + gap for frame in frames}
        # in a joined script only a tail ending in 前 or 内 is barred from a number after it ("2025年前三季度":
        # the first three quarters); "2025年6月までに5%を超える" reads "までに"
        tails = {(gap if joined or tail.startswith(" ") else "") + _words(tail, joined) for _, tail, _ in phrases if tail}
        barred = {t for t in tails if joined and t.endswith(("前", "内"))}
        lead_pattern = rf"(?P<lead>{_longest_first(leads)})" if leads else ""
        if leads and any(not lead for lead, _, _ in phrases):
            lead_pattern += "?"
        after = "" if joined else r"(?!\w)"
        # longest first, as written; a barred tail keeps its place with its guard after it
        ordered = sorted(tails, key=len, reverse=True)
        alternatives = "|".join(t + _NOT_AFTER_JOINED_WORDS if t in barred else t for t in ordered)
        tail_pattern = rf"(?:(?P<tail>{alternatives}){after})?" if tails else ""
        boundary = "" if joined else r"\b"
        pattern = rf"{boundary}{lead_pattern}(?P<date>{getattr(language, date_kind)}){tail_pattern}"
        meanings = {(_key(lead), _key(tail)): meaning for lead, tail, meaning in phrases}
        forms.append(_Form(date_kind, re.compile(pattern, re.I), meanings, frozenset(language.frames)))
    end_of_year = _longest_first({_words(words, joined) for words in language.end_of_year})
    if joined:
        frame = rf"(?:(?:{_longest_first(frames)})\s*)?" if frames else ""
        end_of_year = rf"{frame}{_NOT_BEFORE_JOINED_END_OF_YEAR}(?:{end_of_year})"
    else:
        end_of_year = rf"\b(?:{end_of_year})(?!\w)(?!\s*\d)"  # not "bis Ende des Jahres 2025"
    firsts = [lead for phrases in by_date_kind.values() for lead, _, _ in phrases if lead] + [*language.end_of_year]
    cues = _JOINED_CUES if joined else frozenset(re.match(r"\w+", _key(words)).group() for words in firsts)
    return _Reader(joined, cues, tuple(forms), re.compile(end_of_year, re.I))


_READERS = tuple(_reader(language) for language in LANGUAGES.values())


def _date_parts(groups: dict[str, str]) -> tuple[int | None, int, int | None]:
    """(year, month, day) from a match's groups: a day written with a month's name or number,
    day first (30.06.2025), or ISO (2025-06-30)."""
    d, m, y = next(names for names in (("d", "m", "y"), ("d", "mn", "y"), ("nd", "nm", "ny"), ("id", "im", "iy"))
                   if names[1] in groups)
    month = int(groups[m]) if groups[m].isdigit() else MONTH_NUMBER[groups[m].lower()]
    return (int(groups[y]) if y in groups else None), month, (int(groups[d]) if d in groups else None)


def find_phrases(text: str) -> Iterator[Phrase]:
    """Every deadline phrase of the languages here in ``text``; phrases may overlap."""
    words = set(re.findall(r"\w+", text.lower()))
    for reader in _READERS:
        if not reader.may_match(text, words):
            continue
        for form in reader.forms:
            for m in form.pattern.finditer(text):
                if not (found := form.meaning(m)):
                    continue
                meaning, start, end = found
                groups = {name: value for name, value in m.groupdict().items() if value}
                if form.date_kind == "year":
                    yield Phrase(start, end, meaning, "year", int(groups["y"]))
                else:
                    yield Phrase(start, end, meaning, form.date_kind, *_date_parts(groups))
        for m in reader.end_of_year.finditer(text):
            yield Phrase(*m.span(), BY, "end_of_year")
