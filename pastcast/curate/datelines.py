"""Dates written for readers: the dateline or byline under the headline, and dates that a
label names as the publication ("Veröffentlicht am 16.08.2019", "Published: 3 March 2020").

``page`` arguments are ``dating._Elements``: the page's meta tags, title and headings found in
one pass.
"""

from __future__ import annotations

import re
from datetime import date

_MONTH_WORDS = {  # full names and usual abbreviations: en, de, fr, es, it, pt, nl
    1: "january jan januar jänner janvier janv enero ene gennaio gen janeiro januari",
    2: "february feb februar février fevrier févr fevr febrero febbraio fevereiro fev februari",
    3: "march mar märz maerz mär mars marzo março maart",
    4: "april apr avril avr abril aprile",
    5: "may mai mayo maggio mag maio mei",
    6: "june jun juni juin junio giugno giu junho",
    7: "july jul juli juillet juil julio luglio lug julho",
    8: "august aug août aout agosto ago augustus",
    9: "september sep sept septembre septiembre setiembre settembre set setembro",
    10: "october oct oktober okt octobre octubre ottobre ott outubro out",
    11: "november nov novembre noviembre novembro",
    12: "december dec dezember dez décembre decembre déc diciembre dic dicembre dezembro",
}
MONTH_NUMBER = {name: m for m, names in _MONTH_WORDS.items() for name in names.split()}
_MONTH = "|".join(sorted(MONTH_NUMBER, key=len, reverse=True))
_DAY = r"(?:0?[1-9]|[12]\d|3[01])"
_YEAR = r"(?:19|20)\d{2}"
TEXT_DATE = re.compile(
    # 2019-08-16, 2019/08/16, 2019.08.16
    rf"(?<![\w.])(?P<iy>{_YEAR})([-/.])(?P<im>0?[1-9]|1[0-2])\2(?P<id>{_DAY})(?!\d)"
    # 16.08.2019, 16. 08. 2019, 16-08-2019: day first
    rf"|(?<![\w.])(?P<nd>{_DAY})([.-])\s?(?P<nm>0?[1-9]|1[0-2])\6\s?(?P<ny>{_YEAR})(?!\d)"
    # 08/16/2019 or 16/08/2019: see text_dates
    rf"|(?<![\w./])(?P<sa>\d{{1,2}})/(?P<sb>\d{{1,2}})/(?P<sy>{_YEAR})(?!\d)"
    # 16 August 2019, 16. Aug. 2019, 16th of August, 2019, 3 de mayo de 2022, 1er mars 2020
    rf"|(?<!\d)(?P<dd>{_DAY})(?:st|nd|rd|th|er|º)?\.?\s*(?:of\s+|de\s+)?(?P<dm>{_MONTH})\b\.?,?"
    rf"\s*(?:de\s+|del\s+)?(?P<dy>{_YEAR})(?!\d)"
    # August 16, 2019, Aug. 16th 2019
    rf"|\b(?P<mm>{_MONTH})\b\.?\s+(?P<md>{_DAY})(?:st|nd|rd|th)?,?\s+(?P<my>{_YEAR})(?!\d)",
    re.I)


HAS_YEAR = re.compile(r"(?:19|20)\d\d")


def text_dates(text: str, month_first: bool = False) -> list[date]:
    """The calendar dates written in a text, in order: numeric (ISO, day-first with dots or
    dashes, slashes) and with month names in English, German, French, Spanish, Italian,
    Portuguese and Dutch. A year is required; "08/04/2019" is read month first only when
    ``month_first`` (US usage), else day first."""
    return [day for day, _ in _text_date_matches(text, month_first)]


def _text_date_matches(text: str, month_first: bool = False):
    """(date, start offset) of each date written in a text."""
    if not HAS_YEAR.search(text):  # every form has a year: a cheap test first
        return
    for match in TEXT_DATE.finditer(text):
        g = match.groupdict()
        try:
            if g["iy"]:
                day = date(int(g["iy"]), int(g["im"]), int(g["id"]))
            elif g["nd"]:
                day = date(int(g["ny"]), int(g["nm"]), int(g["nd"]))
            elif g["sa"]:
                a, b, y = int(g["sa"]), int(g["sb"]), int(g["sy"])
                day = date(y, a, b) if a <= 12 and (month_first or b > 12) else date(y, b, a)
            elif g["dd"]:
                day = date(int(g["dy"]), MONTH_NUMBER[g["dm"].lower()], int(g["dd"]))
            else:
                day = date(int(g["my"]), MONTH_NUMBER[g["mm"].lower()], int(g["md"]))
        except ValueError:  # 31 February and the like
            continue
        yield day, match.start()


# What a label just before a date says it is. An update is not the publication; any other label
# ("Registered:", "Release date:", "Deadline:") names some other date, unless it names the
# publication or just says "date".
UPDATE_LABEL = re.compile(
    r"\b(?:updated?|modified|aktualisiert|geändert|änderung|stand|mis à jour|modifié|actualizad[oa]"
    r"|actualización|aggiornat[oa]|atualizad[oa]|bijgewerkt)\b[^\d]{0,12}$", re.I)
LABEL = re.compile(r"([^\W\d_][^\W\d]*(?:[ -][^\W\d_][^\W\d]*){0,3})\s*:\s*$")
PUBLICATION_LABELS = {
    "date", "datum", "fecha", "data", "published", "published on", "publication date", "posted",
    "posted on", "written", "veröffentlicht", "veröffentlicht am", "erstellt", "erstellt am",
    "erschienen", "erschienen am", "publié", "publié le", "date de publication", "publicado",
    "publicado el", "publicado em", "fecha de publicación", "pubblicato", "pubblicato il",
    "data di pubblicazione", "gepubliceerd", "gepubliceerd op",
}


