"""The words of the yes/no rule (``pastcast.questions.revision.events``), each list defined once,
by language (ISO 639-1): the words that frame a yes/no question ("will", "wird", "ли", "吗"),
the auxiliaries of a completed action ("has", "was", "hat", "wurde", "a été", "fue"), the past
endings a language marks an action done with ("-ó", "-ла", "-ou"), verbs that report a step
completed whatever the event ("signed", "approved", "unterzeichnet", "a adopté", "подписал",
"签署"), calling-off cues ("cancelled", "ruled out", "abgesagt", "annulé", "отменён", "取消"),
endings of a state ("resigned", "zurückgetreten", "a démissionné", "ушёл в отставку", "辞职"),
and what a threshold question compares ("exceed", "über", "au-dessus de", "超过").

Patterns are regular expressions matched on a sentence as written (any case); a cue of a script
written without spaces has no word boundaries.
"""

from __future__ import annotations

import re

# Words that frame a yes/no question, not its event: auxiliaries asking it, question particles.
QUESTION_FRAME = {
    "en": "will would shall should is are was were does do did has have had can could may might going be been "
          "being any",
    "de": "wird werden wurde wurden ist sind hat haben kann können soll sollen es gelingt",
    "fr": "est-ce que qu va vont sera seront aura auront t-il t-elle il elle ils elles",
    "es": "va van será serán habrá ha han podrá",
    "it": "sarà saranno avrà avranno riuscirà",
    "pt": "vai vão será serão haverá",
    "ru": "ли будет будут станет сможет",
}
# Endings of a verb in a yes/no question's future or infinitive: which word of a title is its verb
# ("approuvera-t-il", "firmará", "ratificherà", "assinará"; Russian's comes before "ли").
VERB_FORM = {
    "fr": r"-t-(?:il|elle|ils|elles|on)$|(?:era|ira|ra|eront|iront|ront)$",
    "es": r"(?:ará|erá|irá|arán|erán|irán)$",  # Italian and Portuguese comparisons below
    "it": r"(?:erà|irà|arà|eranno|iranno|aranno)$",
    "pt": r"(?:ará|erá|irá|arão|erão|irão)$",
    "ru": r"(?:ть|ться|ет|ит|ут|ют|ат|ят)$",
}
# Auxiliaries a question's verb may come after ("va-t-il dissoudre", "sera-t-il adopté", "vai
# superar"): the verb is the content word that follows them.
AUXILIARY_VERBS = frozenset("""va vont sera seront aura auront est a ont fera feront vai vão irá irão será serão
    va van irá será habrá sarà saranno avrà""".split())
# A title asking about a repeat of something that happened before ("again", "another", "wieder"):
# reports of the earlier time are no report of this one.
REPEAT = re.compile(r"(?<!\w)(?:again|another|once\s+more|a\s+second|a\s+new|anew|re-?(?=elect|enter|open|join|take)|"
                    r"wieder|erneut|nochmals|encore\s+une\s+fois|de\s+nouveau|à\s+nouveau|de\s+nuevo|otra\s+vez|"
                    r"nuevamente|novamente|di\s+nuovo|снова|вновь|ещё\s+раз|再次|又|再度)(?!\w)", re.I)
# Scripts without spaces: characters of the question frame (将 will, 会 will, 吗 question, 是否 whether ...)
QUESTION_FRAME_CJK = "会将吗是否能否可否否前之前以前年月日底内末までにかかどうでしょう"

