"""MinHash signatures and LSH band keys for near-duplicate detection, vectorised over documents.

A document is the set of its k-word shingles (lower-cased ``\\w+`` words). Word hashes
(stable across runs and library versions, so signatures kept in an incremental index stay
comparable), shingle hashes and signatures are numpy array operations over all documents of
a batch at once: no Python loop per word, shingle or document.

Signatures use one-permutation hashing with densification (Li, Owen and Zhang 2012;
Shrivastava and Li 2014): each shingle is hashed once, its hash picks one of ``num_perm``
slots and the slot keeps the smallest value; an empty slot borrows the next filled slot's
value, marked with the distance it came from. Two documents agree in a slot with probability
equal to their Jaccard similarity, as with ``num_perm`` separate permutations, at 1/num_perm
of the hashing work (the classic scheme computes num_perm hashes of every shingle).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import polars as pl

EMPTY = np.uint32(0xFFFFFFFF)  # the signature value of a document without shingles
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True)
class MinHashConfig:
    """Defaults: 128 slots in 32 bands of 4 rows. A pair becomes a candidate with
    probability 1 - (1 - J^4)^32: 0.9995 at Jaccard 0.8, 0.87 at 0.5 (a copy cut to half its
    length), 0.003 at 0.1; candidates are then verified on the whole signature."""

    num_perm: int = 128
    bands: int = 32
    shingle_words: int = 5
    seed: int = 1

    def __post_init__(self):
        if self.num_perm % self.bands:
            raise ValueError(f"num_perm ({self.num_perm}) must be a multiple of bands ({self.bands})")
        if self.shingle_words < 1:
            raise ValueError("shingle_words must be at least 1")

    @property
    def rows(self) -> int:
        return self.num_perm // self.bands


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: spreads every input bit over the output (uint64, wrapping)."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


_BYTE_BASE = np.uint64(0x100000001B3)


def word_hashes(texts: pl.Series) -> tuple[np.ndarray, np.ndarray]:
    """(hash of each word, its document index), documents in order, words in text order.

    Words are the lower-cased ``\\w+`` runs of polars' (Rust) regex engine, whose ``\\w`` is
    Unicode-wide and includes combining marks (Python's ``re`` does not; the ``regex`` module
    agrees with it). A word's hash is a polynomial over its UTF-8
    bytes, then mixed: defined here, so the same on every machine and library version (the
    signatures in an incremental index must stay comparable), and computed with array
    operations over all words at once.
    """
    words = texts.fill_null("").str.to_lowercase().str.extract_all(r"\w+")
    per_doc = words.list.len().fill_null(0).to_numpy().astype(np.int64)
    flat = words.explode().drop_nulls()
    doc = np.repeat(np.arange(len(texts), dtype=np.int64), per_doc)
    if not len(flat):
        return np.empty(0, np.uint64), doc
    lengths = flat.str.len_bytes().to_numpy().astype(np.int64)
    data = np.frombuffer(flat.str.join("").item().encode("utf-8"), dtype=np.uint8)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    position = np.arange(len(data)) - np.repeat(starts, lengths)
    powers = np.cumprod(np.full(int(lengths.max()), _BYTE_BASE, dtype=np.uint64))
    polynomial = np.add.reduceat(data * powers[position], starts)
    return _mix(polynomial ^ (lengths.astype(np.uint64) * _GOLDEN)), doc


def shingles(texts: pl.Series, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(shingle hashes, owning document index), both sorted by document. A document with
    fewer than k words has one shingle of all its words; one without words has none."""
    h, doc = word_hashes(texts)
    n = len(h)
    hashes, owners = np.empty(0, np.uint64), np.empty(0, np.int64)
    if n >= k:
        combined = h[: n - k + 1].copy()
        for j in range(1, k):  # position-dependent: "a b" and "b a" differ
            combined *= _GOLDEN
            combined += h[j:n - k + 1 + j]
        starts = doc[: n - k + 1]
        inside = starts == doc[k - 1:]  # the shingle stays within one document
        hashes, owners = _mix(combined[inside]), starts[inside]
    counts = np.bincount(doc, minlength=len(texts))
    short = np.flatnonzero((counts > 0) & (counts < k))
    if len(short):  # rare: documents of a handful of words get one shingle of all of them
        first = np.concatenate([[0], np.cumsum(counts)[:-1]])
        extra = h[first[short]].copy()
        for j in range(1, k - 1):
            present = j < counts[short]
            word = h[np.minimum(first[short] + j, n - 1)]
            extra = np.where(present, extra * _GOLDEN + word, extra)
        hashes = np.concatenate([hashes, _mix(extra)])
        owners = np.concatenate([owners, short])
        order = np.argsort(owners, kind="stable")
        hashes, owners = hashes[order], owners[order]
    return hashes, owners


