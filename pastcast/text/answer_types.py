"""The answer-type vocabulary: the types pastcast uses, and the labels others write for them.

Generators and peer datasets label answers in many spellings (LLMs write ``organization`` as
often as ``organisation``; NER tools write ``ORG``, ``GPE``, ``WORK_OF_ART``). A label is
mapped to one of ``ANSWER_TYPES`` by ``canonical_answer_type`` (also in the plural, and by its
last word: "football club" is a club); a label it does not know is
``other``, and the label as written is kept beside it (``answer_type_original``), so nothing is
dropped for a spelling.

| type | what the answer is | labels mapped to it (besides the type itself) |
|---|---|---|
| person | a person's name | people, individual, person name, human, per, candidate, player, athlete, politician, string (name), string (person) |
| organisation | a company, party, club, team, body | organization, org, company, corporation, business, firm, club, team, party, institution, agency, brand, band, norp, string (organization) |
| place | a country, city, region, venue | location, loc, city, town, country, nation, state, region, province, territory, continent, venue, gpe, fac, facility, string (location) |
| title | the title of a work | work of art, work, film, movie, book, novel, song, album, show, series, play, artwork, law |
| number | a count, amount, share, price | numeric, quantity, count, integer, amount, percentage, percent, money, price, cardinal, figure, string (number) |
| date | a day, month or year | time, datetime, day, month, year, string (date) |
| binary | yes or no | yes/no, boolean, bool |
| option | one of listed options | multiple choice, choice, categorical |
| range | a bucket of a number | interval, bucket |
| entity | another named thing | named entity, product, event, language, thing |
| other | anything else | misc, text, string, free text |
"""

from __future__ import annotations

import re

ANSWER_TYPES = ("person", "organisation", "place", "title", "number", "date", "binary", "option",
                "range", "entity", "other")
NUMERIC_TYPES = frozenset({"number", "range", "date"})

ANSWER_TYPE_SYNONYMS: dict[str, tuple[str, ...]] = {
    "person": ("people", "individual", "person name", "full name", "human", "per", "candidate",
               "player", "athlete", "politician",
               # OpenForesight writes a name "string (name)": mostly people (its "Who will ...?")
               "string (name)", "string (person)"),
    "organisation": ("organization", "org", "organisation name", "organization name", "company",
                     "corporation", "business", "firm", "club", "team", "party",
                     "political party", "institution", "agency", "brand", "band", "norp",
                     "string (organization)", "string (organisation)"),
    "place": ("location", "loc", "city", "town", "country", "nation", "state", "region",
              "province", "territory", "continent", "venue", "gpe", "fac", "facility",
              "geopolitical entity", "string (location)"),
    "title": ("work of art", "work", "film", "movie", "book", "novel", "song", "album", "show",
              "tv show", "series", "play", "artwork", "law"),
    "number": ("numeric", "numerical", "quantity", "count", "integer", "float", "amount",
               "percentage", "percent", "money", "price", "cardinal", "figure", "continuous",
               "string (number)"),
    "date": ("time", "datetime", "day", "month", "year", "string (date)"),
    "binary": ("yes no", "yes or no", "yesno", "true false", "true or false", "boolean", "bool"),
    "option": ("multiple choice", "choice", "categorical", "mc"),
    "range": ("interval", "bucket"),
    "entity": ("named entity", "product", "event", "language", "thing"),
    "other": ("misc", "miscellaneous", "text", "string", "free text", "freeform", "open"),
}

_CANONICAL: dict[str, str] = {t: t for t in ANSWER_TYPES}
for _type, _labels in ANSWER_TYPE_SYNONYMS.items():
    for _label in _labels:
        _CANONICAL[_label] = _type

_SEPARATORS = re.compile(r"[\s_\-/]+")


def _key(label: str) -> str:
    """"WORK_OF_ART" -> "work of art", "Yes/No" -> "yes no", "organizations" -> "organizations"."""
    return _SEPARATORS.sub(" ", label.strip().casefold()).strip()


def canonical_answer_type(label: str | None) -> str:
    """The vocabulary's type for ``label``: the label, its singular ("companies", "cities"), else
    its last word ("football club" is a club); "company name" and "name of the company" are
    companies; ``other`` for an empty or unknown label."""
    if not label:
        return "other"
    key = _key(label)
    if key.startswith("name of "):  # "name of the company" names a company
        key = key[len("name of "):].removeprefix("the ").removeprefix("a ")
    elif key.endswith(" name") and key not in _CANONICAL:  # "company name" is a company's name
        key = key[: -len(" name")]
    head = key.split(" of ", 1)[0].rsplit(" ", 1)[-1]  # "flavour of the month" is a flavour
    for form in (key, head) if head != key else (key,):
        for candidate in (form, form[:-3] + "y" if form.endswith("ies") else None,
                          form[:-2] if form.endswith("es") else None, form[:-1] if form.endswith("s") else None):
            if candidate and candidate in _CANONICAL:
                return _CANONICAL[candidate]
    return "other"


def answer_type_original(label: str | None) -> str | None:
    """The label as written when it is not a type's own name (kept beside the type), else None."""
    if not label or label.strip() in _CANONICAL and label.strip() == canonical_answer_type(label):
        return None
    return label.strip()


def canonical_types(labels) -> frozenset[str]:
    """A user's list of types (any spelling) as vocabulary types; an unknown one is an error."""
    out = set()
    for label in labels:
        t = canonical_answer_type(label)
        if t == "other" and _key(label) not in _CANONICAL:
            raise ValueError(f"unknown answer type {label!r}; use one of {', '.join(ANSWER_TYPES)} "
                             f"or a synonym (see pastcast.text.answer_types)")
        out.add(t)
    return frozenset(out)