# Auxiliaries of a perfect or a passive: with one of the event's words, the action is done.
PERFECT = {
    "en": r"has|have|had|was|were|is|are|been|got|gets",
    "de": r"hat|haben|hatte|hatten|ist|sind|war|waren|wurde|wurden|worden",
    "fr": r"a|ont|avait|avaient|été|fut|furent|est|sont",
    "es": r"ha|han|había|habían|hubo|fue|fueron|sido|está|están",
    "it": r"ha|hanno|aveva|avevano|è|sono|stato|stata|stati|state|fu",
    "pt": r"foi|foram|tem|têm|tinha|tinham|sido",
    "nl": r"heeft|hebben|had|hadden|is|zijn|was|waren|werd|werden",
    "ru": r"был|была|было|были",
}
# English verbs that name an event's action (base forms): a title's first of them is its verb, the
# word a report must write done ("Will U.S. health officials conclude their investigation ...?":
# "conclude", not "health"). Past forms that are not the base + "ed" are in IRREGULAR_PAST.
EVENT_VERBS_EN = frozenset("""accept acquire adopt advance agree air allow announce appeal appear appoint approve
    arrest attend award ban beat become begin block break bring build buy call cancel capture cease charge
    choose claim clear close collapse complete conclude confirm convict cover crash create cross cut debut
    decide declare default defeat delay deliver deny deploy designate die dismiss drop earn elect eliminate
    end endorse enact enforce enroll enter establish exceed exit expand expel extend face fall file fill
    finalize finalise find finish fire form freeze fund gain get give go grant grow halt happen hire hit hold
    host impeach impose include increase indict introduce invade invest issue join keep land launch lay
    leave legalize legalise lift list lose lower make meet merge miss move name nominate observe occur offer
    open order overturn pardon pass pay permit place play pledge post postpone publish pull purchase qualify
    raise ratify reach recall receive recognize recognise record reduce reelect re-elect regain reinstate
    reject release relocate remove rename renew reopen repeal replace report require resign resume retain
    retire return reverse rise rule run score secure seize sell send sentence set settle ship shut sign
    sink slash split start stay step strike submit succeed sue surpass suspend take test top trade transfer
    unveil uphold veto visit vote walk win withdraw""".split())
# Verbs whose done form settles a title's verb the same way ("Will X become CEO?": "X was
# appointed CEO"): the title's verb -> others.
SETTLED_BY = {
    "become": ("appoint", "name", "elect", "choose", "select", "hire", "install", "tap", "pick", "confirm"),
    "lead": ("appoint", "name", "elect", "choose", "hire"), "head": ("appoint", "name", "elect", "choose", "hire"),
    "join": ("sign", "hire", "appoint"), "win": ("clinch", "secure", "claim", "capture", "take"),
    "receive": ("win", "grant", "award", "approve", "get", "obtain", "secure"), "get": ("receive", "win", "obtain"),
    "begin": ("start", "launch", "open"), "start": ("begin", "launch", "open"), "launch": ("start", "begin"),
    "close": ("drop", "end", "conclude", "shut"), "end": ("conclude", "close", "finish"),
    "finalize": ("finalise", "complete", "conclude", "sign"), "finalise": ("finalize", "complete", "conclude", "sign"),
    "acquire": ("buy", "purchase", "take over"), "buy": ("acquire", "purchase"),
    "approve": ("pass", "adopt", "ratify", "back", "endorse"), "pass": ("approve", "adopt"),
    "leave": ("resign", "quit", "step", "exit", "depart"), "resign": ("quit", "step", "leave"),
}
# Verbs that announce another action ("announce plans to acquire X"): the other is the event.
ANNOUNCING = frozenset("announce report unveil reveal confirm".split())
# Units of time: a threshold on them is a duration ("for over 4 weeks"), not a figure to cross.
DURATION_UNITS = frozenset("""second minut hour day week month year decad centuri tag woch monat jahr jour semain
    moi an anné día semana mes año день недел месяц год""".split())

# Particles that change a verb's action ("declared over", "lay off", "step down"): when the
# title's verb has one, a report must write it too.
PARTICLES_EN = frozenset("over off out down up back away".split())

