"""Dedup accuracy: precision and recall of duplicate pairs on a labelled near-duplicate set
made from real article texts.

Real texts: the 256 fundus news pages (``dates/fundus``) and the 990 pages of trafilatura's
evaluation set (``extraction/trafilatura``), extracted once with ``extract_html`` and cached in
``.bench-cache/dedup_texts.jsonl``; texts of at least 150 words, real near-copies among them
removed (exact 5-word-shingle Jaccard >= 0.5 or containment >= 0.8), are the base articles.

Labelled set (seeded): a third of the bases get 3-5 copies each, one per kind: boilerplate
(header/footer lines added or removed), sentence_edit (1-3 sentences replaced, deleted or
inserted), headline (a different first line), truncation (first 60-90 % of the words) and
combination (2-3 of these). In some groups the original itself is absent. Negatives: every
other real article; the hardest real pairs (same domain; most shared words and capitalised
names); and synthetic "same topic" pairs built from two different real articles: B gets A's
headline, A's lead names, the same boilerplate block as A, or all three.

Two articles are duplicates iff both derive from the same base. Predicted duplicate pairs are
the pairs inside one output cluster (kept rows' ``dup_cluster``; a drop's ``cluster=`` in its
detail). Scored with the library's DEFAULT ``DedupConfig``; a few other configurations are
scored beside it (nothing is tuned in the library). Writes the "labelled" section of
``.bench-cache/dedup_bench.json``. Run: ``make bench-dedup`` or
``.venv/bin/python bench/dedup_labelled.py [--seed N] [--no-sweep] [--refresh-texts]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from itertools import combinations, cycle
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (CACHE, DATA, FUNDUS_PAGES, TRAFILATURA, environment,  # noqa: E402
                     read_page_bytes, require_data, table, trafilatura_eval,
                     trafilatura_page_path, write_json)

import numpy as np  # noqa: E402
import regex  # noqa: E402  (installed with dateparser, a dependency of htmldate)
import polars as pl  # noqa: E402

from pastcast.curate.dedup import DedupConfig, deduplicate  # noqa: E402
from pastcast.curate.extract import content_hash, decode_html, extract_html  # noqa: E402
from pastcast.curate.minhash import MinHashConfig, band_keys, containment, jaccard, signatures  # noqa: E402
from pastcast.schemas import ARTICLES, frame  # noqa: E402

OUT = CACHE / "dedup_bench.json"
TEXTS = CACHE / "dedup_texts.jsonl"
TEXTS_VERSION = "1"
GOALS = {"precision": 0.98, "recall": 0.95}
# Unicode \w as polars (Rust regex) has it, marks included: the standard re module's \w
# splits words at combining marks (Bengali, Hindi, ...), the third-party regex module does not
WORD = regex.compile(r"\w+")
SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=\S)")
TOKEN = re.compile(r"[\w'’-]+")
MIN_WORDS = 150
SEED = 20261130
T0 = datetime(2026, 1, 5, 6, tzinfo=timezone.utc)
KINDS = ("boilerplate", "sentence_edit", "headline", "truncation", "combination")
SYNTHETIC_MODES = ("same_headline", "same_entities", "same_boilerplate", "all_three")
SAME_STORY = {"jaccard": 0.5, "containment": 0.8}  # real pairs this close are not negatives

HEADER_LINES = [
    "Skip to main content", "Advertisement", "Listen to this article", "Breaking News",
    "Subscribe to our newsletter for the latest news.", "Sign in | Register",
    "Sign up for our daily briefing and get the top stories in your inbox every morning.",
    "This article is more than 2 years old", "Follow us on Facebook, Twitter and Instagram",
    "Photo: Reuters", "Updated {hour}:{minute} GMT", "By {name}, {site} staff",
    "Home > News > World", "{site} | Latest news", "Support independent journalism. Donate now.",
]
FOOTER_LINES = [
    "© {year} {site}. All rights reserved.",
    "Copyright {year} {site}. All rights reserved. This material may not be published, "
    "broadcast, rewritten or redistributed.",
    "Share this article: Facebook Twitter WhatsApp Email", "Read more: {headline}",
    "Related: {headline}", "Subscribe to our newsletter to get stories like this in your inbox.",
    "Have a news tip? Contact our newsroom at tips@{site_host}.", "Comments are closed.",
    "Tags: {names}", "Report a correction or typo", "More from {site}: {headline}",
    "Follow {site} on Google News", "Click here to download our app.",
    "We use cookies to improve your experience. By continuing you accept our cookie policy.",
    "Most read: {headline}",
]
HEADLINE_PREFIXES = ["UPDATE: ", "BREAKING: ", "Live: ", "Exclusive: ", "Analysis: ", "Watch: "]
HEADLINE_SUFFIXES = [" | {site}", " - {site}", " (video)", " – live updates", " | World news"]
NAMES = ["Maria Keller", "John Park", "Ana Silva", "Tom Baker", "Lena Novak", "Omar Haddad"]
SITES = ["Daily Ledger", "Metro Wire", "The Courier", "News Today", "Morning Post", "Globe Digest"]
SYNDICATORS = ["newswire-mirror.example", "aggregator.example", "m.localnews.example",
               "syndicate.example.org", "feeds.daily.example", "portal.example.net"]


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def shingle_set(text: str, k: int = 5) -> set[str]:
    """The exact shingle set (lower-cased ``\\w+`` words), as pastcast's MinHash defines it."""
    w = words(text)
    if len(w) < k:
        return {" ".join(w)} if w else set()
    return {" ".join(w[i:i + k]) for i in range(len(w) - k + 1)}


