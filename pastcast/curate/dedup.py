"""Deduplication: one article per story. Same canonical URL, same normalised text, or a near
copy (MinHash LSH over word shingles, verified on the whole signature) are one cluster, also
transitively; the cluster keeps its EARLIEST copy (published_at, then crawled_at, then id).
A copy dated only by its crawl (date_source "crawl") counts as a day later than its crawl: its
time is an upper bound precise to about a day (the slack dating allows for timezones), and it
can be no question's source, so a copy stating its date within that day wins; one stating a
later date does not (the story was public by the crawl, and that copy must not be lost).

The earliest copy fixes when the information became available, so a later syndicated copy must
never replace it, and a copy that arrives late but was published earlier replaces the kept one
(a ``superseded`` drop records the change). Every removed copy is a drop naming the kept
article and the cluster; the kept row carries the cluster's id (its kept article's id), size and
domains.

Articles are processed in chunks against a ``DedupIndex`` (SQLite) holding everything already
deduplicated, so a new day is compared with the whole corpus at the cost of its own lookups.
Re-running on articles already in the index gives the same answer (they are not re-added).

A cluster is the connected component of the copy relation (same URL, same text, or a near copy
sharing an LSH bucket) over the articles in the index, whatever order they arrived in: every
pair sharing a bucket is verified, within a chunk as against the index (up to
``FULL_BUCKET_ROWS`` distinct texts a bucket inside one chunk; a bigger bucket pairs each text
with the first and the previous one only). Its id, kept article, size and domains follow from
its members alone, so building days in any order, or again, gives the same clusters. A batch
(a crawl day) built again first retires the articles it added before that are no longer in its
input, or changed (``retire_batch``): the clusters they were in are settled again from their
remaining members, so a day never counts its own earlier copies as copies of itself.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from pastcast.curate.dedup_index import Cluster, DedupIndex
from pastcast.curate.minhash import MinHashConfig, band_keys, containment, jaccard, signatures
from pastcast.search.visibility import CRAWL_DATED
from pastcast.schemas import ARTICLES, DROPS, complete, empty

STAGE = "dedup"
# a crawl-dated copy's time is its crawl, an upper bound to about a day (curate.dating.SLACK)
CRAWL_DATED_LAG_US = 24 * 3600 * 1_000_000
EARLIEST_FIRST = ["published_at", "crawled_at", "article_id"]
# distinct texts in one chunk's LSH bucket verified pairwise; a bigger bucket pairs each with
# the first and the previous text only (its cost stays linear)
FULL_BUCKET_ROWS = 200
SUPERSEDED_NOTE = "an earlier copy arrived (or one stating its date, within a day of this crawl-dated copy)"


@dataclass(frozen=True)
class DedupConfig:
    minhash: MinHashConfig = field(default_factory=MinHashConfig)
    jaccard: float = 0.8  # estimated Jaccard of shingle sets at or above: a near copy
    containment: float = 0.8  # or this share of the shorter copy's shingles in the longer ...
    min_length_ratio: float = 0.5  # ... when the shorter has at least this share of its length
    chunk_size: int = 20_000  # articles compared against the index at once


@dataclass
class DedupCounts:
    articles: int = 0
    kept: int = 0
    by_reason: dict[str, int] = field(default_factory=dict)

    def add(self, drops: pl.DataFrame, kept: int, seen: int) -> None:
        self.articles += seen
        self.kept += kept
        for reason, n in drops.group_by("reason").len().iter_rows():
            self.by_reason[reason] = self.by_reason.get(reason, 0) + n


class _UnionFind:
    def __init__(self):
        self.parent: dict = {}

    def find(self, x):
        parent = self.parent.setdefault(x, x)
        if parent != x:
            parent = self.parent[x] = self.find(parent)
        return parent

    def union(self, a, b) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb, key=str)] = min(ra, rb, key=str)


def _us(series: pl.Series) -> list[int | None]:
    return series.dt.epoch("us").to_list()


def _order(published: int | None, crawled: int | None, article_id: str, crawl_dated: bool = False) -> tuple:
    """Earliest first, a crawl-dated copy a day later than its crawl (see the module doc),
    then copies that state their date; a missing time sorts last."""
    when = (published or 0) + (CRAWL_DATED_LAG_US if crawl_dated else 0)
    return (published is None, when, bool(crawl_dated), crawled is None, crawled or 0, article_id)


def _same_key_pairs(values: pl.Series) -> np.ndarray:
    """[(first row, row)] for rows sharing a non-null value with an earlier row."""
    frame = pl.DataFrame({"v": values}).with_row_index("row").drop_nulls("v")
    frame = frame.with_columns(pl.col("row").first().over("v").alias("first"))
    pairs = frame.filter(pl.col("row") != pl.col("first")).select("first", "row")
    return pairs.to_numpy().astype(np.int64).reshape(-1, 2)


def _band_pairs(keys: np.ndarray, full_bucket: int = FULL_BUCKET_ROWS) -> np.ndarray:
    """Candidate pairs inside a chunk: rows sharing a band key, every pair of a bucket of up to
    ``full_bucket`` rows; in a bigger bucket each row is paired with the first and the previous
    row only, so a huge bucket costs linear, not quadratic."""
    n, bands = keys.shape
    frame = pl.DataFrame({"row": np.repeat(np.arange(n), bands), "band": np.tile(np.arange(bands), n),
                          "key": keys.ravel()})
    frame = frame.with_columns(pl.len().over("band", "key").alias("size")).filter(pl.col("size") > 1)
    small = frame.filter(pl.col("size") <= full_bucket).select("band", "key", "row")
    big = frame.filter(pl.col("size") > full_bucket).sort("band", "key", "row").with_columns(
        pl.col("row").first().over("band", "key").alias("first"),
        pl.col("row").shift(1).over("band", "key").alias("prev"))
    pairs = pl.concat([
        small.join(small, on=["band", "key"], suffix="_b").filter(pl.col("row") < pl.col("row_b"))
        .select(a="row", b="row_b"),
        big.filter(pl.col("row") != pl.col("first")).select(a="first", b="row"),
        big.drop_nulls("prev").filter(pl.col("prev") != pl.col("first")).select(a="prev", b="row"),
    ]).unique()
    return pairs.to_numpy().astype(np.int64).reshape(-1, 2)


def _copy_pairs(urls: pl.Series, hashes: pl.Series, sigs: np.ndarray, sizes: np.ndarray, keys: np.ndarray,
                config: DedupConfig) -> list[tuple[int, int]]:
    """Pairs of rows that are copies: same URL, same text, or verified near copies sharing a
    bucket. Rows with the same signature and shingle count are one text for the pairing (a
    pair with one of them is a pair with all), then linked to each other."""
    pairs: list[tuple[int, int]] = []
    for values in (urls, hashes):
        pairs += [tuple(p) for p in _same_key_pairs(values).tolist()]
    banded = np.flatnonzero(sizes > 0)  # a text without shingles has an all-empty signature
    if len(banded) < 2:
        return pairs
    same = np.concatenate([sigs[banded], sizes[banded, None].astype(sigs.dtype)], axis=1)
    same = np.ascontiguousarray(same).view(np.dtype((np.void, same.dtype.itemsize * same.shape[1]))).ravel()
    _, first, inverse = np.unique(same, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    reps = banded[np.sort(first)]  # one row per distinct text, in row order
    rep_of = banded[first][inverse]
    pairs += [(int(r), int(row)) for r, row in zip(rep_of, banded) if r != row]
    near = reps[_band_pairs(keys[reps])]
    if len(near):
        a, b = near[:, 0], near[:, 1]
        ok = _similar(config, sigs[a], sigs[b], sizes[a], sizes[b])
        pairs += [tuple(p) for p in near[ok].tolist()]
    return pairs


def _similar(config: DedupConfig, sig_a, sig_b, size_a, size_b) -> np.ndarray:
    j = jaccard(sig_a, sig_b)
    c = containment(j, size_a, size_b)
    ratio = np.minimum(size_a, size_b) / np.maximum(np.maximum(size_a, size_b), 1)
    return (j >= config.jaccard) | ((c >= config.containment) & (ratio >= config.min_length_ratio))


def _drop(item_id: str, reason: str, kept_id: str, cluster_id: str, note: str = "") -> dict:
    detail = f"kept={kept_id} cluster={cluster_id}" + (f" {note}" if note else "")
    return {"item_id": item_id, "item_kind": "article", "stage": STAGE, "reason": reason, "detail": detail}


def _relation(url_a, hash_a, url_b, hash_b) -> str:
    if url_a is not None and url_a == url_b:
        return "duplicate_url"
    if hash_a is not None and hash_a == hash_b:
        return "exact_duplicate"
    return "near_duplicate"


def dedup_chunk(chunk: pl.DataFrame, index: DedupIndex, config: DedupConfig = DedupConfig(),
                batch: str | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(kept articles with dup_cluster/dup_count/dup_domains, in input order; drops) of one
    chunk of articles, compared with each other and with the index, which is updated (not
    committed); new articles are stored as ``batch``'s."""
    chunk = complete(chunk, ARTICLES).with_row_index("_row")
    drops: list[dict] = []
    repeated = chunk.filter(pl.col("article_id").is_duplicated() & pl.col("article_id").is_first_distinct().not_())
    drops += [_drop(a, "repeated_input", a, a, "the same article twice in the input")
              for a in repeated["article_id"]]
    chunk = chunk.unique("article_id", keep="first", maintain_order=True)
    known = index.known(chunk["article_id"].to_list())
    kept_known, known_drops = _replay_known(chunk.filter(pl.col("article_id").is_in(list(known))), index)
    drops += known_drops
    new = chunk.filter(~pl.col("article_id").is_in(list(known)))
    kept_new, new_drops = _NewArticles(new, index, config, batch).run() if new.height else (new.clear(), [])
    drops += new_drops
    kept = pl.concat([kept_known, kept_new], how="diagonal_relaxed") if kept_known.height else kept_new
    return complete(kept.sort("_row"), ARTICLES), pl.DataFrame(drops, schema=DROPS) if drops else empty(DROPS)