def _labelled_other(before: str) -> bool:
    """Whether the text just before a date labels it as something other than the publication."""
    if UPDATE_LABEL.search(before):
        return True
    label = LABEL.search(before)
    return bool(label) and label.group(1).lower() not in PUBLICATION_LABELS


HEADLINE_WINDOW = 300  # characters of text read after the headline for its dateline or byline
BYLINE_CHARS = 60  # a longer string is prose: only a date opening it counts (a dateline),
DATELINE_CHARS = 24  # one that starts within its first characters
_NOT_TEXT = {"script", "style", "noscript", "template", "svg", "button", "select", "option"}


def _texts(el):
    """The visible text strings of an element (then its tail), lazily in document order."""
    if isinstance(el.tag, str) and el.tag not in _NOT_TEXT and not _unread(el):
        if el.text:
            yield el.text
        for child in el:
            yield from _texts(child)
    if el.tail:
        yield el.tail


def _unread(el) -> bool:
    """Hidden elements, modification times and reader comments: no dateline there."""
    if el.get("hidden") is not None or el.get("itemprop") == "dateModified":
        return True
    marks = f"{el.get('class') or ''} {el.get('id') or ''}".lower()
    return bool(marks.strip()) and ("hidden" in marks.split() or "modif" in marks or "comment" in marks)


def _strings_after(el, limit: int, inside: bool = False) -> list[str]:
    """The visible text strings that follow an element in the page (with ``inside``: that
    follow its own text, starting with its children), up to ``limit`` characters."""
    strings, size = [], 0

    def following(node):
        if inside:
            for child in node:
                yield from _texts(child)
        while node is not None:
            if node.tail:
                yield node.tail
            for sibling in node.itersiblings():
                yield from _texts(sibling)
            node = node.getparent()

    for text in following(el):
        text = " ".join(text.split())
        if text:
            strings.append(text)
            size += len(text)
            if size >= limit:
                break
    return strings


def _headline(page):
    """The article's headline: the h1, h2 or h3 that is most of the page's title (og:title, else
    <title>, which usually adds the site's name), else the first h1 in an <article> or <main>,
    else the first h1. Pages often spend their first h1 on the site's name or navigation."""
    og_title = next((m.get("content") for m in page.meta if m.get("property") == "og:title"), "")
    title = " ".join((og_title or page.title).split()).casefold()
    best, best_overlap = None, 9  # a heading of fewer than 10 characters is no headline
    for heading in page.headings if title else ():
        text = " ".join(heading.text_content().split()).casefold()
        overlap = min(len(text), len(title)) if text in title or title in text else 0
        if overlap > best_overlap or (overlap == best_overlap and best is not None
                                      and heading.tag < best.tag):  # ties: h1 before h2
            best, best_overlap = heading, overlap
    if best is not None:
        return best
    h1s = [h for h in page.headings if h.tag == "h1"]
    for heading in h1s:
        if any(a.tag in ("article", "main") for a in heading.iterancestors()):
            return heading
    return h1s[0] if h1s else None


def headline_dates(page) -> list[str]:
    """Dates written just under the headline: the dateline or byline most articles show.

    A date counts in a short string of its own ("Monday, 6 January 2020", "04.02.2022 | 15:33
    Uhr | Jane Doe") or opening a paragraph ("29.11.2022 – The industry ..."), never inside a
    sentence ("the meeting on 5 February 2020"), which is what the article is about.
    """
    headline = _headline(page)
    if headline is None:
        return []
    month_first = _month_first(page.tree)
    found, previous = [], ""
    for text in _strings_after(headline, HEADLINE_WINDOW):
        if len(text) > BYLINE_CHARS:
            text = text[:DATELINE_CHARS]
        for day, start in _text_date_matches(text, month_first):
            if not _labelled_other((previous + " " + text[:start])[-40:]):
                found.append(day.isoformat())
        previous = text
    return found


PUBLISHED_WORDS = ("ublish", "osted", "eröffentlicht", "rschienen", "rstellt", "ublié", "ublicado",
                   "ubblicato", "epubliceerd")
LABELLED = "//body//text()[" + " or ".join(f"contains(., '{w}')" for w in PUBLISHED_WORDS) + "]"
PUBLISHED_BEFORE = re.compile(
    r"(?:published|posted|veröffentlicht|erschienen|erstellt|publié|publicado|pubblicato|gepubliceerd)"
    r"(?:\s+(?:on|am|le|el|il|em|op))?\s*:?\s*$", re.I)


def _month_first(tree) -> bool:
    """Whether the page reads "08/04/2019" as August 4 (US English) rather than 8 April."""
    return (tree.get("lang") or "").lower().startswith("en-us")


def labelled_dates(tree) -> list[str]:
    """Dates anywhere in the page that a label names as the publication ("Veröffentlicht am
    16.08.2019", "Published: 3 March 2020")."""
    month_first = _month_first(tree)
    found = []
    for node in tree.xpath(LABELLED):
        owner = node.getparent()
        if owner is None or not isinstance(owner.tag, str) or owner.tag in _NOT_TEXT:
            continue
        text = " ".join(node.split())
        if len(text) < BYLINE_CHARS:  # "Published:" and the date in the next element
            text = " ".join([text, *_strings_after(owner, 40, inside=node.is_text)])
        for day, start in _text_date_matches(text, month_first):
            if PUBLISHED_BEFORE.search(text[max(0, start - 40):start]):
                found.append(day.isoformat())
    return found