def exact_similarity(a: set, b: set) -> dict:
    inter = len(a & b)
    union = len(a | b) or 1
    small = min(len(a), len(b)) or 1
    return {"jaccard": round(inter / union, 3), "containment": round(inter / small, 3),
            "length_ratio": round(min(len(a), len(b)) / max(len(a), len(b), 1), 3)}


def sentences(paragraph: str) -> list[str]:
    return [s for s in SENTENCE_END.split(paragraph.strip()) if s.strip()]


def entities(text: str) -> list[str]:
    """Capitalised words that do not start a sentence, in order (a cheap named-entity guess)."""
    found = []
    for line in text.split("\n"):
        for sentence in sentences(line):
            tokens = TOKEN.findall(sentence)
            found += [t for t in tokens[1:] if len(t) >= 3 and t[0].isupper()]
    return found


def _domain(url: str) -> str:
    return (urlsplit(url).hostname or "").lower().removeprefix("www.")


def _version(name: str) -> str | None:
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:  # noqa: BLE001
        return None


def library_fingerprint() -> dict:
    """sha1 (12 hex) of the dedup modules measured: the numbers belong to this code."""
    root = Path(__file__).resolve().parent.parent / "pastcast" / "curate"
    return {name: hashlib.sha1((root / name).read_bytes()).hexdigest()[:12]
            for name in ("minhash.py", "dedup.py", "dedup_index.py")}


# ------------------------------------------------------------------------------ real texts


def _sources() -> list[dict]:
    items = []
    for line in (FUNDUS_PAGES / "manifest_derived.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            items.append({"source": "fundus", "path": FUNDUS_PAGES / row["file"], "url": row["url"],
                          "gold_title": row.get("title")})
    for url, item in trafilatura_eval().items():
        items.append({"source": "trafilatura", "path": trafilatura_page_path(item["file"]),
                      "url": url, "gold_title": None})
    return [i for i in items if i["path"].is_file()]


def load_texts(refresh: bool = False) -> list[dict]:
    """Every real page's (title, main text), extracted once and cached under .bench-cache."""
    require_data(FUNDUS_PAGES / "manifest_derived.jsonl", TRAFILATURA / "evaldata.json")
    items = _sources()
    key = hashlib.sha1(json.dumps(
        [TEXTS_VERSION, _version("trafilatura")]
        + [[str(i["path"].relative_to(DATA)), i["path"].stat().st_size] for i in items]
    ).encode()).hexdigest()[:16]
    if TEXTS.exists() and not refresh:
        lines = TEXTS.read_text(encoding="utf-8").splitlines()
        if lines and json.loads(lines[0]).get("key") == key:
            return [json.loads(line) for line in lines[1:]]
    started = time.perf_counter()
    records = []
    for item in items:
        try:
            title, text = extract_html(decode_html(read_page_bytes(item["path"]), {}), item["url"])
        except Exception:  # noqa: BLE001 - a page that fails is just not a base article
            title, text = None, ""
        text = (text or "").strip()
        records.append({"source": item["source"], "file": str(item["path"].relative_to(DATA)),
                        "url": item["url"], "domain": _domain(item["url"]),
                        "title": (title or item["gold_title"] or "").strip(),
                        "text": text, "words": len(WORD.findall(text))})
    TEXTS.parent.mkdir(parents=True, exist_ok=True)
    tmp = TEXTS.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        f.write(json.dumps({"key": key}) + "\n")
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    tmp.replace(TEXTS)
    print(f"extracted {len(records)} real pages in {time.perf_counter() - started:.0f} s "
          f"(cached in {TEXTS.relative_to(CACHE.parent)})", flush=True)
    return records


@dataclass
class Base:
    idx: int
    source: str
    file: str
    url: str
    domain: str
    title: str
    body: str

    @property
    def text(self) -> str:
        """Headline on the first line, then the body's paragraphs."""
        first = self.body.split("\n", 1)[0].strip()
        return self.body if not self.title or first == self.title else f"{self.title}\n{self.body}"


def shared_counts(sets: list[set], max_docs: int) -> Counter:
    """(a, b) -> how many items texts a < b share, counting only items found in 2 to
    ``max_docs`` texts (commoner ones say nothing about a pair and would cost quadratic time)."""
    inverted = defaultdict(list)
    for i, items in enumerate(sets):
        for item in items:
            inverted[item].append(i)
    shared = Counter()
    for docs in inverted.values():
        if 2 <= len(docs) <= max_docs:
            shared.update(combinations(docs, 2))
    return shared