# Endings of a past tense, on one of the event's own words ("firmó", "подписала", "assinou").
PAST_ENDING = {
    "en": r"ed",
    "es": r"ó|ió|aron|ieron|ado|ada|ados|adas|ido|ida|idos|idas",
    "it": r"ò|ì|ato|ata|ati|ate|ito|ita|iti|ite|arono|irono",
    "pt": r"ou|aram|eu|eram|iu|iram|ado|ada|ados|adas|ido|ida",
    "fr": r"é|ée|és|ées|i|it|u|ue",
    "de": r"te|ten|tet",  # Präteritum; participles are told by their "ge-"
    "ru": r"л|ла|ло|ли|лся|лась|лись|н|на|но|ны|т|та|то|ты",  # on the title's own verb only
    "nl": r"de|den|te|ten",
}
# English past forms without -ed, of verbs that report events: past -> base.
IRREGULAR_PAST = {
    "won": "win", "beat": "beat", "beaten": "beat", "began": "begin", "begun": "begin", "held": "hold",
    "hit": "hit", "met": "meet", "made": "make", "led": "lead", "left": "leave", "lost": "lose", "quit": "quit",
    "ran": "run", "sent": "send", "set": "set", "shut": "shut", "sold": "sell", "spent": "spend", "split": "split",
    "struck": "strike", "stood": "stand", "took": "take", "taken": "take", "went": "go", "gone": "go",
    "wrote": "write", "written": "write", "chose": "choose", "chosen": "choose", "drew": "draw", "drawn": "draw",
    "froze": "freeze", "frozen": "freeze", "gave": "give", "given": "give", "grew": "grow", "grown": "grow",
    "rose": "rise", "risen": "rise", "fell": "fall", "fallen": "fall", "broke": "break", "broken": "break",
    "brought": "bring", "bought": "buy", "caught": "catch", "fought": "fight", "found": "find", "kept": "keep",
    "paid": "pay", "put": "put", "said": "say", "sought": "seek", "swore": "swear", "sworn": "swear",
    "threw": "throw", "thrown": "throw", "withdrew": "withdraw", "withdrawn": "withdraw", "overtook": "overtake",
    "overtaken": "overtake", "became": "become", "laid": "lay", "built": "build", "got": "get", "gotten": "get",
    "shot": "shoot", "sank": "sink", "sunk": "sink", "flew": "fly", "flown": "fly", "upheld": "uphold",
    "undertook": "undertake", "forgave": "forgive", "bid": "bid", "cut": "cut", "let": "let", "cast": "cast",
}

# Conditional and future endings, which the past endings above would otherwise take for done
# ("promulguerait" ends like "fit"): a report that something would happen settles nothing.
CONDITIONAL = {"fr": r"(?:rait|raient|rais|ra|ront)$", "es": r"(?:ría|rían|rá|rán)$",
               "it": r"(?:rebbe|rebbero|rà|ranno)$", "pt": r"(?:ria|riam|rá|rão)$"}

