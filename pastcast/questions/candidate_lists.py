"""Candidate lists are not leaks: naming the answer among every option known in advance gives
nothing away; singling it out does.

A mention of an answer in a question's text is *listed* when its sentence

1. presents options known before the outcome: a candidacy cue (``CANDIDACY_CUES``:
   candidates, nominees, shortlist, finalists, bids, contenders, "which of", between, ... in
   several languages), and
2. singles none out: no favourite, frontrunner or ranking cue and no outcome wording
   (``SINGLING_CUES``: favourite, tipped, expected, won, elected, went to, results, ...), and
3. names the answer as one bare item of a list: two or more names joined by list marks
   (",", ";", "、") with a conjunction or "、" among them, or three or more; the answer's item
   is a name and nothing else (an item "Title (Author)" is one name with its parenthetical,
   allowed only when every item of the list has one), and is not the last item followed by an
   apposition (", whose bid ...", detail on the answer alone).

Anything else is a mention that counts: when unsure, it is a leak. The leak checks look at
every mention of the answer by position (``pastcast.text.mentions.all_mentions``), so a
candidate list in the background and "insiders say Estvale has won" in the next sentence is a
leak. "Bids were submitted by Korsholm, Estvale and Tarnby; the council votes in March" lists
Estvale; "The medals went to A, B and C" (no candidacy, outcome wording) and "The CEO of
Globex" (no list) do not.

The rule is tuned on the cases of ``tests/test_candidate_lists.py``; its held-out cases
(``tests/data/candidate_lists_heldout.jsonl``) are only reported, never tuned on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pastcast.text import written_without_spaces
from pastcast.text.vocabulary import phrases

# Words that present the options of a contest before its outcome. Lower case, regex
# alternatives (a space: any whitespace). Nouns and fixed phrases: "nominated" is left out
# ("the party nominated A and B" is an outcome), "nominees" and "nominated for" are in.
CANDIDACY_CUES = (
    # English
    "candidates?", "candidacy", "nominees?", "nominated for", "nominations?", "shortlist(?:ed|s)?",
    "short-list(?:ed)?", "finalists?", "final bids?", "bids?", "bidders?", "contenders?",
    "in the running", "in contention", "race between", "contest between", "vying", "compete",
    "competing", "standing for", "running for", "options?", "choices?", "which of", "one of", "among",
    "between", "versus", "vs",
    # German
    "kandidat(?:en|in|innen)?", "bewerber(?:in|innen)?", "bewerbung(?:en)?", "finalist(?:en|in|innen)?",
    "nominiert(?:e|en)?", "anwärter(?:in|innen)?", "zur wahl", "zwischen", "unter",
    # French
    "candidat(?:e|s|es)?", "finalistes?", "nominé(?:e|s|es)?", "en lice", "en course",
    "prétendant(?:e|s|es)?", "entre", "parmi",
    # Spanish, Portuguese, Italian
    "candidat[oa]s?", "finalistas?", "nominad[oa]s?", "aspirantes?", "en la carrera", "candidati",
    "finalisti",
    # Russian
    "кандидат\\w*", "финалист\\w*", "номинант\\w*", "претендент\\w*", "между", "среди",
)
# Scripts written without spaces: matched anywhere in the sentence.
CANDIDACY_CUES_UNSPACED = ("候选", "候選", "入围", "入圍", "提名", "角逐", "竞逐", "之间", "候補", "ノミネート",
                           "最終選考")

# Words that single one option out (a favourite, a ranking, a hedge on one name) or report an
# outcome. Conditionals ("could", "if", "whether") are left out: they hang over every option.
SINGLING_CUES = (
    # English: favourites and rankings
    "favou?rites?", "front-?runners?", "front runners?", "leads", "leading", "ahead", "odds",
    "best placed", "odds-on", "insiders?", "clear", "tipped", "expected", "likely", "poised",
    "set to", "in line to", "said to be", "projected", "predicted", "reportedly", "rumou?red",
    # English: outcomes
    "won", "wins?", "winners?", "winning", "victory", "victorious", "beat", "beats", "defeated",
    "elected", "re-elected", "appointed", "chosen", "selected", "named", "picked", "went to",
    "awarded", "claimed", "took", "results?", "placed", "finished", "medals?", "gold", "silver",
    "bronze", "podium", "runners?-up", "confirmed", "announced", "declared",
    # English: rankings, tallies and eliminations (the options left say who won)
    "in that order", "in order", "order of", "ranked", "ranking", "rankings", "tally", "tallied",
    "drew", "topped", "tops", "first", "second", "third", "last", "most", "fewest",
    "eliminated", "lost", "loses", "losing", "withdrew", "withdrawn", "pulled out", "dropped out",
    "knocked out", "ruled out", "conceded", "remaining", "remains", "only", "got the nod", "nod",
    "prevailed", "succeeded", "chose", "picks", "quit", "quits", "disqualified", "scrapped",
    "bowed out", "are out", "is out", "rejected", "accepted", "respectively", "cut to",
    "lost out", "out of the race", "abandoned", "retired",
    # German
    "favorit(?:in|en)?", "gewann", "gewinnt", "gewonnen", "sieger(?:in)?", "gewählt", "ernannt",
    "setzte sich durch", "ausgeschieden", "zurückgezogen", "zogen zurück", "zog zurück", "raus",
    "aufgegeben", "abgelehnt", "Reihenfolge",
    # French
    "favori(?:te|s|tes)?", "remporte", "remporté", "vainqueur", "gagnant(?:e)?", "élue?", "nommée?", "éliminée?s?", "abandonné", "renoncé", "rejetée?s?",
    "retiré(?:e|s|es)?", "dans l'ordre",
    # Spanish, Portuguese, Italian
    "favorit[oa]s?", "ganó", "gana", "ganador(?:a)?", "elegid[oa]", "nombrad[oa]", "vincitore", "eliminad[oa]s?", "se retiraron", "se retiró", "retirad[oa]s?",
    "rechazad[oa]s?",
    "en ese orden",
    "vinto", "eletto",
    # Russian
    "фаворит\\w*", "победил\\w*", "победител\\w*", "избран\\w*", "назначен\\w*", "выбыл\\w*", "снял\\w*", "отказал\\w*", "отклон\\w*",
)
SINGLING_CUES_UNSPACED = ("热门", "熱門", "获胜", "獲勝", "胜出", "勝出", "当选", "當選", "夺冠", "奪冠",
                          "本命", "優勝", "当選", "选定", "選定", "选中", "選中", "获选", "獲選", "落选", "落選",
                          "淘汰", "退出", "得票", "票数", "放弃", "放棄", "撤回", "落败", "落敗", "選ばれ", "決定")

# Words that join the last items of a list. Only unambiguous ones: Dutch "of" ("or") is the
# English preposition, "en" is French "in", "i" the English pronoun.
LIST_CONJUNCTIONS = frozenset({"and", "or", "und", "oder", "sowie", "et", "ou", "y", "o", "e", "och",
                               "eller", "og", "oraz", "lub", "и", "или", "ve", "veya", "ja", "tai"})
LIST_CONJUNCTIONS_UNSPACED = "和与及或とや"
# Lower-case words that may stand inside a name ("Bank of England", "Charles de Gaulle").
NAME_CONNECTORS = frozenset({"of", "the", "de", "du", "des", "la", "le", "del", "della", "di", "da",
                             "van", "von", "der", "den", "al", "el", "bin", "ibn", "upon", "on"})


_GAP = r"\s+"  # any whitespace between the words of a cue
_CANDIDACY = re.compile(rf"(?<!\w)(?:{phrases(CANDIDACY_CUES, _GAP)})(?!\w)|"
                        f"{'|'.join(map(re.escape, CANDIDACY_CUES_UNSPACED))}", re.I)
_SINGLING = re.compile(rf"(?<!\w)(?:{phrases(SINGLING_CUES, _GAP)})(?!\w)|"
                       f"{'|'.join(map(re.escape, SINGLING_CUES_UNSPACED))}", re.I)
# a sentence ends at . ! ? followed by a space and no lower-case letter (not "approx. ten"),
# at 。！？ and at a line break
_SENTENCE_END = re.compile(r"[.!?]+[\"'”’)]*(?=\s+[^\s\w]*[^\W\d_](?<![a-z]))|[。！？\n]|[.!?]+$")
_TOKEN = re.compile(rf"(?P<open>[(（\[])|(?P<close>[)）\]])|(?P<sep>[,、，])|(?P<colon>[:：])|"
                    rf"(?P<conj>[{LIST_CONJUNCTIONS_UNSPACED}])|"
                    rf"(?P<word>[^\W_{LIST_CONJUNCTIONS_UNSPACED}][\w'’.\-]*?(?=[{LIST_CONJUNCTIONS_UNSPACED}]|[^\w'’.\-]|$)"
                    rf"|[^\W_][\w'’.\-]*)|(?P<other>[^\s\"“”‘’«»„'])")


def sentence_at(text: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the sentence holding ``text[start:end]``."""
    begin = 0
    for m in _SENTENCE_END.finditer(text, 0, start):
        begin = m.end()
    stop = _SENTENCE_END.search(text, end)
    return begin, (stop.start() if stop else len(text))


