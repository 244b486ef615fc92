"""The persistent deduplication index: every article already deduplicated, by its keys.

SQLite (in the standard library, one file, indexed lookups): adding a day of articles looks up
only that day's URLs, text hashes and LSH band keys, so its cost follows the new day, not the
size of the corpus, and nothing is held in memory. Tables:

  docs      every article seen (kept or not): ids, times, domain, URL, text hash, MinHash
            signature, the cluster it belongs to, the batch (crawl day) that added it and the
            batch whose earlier copy displaced it as its cluster's kept article, if any
  bands     (band, key) -> doc, the LSH buckets
  clusters  each cluster's kept article (a cluster's id is its kept article's id), size and
            domains as of the last change (readers recompute both from ``docs``)
  meta      the MinHash parameters the signatures were made with (a mismatch is an error)

A cluster is a function of its members (its id is its earliest copy's id, its size and domains
are counted from ``docs``), never of the order they arrived in. Changes are made inside one
transaction that the caller commits once its outputs are written.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import polars as pl

from pastcast.curate.minhash import MinHashConfig, band_keys

SCHEMA_VERSION = "1"  # with the signature scheme below: a change to either is a mismatch
SIGNATURE_SCHEME = "oph-rotation/poly-utf8-words/v1"  # minhash.py: how signatures are made
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs (
    idx INTEGER PRIMARY KEY, article_id TEXT NOT NULL UNIQUE, cluster_id TEXT NOT NULL,
    published_at INTEGER, crawled_at INTEGER, domain TEXT, canonical_url TEXT,
    content_hash TEXT, shingles INTEGER NOT NULL, signature BLOB NOT NULL,
    crawl_dated INTEGER NOT NULL DEFAULT 0, batch TEXT, superseded_in TEXT);
CREATE INDEX IF NOT EXISTS docs_url ON docs (canonical_url);
CREATE INDEX IF NOT EXISTS docs_hash ON docs (content_hash);
CREATE INDEX IF NOT EXISTS docs_cluster ON docs (cluster_id);
CREATE TABLE IF NOT EXISTS bands (
    band INTEGER NOT NULL, key INTEGER NOT NULL, idx INTEGER NOT NULL,
    PRIMARY KEY (band, key, idx)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS clusters (
    cluster_id TEXT PRIMARY KEY, kept_id TEXT NOT NULL, size INTEGER NOT NULL,
    domains TEXT NOT NULL);
"""
_LATER_SCHEMA = """
CREATE INDEX IF NOT EXISTS docs_batch ON docs (batch);
CREATE INDEX IF NOT EXISTS docs_superseded ON docs (superseded_in) WHERE superseded_in IS NOT NULL;
INSERT OR IGNORE INTO meta VALUES ('docs_removed', '0');
CREATE TRIGGER IF NOT EXISTS docs_removed AFTER DELETE ON docs BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'docs_removed';
END;
"""
# Every doc ever deleted is counted (``docs_removed`` in meta, by the trigger above), so telling
# whether docs went since a mark reads one row, where counting the docs reads the whole table
# (0.3 s at a million docs, on every nightly gather).
INDEX_FILE = "dedup-index.sqlite"
_DOC_COLUMNS = ("idx, article_id, cluster_id, published_at, crawled_at, domain, canonical_url, content_hash, "
                "shingles, crawl_dated")


@dataclass(frozen=True)
class StoredDoc:
    idx: int
    article_id: str
    cluster_id: str
    published_at: int | None  # microseconds since the epoch, UTC
    crawled_at: int | None
    domain: str | None
    canonical_url: str | None
    content_hash: str | None
    shingles: int
    crawl_dated: bool = False  # dated only by its crawl (no date of its own)


@dataclass(frozen=True)
class Cluster:
    cluster_id: str
    kept_id: str
    size: int
    domains: tuple[str, ...]