# Verbs that report an action completed, whatever the event: with the event's names and words
# around them ("Italy and China signed a plan to implement ..." settles "Will Italy and China
# implement ...?"). In a completed form (past, perfect, passive, or a headline's present).
COMPLETED = {
    "en": r"sign(?:ed|s)|approv(?:ed|es)|pass(?:ed|es)|adopt(?:ed|s)|enact(?:ed|s)|ratif(?:ied|ies)|"
          r"reach(?:ed|es)|agree(?:d|s)|complet(?:ed|es)|finali[sz](?:ed|es)|conclud(?:ed|es)|launch(?:ed|es)|"
          r"unveil(?:ed|s)|introduc(?:ed|es)|implement(?:ed|s)|announc(?:ed|es)|confirm(?:ed|s)|declar(?:ed|es)|"
          r"endors(?:ed|es)|elect(?:ed|s)|appoint(?:ed|s)|nam(?:ed|es)|select(?:ed|s)|won|wins|secur(?:ed|es)|"
          r"clinch(?:ed|es)|award(?:ed|s)|grant(?:ed|s)|issu(?:ed|es)|impos(?:ed|es)|lift(?:ed|s)|ban(?:ned|s)|"
          r"acquir(?:ed|es)|bought|buys|merg(?:ed|es)|sold|sells|releas(?:ed|es)|publish(?:ed|es)|open(?:ed|s)|"
          r"start(?:ed|s)|began|begins|held|holds|host(?:ed|s)|went\s+ahead|took\s+place|goes\s+ahead|"
          r"decid(?:ed|es)|vot(?:ed|es)|ruled|rules|sentenc(?:ed|es)|convict(?:ed|s)|charg(?:ed|es)|"
          r"arrest(?:ed|s)|indict(?:ed|s)|fil(?:ed|es)|su(?:ed|es)|struck|strikes|invad(?:ed|es)|attack(?:ed|s)|"
          r"resign(?:ed|s)|quit|quits|retir(?:ed|es)|died|dies|joined|joins|deliver(?:ed|s)|achiev(?:ed|es)|"
          r"hit|hits|surpass(?:ed|es)|exceed(?:ed|s)|broke|breaks|set\s+a\s+(?:new\s+)?record",
    "de": r"unterzeichnet\w*|unterschrieben|beschlossen|beschließt|gebilligt|billigt|verabschiedet|genehmigt|"
          r"genehmigt|zugestimmt|stimmt\w*\s+zu|ratifiziert|vereinbart|geeinigt|einigt\w*|abgeschlossen|"
          r"gestartet|startet|eröffnet|eingeführt|angekündigt|kündigt\w*\s+an|bestätigt|gewählt|wählt|ernannt|"
          r"gewonnen|gewinnt|übernommen|übernimmt|gekauft|kauft|verkauft|erlassen|verhängt|aufgehoben|"
          r"verboten|verbietet|veröffentlicht|zurückgetreten|tritt\s+zurück|erreicht|überschritten|"
          r"stattgefunden|findet\s+statt|verurteilt|angeklagt|festgenommen",
    "fr": r"a\s+signé|ont\s+signé|signe|signent|a\s+adopté|ont\s+adopté|adopte|a\s+approuvé|approuve|a\s+voté|"
          r"a\s+ratifié|a\s+conclu|ont\s+conclu|a\s+lancé|lance|a\s+annoncé|annonce|a\s+confirmé|a\s+été|ont\s+été|"
          r"a\s+remporté|remporte|a\s+gagné|a\s+racheté|rachète|a\s+nommé|nomme|a\s+élu|a\s+décidé|décide|"
          r"a\s+démissionné|démissionne|a\s+atteint|atteint|a\s+dépassé|dépasse|a\s+imposé|a\s+levé|"
          r"a\s+interdit|interdit|a\s+publié|a\s+eu\s+lieu|s['’]est\s+tenue?|a\s+été\s+condamnée?",
    "es": r"firmó|firmaron|firma|firman|ha\s+firmado|aprobó|aprobaron|aprueba|ha\s+aprobado|ratificó|"
          r"acordaron|acordó|alcanzó|alcanzaron|alcanza|concluyó|lanzó|anunció|anuncia|confirmó|ganó|gana|"
          r"compró|adquirió|nombró|eligió|decidió|dimitió|renunció|superó|supera|impuso|levantó|prohibió|"
          r"publicó|se\s+celebró|tuvo\s+lugar|fue\s+condenad[oa]|fue\s+\w+[ai]d[oa]s?",
    "it": r"ha\s+firmato|hanno\s+firmato|firma|ha\s+approvato|approva|ha\s+ratificato|ha\s+raggiunto|"
          r"ha\s+lanciato|ha\s+annunciato|ha\s+confermato|ha\s+vinto|vince|ha\s+acquistato|ha\s+nominato|"
          r"è\s+stat[oaie]\s+\w+|si\s+è\s+dimess[oa]|ha\s+superato|si\s+è\s+svolt[oa]",
    "pt": r"assinou|assinaram|assina|aprovou|aprovaram|aprova|ratificou|alcançou|lançou|anunciou|"
          r"confirmou|venceu|ganhou|comprou|adquiriu|nomeou|elegeu|decidiu|renunciou|superou|proibiu|"
          r"foi\s+\w+[ai]d[oa]s?|realizou-se",
    "ru": r"подписал\w*|подписан\w*|утвердил\w*|утвержд[её]н\w*|одобрил\w*|одобрен\w*|принял\w*|принят\w*|"
          r"ратифицировал\w*|заключил\w*|заключ[её]н\w*|запустил\w*|объявил\w*|подтвердил\w*|выиграл\w*|"
          r"победил\w*|купил\w*|приобр[её]л\w*|назначил\w*|назначен\w*|избран\w*|решил\w*|ввёл\w*|ввел\w*|"
          r"введен\w*|введён\w*|отменил\w*|запретил\w*|превысил\w*|достиг\w*|состоял\w*(?:\s+\w+)?|"
          r"опубликовал\w*|осужд[её]н\w*",
    "zh": r"已|已经|签署|签订|批准|通过|宣布|确认|达成|完成|启动|推出|上线|举行|举办|当选|任命|获胜|夺得|赢得|"
          r"收购|成交|正式|实施|生效|落地|突破|超过|创下|辞职|辞去|判处|胜选|当选|夺冠|获批|开通|发射|升空",
    "ja": r"署名した|承認した|可決|成立|発表した|決定した|合意した|発効|開始した|開催した|就任|辞任|買収した|突破",
}