def build_pool(records: list[dict]) -> tuple[list[Base], list[dict]]:
    """Base articles: real texts of >= MIN_WORDS words, real near-copies among them removed
    (measured exactly on shingle sets, not with MinHash)."""
    cands, seen = [], set()
    for r in records:
        if len(WORD.findall(r["text"])) < MIN_WORDS:
            continue
        h = content_hash(r["text"])
        if h in seen:
            continue
        seen.add(h)
        cands.append(Base(len(cands), r["source"], r["file"], r["url"], r["domain"], r["title"],
                          r["text"]))
    sets = [shingle_set(b.text) for b in cands]
    shared = shared_counts(sets, max_docs=100)
    excluded, dropped, close = [], set(), []
    for (a, b), n in sorted(shared.items()):
        if n < 0.3 * min(len(sets[a]), len(sets[b])):  # cannot reach the thresholds below
            continue
        sim = exact_similarity(sets[a], sets[b])
        if sim["jaccard"] >= SAME_STORY["jaccard"] or sim["containment"] >= SAME_STORY["containment"]:
            if a not in dropped and b not in dropped:
                dropped.add(b)
                excluded.append({"kept": cands[a].file, "excluded": cands[b].file, **sim})
        else:
            close.append({"a": cands[a].file, "b": cands[b].file, **sim})
    pool = [b for b in cands if b.idx not in dropped]
    for i, b in enumerate(pool):
        b.idx = i
    CLOSEST_REAL_PAIRS[:] = sorted(close, key=lambda c: -c["containment"])[:10]
    return pool, excluded


CLOSEST_REAL_PAIRS: list[dict] = []  # filled by build_pool: the real pairs left as negatives


def hard_real_pairs(pool: list[Base], top: int = 300) -> tuple[list[tuple], list[tuple]]:
    """(same-domain pairs, the ``top`` pairs sharing the most words and capitalised names)
    of base indexes; each pair (a, b, word jaccard, name jaccard)."""
    vocab = [{w for w in words(b.text) if len(w) >= 3} for b in pool]
    names = [set(entities(b.text)) for b in pool]

    def score(a, b):
        wj = len(vocab[a] & vocab[b]) / max(1, len(vocab[a] | vocab[b]))
        nj = len(names[a] & names[b]) / max(1, len(names[a] | names[b]))
        return (a, b, round(wj, 3), round(nj, 3))

    by_domain = defaultdict(list)
    for b in pool:
        by_domain[b.domain].append(b.idx)
    same_domain = [score(a, b) for ids in by_domain.values() for a, b in combinations(ids, 2)]
    shared = shared_counts(vocab, max_docs=25)  # words in few texts: names, topic words
    scored = [score(a, b) for (a, b), n in shared.items() if n >= 5]
    scored.sort(key=lambda s: -(s[2] + s[3]))
    return same_domain, scored[:top]


# ------------------------------------------------------------------------------- copies


class CopyMaker:
    """The near-copy transformations, on texts whose first line is the headline."""

    def __init__(self, pool: list[Base], rng: random.Random):
        self.pool, self.rng = pool, rng
        self.other_sentences = [s for b in pool for line in b.body.split("\n")
                                for s in sentences(line) if len(s.split()) >= 8]

    def _fill(self, line: str, base: Base | None) -> str:
        r = self.rng
        other = r.choice(self.pool)
        site = r.choice(SITES)
        return line.format(year=r.randint(2019, 2026), site=site,
                           site_host=site.lower().replace(" ", "") + ".example",
                           headline=other.title or other.body[:80], name=r.choice(NAMES),
                           names=", ".join(dict.fromkeys(entities(base.text if base else other.text)[:4]))
                           or r.choice(NAMES), hour=f"{r.randint(0, 23):02d}",
                           minute=f"{r.randint(0, 59):02d}")

    def boilerplate_block(self, base: Base | None = None, heavy: bool = False) -> tuple[list, list]:
        r = self.rng
        n_head = r.randint(1, 3) if heavy else r.randint(0, 2)
        n_foot = r.randint(3, 5) if heavy else r.randint(1, 3)
        head = [self._fill(x, base) for x in r.sample(HEADER_LINES, n_head)]
        foot = [self._fill(x, base) for x in r.sample(FOOTER_LINES, n_foot)]
        return head, foot

    def boilerplate(self, text: str, base: Base, block: tuple | None = None) -> str:
        """Header lines before the headline, footer lines at the end; when no block is given,
        short lines at the start or end of the body (the page's own boilerplate) may go."""
        lines = text.split("\n")
        headline, body = lines[:1], lines[1:]
        if block is None:
            for end in (0, -1):
                if len(body) > 3 and len(body[end].split()) <= 12 and self.rng.random() < 0.5:
                    body.pop(end)
            block = self.boilerplate_block(base)
        head, foot = block
        return "\n".join(head + headline + body + foot)

    def sentence_edit(self, text: str, base: Base) -> str:
        r = self.rng
        lines = text.split("\n")
        paragraphs = [sentences(p) for p in lines[1:]]
        for _ in range(r.randint(1, 3)):
            filled = [i for i, p in enumerate(paragraphs) if p]
            if not filled:
                break
            p = r.choice(filled)
            i = r.randrange(len(paragraphs[p]))
            op = r.choice(("replace", "delete", "insert"))
            total = sum(len(x) for x in paragraphs)
            if op == "delete" and total > 4:
                del paragraphs[p][i]
            elif op == "insert":
                paragraphs[p].insert(i, r.choice(self.other_sentences))
            else:
                paragraphs[p][i] = r.choice(self.other_sentences)
        return "\n".join(lines[:1] + [" ".join(p) for p in paragraphs if p])

    def headline(self, text: str, base: Base, new: str | None = None) -> str:
        r = self.rng
        lines = text.split("\n")
        title = lines[0] if base.title else ""
        if new is None:
            how = r.choice(("rewrite", "lead", "other"))
            if how == "rewrite" and title:
                ws = title.split()
                for _ in range(min(2, max(0, len(ws) - 4))):
                    ws.pop(r.randrange(len(ws)))
                new = " ".join(ws)
                new = (r.choice(HEADLINE_PREFIXES) + new if r.random() < 0.5
                       else new + r.choice(HEADLINE_SUFFIXES).format(site=r.choice(SITES)))
            elif how == "lead":
                lead = (sentences(base.body.split("\n", 1)[0]) or [base.body])[0].split()
                new = " ".join(lead[:r.randint(7, 12)])
            else:
                new = r.choice(self.pool).title or r.choice(self.other_sentences)
        return "\n".join([new] + (lines[1:] if base.title else lines))

    def truncation(self, text: str, base: Base) -> str:
        spans = [m.end() for m in WORD.finditer(text)]
        keep = max(1, int(len(spans) * self.rng.uniform(0.6, 0.9)))
        return text[:spans[keep - 1]] + self.rng.choice(["", "…", " ...", "\nContinue reading"])

    def entity_swap(self, text: str, base: Base, donor: Base) -> str:
        """The lead (first two body sentences) of ``text`` names the donor's lead names."""
        donor_names = list(dict.fromkeys(entities("\n".join(donor.text.split("\n")[:3]))))[:6]
        if not donor_names:
            return text
        lines = text.split("\n")
        body = sentences(lines[1]) if len(lines) > 1 else []
        lead, rest = body[:2], body[2:]
        it = cycle(donor_names)
        swapped, n = [], 0
        for s in lead:
            tokens = TOKEN.split(s)
            found = TOKEN.findall(s)
            out = [tokens[0]]
            for j, tok in enumerate(found):
                if j > 0 and len(tok) >= 3 and tok[0].isupper():
                    tok, n = next(it), n + 1
                out += [tok, tokens[j + 1]]
            swapped.append("".join(out))
        if n < 2 and swapped:
            swapped[0] = swapped[0].rstrip(".") + f", according to {' and '.join(donor_names[:2])}."
        return "\n".join(lines[:1] + [" ".join(swapped + rest)] + lines[2:])

    def copy(self, base: Base, kind: str) -> tuple[str, list[str]]:
        """(text, operations) of one copy of ``base`` of ``kind``."""
        ops = ([kind] if kind != "combination" else
               sorted(self.rng.sample(KINDS[:4], self.rng.randint(2, 3)),
                      key=("headline", "sentence_edit", "truncation", "boilerplate").index))
        text = base.text
        for op in ops:
            text = getattr(self, op)(text, base)
        if text == base.text:  # nothing changed (e.g. nothing to delete): one more edit
            text, ops = self.sentence_edit(text, base), ops + ["sentence_edit"]
        return text, ops


