"""The retrieval baseline's candidate extractor against hand labels on real news text.

Gold: ``bench/labels/candidates.jsonl``, one row per fundus publisher (177 publishers, 41
countries, about 25 languages): a page's title and the opening of its article
(``excerpt``: fundus's expected body, first paragraph of 120+ characters, whole sentences up to
150+ characters), with every name and every quantity in them written out by hand. The text
stays in ``../shared/data``; a row names its file and the SHA-256 of its excerpt, so a changed
source fails loudly instead of scoring against other text.

Labelling conventions (also in bench/README.md, "Candidate extractor"):
- a name is a proper name of a person, organisation, place, event, work or product, the longest
  span as written, without a role or title before it ("President", "König", "Datuk Seri"), an
  article, or a possessive ("Swift's", German "Trumps", Turkish "İzmir'in" -> the bare name);
  other inflections stay as written ("Noregs", "России"). A compound of a name and a common
  noun ("US-Präsident", "ICMPD-Staaten") is not a name; a hyphenated name is ("Mar-a-Lago").
  Demonyms, adjectives, weekdays, months and capitalised common nouns are not names;
- a quantity is a number in digits with its unit, currency or counted noun as written ("6.6 per
  cent", "$100M", "300 Milliarden Dollar", "1メートル"), not a date, year, time, age or ordinal;
  a number spelled in words is not labelled.

Compared in one run, on each half (split by publisher, ``_common.split_half``):
- **plain**: what the baseline read before (the side-by-side copy in ``real_replay.py``): every
  capitalised run of title and body, possessives kept, and every number the old pattern matched;
- **pastcast**: ``extract_candidates(hit_text(title, excerpt))`` as the retrieval agent calls it,
  names for a "who/what" question and quantities for a numeric one;
- the variants of the rules that were open to choice, scored on the tuning half; the one chosen
  there is reported on the held-out half beside the others.

Scores are exact matches after ``pastcast.text.normalise`` (case, accents, apostrophes
folded), pooled over the half's excerpts: precision (share of extracted spans that are labelled),
recall (share of labelled spans extracted whole), F1. A fragment ("Dar" for "Dar es Salaam")
is a miss and a false span. Results in ``.bench-cache/candidates.json``.

    .venv/bin/python bench/candidates.py
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import CACHE, FUNDUS_PAGES, HALVES, environment, fundus_gold, publisher, require_data, split_half, table, write_json  # noqa: E402,E501

from pastcast.evaluate import candidates as extractor  # noqa: E402
from pastcast.text.normalise import normalise  # noqa: E402

LABELS = Path(__file__).resolve().parent / "labels" / "candidates.jsonl"
RESULTS = CACHE / "candidates.json"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
_UNSPACED_STOPS = ("。", "！", "？")


def excerpt(body: str) -> str | None:
    """The opening the labels cover: the body's first paragraph of 120+ characters (whitespace
    collapsed), whole sentences until 150 characters are reached, at most 400 characters."""
    for paragraph in body.split("\n\n"):
        paragraph = " ".join(paragraph.split())
        if len(paragraph) < 120:
            continue
        out = ""
        for sentence in _SENTENCE_END.split(paragraph):
            out = out + sentence if not out or out.endswith(_UNSPACED_STOPS) else f"{out} {sentence}"
            if len(out) >= 150:
                break
        return out[:400]
    return None


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def gold_rows() -> list[dict]:
    """The labelled rows joined with their text (title, excerpt) and half; a row whose excerpt no
    longer hashes to its label is an error, named."""
    pages = {row["file"]: row for row in fundus_gold()}
    out = []
    for n, line in enumerate(LABELS.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        label = json.loads(line)
        page = pages.get(label["file"])
        if page is None:
            raise SystemExit(f"{LABELS}:{n}: {label['file']} is not a fundus page")
        text = excerpt(page["body_text"])
        if text is None or digest(text) != label["excerpt_sha256"]:
            raise SystemExit(f"{LABELS}:{n}: the excerpt of {label['file']} changed; label it again")
        out.append({**label, "title": page["title"], "excerpt": text,
                    "half": split_half(publisher(page["url"]))})
    return out


# --- extractors ----------------------------------------------------------------------------------

def _plain(title: str, body: str, kind: str) -> set[str]:
    from real_replay import old_candidates

    return old_candidates(f"{title}. {body}", "number" if kind == "quantities" else "organisation", set())


def _pastcast(title: str, body: str, kind: str, title_case_share: float | None = extractor.TITLE_CASE_SHARE,
              **rules) -> set[str]:
    if kind == "quantities":
        return extractor.extract_candidates(f"{title}. {body}", "number", set(), "What will the figure be?")
    if title_case_share == extractor.TITLE_CASE_SHARE and not rules:  # exactly as the agent calls it
        return extractor.extract_candidates(extractor.hit_text(title, body), "organisation", set())
    shared = title_case_share is not None and extractor.is_title_case(title, title_case_share)
    text = body if shared else f"{title}. {body}"
    return extractor.name_candidates(text, set(), rules=extractor.NameRules(**rules))


_NONE = {"sentence_articles": False, "sentence_words": False, "nouns_after_articles": False, "apostrophes": False}
VARIANTS = {  # the rules open to choice, one changed at a time from pastcast's, and all of them off
    "title case at 40%": {"title_case_share": 0.4},
    "title case at 60%": {"title_case_share": 0.6},
    "title case at 70%": {"title_case_share": 0.7},
    "title case at 80%": {"title_case_share": 0.8},
    "titles always read": {"title_case_share": None},
    "no sentence-start articles rule": {"sentence_articles": False},
    "no sentence-start words rule": {"sentence_words": False},
    "no nouns-after-articles rule": {"nouns_after_articles": False},
    "no apostrophes rule": {"apostrophes": False},
    "none of the four rules": _NONE,
}


# --- scoring -------------------------------------------------------------------------------------

def score(rows: list[dict], kind: str, extract) -> dict:
    tp = fp = fn = 0
    misses, false = [], []
    for row in rows:
        gold = {normalise(g) for g in row[kind]} - {""}
        found = {}
        for span in extract(row["title"], row["excerpt"], kind):
            found.setdefault(normalise(span), span)
        found.pop("", None)
        tp += len(gold & found.keys())
        fp += len(found.keys() - gold)
        fn += len(gold - found.keys())
        misses += sorted(g for g in row[kind] if normalise(g) not in found)
        false += sorted(span for key, span in found.items() if key not in gold)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"labelled": tp + fn, "extracted": tp + fp, "matched": tp, "precision": precision,
            "recall": recall, "f1": f1, "misses": misses[:40], "false": false[:40]}


def main() -> None:
    require_data(FUNDUS_PAGES)
    rows = gold_rows()
    halves = {h: [r for r in rows if r["half"] == h] for h in HALVES}
    results = {"environment": environment(), "excerpts": {h: len(r) for h, r in halves.items()},
               "publishers": {h: len({publisher_of(r) for r in hr}) for h, hr in halves.items()}}
    lines = []
    for kind in ("names", "quantities"):
        extractors = {"plain": _plain, "pastcast": _pastcast}
        if kind == "names":
            extractors |= {v: (lambda t, b, k, rules=rules: _pastcast(t, b, k, **rules)) for v, rules in VARIANTS.items()}
        scores = {name: {h: score(halves[h], kind, fn) for h in HALVES} for name, fn in extractors.items()}
        results[kind] = scores
        tuned = max((v for v in extractors if v in VARIANTS or v == "pastcast"),
                    key=lambda v: scores[v]["tune"]["f1"], default=None) if kind == "names" else None
        results[f"{kind}_chosen_on_tuning_half"] = tuned
        for name, by_half in scores.items():
            mark = " (chosen on tune)" if name == tuned else ""
            lines.append([kind, name + mark] + [f"{by_half[h][m]:.3f}" for h in HALVES for m in ("precision", "recall", "f1")]
                         + [by_half["heldout"]["labelled"]])
    print(table(["kind", "extractor", "tune P", "tune R", "tune F1", "held-out P", "held-out R", "held-out F1",
                 "held-out labels"], lines,
                title=f"Candidates against hand labels: {results['excerpts']} excerpts"))
    write_json(RESULTS, results)
    print(f"results: {RESULTS}")


def publisher_of(row: dict) -> str:
    return row["file"].split("/")[1].rsplit("_", 3)[0]


if __name__ == "__main__":
    main()