@dataclass(frozen=True)
class _Unit:
    kind: str  # name, connector, word, paren (a bracketed group), sep, conj, colon, other
    start: int
    end: int
    names_only: bool = True  # a paren group: holds names only
    mention: bool = False


def _word_kind(word: str) -> str:
    if word.lower() in LIST_CONJUNCTIONS and word.islower():
        return "conj"
    if word in NAME_CONNECTORS:
        return "connector"
    first = word[:1]
    return "name" if first.isalpha() and not first.islower() else "word"  # "Estvale 41": a tally


def _units(text: str, begin: int, stop: int, start: int, end: int) -> list[_Unit]:
    """The sentence as units, the mention ``[start, end)`` one name unit, each bracketed group
    one unit."""
    flat: list[_Unit] = []
    for piece_begin, piece_end in ((begin, start), (end, stop)):
        for m in _TOKEN.finditer(text, piece_begin, piece_end):
            kind = m.lastgroup
            if kind == "sep":  # the enumeration comma joins a list; a comma may open an apposition
                kind = {"、": "conj", ",": "comma", "，": "comma"}.get(m.group(), "sep")
            flat.append(_Unit(_word_kind(m.group()) if kind == "word" else kind, m.start(), m.end()))
        if piece_begin == begin:
            flat.append(_Unit("name", start, end, mention=True))
    units: list[_Unit] = []
    i = 0
    while i < len(flat):
        u = flat[i]
        if u.kind == "open":
            j = i + 1
            while j < len(flat) and flat[j].kind != "close":
                j += 1
            inner = flat[i + 1:j]
            names = (bool(inner) and inner[0].kind == "name"  # "(Labour and Commons Party)" is one name
                     and all(x.kind in ("name", "connector", "conj", "comma") for x in inner))
            units.append(_Unit("paren", u.start, flat[j].end if j < len(flat) else u.end, names,
                               any(x.mention for x in inner)))
            i = j + 1
            continue
        units.append(u)
        i += 1
    return units