# ------------------------------------------------------------------------------ dataset


@dataclass
class Doc:
    article_id: str
    base: int
    kind: str  # "original" or the copy's kind
    ops: list[str]
    text: str
    url: str
    published_at: datetime


@dataclass
class Dataset:
    pool: list[Base]
    docs: list[Doc]
    copy_bases: list[int]
    absent_bases: list[int]
    synthetic: dict[tuple[int, int], str]  # (base a, base b) -> mode
    same_domain: list[tuple]
    hard_pairs: list[tuple]
    excluded: list[dict] = field(default_factory=list)

    def frame(self) -> pl.DataFrame:
        rows = []
        for d in self.docs:
            rows.append({"article_id": d.article_id, "url": d.url, "canonical_url": d.url,
                         "domain": _domain(d.url), "title": d.text.split("\n", 1)[0][:200],
                         "text": d.text, "published_at": d.published_at,
                         "crawled_at": d.published_at + timedelta(hours=1),
                         "content_hash": content_hash(d.text), "word_count": len(WORD.findall(d.text))})
        return frame(rows, ARTICLES)


def build_dataset(pool: list[Base], seed: int = SEED, copy_share: float = 0.35,
                  synthetic_share: float = 0.35, absent_share: float = 0.15,
                  same_domain=None, hard_pairs=None) -> Dataset:
    rng = random.Random(seed)
    maker = CopyMaker(pool, rng)
    if same_domain is None or hard_pairs is None:
        same_domain, hard_pairs = hard_real_pairs(pool)
    order = list(range(len(pool)))
    rng.shuffle(order)
    n_copy = int(len(pool) * copy_share)
    copy_bases = sorted(order[:n_copy])
    free = set(order[n_copy:])
    # synthetic negative pairs: the hardest pairs of free bases first (same domain, shared
    # words and names), then random ones; each base in at most one pair
    wanted = int(len(pool) * synthetic_share) // 2
    pairs = []
    for a, b, *_ in sorted(same_domain, key=lambda s: -(s[2] + s[3])) + list(hard_pairs):
        if len(pairs) < wanted * 2 // 3 and a in free and b in free:
            pairs.append((a, b))
            free -= {a, b}
    rest = sorted(free)
    rng.shuffle(rest)
    while len(pairs) < wanted and len(rest) >= 2:
        a, b = rest.pop(), rest.pop()
        pairs.append((min(a, b), max(a, b)))
    rng.shuffle(pairs)
    synthetic = {p: SYNTHETIC_MODES[i % len(SYNTHETIC_MODES)] for i, p in enumerate(pairs)}
    absent = set(rng.sample(copy_bases, int(len(copy_bases) * absent_share)))

    docs: list[Doc] = []
    seq = iter(range(10 ** 9))

    def add(base: Base, kind: str, ops: list[str], text: str, when: datetime, original=False):
        n = next(seq)
        if original:
            url = base.url
        else:
            slug = (urlsplit(base.url).path.rstrip("/").rsplit("/", 1)[-1] or "story")[:60]
            url = f"https://{rng.choice(SYNDICATORS)}/{slug}-{n}"
        docs.append(Doc(f"d{n:05d}", base.idx, kind, ops, text, url, when))

    for b in pool:  # every real article once (except where the original is absent)
        if b.idx not in absent:
            add(b, "original", [], b.text, T0 + timedelta(minutes=37 * b.idx), original=True)
    for i in copy_bases:
        base = pool[i]
        for kind in rng.sample(KINDS, rng.randint(3, 5)):
            text, ops = maker.copy(base, kind)
            add(base, kind, ops, text, T0 + timedelta(minutes=37 * i, hours=rng.uniform(1, 72)))
    for (a, b), mode in synthetic.items():
        A, B = pool[a], pool[b]
        when = T0 + timedelta(minutes=37 * b, hours=rng.uniform(1, 72))
        if mode == "same_headline":
            add(B, "headline", ["headline of A"], maker.headline(B.text, B, new=A.title or A.text.split("\n")[0]), when)
        elif mode == "same_entities":
            add(B, "entity_swap", ["names of A"], maker.entity_swap(B.text, B, A), when)
        else:
            block = maker.boilerplate_block(A, heavy=True)
            text_b = B.text
            ops = ["boilerplate shared with A"]
            if mode == "all_three":
                text_b = maker.headline(maker.entity_swap(text_b, B, A), B, new=A.title or A.text.split("\n")[0])
                ops = ["names of A", "headline of A"] + ops
            add(A, "boilerplate", ["boilerplate shared with B"], maker.boilerplate(A.text, A, block), when)
            add(B, "combination" if mode == "all_three" else "boilerplate", ops,
                maker.boilerplate(text_b, B, block), when + timedelta(hours=1))
    rng.shuffle(docs)
    return Dataset(pool, docs, copy_bases, sorted(absent), synthetic, same_domain, hard_pairs)