def _replay_known(known: pl.DataFrame, index: DedupIndex) -> tuple[pl.DataFrame, list[dict]]:
    """Articles deduplicated by an earlier run: the same answer again, from the index."""
    if not known.height:
        return known.clear(), []
    stored = index.doc_by_article(known["article_id"].to_list())
    clusters = index.clusters(d.cluster_id for d in stored.values())
    kept_docs = index.doc_by_article([c.kept_id for c in clusters.values()])
    keep, cluster_ids, counts, domains, drops = [], [], [], [], []
    for article_id in known["article_id"]:
        doc = stored[article_id]
        cluster = clusters[doc.cluster_id]
        if cluster.kept_id == article_id:
            keep.append(article_id)
            cluster_ids.append(cluster.kept_id)
            counts.append(cluster.size)
            domains.append(list(cluster.domains))
        else:
            kept_doc = kept_docs[cluster.kept_id]
            reason = _relation(doc.canonical_url, doc.content_hash, kept_doc.canonical_url, kept_doc.content_hash)
            drops.append(_drop(article_id, reason, cluster.kept_id, cluster.kept_id))
    info = pl.DataFrame({"article_id": keep, "dup_cluster": cluster_ids, "dup_count": counts,
                         "dup_domains": domains},
                        schema={"article_id": pl.String, "dup_cluster": pl.String, "dup_count": pl.Int64,
                                "dup_domains": pl.List(pl.String)})
    kept = known.drop("dup_cluster", "dup_count", "dup_domains").join(info, on="article_id", maintain_order="left")
    return kept, drops