class DedupIndex:
    """Open (or create) the index in ``folder``; ``None`` keeps it in memory (one run)."""

    def __init__(self, folder: str | Path | None, config: MinHashConfig):
        if folder is None:
            self.path = None
            self.db = sqlite3.connect(":memory:")
        else:
            Path(folder).mkdir(parents=True, exist_ok=True)
            self.path = Path(folder) / INDEX_FILE
            self.db = sqlite3.connect(self.path)
            self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        # lookups and inserts land on random B-tree pages: a bigger page cache (64 MiB) keeps
        # the cost of a day from growing with the index; probes stay in memory
        self.db.execute("PRAGMA cache_size=-65536")
        self.db.execute("PRAGMA mmap_size=4294967296")  # pages read through the OS cache, not copied
        self.db.execute("PRAGMA temp_store=MEMORY")
        self.db.executescript(_SCHEMA)
        self._add_missing_columns()
        self._name_clusters_by_kept()
        self.config = config
        self._check_config()

    def _add_missing_columns(self) -> None:
        """An index written before ``crawl_dated`` existed holds page-dated docs only (undated
        pages were dropped then): the column is added with that value. One written before
        ``batch`` and ``superseded_in`` existed gets them as nulls (its docs belong to no
        batch: a rebuilt day never retires them)."""
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(docs)")}
        added = False
        for column, declaration in (("crawl_dated", "INTEGER NOT NULL DEFAULT 0"), ("batch", "TEXT"),
                                    ("superseded_in", "TEXT")):
            if column not in columns:
                self.db.execute(f"ALTER TABLE docs ADD COLUMN {column} {declaration}")
                added = True
        self.db.executescript(_LATER_SCHEMA)
        if added:
            self.db.commit()

    def _name_clusters_by_kept(self) -> None:
        """An index of an earlier version named a cluster after the first copy kept, which
        depends on the order days were built in: such clusters are renamed after their kept
        article. (No other cluster can hold that name: the kept article is in this one.)"""
        if self.db.execute("SELECT 1 FROM meta WHERE key = 'clusters_named_by_kept'").fetchone():
            return
        renamed = self.db.execute("SELECT cluster_id, kept_id FROM clusters WHERE cluster_id != kept_id").fetchall()
        self.db.executemany("UPDATE docs SET cluster_id = ? WHERE cluster_id = ?",
                            [(kept, cluster) for cluster, kept in renamed])
        self.db.execute("UPDATE clusters SET cluster_id = kept_id WHERE cluster_id != kept_id")
        self.db.execute("INSERT INTO meta VALUES ('clusters_named_by_kept', '1')")
        self.db.commit()

    def _check_config(self) -> None:
        wanted = json.dumps({"schema": SCHEMA_VERSION, "signature": SIGNATURE_SCHEME, **asdict(self.config)},
                            sort_keys=True)
        row = self.db.execute("SELECT value FROM meta WHERE key = 'minhash'").fetchone()
        if row is None:
            self.db.execute("INSERT INTO meta VALUES ('minhash', ?)", (wanted,))
            self.db.commit()
        elif row[0] != wanted:
            where = self.path or "the index"
            raise ValueError(f"{where} was built with MinHash settings {row[0]}, not {wanted}: "
                             "use the same settings or a new --state folder")

    # ------------------------------------------------------------------ reads

    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM docs").fetchone()[0]

    def known(self, article_ids: Sequence[str]) -> dict[str, str]:
        """article_id -> cluster_id of the given articles already in the index."""
        return dict(self._lookup("SELECT article_id, cluster_id FROM docs WHERE article_id IN ({})",
                                 article_ids))

    def docs_by(self, column: str, values: Sequence[str]) -> list[tuple[str, int]]:
        """(value, doc idx) of stored docs whose ``column`` (canonical_url or content_hash)
        is one of ``values``."""
        if column not in ("canonical_url", "content_hash"):
            raise ValueError(column)
        return self._lookup(f"SELECT {column}, idx FROM docs WHERE {column} IN ({{}})", values)

    def band_matches(self, keys: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """[(row, doc idx)] for every stored doc sharing a band key with ``keys`` (int64
        [len(rows), bands]), whose rows are numbered ``rows``."""
        self.db.execute("CREATE TEMP TABLE IF NOT EXISTS probe (band INTEGER, key INTEGER, row INTEGER)")
        self.db.execute("DELETE FROM probe")
        bands = np.broadcast_to(np.arange(keys.shape[1]), keys.shape).ravel()
        row_numbers = np.broadcast_to(np.asarray(rows)[:, None], keys.shape).ravel()
        order = np.lexsort((keys.ravel(), bands))  # in index order: each B-tree page read once
        self.db.executemany("INSERT INTO probe VALUES (?, ?, ?)",
                            zip(bands[order].tolist(), keys.ravel()[order].tolist(), row_numbers[order].tolist()))
        found = self.db.execute("SELECT DISTINCT p.row, b.idx FROM probe p JOIN bands b "
                                "ON b.band = p.band AND b.key = p.key").fetchall()
        self.db.execute("DELETE FROM probe")
        return np.array(found, dtype=np.int64).reshape(-1, 2)

    def docs(self, idxs: Iterable[int]) -> dict[int, tuple[StoredDoc, np.ndarray]]:
        found = self._lookup(f"SELECT {_DOC_COLUMNS}, signature FROM docs WHERE idx IN ({{}})", sorted(set(idxs)))
        return {row[0]: (StoredDoc(*row[:9], bool(row[9])), np.frombuffer(row[10], dtype=np.uint32))
                for row in found}

    def doc_by_article(self, article_ids: Sequence[str]) -> dict[str, StoredDoc]:
        found = self._lookup(f"SELECT {_DOC_COLUMNS} FROM docs WHERE article_id IN ({{}})", article_ids)
        return {row[1]: StoredDoc(*row[:9], bool(row[9])) for row in found}

    def has_batch(self, batch: str) -> bool:
        return self.db.execute("SELECT 1 FROM docs WHERE batch = ? LIMIT 1", (batch,)).fetchone() is not None

    def batch_docs(self, batch: str) -> list[StoredDoc]:
        """The docs a batch (a crawl day) added."""
        found = self.db.execute(f"SELECT {_DOC_COLUMNS} FROM docs WHERE batch = ? ORDER BY idx", (batch,)).fetchall()
        return [StoredDoc(*row[:9], bool(row[9])) for row in found]

    def members(self, cluster_ids: Iterable[str]) -> dict[int, tuple[StoredDoc, np.ndarray]]:
        """Every doc of the given clusters, with its signature, by doc idx."""
        found = self._lookup(f"SELECT {_DOC_COLUMNS}, signature FROM docs WHERE cluster_id IN ({{}})",
                             sorted(set(cluster_ids)))
        return {row[0]: (StoredDoc(*row[:9], bool(row[9])), np.frombuffer(row[10], dtype=np.uint32))
                for row in sorted(found)}

    def clusters(self, cluster_ids: Iterable[str]) -> dict[str, Cluster]:
        """The given clusters: kept article from the clusters table, size and domains counted
        from their docs (never carried over from run to run)."""
        cluster_ids = sorted(set(cluster_ids))
        kept = dict(self._lookup("SELECT cluster_id, kept_id FROM clusters WHERE cluster_id IN ({})", cluster_ids))
        counted = {c: (n, json.loads(domains)) for c, n, domains in self._lookup(
            "SELECT cluster_id, COUNT(*), json_group_array(DISTINCT domain) FROM docs "
            "WHERE cluster_id IN ({}) GROUP BY cluster_id", list(kept))}
        return {c: Cluster(c, kept_id, counted.get(c, (0, []))[0],
                           tuple(sorted(d for d in counted.get(c, (0, []))[1] if d)))
                for c, kept_id in kept.items()}

    def superseded_in(self, batch: str) -> list[tuple[str, str]]:
        """(article_id, cluster_id) of the docs ``batch`` displaced as their cluster's kept
        article that are still not kept (the drops a rebuilt batch reports again)."""
        return self.db.execute("SELECT d.article_id, d.cluster_id FROM docs d JOIN clusters c "
                               "ON c.cluster_id = d.cluster_id WHERE d.superseded_in = ? "
                               "AND c.kept_id != d.article_id ORDER BY d.idx", (batch,)).fetchall()

    def _lookup(self, sql: str, values: Sequence) -> list[tuple]:
        values = list(values)
        found: list[tuple] = []
        for start in range(0, len(values), 900):  # SQLite's bound-parameter limit
            part = values[start:start + 900]
            found += self.db.execute(sql.format(",".join("?" * len(part))), part).fetchall()
        return found

    # ----------------------------------------------------------------- writes

    def add_docs(self, rows: list[tuple], signatures: np.ndarray, keys: np.ndarray,
                 banded: np.ndarray, batch: str | None = None) -> None:
        """Store new docs of ``batch``: rows of (article_id, cluster_id, published_at_us,
        crawled_at_us, domain, canonical_url, content_hash, shingles, crawl_dated), with their
        signatures, and the band keys of those marked ``banded`` (a text without shingles goes
        in no bucket)."""
        cursor = self.db.execute("SELECT COALESCE(MAX(idx), -1) + 1 FROM docs")
        first = cursor.fetchone()[0]
        idxs = range(first, first + len(rows))
        self.db.executemany("INSERT INTO docs (idx, article_id, cluster_id, published_at, crawled_at, "
                            "domain, canonical_url, content_hash, shingles, crawl_dated, signature, batch) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            [(i, *row[:8], int(row[8]), sig.tobytes(), batch)
                             for i, row, sig in zip(idxs, rows, signatures)])
        chosen = np.flatnonzero(banded)
        doc_idx = np.repeat(np.asarray(idxs, dtype=np.int64)[chosen], keys.shape[1])
        band = np.tile(np.arange(keys.shape[1]), len(chosen))
        key = keys[chosen].ravel()
        order = np.lexsort((doc_idx, key, band))  # in primary-key order: B-tree pages in sequence
        self.db.executemany("INSERT OR IGNORE INTO bands VALUES (?, ?, ?)",
                            zip(band[order].tolist(), key[order].tolist(), doc_idx[order].tolist()))

    def merge_clusters(self, into: str, others: Iterable[str]) -> None:
        others = [c for c in set(others) if c != into]
        for start in range(0, len(others), 900):
            part = others[start:start + 900]
            marks = ",".join("?" * len(part))
            self.db.execute(f"UPDATE docs SET cluster_id = ? WHERE cluster_id IN ({marks})", [into, *part])
            self.db.execute(f"DELETE FROM clusters WHERE cluster_id IN ({marks})", part)

    def add_clusters(self, clusters: Iterable[Cluster]) -> None:
        """Insert clusters, or replace them by id."""
        self.db.executemany("INSERT OR REPLACE INTO clusters VALUES (?, ?, ?, ?)",
                            ((c.cluster_id, c.kept_id, c.size, json.dumps(sorted(c.domains)))
                             for c in clusters))

    def mark_superseded(self, article_ids: Iterable[str], batch: str | None) -> None:
        """``batch`` displaced these kept articles (a rebuilt batch reports them again)."""
        self.db.executemany("UPDATE docs SET superseded_in = ? WHERE article_id = ?",
                            ((batch, a) for a in article_ids))

    def remove_docs(self, idxs: Iterable[int]) -> None:
        """Take docs out of the index, with their LSH bucket entries (their clusters are the
        caller's to settle again)."""
        found = self.docs(idxs)
        if not found:
            return
        chosen = [i for i, (doc, _) in found.items() if doc.shingles > 0]
        if chosen:
            keys = band_keys(np.stack([found[i][1] for i in chosen]), self.config)
            band = np.tile(np.arange(keys.shape[1]), len(chosen))
            doc_idx = np.repeat(np.asarray(chosen, dtype=np.int64), keys.shape[1])
            self.db.executemany("DELETE FROM bands WHERE band = ? AND key = ? AND idx = ?",
                                zip(band.tolist(), keys.ravel().tolist(), doc_idx.tolist()))
        idxs = sorted(found)
        for start in range(0, len(idxs), 900):
            part = idxs[start:start + 900]
            self.db.execute(f"DELETE FROM docs WHERE idx IN ({','.join('?' * len(part))})", part)

    def regroup(self, old: Iterable[str], assignment: dict[int, str], clusters: Iterable[Cluster]) -> None:
        """Replace the clusters ``old`` by ``clusters``: docs get the cluster ids of
        ``assignment`` (doc idx -> cluster id); a doc kept again no longer counts as displaced."""
        old = sorted(set(old))
        for start in range(0, len(old), 900):
            part = old[start:start + 900]
            self.db.execute(f"DELETE FROM clusters WHERE cluster_id IN ({','.join('?' * len(part))})", part)
        self.db.executemany("UPDATE docs SET cluster_id = ? WHERE idx = ?",
                            ((c, i) for i, c in assignment.items()))
        clusters = list(clusters)
        self.add_clusters(clusters)
        self.db.executemany("UPDATE docs SET superseded_in = NULL WHERE article_id = ?",
                            ((c.kept_id,) for c in clusters))

    def commit(self) -> None:
        self.db.commit()

    def rollback(self) -> None:
        self.db.rollback()

    def close(self) -> None:
        self.db.close()