# ------------------------------------------------------------------------------ scoring


def clusters_of(kept: pl.DataFrame, drops: pl.DataFrame) -> tuple[dict[str, str], list[str]]:
    """article_id -> output cluster id, and any inconsistencies found in the outputs."""
    cluster = dict(zip(kept["article_id"].to_list(), kept["dup_cluster"].to_list()))
    problems = []
    for item, reason, detail in drops.select("item_id", "reason", "detail").iter_rows():
        m = re.search(r"cluster=(\S+)", detail or "")
        k = re.search(r"kept=(\S+)", detail or "")
        if not m:
            problems.append(f"drop of {item} ({reason}) has no cluster= in its detail: {detail!r}")
            continue
        if item in cluster and cluster[item] != m.group(1):
            problems.append(f"{item} is both kept/dropped or dropped twice with different clusters")
        cluster[item] = m.group(1)
        if k and k.group(1) in cluster and cluster[k.group(1)] != m.group(1) and reason != "superseded":
            problems.append(f"drop of {item}: kept={k.group(1)} is in cluster {cluster[k.group(1)]}, "
                            f"detail says {m.group(1)}")
    return cluster, problems


def pairs_within(groups: dict) -> set[tuple[str, str]]:
    out = set()
    for members in groups.values():
        out.update(combinations(sorted(members), 2))
    return out


def evaluate(dataset: Dataset, config: DedupConfig, details: bool = False) -> dict:
    df = dataset.frame()
    started = time.perf_counter()
    kept, drops = deduplicate(df, config)
    seconds = time.perf_counter() - started
    cluster, problems = clusters_of(kept, drops)
    by_id = {d.article_id: d for d in dataset.docs}
    missing = [a for a in by_id if a not in cluster]
    problems += [f"{len(missing)} articles neither kept nor dropped"] if missing else []
    predicted_groups, gold_groups = defaultdict(list), defaultdict(list)
    for a, c in cluster.items():
        predicted_groups[c].append(a)
    for d in dataset.docs:
        gold_groups[d.base].append(d.article_id)
    gold, predicted = pairs_within(gold_groups), pairs_within(predicted_groups)
    tp = gold & predicted
    result = {
        "config": _config_dict(config),
        "articles": len(dataset.docs), "kept": kept.height,
        "drops_by_reason": dict(Counter(drops["reason"].to_list())),
        "gold_pairs": len(gold), "predicted_pairs": len(predicted), "true_pairs": len(tp),
        "precision": round(len(tp) / max(1, len(predicted)), 4),
        "recall": round(len(tp) / max(1, len(gold)), 4),
        "seconds": round(seconds, 2),
        "output_problems": problems[:20],
    }
    result["recall_by_kind"] = _recall_by_kind(dataset, by_id, gold, predicted)
    result["false_merges_by_negative_type"] = _negatives(dataset, by_id, gold_groups, predicted - gold)
    if details:
        sigs, sizes = signatures([d.text for d in dataset.docs], config.minhash)
        row = {d.article_id: i for i, d in enumerate(dataset.docs)}
        keys = band_keys(sigs, config.minhash)
        ctx = (by_id, row, sigs, keys, sizes, config)
        missed = gold - predicted
        result["worst_misses"] = _worst_misses(ctx, missed)
        result["misses_by_exact_jaccard"] = _histogram(ctx, missed)
        infos = [_pair_info(ctx, a, b) for a, b in missed]
        result["misses_by_cause"] = dict(Counter(_cause(i) for i in infos))
        result["misses_by_exact_values"] = dict(Counter(
            "exact jaccard/containment pass the rule (lost to the MinHash estimate)"
            if i["jaccard"] >= config.jaccard or (i["containment"] >= config.containment
                                                  and i["length_ratio"] >= config.min_length_ratio)
            else "exact values fail the rule too (edited beyond the thresholds)" for i in infos))
        result["misses_by_kind_pair"] = dict(Counter("/".join(sorted(i["kinds"])) for i in infos).most_common(12))
        result["worst_false_merges"] = _worst_false_merges(dataset, ctx, predicted_groups)
        result["closest_negatives"] = _closest_negatives(ctx, gold)
    return result