class _NewArticles:
    """One chunk of articles not yet in the index: find their duplicates (among themselves and
    in the index), settle each cluster, and record the outcome in the index."""

    def __init__(self, new: pl.DataFrame, index: DedupIndex, config: DedupConfig, batch: str | None = None):
        self.frame, self.index, self.config, self.batch = new, index, config, batch
        self.sigs, self.sizes = signatures(new["text"], config.minhash)
        self.keys = band_keys(self.sigs, config.minhash)
        # a text without shingles has an all-empty signature: it would share every bucket
        self.banded = np.flatnonzero(self.sizes > 0)
        self.ids = new["article_id"].to_list()
        self.urls, self.hashes = new["canonical_url"].to_list(), new["content_hash"].to_list()
        self.domains = new["domain"].to_list()
        self.published, self.crawled = _us(new["published_at"]), _us(new["crawled_at"])
        self.crawl_dated = ((new["date_source"] == CRAWL_DATED).fill_null(False).to_list()
                            if "date_source" in new.columns else [False] * new.height)
        n = new.height
        self.cluster_of = list(self.ids)  # alone, an article is its own cluster
        self.count = [1] * n
        self.domain_lists = [[d] if d else [] for d in self.domains]
        self.keep = np.ones(n, dtype=bool)
        self.drops: list[dict] = []
        self.uf = _UnionFind()

    def run(self) -> tuple[pl.DataFrame, list[dict]]:
        self._link_within()
        self._link_to_index()
        members: dict = defaultdict(lambda: ([], []))  # root -> (new rows, old cluster ids)
        for node in list(self.uf.parent):
            rows, old = members[self.uf.find(node)]
            (old.append(node[2:]) if isinstance(node, str) else rows.append(node))
        self.clusters = self.index.clusters(c for _, old in members.values() for c in old)
        self.old_kept = self.index.doc_by_article([c.kept_id for c in self.clusters.values()])
        settled = set()
        for rows, old in members.values():
            self._settle(rows, old)
            settled.update(rows)
        n = len(self.ids)
        self.index.add_docs([(self.ids[i], self.cluster_of[i], self.published[i], self.crawled[i],
                              self.domains[i], self.urls[i], self.hashes[i], int(self.sizes[i]),
                              self.crawl_dated[i])
                             for i in range(n)], self.sigs, self.keys, self.sizes > 0, self.batch)
        self.index.add_clusters(Cluster(self.ids[i], self.ids[i], 1, tuple(self.domain_lists[i]))
                                for i in range(n) if i not in settled)
        kept = self.frame.with_columns(pl.Series("dup_cluster", self.cluster_of, dtype=pl.String),
                                       pl.Series("dup_count", self.count, dtype=pl.Int64),
                                       pl.Series("dup_domains", self.domain_lists, dtype=pl.List(pl.String)))
        return kept.filter(pl.Series(self.keep)), self.drops

    def _link_within(self) -> None:
        """Same URL, same text, or verified near copies inside the chunk."""
        for a, b in _copy_pairs(self.frame["canonical_url"], self.frame["content_hash"], self.sigs, self.sizes,
                                self.keys, self.config):
            self.uf.union(a, b)

    def _link_to_index(self) -> None:
        """Stored articles with the same URL or text, or verified near copies: their clusters."""
        edges: list[tuple[int, int]] = []
        for column, values in (("canonical_url", self.urls), ("content_hash", self.hashes)):
            rows_of = defaultdict(list)
            for row, value in enumerate(values):
                if value is not None:
                    rows_of[value].append(row)
            for value, idx in self.index.docs_by(column, list(rows_of)):
                edges += [(row, idx) for row in rows_of[value]]
        hits = self.index.band_matches(self.keys[self.banded], self.banded)
        stored = self.index.docs(set(hits[:, 1].tolist()) | {idx for _, idx in edges})
        if len(hits):
            rows, idxs = hits[:, 0], hits[:, 1].tolist()
            old_sigs = np.stack([stored[i][1] for i in idxs])
            old_sizes = np.array([stored[i][0].shingles for i in idxs])
            ok = _similar(self.config, self.sigs[rows], old_sigs, self.sizes[rows], old_sizes)
            edges += [tuple(e) for e in hits[ok].tolist()]
        for row, idx in edges:
            self.uf.union(row, "c:" + stored[idx][0].cluster_id)

    def _when(self, cluster_id: str) -> tuple:
        kept = self.old_kept[self.clusters[cluster_id].kept_id]
        return _order(kept.published_at, kept.crawled_at, kept.article_id, kept.crawl_dated)

    def _settle(self, rows: list[int], old: list[str]) -> None:
        """One component: its earliest copy is kept and names the cluster, every other copy
        (and any kept copy it displaces) becomes a drop."""
        old = sorted(set(old), key=self._when)
        candidates = [(_order(self.published[r], self.crawled[r], self.ids[r], self.crawl_dated[r]), "new", r)
                      for r in rows]
        candidates += [(self._when(c), "old", c) for c in old]
        _, kind, winner = min(candidates)
        if kind == "new":
            kept_id, kept_url, kept_hash = self.ids[winner], self.urls[winner], self.hashes[winner]
        else:
            kept = self.old_kept[self.clusters[winner].kept_id]
            kept_id, kept_url, kept_hash = kept.article_id, kept.canonical_url, kept.content_hash
        cluster_id = kept_id  # a function of the members, not of the order they arrived in
        size = len(rows) + sum(self.clusters[c].size for c in old)  # counted from the index's docs
        domains = sorted({d for r in rows for d in self.domain_lists[r]}
                         | {d for c in old for d in self.clusters[c].domains})
        for r in rows:
            self.cluster_of[r] = cluster_id
            if kind == "new" and r == winner:
                self.count[r], self.domain_lists[r] = size, domains
            else:
                self.keep[r] = False
                reason = _relation(self.urls[r], self.hashes[r], kept_url, kept_hash)
                self.drops.append(_drop(self.ids[r], reason, kept_id, cluster_id))
        displaced = [self.clusters[c].kept_id for c in old if self.clusters[c].kept_id != kept_id]
        for article_id in displaced:
            self.drops.append(_drop(article_id, "superseded", kept_id, cluster_id, SUPERSEDED_NOTE))
        self.index.mark_superseded(displaced, self.batch)
        self.index.merge_clusters(cluster_id, old)
        self.index.add_clusters([Cluster(cluster_id, kept_id, size, tuple(domains))])


