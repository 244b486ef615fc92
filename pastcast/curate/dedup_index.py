"""The persistent deduplication index: every article already deduplicated, by its keys.

SQLite (in the standard library, one file, indexed lookups): adding a day of articles looks up
only that day's URLs, text hashes and LSH band keys, so its cost follows the new day, not the
size of the corpus, and nothing is held in memory. Tables:

  docs      every article seen (kept or not): ids, times, domain, URL, text hash, MinHash
            signature, and the cluster it belongs to
  bands     (band, key) -> doc, the LSH buckets
  clusters  each cluster's kept article, size and domains
  meta      the MinHash parameters the signatures were made with (a mismatch is an error)

Changes are made inside one transaction that the caller commits once its outputs are written.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from pastcast.curate.minhash import MinHashConfig

SCHEMA_VERSION = "1"  # with the signature scheme below: a change to either is a mismatch
SIGNATURE_SCHEME = "oph-rotation/poly-utf8-words/v1"  # minhash.py: how signatures are made
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs (
    idx INTEGER PRIMARY KEY, article_id TEXT NOT NULL UNIQUE, cluster_id TEXT NOT NULL,
    published_at INTEGER, crawled_at INTEGER, domain TEXT, canonical_url TEXT,
    content_hash TEXT, shingles INTEGER NOT NULL, signature BLOB NOT NULL,
    crawl_dated INTEGER NOT NULL DEFAULT 0);
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
INDEX_FILE = "dedup-index.sqlite"


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
        self.config = config
        self._check_config()

    def _add_missing_columns(self) -> None:
        """An index written before ``crawl_dated`` existed holds page-dated docs only (undated
        pages were dropped then): the column is added with that value."""
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(docs)")}
        if "crawl_dated" not in columns:
            self.db.execute("ALTER TABLE docs ADD COLUMN crawl_dated INTEGER NOT NULL DEFAULT 0")
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
        found = self._lookup("SELECT idx, article_id, cluster_id, published_at, crawled_at, domain, "
                             "canonical_url, content_hash, shingles, crawl_dated, signature FROM docs "
                             "WHERE idx IN ({})", sorted(set(idxs)))
        return {row[0]: (StoredDoc(*row[:9], bool(row[9])), np.frombuffer(row[10], dtype=np.uint32))
                for row in found}

    def doc_by_article(self, article_ids: Sequence[str]) -> dict[str, StoredDoc]:
        found = self._lookup("SELECT idx, article_id, cluster_id, published_at, crawled_at, domain, "
                             "canonical_url, content_hash, shingles, crawl_dated FROM docs "
                             "WHERE article_id IN ({})", article_ids)
        return {row[1]: StoredDoc(*row[:9], bool(row[9])) for row in found}

    def clusters(self, cluster_ids: Iterable[str]) -> dict[str, Cluster]:
        found = self._lookup("SELECT cluster_id, kept_id, size, domains FROM clusters "
                             "WHERE cluster_id IN ({})", sorted(set(cluster_ids)))
        return {c: Cluster(c, kept, size, tuple(json.loads(domains)))
                for c, kept, size, domains in found}

    def _lookup(self, sql: str, values: Sequence) -> list[tuple]:
        values = list(values)
        found: list[tuple] = []
        for start in range(0, len(values), 900):  # SQLite's bound-parameter limit
            part = values[start:start + 900]
            found += self.db.execute(sql.format(",".join("?" * len(part))), part).fetchall()
        return found

    # ----------------------------------------------------------------- writes

    def add_docs(self, rows: list[tuple], signatures: np.ndarray, keys: np.ndarray,
                 banded: np.ndarray) -> None:
        """Store new docs: rows of (article_id, cluster_id, published_at_us, crawled_at_us,
        domain, canonical_url, content_hash, shingles, crawl_dated), with their signatures,
        and the band keys of those marked ``banded`` (a text without shingles goes in no
        bucket)."""
        cursor = self.db.execute("SELECT COALESCE(MAX(idx), -1) + 1 FROM docs")
        first = cursor.fetchone()[0]
        idxs = range(first, first + len(rows))
        self.db.executemany("INSERT INTO docs (idx, article_id, cluster_id, published_at, crawled_at, "
                            "domain, canonical_url, content_hash, shingles, crawl_dated, signature) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            [(i, *row[:8], int(row[8]), sig.tobytes())
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

    def commit(self) -> None:
        self.db.commit()

    def rollback(self) -> None:
        self.db.rollback()

    def close(self) -> None:
        self.db.close()