def _config_dict(config: DedupConfig) -> dict:
    return {"jaccard": config.jaccard, "containment": config.containment,
            "min_length_ratio": config.min_length_ratio, "num_perm": config.minhash.num_perm,
            "bands": config.minhash.bands, "rows": config.minhash.rows,
            "shingle_words": config.minhash.shingle_words}


def _pair_kind(x: Doc, y: Doc, absent: set) -> str:
    if x.kind == "original" or y.kind == "original":
        return (y if x.kind == "original" else x).kind
    return "copy_copy (original absent)" if x.base in absent else "copy_copy"


def _recall_by_kind(dataset, by_id, gold, predicted) -> dict:
    absent = set(dataset.absent_bases)
    total, hit = Counter(), Counter()
    for a, b in gold:
        k = _pair_kind(by_id[a], by_id[b], absent)
        total[k] += 1
        hit[k] += (a, b) in predicted
    order = list(KINDS) + ["entity_swap", "copy_copy", "copy_copy (original absent)"]
    return {k: {"pairs": total[k], "found": hit[k], "recall": round(hit[k] / total[k], 4)}
            for k in order + sorted(set(total) - set(order)) if total[k]}


def _negative_type(dataset: Dataset, a: int, b: int, same_domain: set, hard: set) -> str:
    pair = (min(a, b), max(a, b))
    if pair in dataset.synthetic:
        return "synthetic_" + dataset.synthetic[pair]
    if pair in same_domain:
        return "real_same_domain"
    if pair in hard:
        return "real_most_shared_words_and_names"
    return "other"


def _negatives(dataset, by_id, gold_groups, false_pairs) -> dict:
    """Per negative type: article pairs of that type in the set, and how many were merged."""
    same_domain = {(a, b) for a, b, *_ in dataset.same_domain}
    hard = {(a, b) for a, b, *_ in dataset.hard_pairs}
    size = {base: len(m) for base, m in gold_groups.items()}
    pairs = Counter()
    for a, b in set(dataset.synthetic) | same_domain | hard:
        if a in size and b in size:
            pairs[_negative_type(dataset, a, b, same_domain, hard)] += size[a] * size[b]
    n = sum(size.values())
    all_pairs = n * (n - 1) // 2 - sum(s * (s - 1) // 2 for s in size.values())
    pairs["other"] = all_pairs - sum(v for k, v in pairs.items() if k != "other")
    merged, base_pairs = Counter(), defaultdict(set)
    for a, b in false_pairs:
        x, y = sorted((by_id[a].base, by_id[b].base))
        t = _negative_type(dataset, x, y, same_domain, hard)
        merged[t] += 1
        base_pairs[t].add((x, y))
    return {t: {"negative_pairs": pairs[t], "merged_pairs": merged[t],
                "merged_base_pairs": len(base_pairs[t])} for t in sorted(pairs)}


_SHINGLES: dict[str, set] = {}


def _shingles_of(doc: Doc) -> set:
    if doc.article_id not in _SHINGLES:
        _SHINGLES[doc.article_id] = shingle_set(doc.text)
    return _SHINGLES[doc.article_id]


def _pair_info(ctx, a: str, b: str) -> dict:
    by_id, row, sigs, keys, sizes, config = ctx
    x, y = by_id[a], by_id[b]
    est = jaccard(sigs[row[a]], sigs[row[b]])
    size_a, size_b = sizes[row[a]], sizes[row[b]]
    est_c = float(containment(est, size_a, size_b))
    ratio = min(size_a, size_b) / max(size_a, size_b, 1)
    passes = bool(est >= config.jaccard or (est_c >= config.containment and ratio >= config.min_length_ratio))
    return {"a": a, "b": b, "kinds": [x.kind, y.kind], "ops": [x.ops, y.ops],
            "bases": [x.base, y.base], "words": [len(words(x.text)), len(words(y.text))],
            **exact_similarity(_shingles_of(x), _shingles_of(y)),
            "estimated_jaccard": round(float(est), 3), "estimated_containment": round(est_c, 3),
            "share_a_band": bool((keys[row[a]] == keys[row[b]]).any()), "passes_rule": passes,
            "a_start": x.text[:90].replace("\n", " / "), "b_start": y.text[:90].replace("\n", " / ")}


def _worst_misses(ctx, missed: set, limit: int = 30) -> list[dict]:
    infos = [_pair_info(ctx, a, b) for a, b in sorted(missed)]
    infos.sort(key=lambda i: (-i["containment"], -i["jaccard"]))
    return infos[:limit]