VALUE_BITS = 23  # a slot holds (distance borrowed from << 23) | 23 bits of the shingle hash


def signatures(texts: pl.Series | list[str], config: MinHashConfig = MinHashConfig(),
               batch: int = 1_000) -> tuple[np.ndarray, np.ndarray]:
    """(signatures uint32 [docs, num_perm], distinct shingle count per document). A document
    without shingles has an all-``EMPTY`` signature. Texts are processed ``batch`` at a time:
    the per-byte and per-shingle arrays of a batch stay small (in cache, and memory flat)."""
    texts = texts if isinstance(texts, pl.Series) else pl.Series(texts, dtype=pl.String)
    if len(texts) <= batch:
        return _signatures(texts, config)
    # batches in threads: polars and numpy release the GIL in their loops, so the cores work
    # together; at most 4 at once (each batch's arrays take ~100 MB)
    with ThreadPoolExecutor(max_workers=min(os.cpu_count() or 1, 4)) as pool:
        parts = list(pool.map(lambda start: _signatures(texts.slice(start, batch), config),
                              range(0, len(texts), batch)))
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _signatures(texts: pl.Series, config: MinHashConfig) -> tuple[np.ndarray, np.ndarray]:
    n_docs, slots = len(texts), config.num_perm
    if slots > 256:
        raise ValueError("num_perm above 256 does not fit the slot encoding")
    hashes, docs = shingles(texts, config.shingle_words)
    distinct = np.zeros(n_docs, dtype=np.int64)
    if len(hashes):  # distinct shingles per document, for containment estimates
        counts = pl.DataFrame({"doc": docs, "h": hashes}).group_by("doc").agg(pl.col("h").n_unique())
        distinct[counts["doc"].to_numpy()] = counts["h"].to_numpy()
    hashes = _mix(hashes ^ np.uint64(config.seed) * _GOLDEN)
    slot = ((hashes >> np.uint64(32)) * np.uint64(slots)) >> np.uint64(32)  # high bits: the slot
    value = (hashes & np.uint64((1 << VALUE_BITS) - 1)).astype(np.uint32)  # low bits: the value
    out = np.full(n_docs * slots, EMPTY, dtype=np.uint32)
    np.minimum.at(out, docs * slots + slot.astype(np.int64), value)
    return _densify(out.reshape(n_docs, slots)), distinct


def _densify(sigs: np.ndarray) -> np.ndarray:
    """Fill each empty slot from the next filled one to its right (wrapping around), adding
    the distance to the value: two documents then agree in a filled-in slot only when they
    agree in the slot it came from and both are empty in between (rotation densification)."""
    n, slots = sigs.shape
    filled = sigs != EMPTY
    if filled.all() or not n:
        return sigs
    position = np.where(filled, np.arange(slots), 2 * slots)
    twice = np.concatenate([position, np.where(filled, np.arange(slots) + slots, 2 * slots)], axis=1)
    nearest = np.minimum.accumulate(twice[:, ::-1], axis=1)[:, ::-1][:, :slots]  # next filled
    distance = nearest - np.arange(slots)
    rows = np.arange(n)[:, None]
    borrowed = sigs[rows, nearest % slots] | (distance.astype(np.uint32) << np.uint32(VALUE_BITS))
    dense = np.where(filled, sigs, borrowed)
    return np.where(filled.any(axis=1, keepdims=True), dense, EMPTY).astype(np.uint32)


def band_keys(sigs: np.ndarray, config: MinHashConfig = MinHashConfig()) -> np.ndarray:
    """LSH band keys int64 [docs, bands]: a hash of each band's rows (signed for SQLite)."""
    rows = sigs.reshape(len(sigs), config.bands, config.rows).astype(np.uint64)
    key = np.zeros(rows.shape[:2], dtype=np.uint64)
    for r in range(config.rows):
        key = _mix(key * _GOLDEN + rows[:, :, r])
    return key.view(np.int64)


def jaccard(sig_a: np.ndarray, sig_b: np.ndarray) -> np.ndarray:
    """Estimated Jaccard similarity of row-aligned signature pairs (0 when either is empty)."""
    same = (sig_a == sig_b) & (sig_a != EMPTY)
    return same.mean(axis=-1)


def containment(j: np.ndarray, size_a: np.ndarray, size_b: np.ndarray) -> np.ndarray:
    """Estimated share of the smaller document's shingles found in the larger, from the
    Jaccard estimate and both sizes: |A n B| = J (|A| + |B|) / (1 + J)."""
    smaller = np.maximum(np.minimum(size_a, size_b), 1)
    return np.minimum(1.0, j * (size_a + size_b) / (1.0 + j) / smaller)