def _split(units: list[_Unit]) -> tuple[list[list[_Unit]], list[str]]:
    """Segments between list marks and conjunctions, and the mark before each segment."""
    segments: list[list[_Unit]] = [[]]
    marks = [""]
    for u in units:
        if u.kind in ("sep", "comma", "conj"):
            if segments[-1]:
                segments.append([])
                marks.append(u.kind)
            elif u.kind == "conj":  # ", and": one mark
                marks[-1] = "conj"
            continue
        segments[-1].append(u)
    return segments, marks


def _is_name_run(units: list[_Unit]) -> bool:
    """Units that are one name, optionally followed by one bracketed group of names."""
    core = units[:-1] if units and units[-1].kind == "paren" else units
    if not core or core[0].kind != "name" or core[-1].kind != "name":
        return False
    if units[-1].kind == "paren" and not units[-1].names_only:
        return False
    return all(u.kind in ("name", "connector") for u in core)


def _trailing_item(seg: list[_Unit]) -> list[_Unit] | None:
    """The name run at the end of a segment, after words that introduce the list."""
    for cut in range(len(seg)):
        if _is_name_run(seg[cut:]) and (cut == 0 or seg[cut - 1].kind not in ("name", "connector")):
            return seg[cut:]
    return None


def _leading_item(seg: list[_Unit]) -> list[_Unit] | None:
    """The name run at the start of a segment, before the sentence goes on in lower case."""
    for cut in range(len(seg), 0, -1):
        if _is_name_run(seg[:cut]) and (cut == len(seg) or seg[cut].kind not in ("name", "connector", "paren")):
            rest = seg[cut:]
            if not rest or rest[0].kind in ("word", "colon"):
                return seg[:cut]
            return None
    return None


# words that open a clause about the whole list, not an apposition to its last item
_SUBORDINATORS = frozenset("as while when after before if but since because according with so until "
                           "wie als während wenn nachdem comme lorsque quand como cuando según как".split())


