"""Proof that a search index holds exactly a verified table's documents, and the check every
served hit passes against that table.

The evaluator keeps its indexes in the user's cache, which an agent run as the same user can
write: a metadata file, a key or a digest stored there proves nothing. So the proof is made
again on every open, from both sides: one digest a document of the table (its id, its
publication time to the microsecond, its title and text, as they are indexed), computed from
bytes whose sha256 matched the manifest, and one a stored document of the index; the index is
served only when the two collections are equal. Then, because the index's files stay writable
while they are mapped, every hit is checked again at query time against the table's date and
digest: a file changed after the proof can at worst change the ranking, never serve an article
early or a text the table does not hold.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime, timedelta, timezone

import numpy as np
import polars as pl
from tantivy import Query

DIGEST_BYTES = 16  # blake2b-128: a forged text that collides is out of reach, unlike a 64-bit hash
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)


def micros(moment: datetime) -> int:
    """A UTC instant as microseconds since the epoch (a naive one is taken as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return (moment - _EPOCH) // _MICROSECOND


def document_digest(article_id: str, published_us: int, title: str, text: str) -> bytes:
    """What identifies a served document: its publication time, its fields' lengths in bytes,
    then the fields (``_encoded`` builds the same bytes for a whole table at once)."""
    aid, head, body = article_id.encode(), title.encode(), text.encode()
    lengths = f"{published_us}:{len(aid)}:{len(head)}:{len(body)}:".encode()
    return hashlib.blake2b(b"".join((lengths, aid, head, body)), digest_size=DIGEST_BYTES).digest()


def _encoded(batch: pl.DataFrame) -> pl.Series:
    """``document_digest``'s bytes of every row of (article_id, title, text, published_at),
    made by polars: a Python loop then only hashes them."""
    fields = [pl.col(c).fill_null("") for c in ("article_id", "title", "text")]
    lengths = [pl.col("published_at").dt.epoch("us"), *(f.str.len_bytes() for f in fields)]
    parts = [piece for value in lengths for piece in (value.cast(pl.String), pl.lit(":"))]
    return batch.select(pl.concat_str(*parts, *fields).cast(pl.Binary))[:, 0]


def stored_document(doc) -> tuple[str, int, str, str]:
    """(id, published µs, title, text) of a tantivy document as the index stores and serves it."""
    published = doc.get_first("published_at")
    return (doc.get_first("article_id") or "", micros(published) if published is not None else -(2**63),
            doc.get_first("title") or "", doc.get_first("text") or "")


class DocumentDigests:
    """A collection of documents as (id, publication µs, digest), looked up by id."""

    def __init__(self, ids: list[str], published: list[int], digests: list[bytes]):
        keys = np.array([i.encode() for i in ids], dtype=np.bytes_)  # UTF-8 bytes: compact, ordered like str
        order = np.argsort(keys, kind="stable")
        self._ids = keys[order]
        self._published = np.array(published, dtype=np.int64)[order]
        self._digests = np.frombuffer(b"".join(digests), dtype=np.uint8).reshape(-1, DIGEST_BYTES)[order]
        self._by_time = np.sort(self._published)

    def __len__(self) -> int:
        return len(self._published)

    @classmethod
    def of_documents(cls, batches: Iterable[pl.DataFrame]) -> DocumentDigests:
        """From frames of (article_id, title, text, published_at): the rows an index is built of."""
        ids, published, digests = [], [], []
        for batch in batches:
            ids.extend(batch["article_id"].to_list())
            published.extend(batch["published_at"].dt.epoch("us").to_list())
            digests.extend(hashlib.blake2b(data, digest_size=DIGEST_BYTES).digest() for data in _encoded(batch))
        return cls(ids, published, digests)

    @classmethod
    def of_index(cls, searcher) -> DocumentDigests:
        """From every live document an index's searcher holds, as it would serve them."""
        ids, published, digests = [], [], []
        if searcher.num_docs:
            for _, address in searcher.search(Query.all_query(), limit=searcher.num_docs, count=False).hits:
                aid, us, title, text = stored_document(searcher.doc(address))
                ids.append(aid)
                published.append(us)
                digests.append(document_digest(aid, us, title, text))
        return cls(ids, published, digests)

    def _sorted_digests(self) -> np.ndarray:
        return np.sort(self._digests.view(f"V{DIGEST_BYTES}").ravel()) if len(self) else self._digests

    def difference(self, other: DocumentDigests) -> str | None:
        """None when both hold the same documents; else what differs, in a few words."""
        if len(self) == len(other) and np.array_equal(self._sorted_digests(), other._sorted_digests()):
            return None
        mine = {bytes(d) for d in self._digests}
        theirs = {bytes(d) for d in other._digests}
        return (f"{len(theirs - mine)} of its {len(other)} documents are not the table's and "
                f"{len(mine - theirs)} of the table's {len(self)} are missing")

    def admits(self, doc, lower_us: int | None, upper_us: int) -> bool:
        """True when ``doc`` (a stored tantivy document) is a document of this collection,
        unchanged, published in [lower_us, upper_us) by this collection's date."""
        aid, us, title, text = stored_document(doc)
        key = aid.encode()
        digest = document_digest(aid, us, title, text)
        at = int(np.searchsorted(self._ids, key))
        while at < len(self._ids) and self._ids[at] == key:  # more than one only if ids repeat
            published = int(self._published[at])
            if bytes(self._digests[at]) == digest and published < upper_us and (lower_us is None or published >= lower_us):
                return True
            at += 1
        return False

    def count(self, lower_us: int, upper_us: int) -> int:
        """How many documents were published in [lower_us, upper_us)."""
        return int(np.searchsorted(self._by_time, upper_us, "left") - np.searchsorted(self._by_time, lower_us, "left"))