def superseded_again(index: DedupIndex, batch: str, reported: set[str]) -> pl.DataFrame:
    """The ``superseded`` drops of a batch built again: the kept articles of other batches its
    earlier copies displaced (still displaced), less those ``reported`` by this run already, so
    a rebuilt day reports what a first build of it reported, naming the kept article now."""
    found = [(a, c) for a, c in index.superseded_in(batch) if a not in reported]
    clusters = index.clusters(c for _, c in found)
    drops = [_drop(a, "superseded", clusters[c].kept_id, clusters[c].kept_id, SUPERSEDED_NOTE)
             for a, c in found if c in clusters]
    return pl.DataFrame(drops, schema=DROPS) if drops else empty(DROPS)


def _doc_key(published, crawled, domain, url, text_hash, crawl_dated) -> tuple:
    return (published, crawled, domain, url, text_hash, bool(crawl_dated))


def retire_batch(index: DedupIndex, batch: str, articles: pl.DataFrame, config: DedupConfig = DedupConfig()) -> int:
    """Before ``batch`` is deduplicated again from ``articles``: take out of the index the docs
    it added before that are no longer among them, or changed (URL, text, dates or domain), and
    settle their clusters again from the members left. Returns how many were taken out."""
    stored = index.batch_docs(batch)
    if not stored:
        return 0
    articles = complete(articles, ARTICLES).unique("article_id", keep="first", maintain_order=True)
    crawl_dated = (articles["date_source"] == CRAWL_DATED).fill_null(False).to_list()
    now = {a: _doc_key(p, c, d, u, h, cd) for a, p, c, d, u, h, cd in zip(
        articles["article_id"], _us(articles["published_at"]), _us(articles["crawled_at"]), articles["domain"],
        articles["canonical_url"], articles["content_hash"], crawl_dated)}
    gone = [d for d in stored if now.get(d.article_id) != _doc_key(
        d.published_at, d.crawled_at, d.domain, d.canonical_url, d.content_hash, d.crawl_dated)]
    if gone:
        affected = {d.cluster_id for d in gone}
        index.remove_docs(d.idx for d in gone)
        resettle(index, affected, config)
    return len(gone)