# A report that the event can no longer happen by its deadline (or a state ended): answer No known.
CALLED_OFF = {
    "en": r"cancel(?:l)?ed|cancels|called\s+off|calls\s+off|scrapped|scraps|abandoned|abandons|shelved|"
          r"ruled\s+out|rules\s+out|withdr(?:ew|awn)|withdraws|pulled\s+out|dropped\s+out|"
          r"(?:postponed|postpones|delayed|pushed\s+back)\s+(?:indefinitely|(?:until|to|into)\s+(?:next\s+year|"
          r"(?:early|late|mid-?)?\s*(?:19|20)\d\d))|rejected|rejects|vetoed|vetoes|voted\s+down|struck\s+down|blocked|"
          r"collapsed|fell\s+through|suspended\s+indefinitely|(?:will|would)\s+not|won['’]t|no\s+longer|"
          r"declined\s+to|refused\s+to|failed\s+to|missed\s+the\s+deadline|held\s+up|holds\s+up|"
          r"put\s+on\s+hold|halted|halts|enjoined|paused|"
          r"resigned|resigns|stepped\s+down|steps\s+down|was\s+(?:ousted|fired|removed|dismissed|sacked)|"
          r"(?:has|have)\s+left|died|dies|was\s+broken|(?:has|have)\s+been\s+broken|conceded(?:\s+defeat)?|concedes|"
          r"lost\s+(?:the|his|her|its|their)\s+(?:\S+\s+){0,3}?(?:race|election|vote|bid|seat|final|match|runoff|run-off)|"
          r"was\s+eliminated|were\s+eliminated|knocked\s+out",
    "de": r"abgesagt|sagt\w*\s+ab|gestrichen|abgelehnt|lehnt\w*\s+ab|zurückgezogen|zieht\w*\s+zurück|verschoben|"
          r"ausgeschlossen|schließt\w*\s+aus|gescheitert|scheitert|gestoppt|stoppt|verworfen|blockiert|"
          r"wird\s+nicht|werden\s+nicht|nicht\s+mehr|zurückgetreten|tritt\w*\s+zurück|entlassen|gestorben|"
          r"Niederlage\s+eingestanden|räumt\w*\s+(?:die\s+)?Niederlage\s+ein|ausgeschieden|abgesetzt|abberufen",
    "fr": r"annulée?s?|annule|abandonnée?s?|abandonne|rejetée?s?|rejette|reportée?s?|reporte|exclue?s?|exclut|"
          r"retirée?s?|retire|renoncé|renonce|bloquée?s?|n['’]aura\s+pas\s+lieu|ne\s+\w+\s+pas|"
          r"a\s+démissionné|démissionne|limogée?|décédée?|révoquée?|destituée?|"
          r"(?:a\s+)?reconnu\s+sa\s+défaite|éliminée?s?",
    "es": r"cancelad[oa]s?|cancela|suspendid[oa]s?|rechazad[oa]s?|rechaza|rechazó|aplazad[oa]s?|aplaza|"
          r"pospuest[oa]s?|descartad[oa]s?|descarta|descartó|retirad[oa]s?|retira|renunció|renuncia|"
          r"bloquead[oa]s?|anulad[oa]s?|no\s+se\s+(?:celebrará|firmará|aprobará)|no\s+\w+rá|dimitió|"
          r"destituid[oa]|destituye|destituyó|falleció|reconoció\s+su\s+derrota|eliminad[oa]s?|"
          r"romp\w*\s+(?:\w+\s+)?(?:las\s+)?negociaciones",
    "it": r"annullat[oaie]|cancellat[oaie]|rinviat[oaie]|respint[oaie]|ritirat[oaie]|esclus[oaie]|"
          r"non\s+\w+rà|si\s+è\s+dimess[oa]",
    "pt": r"cancelad[oa]s?|adiad[oa]s?|rejeitad[oa]s?|retirad[oa]s?|descartad[oa]s?|não\s+\w+rá|renunciou",
    "ru": r"отмен[её]н\w*|отменил\w*|отказал\w*|отклон\w*|перенес\w*|перенесён\w*|сорвал\w*|сорван\w*|"
          r"исключ\w*|не\s+будет|не\s+станет|больше\s+не|ушёл\s+в\s+отставку|ушел\s+в\s+отставку|"
          r"подал\w*\s+в\s+отставку|отправлен\w*\s+в\s+отставку|уволен\w*|скончал\w*",
    "zh": r"取消|推迟|延期|否决|放弃|拒绝|退出|排除|不会|叫停|搁置|辞职|辞去|下台|被免职|免去|罢免|卸任|离任|去世|告吹|破裂|"
          r"落败|败选|认输|出局",
    "ja": r"中止|延期|否決|撤回|断念|見送り|辞任|死去",
}

