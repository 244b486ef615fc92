"""English words the stages read text with, each list defined once: month and weekday names,
stop words, hedges and the words of a yes/no answer.

Where stages used copies that differed, the list here is what they share and each stage adds
its own words beside its use (with a comment naming this module), so every stage reads
exactly the words it read before."""

from __future__ import annotations

from collections.abc import Iterable

# In calendar order: MONTHS.index(name) + 1 is the month's number. Capitalised, as written in
# a date ("May" the month, "may" the verb); users that fold case lower them.
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
MONTH_ABBREVIATIONS = ("Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov",
                       "Dec")  # "May" has none
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

# Month names of other languages, lower case, in calendar order: MONTH_NAMES[language][n - 1]
# holds every form month n is written in within a date: Russian case forms (nominative
# "июль", genitive "1 июля", prepositional "в июле", dative "к июлю"), spellings without
# accents ("aout"). Chinese and Japanese write months as numbers ("7月"). English is MONTHS.
_MONTH_NAMES = {  # each month's forms space-separated
    "de": ("januar jänner", "februar", "märz maerz", "april", "mai", "juni", "juli", "august", "september",
           "oktober", "november", "dezember"),
    "fr": ("janvier", "février fevrier", "mars", "avril", "mai", "juin", "juillet", "août aout", "septembre",
           "octobre", "novembre", "décembre decembre"),
    "es": ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre setiembre",
           "octubre", "noviembre", "diciembre"),
    "it": ("gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre",
           "ottobre", "novembre", "dicembre"),
    "pt": ("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro",
           "novembro", "dezembro"),
    "ru": ("январь января январе январю", "февраль февраля феврале февралю", "март марта марте марту",
           "апрель апреля апреле апрелю", "май мая мае маю", "июнь июня июне июню", "июль июля июле июлю",
           "август августа августе августу", "сентябрь сентября сентябре сентябрю",
           "октябрь октября октябре октябрю", "ноябрь ноября ноябре ноябрю", "декабрь декабря декабре декабрю"),
}
MONTH_NAMES: dict[str, tuple[tuple[str, ...], ...]] = {
    language: tuple(tuple(month.split()) for month in months) for language, months in _MONTH_NAMES.items()}

# Words of a question title that say nothing about which event it asks about: English function
# words and the words every outcome question uses. Lower case. Users add their own:
# ``pastcast.search.keywords.STOPWORDS`` (the search stop words, used by the retrieval agent and
# the revision step) more function words and "yes"/"no"; ``pastcast.questions.question_dedup``
# kinds of answer, units of time and report verbs.
STOPWORDS = frozenset(
    """a about after an and are as at be been before being between but by can could did do does
    for from her his how if in into is it its nor not of on or over should than that the their
    them there these they this those to under was were what when where which who whom whose why
    will with would according announce announced become becomes first last name named new next
    per percent win wins won""".split()
)

# Articles of the Latin-script languages most common in CC-NEWS besides English (de, fr, es, it,
# pt, nl, the Scandinavian languages), lower case: a capitalised one starts a sentence or is part
# of a name ("Las Vegas", "Den Haag"); after a lower-case one a German capitalised word is a
# common noun ("der Kinder"). English articles are in STOPWORDS.
ARTICLES = frozenset(
    """der die das den dem des ein eine einer eines einem einen im am zum zur vom beim
    le la les l un une du el los las una unos unas il lo gli uno o os um uma het een ett et""".split()
)

# Answers that name no entity: the words of a binary question's outcomes, normalised.
BINARY_ANSWERS = frozenset({"yes", "no", "true", "false"})

# Words that make a sentence a prediction or a preview, not a report of an outcome: regular
# expression alternatives, a space standing for the gap between two words (see ``phrases``).
# The two users add their own and choose their case rule: the extractive generator
# (``pastcast.questions.extractive.grammar.HEDGE``, case-sensitive) and the revision step's
# lexical rule (``pastcast.questions.revision.lexical.HEDGE``, any case, any whitespace).
HEDGES = ("expected", "likely", "poised", "set to", "on track", "tipped", "projected", "predicts?",
          "predicted", "forecasts?", "could", "would", "might", "if", "unless", "whether",
          "plans? to", "planned to", "odds", "bidding", "considering", "rumou?red", "reportedly",
          "said to be", "in line to")


def phrases(alternatives: Iterable[str], gap: str = " ") -> str:
    """Regular-expression alternatives joined with ``|``, each space inside one replaced by
    ``gap`` (``r"\\s+"``: any run of whitespace between the words)."""
    return "|".join(a.replace(" ", gap) for a in alternatives)


# Negations, by what they deny: "not" (a plain negation or a negative determiner: "no", "kein"),
# "never", "fail" (an attempt that does not succeed). Regular-expression alternatives, lower
# case, of English and the languages of ``pastcast.text.function_words``, and the unambiguous
# Chinese ones (not a lone "不", nor "不会"/"不是" in "会不会"/"是不是": those ask, they do not
# deny); "no" not as "No. 1", "no 5" or "yes or no", "non" not in "non-profit"; matched as whole words
# (those of a script written without spaces anywhere). Not French "ne" (never alone, and an
# Italian pronoun) nor Italian "mai" (a French month). Question dedup reads a title's polarity
# with them; the revision's ``cues.NEGATION`` is its own (older) list for reports.
NEGATIONS = {
    "not": ("not", r"\w*n['’]t", "cannot", r"(?<!yes or )no(?!\.|\s*\d)", "none", "nothing", "nobody",
            "neither", "nicht", r"kein\w*", "pas", "non(?!-)", "não", "niet", "geen", r"aucun\w*", r"ningun\w*",
            "ningún", r"nessun\w*", r"nenhum\w*", "не", "нет", "没有", "(?<!会)不会", "(?<!是)不是", "并非", "尚未", "未能", "并未"),
    "never": ("never", "nie", "niemals", "jamais", "nunca", "jamás", "nooit", "никогда", "从未", "从不", "决不"),
    "fail": (r"fail(?:s|ed|ing)? to", "unable to"),
}
