"""The words of the settled-outcome rule (``pastcast.questions.revision.settled``), each list
defined once: cues that report an outcome as settled, in the past (``OUTCOME``) or ahead of its
formal date ("will take over as", "is set to become", "agreed to appoint", "wird ...
übernehmen", "prendra la direction", "asumirá", "assumirá", "sarà nominata", "займёт пост",
"将出任": ``CUES``), which slot of a cue holds the answer, the hedges of other languages than
English (the English ones are ``lexical.HEDGE``: the shared ``pastcast.text.vocabulary.HEDGES``
plus the revision's own) and those of every language (``NEGATION``, ``DOUBT``: denials and
rumours, ``FORECAST``: "analysts say"), formalities that leave a settled outcome settled ("will
be sworn in", "the deal is expected to close"), the words that put a name in a loser's or
predecessor's place ("defeating", "succeeding", "Nachfolge von"), and how each language
attributes a report (``ATTRIBUTION``: "X confirmed on Wednesday that", ", sources said",
"according to people familiar with the decision", ", selon des sources", "nach Informationen aus
...", "，消息人士称"; reported speech: "would", "werde", "succéderait"), set aside before a
sentence is judged: who says it is never a hedge.

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
    (r"\b(?:has|have|had)\s+completed\s+(?:the|its|their|a)\s+(?:\S+\s+){0,2}?(?:purchase|acquisition|takeover|"
     r"buyout|merger)\b", "s"),
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
    (rf"\b(?P<lic>will)\s+{_ADV}(?:host|stage|lead|head|run|operate|chair|coach|manage|captain|join|buy|acquire|build|"
     r"be\s+the\s+(?:site|venue|host|home|location))\b", "so", True),
    (r"\b(?P<lic>will)\s+(?:be\s+)?(?:cut|raised|lowered|reduced|increased|rise|fall|drop|climb)\s+to\b", "r", True),
])

_ROLE_DE = (r"\w*(?:chef|chefin|trainer|trainerin|präsident|präsidentin|vorsitzender?|direktor|direktorin|leiter|"
            r"leiterin|intendant|intendantin|nachfolger|nachfolgerin|minister|ministerin|bürgermeister|"
            r"bürgermeisterin|kanzler|kanzlerin|botschafter|botschafterin|kapitän|kapitänin|gouverneur)")
# the verb closing a "dass" clause that settles its subject: "dass X ... übernehmen wird / ernannt wird"
_DASS_VERB_DE = (r"(?:übernehmen|antreten|ablösen|beerben|leiten|führen)\s+(?P<lic>wird)|"
                 r"übernimmt|antritt|ablöst|beerbt|"
                 r"(?:ernannt|gewählt|berufen|bestellt|ausgewählt)\s+(?:wird|wurde|worden\s+ist|ist)|"
                 r"(?:erhalten|gewonnen|bekommen)\s+hat")
DE = _cues("de", [
    (rf"\b(?P<lic>wird|werden)\s+(?:\S+\s+){{0,3}}?(?:neue[rsn]?\s+)?{_ROLE_DE}\b", "sl"),
    (r"\b(?P<lic>wird)\s+(?:\S+\s+){0,6}?(?:übernehmen|antreten|ablösen|beerben|leiten|führen)\b", "sl"),
    (rf"\bdass\s+(?P<a>)[^,;.]{{2,80}}?\s(?:{_DASS_VERB_DE})\b", "a"),
    (r"\b(?P<lic>übernimmt|übernehmen)\b", "sl"),
    (r"\b(?P<lic>tritt)\s+(?:\S+\s+){0,4}?(?:die\s+)?Nachfolge\b", "sl"),
    (r"\b(?P<lic>wurde|wurden|ist|sind)\s+(?:\S+\s+){0,6}?(?:ernannt|gewählt|berufen|bestellt|ausgewählt|gekürt|"
     r"bestätigt)(?:\s+worden)?\b", "sl"),
    (r"\b(?P<lic>hat|haben)\s+(?:\S+\s+){0,8}?gewonnen\b", "sl"),
    # "hat die Übernahme von Y beschlossen" (the subject), "hat den Standort X beschlossen" (inside)
    (r"\b(?:hat|haben)\s+(?:\S+\s+){0,8}?(?:beschlossen|vereinbart)\b", "sx"),
    (r"\bgeht\s+(?:\S+\s+){0,6}?an\b", "o"),
    (r"\bWahl\s+(?:fiel\s+)?auf\b(?=[^.;]*\b(?:fiel|gefallen)\b)", "o"),
    (r"\b(?:beschlossen|entschieden|vereinbart),?\s+(?P<a>)[^,;.]{2,60}?\s(?:zu\s+ernennen|zu\s+berufen|"
     r"zu\s+bestellen|zu\s+wählen)\b", "a"),
    (r"\bsich\s+für\s+(?P<a>)[^,;.]{2,80}?\s+entschieden\b", "a"),
    (r"\bsetzte\s+sich\s+(?:\S+\s+){0,8}?durch\b", "s"),
])

_AUX_FR = r"(?:a|ont|avait|avaient)"
FR = _cues("fr", [
    (r"\b(?:prendra|prendront)\s+(?:la\s+(?:tête|direction|présidence)|ses\s+fonctions|les\s+rênes)\b", "s"),
    (r"\b(?:succédera|succéderont)\s+à\b", "s"),
    (r"\b(?:deviendra|deviendront|accueillera|accueilleront|dirigera|présidera)\b", "s"),
    (r"\bsera\s+(?:nommée?|désignée?|investie?|élue?\s+(?!si)|la\s+(?:nouvelle|prochaine)|le\s+(?:nouveau|prochain))",
     "s"),
    (r"\bsera\s+(?:officiellement\s+)?présentée?\s+(?:\S+\s+){0,3}?comme\b", "s"),
    (rf"\b{_AUX_FR}\s+été\s+(?:\S+\s+){{0,2}}?(?:nommée?s?|élue?s?|désignée?s?|choisie?s?|retenue?s?|"
     r"sélectionnée?s?|proclamée?s?)\b", "s"),
    (r"\b(?:a|ont)\s+remporté\b", "s"),
    (r"\ba\s+décerné\s+(?:\S+\s+){0,4}?à\b", "o"),
    (r"\b(?:a|ont)\s+accepté\s+de\s+(?:racheter|acquérir|reprendre|prendre|devenir|diriger|présider|rejoindre)\b", "s"),
    (r"\b(?:a|ont)\s+signé\s+(?:un|le)\s+(?:accord|contrat|protocole)\s+(?:pour|visant\s+à)\s+(?:racheter|acquérir|"
     r"reprendre)\b", "s"),
    (r"\b(?:a|ont)\s+(?:accepté|décidé)\s+de\s+nommer\b", "o"),
    (r"\b(?:a|ont)\s+(?:officialisé|entériné|validé|approuvé|annoncé|confirmé)\s+(?:\S+\s+){0,2}?"
     r"(?:l['’]arrivée|la\s+nomination|le\s+recrutement|l['’]offre)\s+(?:de\b|d['’])", "o"),
    (r"\b(?:a\s+)?(?:déclaré|reconnu)\s+(?:\S+\s+){0,3}?coupable\b", "x"),
    (r"\b(?:a|ont)\s+(?:relaxé|acquitté|condamné)\b", "x"),
    (r"\b(?:a|ont)\s+(?:décidé\s+de\s+(?:ramener|relever|abaisser|baisser|maintenir|fixer|porter|réduire)|"
     r"ramené|relevé|abaissé|baissé|maintenu|fixé|porté|réduit)\b", "r"),
    (r"\best\s+appelée?\s+à\s+(?:succéder|devenir|prendre)\b", "s"),
])

ES = _cues("es", [
    (r"\b(?:asumirá|asumirán|dirigirá|presidirá|recibirá|recibirán|albergará|acogerá)\b", "s"),
    (r"\b(?:sucederá|sustituirá|reemplazará)\s+a\b", "s"),
    (r"\bse\s+convertirá\s+en\b", "s"),
    (r"\bserá\s+(?:la\s+sede|el\s+nuevo|la\s+nueva|el\s+próximo|la\s+próxima|nombrad[oa]|designad[oa]|"
     r"la\s+elegida|el\s+elegido)\b", "s"),
    (r"\b(?:fue|fueron|ha\s+sido|han\s+sido)\s+(?:\S+\s+){0,2}?(?:nombrad[oa]s?|elegid[oa]s?|designad[oa]s?|"
     r"seleccionad[oa]s?|escogid[oa]s?|proclamad[oa]s?)\b", "s"),
    (r"\b(?:ganó|ha\s+ganado|gana)\b", "s"),
    (r"\b(?:ha|han)\s+aceptado\s+(?:el|la)\s+(?:cargo|puesto|presidencia|dirección)\b|\baceptó\s+(?:el|la)\s+"
     r"(?:cargo|puesto|presidencia|dirección)\b", "s"),
    (r"\b(?:acordó|ha\s+acordado|decidió)\s+(?:nombrar|designar)\s+a\b", "o"),
    (r"\b(?:eligió|nombró|designó|escogió|seleccionó|(?:ha|han)\s+(?:elegido|nombrado|designado|escogido))\s+a\b",
     "o"),
    (r"\b(?:aprobó|ha\s+aprobado|acordó)\s+la\s+venta\s+(?:de\s+(?:\S+\s+){0,4}?)?a\b", "o"),
    (r"\b(?:acordó|ha\s+acordado|acordaron)\s+(?:comprar|adquirir)\b", "s"),
    (r"\b(?:bajó|subió|redujo|rebajó|elevó|recortó|mantuvo|fijó|dejó|situó|aumentó|(?:ha|han)\s+(?:bajado|subido|"
     r"reducido|elevado|recortado|mantenido|fijado|dejado|situado))\b", "r"),
    (r"\bdeclaró\s+culpable\b", "x"),
])

PT = _cues("pt", [
    (r"\b(?:assumirá|assumirão|comandará|presidirá|dirigirá|sucederá|substituirá)\b", "s"),
    (r"\bserá\s+(?:nomead[oa]|eleit[oa]|escolhid[oa]|o\s+novo|a\s+nova|o\s+próximo|a\s+próxima)\b", "s"),
    (r"\b(?:foi|foram)\s+(?:\S+\s+)?(?:nomead[oa]s?|eleit[oa]s?|escolhid[oa]s?|designad[oa]s?)\b", "s"),
    (r"\b(?:venceu|venceram|ganhou|ganharam)\b", "s"),
])

IT = _cues("it", [
    (r"\b(?:assumerà|guiderà|dirigerà|presiederà|succederà\s+a)\b", "s"),
    (r"\bsarà\s+(?:nominat[oa]|elett[oa]|scelt[oa]|il\s+nuovo|la\s+nuova|il\s+prossimo|la\s+prossima)\b", "s"),
    (r"\b(?:è|sono)\s+stat[oaie]\s+(?:\S+\s+)?(?:nominat[oaie]|elett[oaie]|scelt[oaie]|designat[oaie])\b", "s"),
    (r"\bha\s+vinto\b", "s"),
])

RU = _cues("ru", [
    (r"(?<!\w)(?:займёт|займет|станет|возглавит|сменит|примет|получит)(?!\w)", "s"),
    (r"(?<!\w)(?:будет\s+)?(?:назначен|назначена|назначены|избран|избрана|избраны|утверждён|утвержден|утверждена|"
     r"выбран|выбрана)(?!\w)", "s"),
    (r"(?<!\w)(?:назначил|назначила|назначили|избрали|выбрали)(?!\w)", "o"),
    (r"(?<!\w)(?:достанется|достаётся|достается|присуждена|присуждён|присужден|присуждено|вручат|вручена)(?!\w)", "o"),
    (r"(?<!\w)будет\s+(?:построен|построена|построено|размещён|размещен|размещена|размещено)\s+в(?!\w)", "o"),
    (r"(?<!\w)признал[аи]?\s+(?:\S+\s+){0,4}?(?:виновн|невиновн)\w*", "x"),
    (r"(?<!\w)(?:снизил|повысил|сохранил|оставил|понизил|поднял)[аи]?(?!\w)", "r"),
])

# Scripts written without spaces: no word boundaries; the slot gap is measured in characters.
ZH = _cues("zh", [
    (r"(?P<lic>将)(?:于[^，。；：、]{1,6}?)?(?:正式)?(?:出任|接任|担任|接掌|执掌|承办|主办|获得|成为|接替)", "s"),
    (r"(?:已)?(?:被|获)(?:正式)?(?:任命|委任|选为|选定)", "s"),
    (r"当选|出任|接任", "s"),
    (r"(?:已)?(?:签署|签订|达成)[^，。；]{0,6}?协议", "s"),
    (r"(?:夺得|赢得|摘得)[^，。；]{0,8}?(?:冠军|金牌|桂冠|大奖)|夺冠", "s"),
    (r"授予|颁给|(?:将|已)落户", "o"),
])
JA = _cues("ja", [
    (r"就任(?:すると(?:発表|決定|正式)|することが(?:決ま|決定)|することを(?:発表|決定|正式)|した)", "s"),
])

CUES: tuple[Cue, ...] = (*EN, *DE, *FR, *ES, *PT, *IT, *RU, *ZH, *JA)

# Past-tense (or headline-present) outcome cues, in English: rule 4's first kind (``settled``
# places the answer by the verb's class).
OUTCOME = re.compile(
    r"\b(?:won|wins|beat|beats|defeated|defeats|defeating|ousted|ousts|unseated|"
    r"elected|re-elected|elects|appointed|appoints|named|chosen|chose|chooses|selected|selects|picked|"
    r"crowned|awarded|clinched|secured|declared|resigned|resigns|stepped\s+down|steps\s+down|quit|quits|"
    r"ruled|voted|approved|rejected|announced|confirmed|proclaimed|succeeded|opted\s+for|opts\s+for|"
    r"settled\s+on|"
    r"found\s+(?:\S+\s+){0,5}?(?:guilty|liable|innocent)|acquitted|convicted|"
    r"claimed\s+(?:the|a|his|her|their|its)\s+(?:\S+\s+){0,3}?"
    r"(?:title|crown|prize|award|trophy|cup|victory|win|seat|medal|gold)|"
    r"took\s+(?:the\s+)?(?:\S+\s+){0,2}?(?:title|crown|prize|award|trophy|cup|gold|victory)|"
    r"(?:set|held|kept|left|fixed|put)\s+(?:\S+\s+){0,5}?(?:unchanged|steady|at\s+\S{0,3}\d)|"
    r"(?:cut|raised|lowered|reduced|increased|lifted|trimmed)\s+(?:\S+\s+){0,5}?to\s+\S{0,3}\d|"
    r"rose|fell|climbed|dropped|declined|grew|slowed|accelerated|eased|jumped|slipped|edged\s+(?:up|down)|"
    r"came\s+in\s+at)\b",
    re.I,
)

# A sentence that says the outcome was confirmed or announced (for ``confirmed`` cues).
CONFIRMATION = re.compile(r"\b(?:confirmed|confirms|announced|announces|declared|in\s+a\s+statement|"
                          r"official(?:ly)?|(?:agreement|contract|deal)\s+(?:was\s+)?signed|"
                          r"signed\s+(?:the|a|an)\s+(?:\S+\s+){0,2}?(?:contract|deal|agreement))\b", re.I)

# Formalities after a settled outcome: their future tense is no hedge ("will be sworn in").
FORMALITY = re.compile(
    r"\b(?:will|shall|(?:is|are)\s+(?:due|scheduled|set)\s+to|(?:is|are)\s+to)\s+(?:(?:formally|officially|then)\s+)?"
    r"(?:be\s+(?:(?:formally|officially)\s+)?(?:certified|ratified|sworn\s+in|inaugurated|installed|unveiled|"
    r"presented|handed\s+over|proclaimed|announced|confirmed|signed|completed|finalised|finalized|held|released)|"
    r"take\s+(?:effect|office|place)|take\s+up\s+(?:the|his|her|their|its)\s+(?:post|role|position|job|seat|duties)|"
    r"take\s+(?:the|his|her|their|its)\s+(?:chair|seat|oath)|"
    r"start|begin|open|close|lift|receive\s+the\s+(?:trophy|cup|medal|award|prize|crystal\s+globe|globe)|hand\s+down)\b"
    r"|\b(?:deal|transaction|acquisition|merger|takeover|sale)\s+(?:is|are)\s+expected\s+to\s+(?:close|complete|"
    r"be\s+completed)\b"
    r"|\bpending\s+(?:(?:formal|official|final)\s+)?(?:certification|ratification)\b"
    r"|\b(?:(?:will|would)\s+)?not\s+(?:be\s+)?(?:due|expected|scheduled|certif\w+|ratif\w+|declared|sworn\s+in)"
    r"\s+(?:\S+\s+){0,4}?until\b"
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

# Hedges of other languages (the English ones: ``lexical.HEDGE``): about what is reported, never
# about who reports it (``ATTRIBUTION``). Any case, whole words.
_HEDGES_LATIN = (
    # German
    r"könnte|könnten|dürfte|dürften|soll|sollen|sollte|wohl|voraussichtlich|wahrscheinlich|möglicherweise|vermutlich|"
    r"angeblich|offenbar|gilt\s+als|gelten\s+als|favorit\w*|kandidat\w*|gehandelt|im\s+gespräch|gespräch\w*|"
    r"verhandelt|verhandlung\w*|hochrechnung\w*|vorn|vorne|ob|falls|wenn|offen|nominiert|mögliche[rns]?|erwartet|"
    r"wollen|strebt|bewirbt|bewerbung|prüft|prüfen|rechnen\s+damit|rechnet\s+damit|chancen|"
    # French
    r"pourrait|pourraient|devrait|devraient|serait|seraient|probablement|favori|favorite|favoris|pressentie?s?|"
    r"en\s+lice|parmi|candidate?s?|candidature|négociations?|discussions?|pourparlers|envisage\w*|circule|"
    r"si|peut-être|finalistes?|en\s+tête|espère|vise|brigue|approchée?s?|"
    # Spanish
    r"podría|podrían|sería|serían|previsiblemente|posiblemente|quizás?|favorit[oa]s?|candidat[oa]s?|"
    r"finalistas?|conversaciones|negociaciones|negocia|negocian|suena|se\s+perfila|encabeza|aspira|opta\s+a|"
    r"se\s+espera|baraja|uno\s+de\s+los|una\s+de\s+las|confía|confían|"
    # Portuguese and Italian
    r"poderia|poderiam|deveria|deveriam|provavelmente|negociações|cotad[oa]s?|qualora|"
    r"(?:se|caso)\s+(?:o|os|a|as|il|i|gli)|"  # "if" in Portuguese and Italian (not the reflexive "se")
    r"potrebbe|potrebbero|dovrebbe|dovrebbero|probabilmente|favorit[oi]|trattativ\w*|in\s+corsa|papabile|"
    # Russian
    r"может|могут|мог\w*\s+бы|вероятно|возможно|скорее\s+всего|фаворит\w*|кандидат\w*|претенд\w*|считается|"
    r"по\s+слухам|переговор\w*|рассматрива\w*|если|ли|надеют\w*|надеет\w*|ожида\w*|склоня\w*|лидирует"
)
_HEDGES_CJK = (r"可能|或将|或许|也许|有望|预计|预期|候选|热门|人选|之一|谈判|洽谈|商谈|考虑|领先|如果|若|是否|"
               r"拟|视为|料将|提名|倾向|只要|即可|一旦|才能|就能|見通し|見込み|可能性|有力|検討|候補|とみられ|観測|方針|予定")
HEDGE_OTHER = re.compile(rf"(?<!\w)(?:{_HEDGES_LATIN})(?!\w)|{_HEDGES_CJK}", re.I)

# Negations (a hedge in every language; a phrase with one reports no fact: "did not confirm").
NEGATION = re.compile(r"(?<!\w)(?:not|never|nicht|kein\w*|pas|ne|no|não|non(?!-)|не|нет)(?!\w)|n['’]t\b|"
                      r"尚未|未能|并未|没有|不会|不是|并非", re.I)
# Denials and rumours (a hedge in every language; a phrase with one reports no fact: "denied
# reports that", "according to rumours").
DOUBT = re.compile(
    r"(?<!\w)(?:deny|denies|denied|denying|rumou?rs?|rumou?red|dementi\w*|bestr[ie]\w*|gerücht\w*|"
    r"démenti\w*|dément\w*|rumeurs?|desmint\w*|desmient\w*|negó|niega|niegan|rumores|desmentiu|negou|boatos?|"
    r"smentit\w*|smentisce|voci|опроверг\w*|отрица\w*|слух\w*)(?!\w)|否认|传闻|传言", re.I)
# Who forecasts rather than reports, and their instruments: a hedge, and never an attribution
# ("analysts say X will", "Umfragen zufolge").
FORECAST = re.compile(
    r"(?<!\w)(?:analysts?|experts?|observers?|commentators?|pundits?|bookmakers?|oddsmakers?|supporters?|critics?|"
    r"economists?|strategists?|traders?|investors?|watchers?|forecasters?|polls?|pollsters?|surveys?|predictions?|"
    r"projections?|\w*beobachter\w*|analyst\w*|expert\w*|kommentator\w*|umfrage\w*|prognose\w*|buchmacher\w*|"
    r"befürworter\w*|kritiker\w*|ökonom\w*|volkswirt\w*|analystes?|observateurs?|commentateurs?|sondages?|"
    r"pronostics?|partisans?|économistes?|analistas?|observadores?|expertos?|comentaristas?|encuestas?|sondeos?|"
    r"pronósticos?|partidarios|economistas?|especialistas|pesquisas?|sondagens?|analisti|osservatori|esperti|"
    r"sondaggi|pronostici|аналитик\w*|эксперт\w*|наблюдател\w*|опрос\w*|прогноз\w*|букмекер\w*|сторонник\w*|"
    r"критик\w*|экономист\w*)(?!\w)|分析人士|分析师|专家|观察人士|观察家|民调|预测", re.I)

# -- attribution: who says it (set aside before a sentence is judged) ---------------------------

# Besides those, words that make a would-be frame no attribution of a fact: a modal, a future
# ("the decision could come next week and that ...").
_NOT_A_FRAME = re.compile(
    r"(?<!\w)(?:will|would|could|may|might|should|can|wird|würde|könnte|kann|soll|sera|serait|pourrait|peut|será|"
    r"sería|podría|puede|poderá|sarà|potrebbe|будет|может)(?!\w)|将|可能", re.I)
# A verb of saying after "to" is a report yet to come ("the government is expected to announce that").
_TO_COME = re.compile(r"(?<!\w)(?:to|zu)\s*$", re.I)
# A source asking not to be named: a frame of its own, and its negation no hedge.
_ANONYMITY = (
    r"\b(?:who\s+)?(?:asked|declined|requested)\s+not\s+to\s+be\s+(?:named|identified|quoted)\b|"
    r"\b(?:who\s+)?(?:is|was|are|were)\s+not\s+(?:authori[sz]ed|permitted|allowed)\s+to\s+(?:speak|comment|talk)"
    r"(?:\s+(?:publicly|on\s+the\s+record|to\s+the\s+media|to\s+reporters))?|"
    r"\b(?:der|die)\s+nicht\s+(?:namentlich\s+)?genannt\s+werden\s+wollten?\b|"
    r"\bque\s+pidi[óe]ron?\s+no\s+ser\s+(?:identificad[oa]s?|nombrad[oa]s?)\b")
ANONYMITY = re.compile(_ANONYMITY, re.I)
# In the part naming a source, a conjunction: the frame would swallow the clause before it ("X won
# and officials said that").
_CONJUNCTION = re.compile(r"(?<!\w)(?:and|but|or|while|und|aber|oder|et|mais|ou|y|pero|и|но|а|или)(?!\w)|和|但|或",
                          re.I)


def not_a_frame(frame: str, source: str, verb: tuple[int, int]) -> bool:
    """A would-be attribution frame that reports no fact, or is the fact: a negation (other than a
    source's asking not to be named, ``ANONYMITY``), a denial or rumour, a forecaster, a modal in
    it, an outcome cue reaching past its verb of saying (``verb``, offsets in ``frame``: "In a
    filing, Helios Grid said it had agreed to acquire ..." has no trailing frame), or, in the part
    naming its source, a conjunction or a "to" before the verb (a report yet to come)."""
    frame = ANONYMITY.sub(lambda m: " " * len(m.group(0)), frame)
    if (NEGATION.search(frame) or DOUBT.search(frame) or FORECAST.search(frame) or _NOT_A_FRAME.search(frame)
            or _CONJUNCTION.search(source) or _TO_COME.search(source)):
        return True
    return any(m.start() < verb[0] or m.end() > verb[1]
               for p in (OUTCOME, *(c.pattern for c in CUES)) for m in p.finditer(frame))


@dataclass(frozen=True)
class Attribution:
    """How one language attributes a report (who says it, when, how). Set aside before a
    sentence is judged: the reported clause alone must settle the outcome, with no hedge in it.

    ``verbs``: verbs of saying, the head of a frame ("confirmed", "teilte ... mit", "a indiqué",
    "证实"); ``that``: what opens the reported clause after a lead frame (it stays: "that",
    "dass", "que", "что", "，"); ``bare``: verbs whose clause may follow with no ``that``
    ("said", "told reporters"); ``lead``: phrases naming the source before a comma ("According
    to X", "Selon X", "据X报道"); ``trail``: words opening a frame after the clause (", citing X",
    ", selon X"); ``hearsay``: attribution inside the clause ("reportedly", "nach Informationen
    aus X"); ``backshift``: reported-speech forms and their indicative ("would" -> "will",
    "werde" -> "wird", "succéderait" -> "succédera"), read as such only in an attributed sentence."""

    lang: str
    verbs: str
    that: str
    bare: str = ""
    lead: str = ""
    trail: str = ""
    hearsay: str = ""
    backshift: tuple[tuple[str, str], ...] = ()


def _conditional(stem_ending: str, future: str, modals: str) -> tuple[str, str]:
    """A conditional ending read as the future, modals (could, should) excepted: (pattern, replacement)."""
    return rf"\b(?!(?:{modals}){stem_ending}\b)(\w{{2,}}){stem_ending}\b", rf"\1{future}"


ATTRIBUTION: tuple[Attribution, ...] = (
    Attribution(
        "en",
        verbs=r"said|says|say|told|tells|tell|added|adds|wrote|writes|reported|reports|report|understands|understand|"
              r"learned|learnt|confirmed|confirms|confirm|announced|announces|announce|stated|states|disclosed|"
              r"discloses|revealed|reveals|informed|informs|assured|notified|acknowledged|insisted|explained|noted|"
              r"declared|briefed",
        that=r"\s*,?\s*that\b",
        bare=r"said|says|say|told\s+(?:reporters|journalists|the\s+\S+|\S+)|tells\s+\S+|added|wrote|understands|"
             r"reported",
        lead=r"according\s+to|as\s+(?:\S+\s+){1,6}?(?:reported|said|confirmed|announced|revealed)",
        trail=r"according\s+to|citing|as\s+reported\s+by",
        hearsay=r"reportedly|(?:is|are|was|were)\s+(?:understood|said|reported)\s+to|"
                r"it\s+(?:is|was|has\s+been)\s+(?:understood|learned|learnt|reported)\s+that|"
                r"(?:has|have)\s+(?:learned|learnt)\s+that",
        backshift=((r"\bwould\b", "will"),)),
    Attribution(
        "de",
        verbs=r"bestätigte[n]?|bestätigt|sagte[n]?|sagt|erklärte[n]?|erklärt|berichtete[n]?|berichtet|meldete[n]?|"
              r"meldet|verkündete[n]?|informierte[n]?|versicherte[n]?|betonte[n]?|verlautete|(?:hieß|heißt)\s+es|"
              r"teilte[n]?\s+(?:\S+\s+){0,10}?mit|gab(?:en)?\s+(?:\S+\s+){0,10}?bekannt",
        that=r"\s*,?\s*dass\b",
        lead=r"Wie\s+[^,;:]{1,100}?\s(?:mitteilte[n]?|bestätigte[n]?|berichtete[n]?|berichtet|sagte[n]?|"
             r"erklärte[n]?|meldete[n]?|meldet|bekannt\s*gab|verlautete)|(?:Aus\s+[^,;:]{1,60}?\s)?(?:hieß|heißt)\s+es",
        trail=r"so\s+(?:der|die|das|ein|eine)|laut|nach\s+Angaben|hieß\s+es",  # ", so der Verband"
        hearsay=r"nach\s+(?:\w+\s+){0,2}?(?:Informationen|Berichten|Medienberichten|Angaben|Darstellung)"
                r"(?:\s+(?:aus|von|des|der|eines|einer)\s+\S+(?:\s+(?:des|der)\s+\S+)?)?|"
                r"\S+\s+zufolge|laut\s+(?:(?:einem|einer|dem|der|den|des)\s+)?\S+|"
                r"unter\s+Berufung\s+auf\s+(?:\S+\s+){0,2}?\S+",
        backshift=((r"\bwerde\b", "wird"), (r"\bsei\b", "ist"), (r"\bseien\b", "sind"), (r"\bhabe\b", "hat"),
                   (r"\bsolle\b", "wird"), (r"\bsoll\b", "wird"), (r"\bsollen\b", "werden"))),
    Attribution(
        "fr",
        verbs=r"(?:a|ont|avait|avaient)\s+(?!été\b)(?:\S+\s+)?(?:confirmé|indiqué|déclaré|affirmé|annoncé|précisé|"
              r"assuré|rapporté|appris|révélé|dit|expliqué|souligné|communiqué|fait\s+savoir)|confirme|confirment|"
              r"indique|indiquent|déclare|affirme|affirment|annonce|précise|assure|rapporte|rapportent|révèle|explique",
        that=r"\s+qu(?:e\b|['’])",
        lead=r"Selon|D['’]après|De\s+source\s+\S+|(?:Comme|Ainsi\s+que)\s+l['’](?:a|ont)\s+\S+",
        trail=r"selon|d['’]après|a-t-(?:on|il|elle)\s+appris",
        backshift=((r"\baurait\b", "a"), (r"\bauraient\b", "ont"),
                   _conditional("rait", "ra", "pour|dev|voud|faud"), _conditional("raient", "ront", "pour|dev|voud"))),
    Attribution(
        "es",
        verbs=r"confirmó|confirmaron|confirma|confirman|(?:ha|han|había|habían)\s+confirmado|anunció|anunciaron|"
              r"informó|informaron|informa|comunicó|comunicaron|dijo|dijeron|aseguró|aseguraron|asegura|señaló|"
              r"señalaron|indicó|indicaron|explicó|declaró|afirmó|afirmaron|adelantó|adelantaron|reveló|apuntó|"
              r"apuntaron|precisó|avanzó|publicó",
        that=r"\s+que\b",
        lead=r"Según|De\s+acuerdo\s+con|(?:Tal\s+(?:y\s+)?)?[Cc]omo\s+(?:\S+\s+){0,3}?(?:adelantó|informó|publicó|"
             r"avanzó|confirmó|anunció|reveló|adelantaron|informaron|publicaron)",
        trail=r"según|de\s+acuerdo\s+con",
        backshift=((r"\bhabría\b", "ha"), (r"\bhabrían\b", "han"),
                   _conditional("ría", "rá", "pod|debe|quer|hab"), _conditional("rían", "rán", "pod|debe|quer|hab"))),
    Attribution(
        "pt",
        verbs=r"disse|disseram|declarou|declararam|afirmou|afirmaram|confirmou|confirmaram|anunciou|anunciaram|"
              r"informou|informaram|revelou|adiantou|garantiu",
        that=r"\s+que\b",
        lead=r"Segundo|De\s+acordo\s+com|Conforme",
        trail=r"segundo|de\s+acordo\s+com|conforme",
        backshift=((r"\bteria\b(?=\s+sido)", "foi"), (r"\bteriam\b(?=\s+sido)", "foram"),
                   _conditional("ria", "rá", "pode|deve|que"), _conditional("riam", "rão", "pode|deve|que"))),
    Attribution(
        "it",
        verbs=r"(?:ha|hanno|aveva|avevano)\s+(?:\S+\s+)?(?:confermato|riferito|annunciato|detto|dichiarato|comunicato|"
              r"fatto\s+sapere|spiegato|precisato|rivelato|assicurato)|conferma|confermano|riferisce|riferiscono|"
              r"annuncia|dichiara",
        that=r"\s+che\b",
        lead=r"Secondo|Stando\s+a|Come\s+(?:riferito|annunciato|anticipato)\s+da",
        trail=r"secondo|stando\s+a",
        backshift=((r"\bsarebbe\b(?=\s+stat)", "è"), (r"\bsarebbero\b(?=\s+stat)", "sono"),
                   _conditional("rebbe", "rà", "pot|dov|vor"), _conditional("rebbero", "ranno", "pot|dov|vor"))),
    Attribution(
        "ru",
        verbs=r"подтвердил[аи]?|сообщил[аи]?|заявил[аи]?|сказал[аи]?|рассказал[аи]?|объявил[аи]?|отметил[аи]?|"
              r"уточнил[аи]?|пишет|пишут|сообщает|сообщают|передаёт|передает|информирует",
        that=r"\s*(?:,\s*что(?!\w)|:)",
        lead=r"Как\s+(?:сообщил[аи]?|сообщает|сообщают|рассказал[аи]?|подтвердил[аи]?|пишет|заявил[аи]?)"
             r"|"  # the words up to the comma: the run ``_frame_set`` adds (one run: no backtracking)
             r"По\s+(?:словам|данным|информации|сведениям)|Согласно",
        trail=r"по\s+(?:словам|данным|информации|сведениям)|как\s+(?:сообщил[аи]?|пишет)"),
    Attribution(
        "zh",
        verbs=r"证实|表示|称|透露|宣布|确认|报道|指出|获悉|说|介绍|披露",
        that=r"[，,：:]",
        lead=r"据[^，。；：]{1,24}?(?:报道|透露|称|消息|表示|介绍|获悉|了解|证实|披露)"),
)

# Words opening a new clause: a trailing frame ends before them (", the board said, adding that").
_OPENERS = (r"that|but|if|unless|although|though|while|whereas|because|adding|pending|subject|dass|aber|wenn|falls|"
            r"weil|"
            r"obwohl|sofern|que|qu|mais|si|car|pero|aunque|porque|mas|embora|ma|что|но|если|хотя")
# The rest of a trailing frame: up to the end of its clause.
_TAIL = rf"(?:(?!\s(?:{_OPENERS})\b)[^,;:!?])*"
# A trailing verb of saying followed by a name is no frame but an outcome ("..., Halvorsen Bank
# confirmed Beatriz Moreno as its new finance director"); "told Reuters" names its audience.
_NO_OBJECT = r"(?<!\btold)(?<!\btells)(?!\s+(?:a\s+|à\s+)?(?-i:[A-ZÀ-ÖØ-ÞА-ЯЁ]))"
# After a bare verb of saying ("said on Wednesday Tomas Lind will ..."): a time or a channel.
_WHEN = (r"(?:\s+(?:on|late\s+on|early\s+on|last|this|in\s+a\s+statement|in\s+an?\s+(?:interview|filing|briefing|email|"
         r"post))(?:\s+(?:[A-Z]\w+|week|month|night|morning|evening|year))?)?")


@dataclass(frozen=True)
class FramePattern:
    """One shape of attribution frame. Groups: ``who`` (the part naming the source) and, for a
    verb of saying, ``verb``. ``kind``: "lead" (a verb of saying before its clause), "source"
    (a phrase naming it before a comma), "trail" (after the clause), "hearsay" (inside it)."""

    lang: str
    kind: str
    pattern: re.Pattern


@dataclass(frozen=True)
class FrameSet:
    """A language's frame shapes, tried only in a sentence where ``trigger`` (any of its words)
    is found: most sentences have no frame of most languages."""

    trigger: re.Pattern
    shapes: tuple[FramePattern, ...]


def _frame_set(a: Attribution) -> FrameSet:
    words = "|".join(w for w in (a.verbs, a.bare, a.lead, a.trail, a.hearsay) if w)
    if a.lang in ("zh", "ja"):  # no spaces, no word boundaries; a comma opens the reported clause
        trigger = re.compile(words)
        start, who = r"(?:^|(?<=[，,；;：:]))", r"(?P<who>[^，。；：,;:！？]{0,16}?)"
        shapes = [("lead", rf"{start}{who}(?P<verb>{a.verbs})(?={a.that})"),
                  ("source", rf"{start}(?P<who>{a.lead})(?=[，,])"),
                  ("trail", rf"[，,]{who}(?P<verb>{a.verbs})(?=[。！!]?\s*$)")]
    else:
        trigger = re.compile(rf"\b(?:{words})\b", re.I)
        # a clause starts a sentence, follows a comma, or a "that" (one report inside another)
        start = r"(?:^|(?<=[,;:(—–])|(?<=\bthat\s)|(?<=\bdass\s)|(?<=\bque\s)|(?<=\bche\s)|(?<=\bчто\s))\s*"
        who = r"(?P<who>(?:[^\s,;:.!?]+\s+){0,8}?)"
        shapes = [("lead", rf"{start}{who}(?P<verb>\b(?:{a.verbs}))\b(?P<adj>[^;:.!?]{{0,120}}?)(?={a.that})"),
                  ("lead", rf"{start}{who}(?P<verb>\b(?:{a.bare}))\b{_WHEN}(?=\s)" if a.bare else ""),
                  ("source", rf"{start}(?P<who>(?:{a.lead})\b[^,;:]*(?:,\s*(?:qui|which|who)\s[^,;:]*)?)"
                             r"(?=,)" if a.lead else ""),
                  ("trail", rf"[,;]\s*{who}(?P<verb>\b(?:{a.verbs}))\b{_NO_OBJECT}{_TAIL}"),
                  ("trail", rf"[,;]\s*(?P<who>)(?P<verb>\b(?:{a.trail}))\b{_TAIL}" if a.trail else ""),
                  ("hearsay", rf"\b(?P<who>{a.hearsay})\b" if a.hearsay else "")]
    return FrameSet(trigger, tuple(FramePattern(a.lang, kind, re.compile(p, re.I)) for kind, p in shapes if p))


_ANONYMOUS = re.compile(rf"(?P<who>{_ANONYMITY})", re.I)
FRAMES: tuple[FrameSet, ...] = (*(_frame_set(a) for a in ATTRIBUTION),
                                FrameSet(_ANONYMOUS, (FramePattern("any", "hearsay", _ANONYMOUS),)))
BACKSHIFT: dict[str, tuple[tuple[re.Pattern, str], ...]] = {
    a.lang: tuple((re.compile(p, re.I), r) for p, r in a.backshift) for a in ATTRIBUTION}