# What a threshold question compares: (pattern, comparator), the pattern before the number.
THRESHOLD = {
    # a preposition ("over", "under", "above") compares only a figure right after it ("over the past
    # 360 days" is a span of time)
    "en": ((r"exceed|surpass|top|pass|cross|break|beat|be\s+(?:higher\s+than|more\s+than|greater\s+than)|"
            r"(?:rise|climb|increase|go|jump|grow)\s+(?:above|over|past|beyond)|(?:above|over)(?=\s*[$€£¥]?\d)|"
            r"more\s+than|greater\s+than|higher\s+than", ">"),
           (r"reach|hit|at\s+least|(?:rise|climb|increase|grow)\s+to|or\s+more", ">="),
           (r"(?:fall|drop|decline|sink|slip|go)\s+(?:below|under)|be\s+(?:lower\s+than|less\s+than)|"
            r"(?:below|under)(?=\s*[$€£¥]?\d)|less\s+than|lower\s+than", "<"),
           (r"at\s+most|(?:fall|drop|decline)\s+to|or\s+less", "<=")),
    "de": ((r"über|mehr\s+als|höher\s+als|übersteig\w*|überschreit\w*|übertreff\w*|überspring\w*", ">"),
           (r"erreich\w*|mindestens", ">="), (r"unter|weniger\s+als|niedriger\s+als|unterschreit\w*", "<")),
    "fr": ((r"au-dessus\s+de|plus\s+de|supérieure?\s+à|dépass\w*|franchi\w*", ">"), (r"atteind\w*|au\s+moins", ">="),
           (r"en\s+dessous\s+de|au-dessous\s+de|moins\s+de|inférieure?\s+à|sous", "<")),
    "es": ((r"por\s+encima\s+de|más\s+de|superior\s+al?|super\w*|sobrepas\w*", ">"), (r"alcanz\w*|al\s+menos", ">="),
           (r"por\s+debajo\s+de|menos\s+de|inferior\s+al?|baj\w*", "<")),
    "ru": ((r"выше|более|больше|превыс\w*|превзойд\w*", ">"), (r"достигн\w*|достичь|не\s+менее", ">="),
           (r"ниже|менее|меньше", "<")),
    "zh": ((r"超过|高于|突破|超出|逾", ">"), (r"达到|至少", ">="), (r"低于|跌破|少于|不足", "<")),
    "ja": ((r"を?超え\w*|を?上回\w*|突破", ">"), (r"に達\w*|以上", ">="), (r"を?下回\w*|未満|割り込\w*", "<")),
    "it": ((r"super\w*|oltre|più\s+di|sopra", ">"), (r"raggiung\w*|almeno", ">="), (r"sotto|meno\s+di|scend\w*\s+sotto", "<")),
    "pt": ((r"super\w*|ultrapass\w*|acima\s+de|mais\s+de", ">"), (r"ating\w*|pelo\s+menos", ">="),
           (r"abaixo\s+de|menos\s+de|cair\w*\s+abaixo", "<")),
}