def _cause(info: dict) -> str:
    """Why a gold pair has no direct edge: no LSH candidate, or the verification rule (the
    pair may still be missed although both hold when neither is linked to the same cluster)."""
    if not info["share_a_band"]:
        return "no shared band"
    if not info["passes_rule"]:
        return "shared band, rejected by the jaccard/containment rule"
    return "shared band and passes the rule, yet not in one cluster"


def _closest_negatives(ctx, gold: set, limit: int = 15) -> list[dict]:
    """Pairs of different bases sharing a band key, most similar first (by the estimated
    containment the rule uses): how close the hardest negatives come to merging."""
    by_id, row, sigs, keys, sizes, config = ctx
    ids = list(row)
    n, bands = keys.shape
    frame_ = pl.DataFrame({"row": np.repeat(np.arange(n), bands), "band": np.tile(np.arange(bands), n),
                           "key": keys.ravel()})
    buckets = frame_.group_by("band", "key").agg(pl.col("row").unique()).filter(pl.col("row").list.len() > 1)
    pairs = set()
    for rows in buckets["row"].to_list():
        pairs.update((ids[min(a, b)], ids[max(a, b)]) for a, b in combinations(rows, 2))
    negatives = [p for p in pairs if by_id[p[0]].base != by_id[p[1]].base]
    infos = [_pair_info(ctx, a, b) for a, b in negatives]
    infos.sort(key=lambda i: -max(i["estimated_containment"] if i["length_ratio"] >= config.min_length_ratio
                                  else 0, i["estimated_jaccard"]))
    return [{"negative_band_candidates": len(negatives)}] + infos[:limit]


def _histogram(ctx, missed: set) -> dict:
    buckets = Counter()
    by_id = ctx[0]
    for a, b in missed:
        j = exact_similarity(_shingles_of(by_id[a]), _shingles_of(by_id[b]))["jaccard"]
        buckets[f"{min(int(j * 10), 9) / 10:.1f}-{min(int(j * 10), 9) / 10 + 0.1:.1f}"] += 1
    return dict(sorted(buckets.items()))


def _worst_false_merges(dataset, ctx, predicted_groups, limit: int = 30) -> list[dict]:
    by_id = ctx[0]
    same_domain = {(a, b) for a, b, *_ in dataset.same_domain}
    hard = {(a, b) for a, b, *_ in dataset.hard_pairs}
    found = []
    for cluster, members in predicted_groups.items():
        bases = {by_id[m].base for m in members}
        if len(bases) < 2:
            continue
        cross = [(a, b) for a, b in combinations(sorted(members), 2) if by_id[a].base != by_id[b].base]
        row, sigs = ctx[1], ctx[2]
        est = jaccard(sigs[[row[a] for a, _ in cross]], sigs[[row[b] for _, b in cross]])
        closest = _pair_info(ctx, *cross[int(np.argmax(est))])  # the likely merging edge
        ba, bb = sorted(closest["bases"])
        found.append({"cluster": cluster, "size": len(members), "bases": sorted(bases),
                      "negative_type": _negative_type(dataset, ba, bb, same_domain, hard),
                      "closest_cross_pair": closest})
    found.sort(key=lambda f: f["closest_cross_pair"]["jaccard"])
    return found[:limit]


# --------------------------------------------------------------------------------- main


SWEEP = {
    "default": DedupConfig(),
    "jaccard 0.7": DedupConfig(jaccard=0.7),
    "jaccard 0.6": DedupConfig(jaccard=0.6),
    "containment 0.9": DedupConfig(containment=0.9),
    "containment 0.8": DedupConfig(containment=0.8),
    "jaccard 0.7, containment 0.8": DedupConfig(jaccard=0.7, containment=0.8),
    "jaccard 0.6, containment 0.8": DedupConfig(jaccard=0.6, containment=0.8),
    "containment 0.8, length ratio 0.3": DedupConfig(containment=0.8, min_length_ratio=0.3),
    "64 bands x 2 rows": DedupConfig(minhash=MinHashConfig(bands=64)),
    "64 bands x 2 rows, jaccard 0.6, containment 0.8": DedupConfig(
        minhash=MinHashConfig(bands=64), jaccard=0.6, containment=0.8),
}


def labelled_dataset(seed: int = SEED, refresh: bool = False) -> Dataset:
    pool, excluded = build_pool(load_texts(refresh))
    dataset = build_dataset(pool, seed)
    dataset.excluded = excluded
    return dataset


