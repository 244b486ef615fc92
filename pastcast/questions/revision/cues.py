"""The words of the settled-outcome rule (``pastcast.questions.revision.settled``), each list
defined once: cues that report an outcome as settled, also ahead of its formal date ("will take
over as", "is set to become", "agreed to appoint", "wird ... übernehmen", "prendra la
direction", "asumirá", "займёт пост", "将出任"), which slot of a cue holds the answer, the hedges
of other languages than English (the English ones are ``lexical.HEDGE``: the shared
``pastcast.text.vocabulary.HEDGES`` plus the revision's own), formalities that leave a settled
outcome settled ("will be sworn in", "the deal is expected to close"), and the words that put
a name in a loser's or predecessor's place ("defeating", "succeeding", "Nachfolge von").

A cue is ``(pattern, slots)``. Slots say where the answer must be:
``s`` right before the cue (its subject: nothing between but an apposition, an auxiliary, an
adverb or a time phrase), ``o`` right after it (its object; titles allowed between), ``r`` in
the rest of its clause (a value: "agreed to raise the rate to 5.5 percent"), ``x`` inside the
cue ("set its rate at 3.75%"), ``a`` starting where the pattern's empty group ``(?P<a>)`` is
("dass <answer> ... übernehmen wird"), ``l`` right after the group ``lic`` (a German verb
before its subject: "Im April übernimmt Anna Weber"). The group ``lic`` names the future-tense
words the cue licenses ("will", "set to", "wird"): those are no hedge inside the cue; every
other word of the sentence is still checked for hedges. ``confirmed`` cues ("will host",
"will join") count only in a sentence that says the outcome was confirmed or announced."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Cue:
    lang: str
    pattern: re.Pattern
    slots: str
    confirmed: bool = False  # counts only with a confirmation word (``CONFIRMATION``)


def _cues(lang: str, table: list[tuple], flags=re.I) -> list[Cue]:
    return [Cue(lang, re.compile(p, flags), s, *rest) for p, s, *rest in table]


_ADV = r"(?:(?:also|now|formally|officially|then|soon|duly)\s+)?"
_ROLE_EN = (r"take\s+over|take\s+the\s+helm|take\s+the\s+reins|take\s+charge|become|succeed|replace|"
            r"step\s+in\s+as|step\s+into|receive|"
            r"assume\s+(?:the\s+)?(?:role|post|position|office|presidency|chair\w*|leadership|command)|"
            r"be\s+(?:formally|officially)\s+(?:named|appointed|installed|inaugurated|confirmed\s+as)|"
            r"be\s+(?:named|appointed|installed|inaugurated|crowned|awarded|honou?red|sworn\s+in\s+as|"
            r"confirmed\s+as|presented\s+with|the\s+(?:next|new))")

EN = _cues("en", [
    (rf"\b(?P<lic>will|is\s+set\s+to|are\s+set\s+to)\s+{_ADV}(?:{_ROLE_EN})\b", "s"),
    (r"\b(?:is|are)\s+(?:to|due\s+to)\s+(?:take\s+over|become|succeed|replace|be\s+(?:named|appointed))\b", "s"),
    (r"\b(?:takes|is\s+taking)\s+(?:over\s+as|over\s+from|charge\s+of|the\s+helm)\b", "s"),
    (r"\b(?:is|are|was|were|has\s+been|have\s+been)\s+(?:(?:now|officially|formally)\s+)?confirmed\s+as\b", "s"),
    (r"\b(?:has|have|had)\s+been\s+(?:chosen|picked|selected|tapped|named|appointed|designated|confirmed|elected)"
     r"\s+(?:as|to\s+(?:succeed|lead|head|become|take\s+over|replace|chair|captain|coach|manage|host|stage|run))\b",
     "s"),
    (r"\b(?:has|have)\s+accepted\s+(?:the|an|a)\s+(?:post|role|job|position|offer)\b", "s"),
    (r"\b(?:has|have)\s+signed\s+(?:an?\s+)?(?:\S+\s+){0,2}?(?:contract|deal)\s+to\s+"
     r"(?:manage|coach|lead|join|captain|play\s+for)\b", "s"),
    (r"\b(?:is|are)\s+(?:now\s+)?(?:the\s+)?(?:new\s+)?champions\b", "s"),
    (r"\b(?:agreed|voted|decided|resolved)\s+(?:(?:unanimously|formally)\s+)?to\s+"
     r"(?:appoint|name|hire|install|elect|select|choose|pick|promote)\b", "o"),
    (r"\b(?:agreed|voted|decided)\s+to\s+award\s+(?:\S+\s+){0,5}?to\b", "o"),
    (r"\b(?P<lic>will)\s+(?:appoint|name)\b", "o"),
    # found by a review: "announced the appointment of X as", "has hired X as", "President-elect X"
    (r"\b(?:announced|confirmed|approved)\s+the\s+appointment\s+of\s+(?:\S+\s+){1,4}?as\b", "x"),
    (r"\b(?:has|have|had)\s+(?:hired|appointed|named|tapped|installed)\b", "o"),
    (r"\b(?:president|mayor|governor|chancellor|premier|prime\s+minister)-elect\b", "o"),
    (r"\b(?:became|took\s+office\s+as|(?:was|were)\s+sworn\s+in\s+as|sworn\s+in\s+as)\b", "s"),
    (r"\b(?:the\s+)?(?:prize|award|title|trophy|contract|seat|medal|crown|nod)\s+went\s+to\b", "o"),
    (r"\bwinners?\s+(?:is|was|are|were)\b", "o"),
    (r"\bconceded\s+(?:defeat\s+)?to\b", "o"),
    (r"\b(?:tapped|taps)\b", "o"),
    (r"\b(?:has\s+|have\s+|had\s+)?agreed\s+to\s+(?:buy|acquire|purchase|take\s+over|merge\s+with)\b", "s"),
    (r"\bagreed\s+to\s+sell\s+(?:\S+\s+){0,5}?to\b", "o"),
    (r"\b(?:agreed|voted|decided)\s+to\s+(?:raise|cut|lower|reduce|increase|hold|keep|set|freeze|build)\b", "r"),
    (rf"\b(?P<lic>will)\s+{_ADV}(?:host|stage|lead|head|run|chair|coach|manage|captain|join|buy|acquire|build|"
     r"be\s+the\s+(?:site|venue|host|home|location))\b", "so", True),
    (r"\b(?P<lic>will)\s+(?:be\s+)?(?:cut|raised|lowered|reduced|increased|rise|fall|drop|climb)\s+to\b", "r", True),
])

_ROLE_DE = (r"\w*(?:chef|chefin|trainer|trainerin|präsident|präsidentin|vorsitzender?|direktor|direktorin|leiter|"
            r"leiterin|intendant|intendantin|nachfolger|nachfolgerin|minister|ministerin|bürgermeister|"
            r"bürgermeisterin|kanzler|kanzlerin|botschafter|botschafterin|kapitän|kapitänin|gouverneur)")
DE = _cues("de", [
    (rf"\b(?P<lic>wird|werden)\s+(?:\S+\s+){{0,3}}?(?:neue[rsn]?\s+)?{_ROLE_DE}\b", "sl"),
    (r"\b(?P<lic>wird)\s+(?:\S+\s+){0,6}?(?:übernehmen|antreten|ablösen|beerben|leiten|führen)\b", "sl"),
    (r"\bdass\s+(?P<a>)[^,;.]{2,80}?\s(?:übernehmen|antreten|ablösen|beerben|leiten|führen)\s+(?P<lic>wird)\b",
     "a"),
    (r"\b(?P<lic>übernimmt|übernehmen)\b", "sl"),
    (r"\b(?P<lic>tritt)\s+(?:\S+\s+){0,4}?(?:die\s+)?Nachfolge\b", "sl"),
    (r"\b(?P<lic>wurde|wurden|ist|sind)\s+(?:\S+\s+){0,6}?(?:ernannt|gewählt|berufen|bestellt|ausgewählt|gekürt|"
     r"bestätigt)(?:\s+worden)?\b", "sl"),
    (r"\b(?P<lic>hat|haben)\s+(?:\S+\s+){0,8}?gewonnen\b", "sl"),
    (r"\bgeht\s+(?:\S+\s+){0,4}?an\b", "o"),
    (r"\b(?:beschlossen|entschieden|vereinbart),?\s+(?P<a>)[^,;.]{2,60}?\s(?:zu\s+ernennen|zu\s+berufen|"
     r"zu\s+bestellen|zu\s+wählen)\b", "a"),
    (r"\bsich\s+für\s+(?P<a>)[^,;.]{2,80}?\s+entschieden\b", "a"),
    (r"\bsetzte\s+sich\s+(?:\S+\s+){0,8}?durch\b", "s"),
])

FR = _cues("fr", [
    (r"\b(?:prendra|prendront)\s+(?:la\s+(?:tête|direction|présidence)|ses\s+fonctions|les\s+rênes)\b", "s"),
    (r"\b(?:succédera|succéderont)\s+à\b", "s"),
    (r"\b(?:deviendra|deviendront|accueillera|accueilleront|dirigera|présidera)\b", "s"),
    (r"\bsera\s+(?:nommée?|désignée?|investie?|élue?\s+(?!si)|la\s+(?:nouvelle|prochaine)|le\s+(?:nouveau|prochain))",
     "s"),
    (r"\b(?:a|ont)\s+été\s+(?:\S+\s+){0,2}?(?:nommée?s?|élue?s?|désignée?s?|choisie?s?|retenue?s?|"
     r"sélectionnée?s?|proclamée?s?)\b", "s"),
    (r"\b(?:a|ont)\s+remporté\b", "s"),
    (r"\ba\s+décerné\s+(?:\S+\s+){0,4}?à\b", "o"),
    (r"\b(?:a|ont)\s+accepté\s+de\s+(?:racheter|acquérir|reprendre)\b", "s"),
    (r"\b(?:a|ont)\s+(?:accepté|décidé)\s+de\s+nommer\b", "o"),
    (r"\ba\s+officialisé\s+(?:l['’]arrivée|la\s+nomination|le\s+recrutement)\s+de\b", "o"),
    (r"\b(?:a\s+)?déclaré\s+(?:\S+\s+){0,3}?coupable\b", "x"),
    (r"\best\s+appelée?\s+à\s+(?:succéder|devenir|prendre)\b", "s"),
])

ES = _cues("es", [
    (r"\b(?:asumirá|asumirán|dirigirá|presidirá|recibirá|recibirán)\b", "s"),
    (r"\b(?:sucederá|sustituirá|reemplazará)\s+a\b", "s"),
    (r"\bse\s+convertirá\s+en\b", "s"),
    (r"\bserá\s+(?:la\s+sede|el\s+nuevo|la\s+nueva|el\s+próximo|la\s+próxima|nombrad[oa]|designad[oa])\b", "s"),
    (r"\b(?:fue|fueron|ha\s+sido|han\s+sido)\s+(?:\S+\s+){0,2}?(?:nombrad[oa]s?|elegid[oa]s?|designad[oa]s?|"
     r"seleccionad[oa]s?|escogid[oa]s?|proclamad[oa]s?)\b", "s"),
    (r"\b(?:ganó|ha\s+ganado|gana)\b", "s"),
    (r"\b(?:acordó|ha\s+acordado|decidió)\s+(?:nombrar|designar)\s+a\b", "o"),
    (r"\b(?:acordó|ha\s+acordado|acordaron)\s+(?:comprar|adquirir)\b", "s"),
    (r"\bdeclaró\s+culpable\b", "x"),
])

RU = _cues("ru", [
    (r"(?<!\w)(?:займёт|займет|станет|возглавит|сменит|примет|получит)(?!\w)", "s"),
    (r"(?<!\w)(?:будет\s+)?(?:назначен|назначена|назначены|избран|избрана|избраны|утверждён|утвержден|утверждена|"
     r"выбран|выбрана)(?!\w)", "s"),
    (r"(?<!\w)(?:назначил|назначила|назначили|избрали|выбрали)(?!\w)", "o"),
])

# Scripts written without spaces: no word boundaries; the slot gap is measured in characters.
ZH = _cues("zh", [
    (r"(?P<lic>将)(?:于[^，。；：、]{1,6}?)?(?:正式)?(?:出任|接任|担任|接掌|执掌|承办|主办|获得|成为|接替)", "s"),
    (r"(?:已)?(?:被|获)(?:正式)?(?:任命|委任|选为|选定)", "s"),
    (r"当选|出任|接任", "s"),
])
JA = _cues("ja", [
    (r"就任(?:すると(?:発表|決定|正式)|することが(?:決ま|決定)|することを(?:発表|決定|正式)|した)", "s"),
])

CUES: tuple[Cue, ...] = (*EN, *DE, *FR, *ES, *RU, *ZH, *JA)

# A sentence that says the outcome was confirmed or announced (for ``confirmed`` cues).
CONFIRMATION = re.compile(r"\b(?:confirmed|confirms|announced|announces|declared|in\s+a\s+statement|"
                          r"official(?:ly)?|(?:agreement|contract|deal)\s+(?:was\s+)?signed)\b", re.I)

# Hedges of other languages (the English ones: ``lexical.HEDGE``). Any case, whole words.
_HEDGES_LATIN = (
    # German
    r"könnte|könnten|dürfte|dürften|soll|sollen|sollte|wohl|voraussichtlich|wahrscheinlich|möglicherweise|vermutlich|"
    r"angeblich|offenbar|gilt\s+als|gelten\s+als|favorit\w*|kandidat\w*|gehandelt|im\s+gespräch|gespräch\w*|"
    r"verhandelt|verhandlung\w*|berichten\s+zufolge|informationen|insider\w*|kreisen|hochrechnung\w*|"
    r"prognose\w*|umfrage\w*|vorn|vorne|ob|falls|wenn|nicht|kein\w*|offen|nominiert|mögliche[rns]?|erwartet|"
    r"wollen|strebt|bewirbt|bewerbung|"
    # French
    r"pourrait|pourraient|devrait|devraient|serait|seraient|probablement|favori|favorite|favoris|pressentie?s?|"
    r"en\s+lice|parmi|candidate?s?|candidature|selon\s+(?:des|plusieurs|nos|certaines)\s+sources|"
    r"selon\s+(?:la\s+presse|les\s+médias|plusieurs\s+médias)|négociations?|discussions?|pourparlers|"
    r"envisage\w*|circule|rumeurs?|pas|ne|si|peut-être|finalistes?|en\s+tête|espère|vise|brigue|"
    # Spanish
    r"podría|podrían|sería|serían|previsiblemente|posiblemente|quizás?|favorit[oa]s?|candidat[oa]s?|"
    r"finalistas?|según\s+fuentes|fuentes|conversaciones|negociaciones|negocia|negocian|suena|se\s+perfila|"
    r"encabeza|encuestas?|sondeos?|no|aspira|opta\s+a|se\s+espera|baraja|uno\s+de\s+los|una\s+de\s+las|"
    # Russian
    r"может|могут|мог\w*\s+бы|вероятно|возможно|скорее\s+всего|фаворит\w*|кандидат\w*|претенд\w*|считается|"
    r"по\s+данным|по\s+слухам|источник\w*|сообщают|переговор\w*|рассматрива\w*|не|если|ли"
)
_HEDGES_CJK = (r"可能|或将|或许|也许|有望|预计|预期|据悉|据报道|知情人士|消息人士|传闻|传言|候选|热门|人选|之一|谈判|洽谈|"
               r"商谈|考虑|领先|民调|如果|若|是否|尚未|未能|并未|没有|不会|不是|并非|否认|拟|视为|料将|提名|"
               r"見通し|見込み|可能性|有力|検討|候補|とみられ|観測|方針|予定")
HEDGE_OTHER = re.compile(rf"(?<!\w)(?:{_HEDGES_LATIN})(?!\w)|{_HEDGES_CJK}", re.I)

# Formalities after a settled outcome: their future tense is no hedge ("will be sworn in").
FORMALITY = re.compile(
    r"\b(?:will|shall|(?:is|are)\s+(?:due|scheduled|set)\s+to|(?:is|are)\s+to)\s+(?:(?:formally|officially|then)\s+)?"
    r"(?:be\s+(?:(?:formally|officially)\s+)?(?:certified|ratified|sworn\s+in|inaugurated|installed|unveiled|"
    r"presented|handed\s+over|proclaimed|announced|confirmed|signed|completed|finalised|finalized|held|released)|"
    r"take\s+(?:effect|office|place)|take\s+up\s+(?:the|his|her|their|its)\s+(?:post|role|position|job|seat|duties)|"
    r"start|begin|open|close|lift|receive\s+the\s+(?:trophy|cup|medal|award|prize|crystal\s+globe|globe)|hand\s+down)\b"
    r"|\b(?:deal|transaction|acquisition|merger|takeover|sale)\s+(?:is|are)\s+expected\s+to\s+(?:close|complete|"
    r"be\s+completed)\b"
    r"|\bpending\s+(?:(?:formal|official|final)\s+)?(?:certification|ratification)\b"
    r"|\bnot\s+(?:be\s+)?(?:due|expected|scheduled|certif\w+|ratif\w+|declared|sworn\s+in)\s+(?:\S+\s+){0,4}?until\b"
    r"|\b(?:who|which)\s+(?:will|is\s+set\s+to|is\s+due\s+to|is\s+to)\s+(?:retire|step\s+down|stand\s+down|leave|"
    r"depart|step\s+aside)\b",
    re.I)

# Words that put the name after them in a loser's or predecessor's place, not the outcome's.
LOSER = re.compile(
    r"(?<!\w)(?:defeating|defeated|defeat|beating|beat|beats|over|against|versus|vs|ousting|ousted|unseating|"
    r"unseated|replacing|replaces|replace|replaced|succeeding|succeeds|succeed|succeeded|from|outgoing|"
    r"predecessor|successor\s+to|of|edging|pipping|than|"
    r"nachfolge\s+von|nachfolger(?:in)?\s+von|gegen|anstelle\s+von|statt|von|"
    r"succédera\s+à|succéder\s+à|remplacer|remplacera|à\s+la\s+place\s+de|contre|battu|battant|devançant|"
    r"sucederá\s+a|suceder\s+a|sustituir\s+a|sustituirá\s+a|reemplazar\s+a|en\s+lugar\s+de|contra|derrotó\s+a|"
    r"derrotando\s+a|venció\s+a|"
    r"сменит|вместо|против|покидает"
    r")(?!\w)\s*(?:[^\s,;:.!?]+\s+){0,2}?$|(?:接替|取代|替代|击败|战胜)$", re.I)
