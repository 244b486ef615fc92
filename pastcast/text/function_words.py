"""Function words of the languages most common in CC-NEWS besides English, by ISO 639-1 code:
words that say nothing about which event a sentence reports (articles, prepositions, pronouns,
auxiliaries, conjunctions, question particles), lower case, as written (accents kept).

English uses ``pastcast.text.vocabulary.STOPWORDS`` (the one English list); ``function_words``
gives either. Lists are short on purpose: a content word left in costs a little recall in the
checks that compare words, a content word taken out costs precision.
"""

from __future__ import annotations

from pastcast.text.vocabulary import STOPWORDS

_BY_LANGUAGE = {
    "de": """der die das den dem des ein eine einer eines einem einen im am zum zur vom beim und oder aber
        nicht kein keine keinen zu bis vor nach bei mit von für auf aus an in über unter um durch gegen
        ohne seit als wie wenn ob dass daß es er sie wir ihr ich sich sein seine ihre ihren ihrem
        wird werden wurde wurden worden ist sind war waren hat haben hatte hatten sein kann können
        soll sollen muss müssen noch schon auch nur mehr neue neuen neuer neues jahr jahres jahren ende""",
    "fr": """le la les l un une des du de d au aux et ou mais ne pas plus que qui quoi quel quelle quels
        quelles dont où en dans sur sous par pour avec sans avant après entre vers chez depuis il elle
        ils elles on se sa son ses leur leurs ce cet cette ces est sont était sera seront a ont avait
        été être va vont peut pourra doit t est-ce lui y nouveau nouvelle nouveaux année fin""",
    "es": """el la los las lo un una unos unas de del al y o u e pero no ni que quien quién qué cual cuál
        cuales en por para con sin sobre bajo entre hasta desde antes después ante tras se su sus le
        les es son fue fueron era será serán ha han había habrá va van puede podrá debe este esta
        estos estas ese esa nuevo nueva nuevos nuevas año fin""",
    "it": """il lo la i gli le l un uno una di del dello della dei degli delle a al allo alla ai agli alle
        da dal dalla dai in nel nella nei con su sul sulla per tra fra e o ma non che chi cui se si
        suo sua suoi sue è sono era sarà saranno ha hanno aveva stato stata entro prima dopo nuovo
        nuova anno fine""",
    "pt": """o a os as um uma uns umas de do da dos das em no na nos nas por pelo pela para com sem sobre
        entre até desde antes depois e ou mas não que quem qual se seu sua seus suas é são foi foram
        será serão tem têm vai vão pode novo nova ano fim""",
    "nl": """de het een van in op aan met voor door bij naar uit over onder tot en of maar niet geen dat
        die wie wat welke zijn is was waren wordt worden werd werden heeft hebben had zal zullen kan
        nieuwe jaar eind""",
    "ru": """и в во на с со к ко по о об от до из за для при без под над через между у не ни ли же бы
        что кто как где когда который которая которые это этот эта эти тот та те он она они его её
        их свой своя свои был была было были будет будут быть есть ещё уже также год года году конца
        конец новый новая новые""",
}
FUNCTION_WORDS = {lang: frozenset(words.split()) for lang, words in _BY_LANGUAGE.items()}
# every language's, for text whose language is not known (a title's capitalised first word)
ALL_FUNCTION_WORDS = frozenset().union(STOPWORDS, *FUNCTION_WORDS.values())


def function_words(language: str) -> frozenset[str]:
    """The function words of ``language`` (English's stop words for "en" and any language
    without a list of its own here, since English words are common in every language's news)."""
    return FUNCTION_WORDS.get(language, frozenset()) | STOPWORDS