def read_clusters(folder: str | Path, batches: Iterable[str] | None = None
                  ) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """Every article of the index in ``folder`` (``article_id``) and every kept article with
    its cluster's statistics counted from the docs (``article_id``, ``dup_cluster``,
    ``dup_count``, ``dup_domains``); None when there is no index. Read as stored, whatever the
    MinHash settings (no signature is read). ``batches`` (crawl days) limits both to the
    articles those batches added (statistics still over every member of their clusters): what
    gathering a few days needs, read through the index's batch and cluster indexes instead of
    every row."""
    path = Path(folder) / INDEX_FILE
    if not path.is_file():
        return None
    batches = None if batches is None else list(batches)  # read twice below
    db = sqlite3.connect(path)
    try:
        if batches is None:
            docs = db.execute("SELECT article_id, cluster_id, domain, batch FROM docs").fetchall()
            kept = db.execute("SELECT kept_id, cluster_id FROM clusters").fetchall()
        else:
            db.execute("CREATE TEMP TABLE wanted (batch TEXT PRIMARY KEY)")
            db.executemany("INSERT OR IGNORE INTO wanted VALUES (?)", [(b,) for b in batches])
            clusters = "SELECT cluster_id FROM docs WHERE batch IN (SELECT batch FROM wanted)"
            docs = db.execute(f"SELECT article_id, cluster_id, domain, batch FROM docs "
                              f"WHERE cluster_id IN ({clusters})").fetchall()
            kept = db.execute(f"SELECT kept_id, cluster_id FROM clusters WHERE cluster_id IN ({clusters})").fetchall()
    finally:
        db.close()
    docs = pl.DataFrame(docs, schema={"article_id": pl.String, "cluster_id": pl.String, "domain": pl.String,
                                      "batch": pl.String}, orient="row")
    kept = pl.DataFrame(kept, schema={"article_id": pl.String, "cluster_id": pl.String}, orient="row")
    stats = docs.group_by("cluster_id").agg(
        pl.len().cast(pl.Int64).alias("dup_count"),
        pl.col("domain").filter(pl.col("domain").is_not_null() & (pl.col("domain") != ""))
        .unique().sort().alias("dup_domains"))
    own = docs if batches is None else docs.filter(pl.col("batch").is_in(batches))
    # a kept article names the cluster (an index of an earlier version may call it otherwise)
    kept = (kept.join(own.select("article_id", pl.col("cluster_id").alias("member_of")), on="article_id")
            .filter(pl.col("member_of") == pl.col("cluster_id"))
            .join(stats, on="cluster_id")
            .select("article_id", pl.col("article_id").alias("dup_cluster"), "dup_count",
                    pl.col("dup_domains").cast(pl.List(pl.String))))
    return own.select("article_id"), kept