def describe(dataset: Dataset) -> dict:
    kinds = Counter(d.kind for d in dataset.docs)
    return {"base_articles": len(dataset.pool),
            "base_sources": dict(Counter(b.source for b in dataset.pool)),
            "real_near_copies_excluded": len(dataset.excluded),
            "articles": len(dataset.docs), "articles_by_kind": dict(kinds),
            "bases_with_copies": len(dataset.copy_bases),
            "groups_with_original_absent": len(dataset.absent_bases),
            "synthetic_negative_pairs": dict(Counter(dataset.synthetic.values())),
            "closest_real_pairs_kept_as_negatives": CLOSEST_REAL_PAIRS,
            "real_same_domain_pairs": len(dataset.same_domain),
            "real_hardest_word_pairs": len(dataset.hard_pairs),
            "hardest_word_pairs_sample": [
                {"a": dataset.pool[a].file, "b": dataset.pool[b].file, "word_jaccard": wj,
                 "name_jaccard": nj} for a, b, wj, nj in dataset.hard_pairs[:10]]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--seed", type=int, default=SEED, help=f"dataset seed (default {SEED})")
    parser.add_argument("--no-sweep", action="store_true",
                        help="score only the default DedupConfig, not the alternatives")
    parser.add_argument("--refresh-texts", action="store_true",
                        help="extract the real pages again instead of using the cached texts")
    args = parser.parse_args()
    started = time.perf_counter()
    dataset = labelled_dataset(args.seed, args.refresh_texts)
    info = describe(dataset)
    print(f"labelled set: {info['articles']} articles from {info['base_articles']} real bases "
          f"({info['base_sources']}), {info['bases_with_copies']} with copies "
          f"({info['groups_with_original_absent']} without their original); "
          f"{sum(info['synthetic_negative_pairs'].values())} synthetic same-topic pairs; "
          f"{info['real_near_copies_excluded']} real near-copies excluded", flush=True)

    default = evaluate(dataset, DedupConfig(), details=True)
    sweep = {"default": default}
    if not args.no_sweep:
        for name, config in SWEEP.items():
            if name != "default":
                sweep[name] = evaluate(dataset, config)

    ok = default["precision"] >= GOALS["precision"] and default["recall"] >= GOALS["recall"]
    print(table(["", "pairs", "found", "recall"],
                [[k, v["pairs"], v["found"], f"{v['recall']:.3f}"] for k, v in default["recall_by_kind"].items()],
                f"\nrecall by kind (default DedupConfig; a copy vs its original, or two copies)"))
    print(table(["negative type", "doc pairs", "merged pairs", "merged base pairs"],
                [[k, v["negative_pairs"], v["merged_pairs"], v["merged_base_pairs"]]
                 for k, v in default["false_merges_by_negative_type"].items()],
                "\nnegatives (pairs of articles from different bases)"))
    print(table(["config", "precision", "recall", "pred pairs", "kept", "s"],
                [[name, f"{r['precision']:.4f}", f"{r['recall']:.4f}", r["predicted_pairs"], r["kept"],
                  f"{r['seconds']:.1f}"] for name, r in sweep.items()],
                f"\nduplicate pairs: {default['gold_pairs']} gold; goals precision >= "
                f"{GOALS['precision']}, recall >= {GOALS['recall']} with the default "
                f"({'met' if ok else 'NOT met'})"))
    if default["worst_misses"]:
        print(table(["a", "b", "kinds", "exact J", "contain", "len ratio", "est J", "est contain",
                     "band", "rule"],
                    [[m["a"], m["b"], "/".join(m["kinds"]), m["jaccard"], m["containment"],
                      m["length_ratio"], m["estimated_jaccard"], m["estimated_containment"],
                      "y" if m["share_a_band"] else "n", "pass" if m["passes_rule"] else "fail"]
                     for m in default["worst_misses"][:10]],
                    "\nworst misses (most similar gold pairs not merged)"))
    print(f"\nmissed pairs by cause (direct edge): {default['misses_by_cause']}")
    print(f"missed pairs by exact values: {default['misses_by_exact_values']}")
    close = default["closest_negatives"]
    if len(close) > 1:
        print(table(["a", "b", "kinds", "exact J", "contain", "len ratio", "est J", "est contain"],
                    [[c["a"], c["b"], "/".join(c["kinds"]), c["jaccard"], c["containment"], c["length_ratio"],
                      c["estimated_jaccard"], c["estimated_containment"]] for c in close[1:8]],
                    f"\nclosest negatives ({close[0]['negative_band_candidates']} pairs of different "
                    "bases share a band key)"))
    if default["worst_false_merges"]:
        print(table(["cluster", "size", "negative type", "exact J", "contain", "est J"],
                    [[f["cluster"], f["size"], f["negative_type"], f["closest_cross_pair"]["jaccard"],
                      f["closest_cross_pair"]["containment"], f["closest_cross_pair"]["estimated_jaccard"]]
                     for f in default["worst_false_merges"][:10]],
                    "\nworst false merges (clusters joining different bases)"))
    if default["output_problems"]:
        print("\noutput problems:", *default["output_problems"], sep="\n  ")

    report = json.loads(OUT.read_text()) if OUT.exists() else {}
    env = environment()
    env["packages"].update({n: _version(n) for n in ("numpy", "polars", "datasketch")})
    env["dedup_library_fingerprint"] = library_fingerprint()
    report.update({"environment": env})
    report["labelled"] = {
        "goals": GOALS, "goals_met": ok, "seed": args.seed,
        "dedup_library_fingerprint": library_fingerprint(), "dataset": info,
        "excluded_real_near_copies": dataset.excluded,
        "default": default,
        "sweep": {k: {kk: vv for kk, vv in v.items() if kk not in ("worst_misses", "worst_false_merges")}
                  for k, v in sweep.items() if k != "default"},
        "wall_seconds": round(time.perf_counter() - started, 1),
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
    }
    if library_fingerprint() != report["labelled"]["dedup_library_fingerprint"]:
        report["labelled"]["warning"] = "the dedup library changed during the run: run again"
        print("\nWARNING: pastcast/curate/{minhash,dedup,dedup_index}.py changed during the run")
    write_json(OUT, report)
    print(f"\nwritten {OUT} ({report['labelled']['wall_seconds']:.0f} s)")


if __name__ == "__main__":
    main()