def resettle(index: DedupIndex, cluster_ids: set[str], config: DedupConfig = DedupConfig()) -> None:
    """Cluster the members of ``cluster_ids`` again from scratch (after some left the index):
    a cluster may split; each part keeps its earliest copy, which names it."""
    members = index.members(cluster_ids)
    idxs = sorted(members)
    docs = [members[i][0] for i in idxs]
    clusters = []
    assignment: dict[int, str] = {}
    if docs:
        sigs = np.stack([members[i][1] for i in idxs])
        sizes = np.array([d.shingles for d in docs])
        pairs = _copy_pairs(pl.Series([d.canonical_url for d in docs], dtype=pl.String),
                            pl.Series([d.content_hash for d in docs], dtype=pl.String),
                            sigs, sizes, band_keys(sigs, config.minhash), config)
        uf = _UnionFind()
        for row in range(len(docs)):
            uf.find(row)
        for a, b in pairs:
            uf.union(a, b)
        parts: dict = defaultdict(list)
        for row in range(len(docs)):
            parts[uf.find(row)].append(row)
        for rows in parts.values():
            kept = min((docs[r] for r in rows),
                       key=lambda d: _order(d.published_at, d.crawled_at, d.article_id, d.crawl_dated))
            domains = sorted({docs[r].domain for r in rows if docs[r].domain})
            clusters.append(Cluster(kept.article_id, kept.article_id, len(rows), tuple(domains)))
            assignment.update({docs[r].idx: kept.article_id for r in rows})
    index.regroup(cluster_ids, assignment, clusters)


def deduplicate(articles: pl.DataFrame, config: DedupConfig = DedupConfig(),
                index: DedupIndex | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(kept articles, drops) of a frame of articles, in memory (or against ``index``, which is
    committed at the end)."""
    own = index is None
    index = index or DedupIndex(None, config.minhash)
    kept_parts, drop_parts = [], []
    for start in range(0, max(articles.height, 1), config.chunk_size):
        kept, drops = dedup_chunk(articles.slice(start, config.chunk_size), index, config)
        kept_parts.append(kept)
        drop_parts.append(drops)
    index.commit()
    if own:
        index.close()
    kept = pl.concat(kept_parts).sort(EARLIEST_FIRST).select(list(ARTICLES))
    return kept, pl.concat(drop_parts)