def _removed(db: sqlite3.Connection) -> int | None:
    """Docs deleted since the counter was set up (None: an index no DedupIndex of this version
    has opened yet, so deletions went uncounted)."""
    row = db.execute("SELECT value FROM meta WHERE key = 'docs_removed'").fetchone()
    return None if row is None else int(row[0])


def index_mark(folder: str | Path) -> dict | None:
    """Where the index stands: its highest row number (new docs get higher ones) and how many
    docs were ever removed (a retired batch), or, on an index without that counter, its docs'
    count. None when there is no index."""
    path = Path(folder) / INDEX_FILE
    if not path.is_file():
        return None
    db = sqlite3.connect(path)
    try:
        top, = db.execute("SELECT COALESCE(MAX(idx), -1) FROM docs").fetchone()
        removed = _removed(db)
        if removed is not None:
            return {"max_idx": top, "removed": removed}
        count, = db.execute("SELECT COUNT(*) FROM docs").fetchone()
    finally:
        db.close()
    return {"docs": count, "max_idx": top}


def batches_touched_since(folder: str | Path, mark: dict) -> tuple[set[str], set[str | None]] | None:
    """Since ``mark`` (``index_mark``): the batches that added docs, and every batch whose
    articles' rows may have changed: those batches, the batches of the kept articles of every
    cluster a new doc joined (their copy count and domains), and the batches of the articles
    a new batch displaced. None when docs also went (a batch retired, rebuilt): then no short
    list is sure, and the caller reads everything."""
    path = Path(folder) / INDEX_FILE
    if not path.is_file():
        return None
    db = sqlite3.connect(path)
    try:
        if "removed" in mark:
            if _removed(db) != mark["removed"]:
                return None
        else:  # a mark taken before deletions were counted
            count, = db.execute("SELECT COUNT(*) FROM docs").fetchone()
            new, = db.execute("SELECT COUNT(*) FROM docs WHERE idx > ?", (mark["max_idx"],)).fetchone()
            if count != mark["docs"] + new:
                return None
        # the new docs by row number, made distinct here: "SELECT DISTINCT batch" would walk the
        # whole batch index instead (30 ms at a million docs, against 1 ms)
        added = {b for (b,) in db.execute("SELECT batch FROM docs WHERE idx > ?", (mark["max_idx"],))}
        touched = {b for (b,) in db.execute(
            "SELECT DISTINCT k.batch FROM clusters c JOIN docs k ON k.article_id = c.kept_id "
            "WHERE c.cluster_id IN (SELECT cluster_id FROM docs WHERE idx > ?)", (mark["max_idx"],))}
        touched |= {b for (b,) in db.execute(
            "SELECT DISTINCT batch FROM docs WHERE superseded_in IN "
            "(SELECT batch FROM docs WHERE idx > ?)", (mark["max_idx"],))}
    finally:
        db.close()
    return added, added | touched