def _subordinate(text: str, segment: list[_Unit]) -> bool:
    """True when ``segment`` (after a comma) opens a clause ("..., as the market resolved")."""
    return bool(segment) and text[segment[0].start:segment[0].end].lower() in _SUBORDINATORS


def _holds_mention(item: list[_Unit]) -> bool:
    return any(u.mention for u in item)


_CLAUSE_END = re.compile(r"[;；]")


def reports_outcome(text: str) -> bool:
    """True when ``text`` has a favourite, ranking or outcome cue (``SINGLING_CUES``) anywhere."""
    return bool(_SINGLING.search(text or ""))


def listed_as_candidate(text: str, start: int, end: int, others: tuple[tuple[int, int], ...] = ()) -> bool:
    """True when ``text[start:end]`` (a mention of an answer) is one bare item of a list of
    options its clause presents as candidates, none singled out (see the module doc).
    ``others`` are the other mentions of the same answer in ``text``: a sentence that names it
    twice ("Between A, B and C, B got the nod") singles it out."""
    return list_items(text, start, end, others) is not None


def list_items(text: str, start: int, end: int, others: tuple[tuple[int, int], ...] = ()) -> list[str] | None:
    """The other items of the candidate list ``text[start:end]`` is a bare item of (their
    names, as written), or None when it is not one (``listed_as_candidate``)."""
    begin, stop = sentence_at(text, start, end)
    sentence = text[begin:stop]
    if _SINGLING.search(sentence) or any(begin <= s < stop for s, _e in others if (s, _e) != (start, end)):
        return None
    # the clause: a semicolon ends a list ("...and Tarnby; Estvale hosts in 2030" is no item)
    for m in _CLAUSE_END.finditer(text, begin, stop):
        if m.start() < start:
            begin = m.end()
        elif m.start() >= end:
            stop = m.start()
            break
    if not _CANDIDACY.search(text, begin, stop):
        return None
    segments, marks = _split(_units(text, begin, stop, start, end))
    at = next((i for i, seg in enumerate(segments) if any(u.mention for u in seg)), None)
    if at is None:
        return None
    seg = segments[at]
    # the answer's own item: a whole segment, the first item after the list's introduction, or
    # the last one before the sentence goes on
    items: list[list[_Unit]] = []
    left_open = right_open = True
    if _is_name_run(seg):
        items.append(seg)
    elif (item := _trailing_item(seg)) and _holds_mention(item):
        items.append(item)
        left_open = False
    elif (item := _leading_item(seg)) and _holds_mention(item):
        items.append(item)
        right_open = False
    else:
        return None
    answer_item = items[0]
    joins: list[str] = []
    i = at - 1
    while left_open and i >= 0:
        item = segments[i] if _is_name_run(segments[i]) else _trailing_item(segments[i])
        if not item:
            break
        joins.append(marks[i + 1])
        items.insert(0, item)
        if item is not segments[i]:
            break
        i -= 1
    i = at + 1
    last_is_answer = True
    while right_open and i < len(segments):
        item = segments[i] if _is_name_run(segments[i]) else _leading_item(segments[i])
        if not item:
            if marks[i] == "comma" and last_is_answer and not _subordinate(text, segments[i]):
                return None  # "..., Tarnby, whose bid ...": detail on the answer alone
            break
        joins.append(marks[i])
        items.append(item)
        last_is_answer = False
        if item is not segments[i]:
            break
        i += 1
    if len(items) < 2 or ("conj" not in joins and len(items) < 3):
        return None
    with_paren = [it[-1].kind == "paren" for it in items]
    if answer_item[-1].kind == "paren" and not all(with_paren):
        return None  # only the answer's item carries detail
    return [_item_name(text, it) for it in items if it is not answer_item]


def _item_name(text: str, item: list[_Unit]) -> str:
    """An item's name: its words before a bracketed group."""
    core = item[:-1] if item[-1].kind == "paren" else item
    return text[core[0].start:core[-1].end]


def outcome_about(texts, names: list[str]) -> str | None:
    """A sentence of ``texts`` with an outcome or ranking cue that names one of ``names`` (the
    other options of a list): "Korsholm and Tarnby withdrew" turns "Bids came from Korsholm,
    Estvale and Tarnby" into the answer. None when there is none."""
    wanted = [n.casefold() for n in names if n and n.strip()]
    for text in texts:
        for m in _SINGLING.finditer(text or ""):
            begin, stop = sentence_at(text, m.start(), m.end())
            sentence = text[begin:stop].casefold()
            if any(n in sentence for n in wanted):
                return text[begin:stop]
    return None