# Words of an institution's, a place's or an event's name: such a name is not a person's, whose
# surname alone would name it.
INSTITUTION = re.compile(
    r"\b(?:Republic|Kingdom|States|Nations|Emirates|Union|Federation|Reserve|Bank|Fund|Exchange|Market|Index|"
    r"League|Cup|Games|Olympics|Championships?|Open|Prix|Festival|Summit|Party|Council|Court|Ministry|Department|"
    r"Agency|Commission|Committee|Parliament|Congress|Senate|Assembly|Government|Administration|University|"
    r"College|School|Institute|Association|Organi[sz]ation|Workers|Company|Corp\w*|Inc|Ltd|Group|Holdings|"
    r"Airlines?|Motors|Energy|Act|Bill|Treaty|Agreement|Accord|Plan|Street|River|Sea|Ocean|Lake|Island|"
    r"Islands|Coast|Valley|City|County|State|Province|Region|Airport|Station|Stadium|Tower|Bridge|Center|"
    r"Centre|Museum|Prize|Award|Awards|Forces|Army|Navy|Police|Times|Post|News)\b")

# A state on a day, not an event: "still", "remain", "continue to be", "higher on D than on D0".
STATE = {
    "en": r"\b(?:still|remain|remains|continue\s+to\s+be|stay|stays|be\s+in\s+office|"
          r"(?:higher|lower|more|less|greater)\s+on\b|than\s+on\b|(?:as\s+)?compared\s+(?:to|with)\b)",
    "de": r"\b(?:weiterhin|bleiben|bleibt|im\s+amt)\b",
    "fr": r"\b(?:toujours|rester|restera|demeurer)\b",
    "es": r"\b(?:todavía|aún|seguirá|seguir|permanecer|permanecerá|continuará)\b",
    "ru": r"(?<!\w)(?:останется|оставаться|по-прежнему|всё\s+ещё|все\s+еще)(?!\w)",
    "zh": r"仍|依然|继续|保持",
}


def alternation(table: dict[str, str], language: str, fallback: str = "en") -> re.Pattern | None:
    """The compiled cue pattern of ``language`` (words bounded where the script has words), or
    of ``fallback`` when it has none; None when neither has one."""
    body = table.get(language) or (table.get(fallback) if fallback else None)
    if not body:
        return None
    if language in ("zh", "ja"):
        return re.compile(f"(?:{body})")
    return re.compile(rf"(?<!\w)(?:{body})(?!\w)", re.I)
