"""How the ingest's drop thresholds were chosen: on the tuning half of the gold sets only.

The ingest may drop a page only when it is not a usable article. This script measures, on real
pages whose gold says they are articles, how long pastcast's extracted main text is (in word
units: words, Chinese and Japanese two characters a word, ``pastcast.text.scripts``), and
chooses ``MIN_WORD_UNITS`` as the shortest tuning-half article whose extracted text holds its
gold content, less a margin of ``MARGIN`` (a threshold sitting on the shortest article seen
would drop the next, slightly shorter one):

  fundus WARC        256 real news pages (180 publishers, many languages and scripts); every
                     page is an article; its text "holds its content" when it is not empty.
  trafilatura eval   990 real pages with snippets that must appear in the main text; a page
                     holds its content when at least one of its snippets is in the extraction.

The split is by publisher (``_common.split_half``): a threshold chosen on the tuning half is
then checked on the held-out half, where the number of articles it would drop is reported
(it should be 0 or close). Pages of the general-web WARC samples (Common Crawl main crawl,
dolma, whirlwind: mostly not news) show what the threshold still drops.

It also counts the pages the former archive rule (dated over two years before the crawl:
dropped) would lose, with their gold dates, to show they are real, correctly dated pages.

Run: ``make bench-drop-policy`` or ``.venv/bin/python bench/drop_policy.py``; writes
``.bench-cache/drop_policy.json``.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (CACHE, DATA, FUNDUS_MANIFEST, FUNDUS_WARC, read_page_bytes,  # noqa: E402
                     require_data, split_half, table, trafilatura_eval, trafilatura_page_path,
                     write_json)

from pastcast.curate.drop_policy import MIN_WORD_UNITS  # noqa: E402
from pastcast.curate.extract import ExtractConfig, extract_html, page_to_article  # noqa: E402
from pastcast.drops import Drop  # noqa: E402
from pastcast.sources.warc import HtmlPage, iter_html_pages  # noqa: E402
from pastcast.text.scripts import text_length  # noqa: E402

OUT = CACHE / "drop_policy.json"
NO_LENGTH_LIMIT = ExtractConfig(min_words=0)
FORMER_MAX_AGE = timedelta(days=730)
WEB_WARCS = ("resiliparse/warcfile.warc.gz", "whirlwind/whirlwind.warc.gz", "dolma/sample-0000.warc.gz",
             "dolma/sample-0001.warc.gz")


def _former_words(text: str) -> int:
    """Words as the former rule counted them: runs of word characters (a run of CJK is one)."""
    return len(re.findall(r"\w+", text))


def fundus_pages() -> list[dict]:
    """Every fundus WARC page: its half, length, language, and how the ingest sees it without
    a length limit."""
    gold = {json.loads(line)["warc_record_id"]: json.loads(line)
            for line in FUNDUS_MANIFEST.read_text(encoding="utf-8").splitlines() if line.strip()}
    out = []
    for page in iter_html_pages(FUNDUS_WARC):
        if not isinstance(page, HtmlPage) or page.record_id not in gold:
            continue
        g = gold[page.record_id]
        row = page_to_article(page, NO_LENGTH_LIMIT)
        text = "" if isinstance(row, Drop) else row["text"]
        length = text_length(text)
        gold_day = datetime.fromisoformat(g["gold_publishing_date"]).date()
        out.append({"set": "fundus", "url": page.url, "half": split_half(page.url),
                    "units": length.word_units, "unspaced": length.unspaced, "former_words": _former_words(text),
                    "language": None if isinstance(row, Drop) else row["language"],
                    "holds_content": bool(text.strip()),
                    "drop": None if not isinstance(row, Drop) else row.reason,
                    "archive": (page.crawled_at.date() - gold_day) > FORMER_MAX_AGE,
                    "gold_day": gold_day.isoformat(), "crawled": page.crawled_at.date().isoformat(),
                    "published": None if isinstance(row, Drop) else row["published_at"].date().isoformat()})
    return out


def trafilatura_pages() -> list[dict]:
    out = []
    for url, item in trafilatura_eval().items():
        path = trafilatura_page_path(item["file"])
        if not path.is_file():
            continue
        try:
            _title, text = extract_html(read_page_bytes(path), url, NO_LENGTH_LIMIT)
        except Exception:  # noqa: BLE001 - a page that cannot be read holds nothing
            text = ""
        length = text_length(text)
        out.append({"set": "trafilatura", "url": url, "half": split_half(url), "units": length.word_units,
                    "unspaced": length.unspaced, "former_words": _former_words(text),
                    "holds_content": any(snippet in text for snippet in item.get("with", []))})
    return out


def web_pages() -> list[dict]:
    out = []
    for name in WEB_WARCS:
        path = DATA / "warc" / name
        if not path.is_file():
            continue
        for page in iter_html_pages(path):
            if not isinstance(page, HtmlPage):
                continue
            row = page_to_article(page, NO_LENGTH_LIMIT)
            out.append({"set": "web", "url": page.url, "units": None if isinstance(row, Drop) else row["word_count"],
                        "drop": row.reason if isinstance(row, Drop) else None})
    return out


MARGIN = 0.2


def choose_threshold(articles: list[dict]) -> int:
    """The shortest of these articles, less the margin: a threshold that drops none of them."""
    lengths = [a["units"] for a in articles if a["holds_content"]]
    return int(min(lengths) * (1 - MARGIN)) if lengths else MIN_WORD_UNITS


def main() -> None:
    require_data(FUNDUS_WARC, FUNDUS_MANIFEST)
    pages = fundus_pages() + trafilatura_pages()
    tune = [p for p in pages if p["half"] == "tune"]
    heldout = [p for p in pages if p["half"] == "heldout"]
    chosen = choose_threshold(tune)
    web = web_pages()

    rows = []
    for name, part in (("tune", tune), ("held-out", heldout)):
        for set_name in ("fundus", "trafilatura"):
            these = [p for p in part if p["set"] == set_name and p["holds_content"]]
            shortest = sorted(p["units"] for p in these)[:5]
            rows.append([name, set_name, len(these), shortest,
                         sum(p["units"] < chosen for p in these), sum(p["former_words"] < 60 for p in these),
                         sum(p["units"] < MIN_WORD_UNITS for p in these)])
    print(table(["half", "set", "articles", "5 shortest (word units)", f"< chosen {chosen}", "< 60 words (former rule)",
                 f"< MIN_WORD_UNITS {MIN_WORD_UNITS}"], rows,
                "articles whose extraction holds their gold content, by length"))
    unspaced = [p for p in pages if p.get("unspaced") and p["holds_content"]]
    print(f"\n{len(unspaced)} of them mostly in scripts without spaces; shortest: "
          f"{sorted(p['units'] for p in unspaced)[:5]} word units")

    web_lengths = [p["units"] for p in web if p["units"] is not None]
    web_drops = Counter(p["drop"] for p in web if p["drop"])
    print(f"\ngeneral-web WARC pages: {len(web)}; dropped for other reasons: {dict(web_drops)}; "
          f"of the {len(web_lengths)} others, under the chosen threshold: "
          f"{sum(u < chosen for u in web_lengths)}, under 60: {sum(u < 60 for u in web_lengths)}")

    archive = [p for p in pages if p.get("archive")]
    right = [p for p in archive if p.get("published") == p["gold_day"]]
    print(f"\nfundus pages dated over two years before their crawl (the former archive rule): {len(archive)}, "
          f"of which pastcast now dates to the gold day: {len(right)}")
    for p in archive:
        print(f"  {p['half']:8} gold {p['gold_day']} crawled {p['crawled']} pastcast {p['published']} {p['url'][:90]}")

    verdict = "matches" if chosen == MIN_WORD_UNITS else "DIFFERS FROM"
    print(f"\nchosen on the tuning half: {chosen} word units (shortest article less {MARGIN:.0%}); "
          f"pastcast.curate.drop_policy.MIN_WORD_UNITS = {MIN_WORD_UNITS} ({verdict} the measurement)")
    write_json(OUT, {"chosen_min_word_units": chosen, "min_word_units": MIN_WORD_UNITS, "pages": pages,
                     "web": web, "measured_at": datetime.now(timezone.utc).isoformat()})
    print(f"details: {OUT}")


if __name__ == "__main__":
    main()
