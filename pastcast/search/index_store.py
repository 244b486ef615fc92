"""Where a search index lives, and when one may be opened: a snapshot's index in its folder
or in the user's cache (``open_or_build``, the evaluator's proven against the verified table
on every open), and the pipeline's updatable index of a build's work folder
(``update_or_build``). The index itself, its analyzer and its date-gated search are
``pastcast.search.index``."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tempfile
from pathlib import Path

import polars as pl

from pastcast.io import MANIFEST, locked, read_manifest, warn, write_parquet
from pastcast.schemas import ARTICLES, TABLES, scan_parts
from pastcast.search.index import (INDEX_FORMAT, META_FILE, ArticleIndex, _add, _batches, _exists, _searchable,
                                   _tantivy_index)
from pastcast.search.index_proof import DocumentDigests
from pastcast.store import scan_table, table_files


# Posts are searched like articles: a post is visible from its created_at on.
SEARCHABLE = {"articles": "index", "posts": "index-posts"}  # table -> index folder in the snapshot


def _documents(snapshot_dir: Path, table: str, files: list[Path] | None = None) -> pl.LazyFrame:
    """The table's rows as documents to index (``files``: only those of its parts)."""
    frame = scan_table(snapshot_dir, table) if files is None else scan_parts(files, TABLES[table])
    return _as_documents(frame, table)


def _as_documents(frame: pl.LazyFrame, table: str) -> pl.LazyFrame:
    """Rows of ``table`` as (article_id, title, text, published_at, ...) documents."""
    if table == "posts":
        return frame.select(pl.col("post_id").alias("article_id"),
                            pl.concat_str(pl.col("platform"), pl.col("kind"), pl.col("community"),
                                          separator=" ", ignore_nulls=True).alias("title"),
                            "text", pl.col("created_at").alias("published_at"))
    return frame


def _manifest(snapshot_dir: Path) -> dict:
    return read_manifest(snapshot_dir) if (snapshot_dir / MANIFEST).is_file() else {}


def _stated_digest(snapshot_dir: Path, table: str) -> str | None:
    """The table's sha256 as the snapshot's manifest states it (None without one)."""
    return ((_manifest(snapshot_dir).get("tables") or {}).get(table) or {}).get("sha256")


def _stated_parts(snapshot_dir: Path, table: str) -> list[dict] | None:
    """The table's parts as the manifest lists them (None: a table stored as one file)."""
    info = (_manifest(snapshot_dir).get("tables") or {}).get(table) or {}
    return list(info["parts"]) if "parts" in info else None


def _fingerprint(snapshot_dir: Path, table: str = "articles") -> str:
    """Identifies a table: the manifest's sha256 when present, else sizes and mtimes."""
    digest = _stated_digest(snapshot_dir, table)
    if not digest:
        digest = ",".join(f"{st.st_size}:{st.st_mtime_ns}" for st in (f.stat() for f in table_files(snapshot_dir, table)))
    return f"{INDEX_FORMAT}:{table}:{digest}" if table != "articles" else f"{INDEX_FORMAT}:{digest}"


def _verified_documents(snapshot_dir: Path, table: str) -> tuple[str, DocumentDigests]:
    """The table's sha256 and the digests of the documents it gives the index, both from the
    same bytes: each file (every part, or the one file) is read once, proved against the
    manifest, and only then read as rows, so no file swapped in between can be indexed as the
    verified table. A ValueError naming the table and file when one differs or cannot be read."""
    parts = _stated_parts(snapshot_dir, table)
    if parts is None:
        (source,) = table_files(snapshot_dir, table) or [snapshot_dir / f"{table}.parquet"]
        files = [(source, _stated_digest(snapshot_dir, table), f"{table} ({source.name})")]
    else:
        files = [(snapshot_dir.parent / p["path"], p["sha256"], f"{table} part {p['key']}") for p in parts]
    whole = []

    def batches():
        for path, stated, name in files:
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise ValueError(f"{snapshot_dir}: {name} cannot be read ({exc.strerror}): not indexed") from None
            digest = hashlib.sha256(data).hexdigest()
            if stated and digest != stated:
                raise ValueError(f"{snapshot_dir}: {name} differs from the manifest (sha256): not indexed")
            whole.append(digest)
            rows = pl.scan_parquet(io.BytesIO(data), schema=dict(TABLES[table]), missing_columns="insert",
                                   extra_columns="ignore")
            yield from _batches(_as_documents(rows, table))

    documents = DocumentDigests.of_documents(batches())
    return (whole[0] if parts is None else _stated_digest(snapshot_dir, table)), documents


def _cache_slot(cache_dir: Path, snapshot_dir: Path, fingerprint: str) -> Path:
    return cache_dir / hashlib.sha256(f"{snapshot_dir.resolve()}|{fingerprint}".encode()).hexdigest()[:24]


def _parent_index(snapshot_dir: Path, table: str, cache_dir: Path, trusted_local: bool) -> tuple[Path, set[str]] | None:
    """A current index of the parent version whose parts are all parts of this version: the
    base a version's index grows from (its new days added). None when there is none."""
    parent = _manifest(snapshot_dir).get("parent_version")
    ours = _stated_parts(snapshot_dir, table)
    parent_dir = snapshot_dir.parent / parent if parent else None
    if ours is None or parent_dir is None or not (parent_dir / MANIFEST).is_file():
        return None
    stated = _stated_digest(parent_dir, table)
    candidates = [_cache_slot(cache_dir, parent_dir, f"{INDEX_FORMAT}:{table}:{stated}")]
    if trusted_local:
        candidates.insert(0, parent_dir / SEARCHABLE[table])
    mine = {p["path"] for p in ours}
    for path in candidates:
        try:
            meta = json.loads((path / META_FILE).read_text())
        except (OSError, ValueError):
            continue
        indexed = set(meta.get("parts") or [])
        if _exists(path) and meta.get("format") == INDEX_FORMAT and indexed and indexed <= mine:
            return path, indexed
    return None


def _grow(base: Path, tmp: Path, snapshot_dir: Path, table: str, indexed: set[str]) -> int:
    """The parent's index in ``tmp`` (its immutable segment files linked, not copied) with the
    documents of the parts it lacks added as a new segment: as a fresh index would score, since
    nothing is deleted."""
    for item in base.iterdir():
        if item.is_file() and not item.name.startswith(".tantivy") and item.name != META_FILE:
            try:
                os.link(item, tmp / item.name)
            except OSError:  # another file system: copy
                shutil.copyfile(item, tmp / item.name)
    new = [snapshot_dir.parent / p["path"] for p in _stated_parts(snapshot_dir, table) if p["path"] not in indexed]
    index = _tantivy_index(tmp)
    writer = index.writer(heap_size=128_000_000)
    added = _add(writer, _documents(snapshot_dir, table, new)) if new else 0
    writer.commit()
    writer.wait_merging_threads()
    return added


def _is_current(path: Path, fingerprint: str) -> bool:
    try:
        return _exists(path) and json.loads((path / META_FILE).read_text()).get("fingerprint") == fingerprint
    except (OSError, ValueError):
        return False


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK)


def default_cache_dir() -> Path:
    base = os.environ.get("PASTCAST_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "pastcast")
    return Path(base) / "indexes"


def open_or_build(snapshot_dir: str | os.PathLike, cache_dir: str | os.PathLike | None = None,
                  table: str = "articles", trust_snapshot_copy: bool = True) -> ArticleIndex:
    """Open the snapshot's index of ``table`` (articles or posts), building it first if absent
    or stale.

    It lives in ``<snapshot_dir>/index/`` (posts: ``index-posts/``) when that folder can be
    written, else under
    ``cache_dir`` (default ``$PASTCAST_CACHE/indexes`` or ``~/.cache/pastcast/indexes``)
    keyed by the articles' fingerprint. Builds go to a temporary sibling folder and are
    renamed into place, so a crash or a concurrent build never leaves a half index behind.

    ``trust_snapshot_copy=False`` (the evaluator) never opens the copy inside the snapshot
    folder: the manifest does not cover it, and an index rebuilt there with a re-dated article
    would serve it early. The index is then built from the (verified) table into the user's
    cache, keyed by the table's sha256, and served only once proven to hold exactly the
    verified table's documents (``index_proof``): the cache is writable by whoever runs as
    the user, an agent included, so an index found there that is not the table's is built
    again (with a warning naming its folder), one grown from a parent's cached index too, and
    every hit is checked against the table again when served.
    """
    snapshot_dir = Path(snapshot_dir)
    cache_dir = Path(cache_dir or default_cache_dir())
    if trust_snapshot_copy:
        fingerprint = _fingerprint(snapshot_dir, table)
        local = snapshot_dir / SEARCHABLE[table]
        cached = _cache_slot(cache_dir, snapshot_dir, fingerprint)
        for candidate in (local, cached):
            if _is_current(candidate, fingerprint):
                return ArticleIndex.open(candidate)
        target = local if _writable(snapshot_dir) else cached
        _build_into(target, snapshot_dir, table, fingerprint, _parent_index(snapshot_dir, table, cache_dir, True))
        return ArticleIndex.open(target)
    # keyed by the bytes indexed, which must be the manifest's
    digest, documents = _verified_documents(snapshot_dir, table)
    fingerprint = f"{INDEX_FORMAT}:{table}:{digest}"
    target = _cache_slot(cache_dir, snapshot_dir, fingerprint)
    replace = False
    if _is_current(target, fingerprint):
        index = _proven(target, documents)
        if index is not None:
            return index
        replace = True  # not what its metadata claims: never kept as a concurrent builder's
    base = _parent_index(snapshot_dir, table, cache_dir, False)
    for parent in ([base, None] if base is not None else [None]):
        _build_into(target, snapshot_dir, table, fingerprint, parent, replace)
        index = _proven(target, documents)
        if index is not None:
            return index
        replace = True  # grown from a parent's index that was not its table's: built afresh
    raise ValueError(f"{target}: the {table} index built from {snapshot_dir} does not hold the verified "
                     "table (was it changed while it was indexed?): not served")


def _proven(path: Path, documents: DocumentDigests) -> ArticleIndex | None:
    """The index at ``path`` when its stored documents are exactly ``documents`` (its reader
    kept at the segments proven), else None with a warning naming the folder."""
    try:
        index = _tantivy_index(path, frozen=True)
        held = DocumentDigests.of_index(index.searcher())
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - tantivy panics on some damaged files (a BaseException)
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        warn(f"{path}: the cached search index cannot be read ({reason}): built again from the verified table")
        return None
    difference = documents.difference(held)
    if difference is not None:
        warn(f"{path}: the cached search index is not the verified table's ({difference}): built again")
        return None
    return ArticleIndex(index, path, documents)


def _build_into(target: Path, snapshot_dir: Path, table: str, fingerprint: str,
                base: tuple[Path, set[str]] | None, replace: bool = False) -> None:
    """Build the index in a temporary sibling of ``target`` (grown from ``base``, a parent's
    index, when given) and rename it into place; a current index a concurrent builder put there
    first is kept unless ``replace``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".index-", dir=target.parent))
    try:
        parts = _stated_parts(snapshot_dir, table)
        meta = {"fingerprint": fingerprint, "parts": sorted(p["path"] for p in parts) if parts else None}
        if base is not None:  # the parent's index, plus this version's new days
            added = _grow(base[0], tmp, snapshot_dir, table, base[1])
            documents = _tantivy_index(tmp).searcher().num_docs
            (tmp / META_FILE).write_text(json.dumps({"format": INDEX_FORMAT, "documents": documents, **meta,
                                                     "grown_from": str(base[0]), "added": added}))
        else:
            ArticleIndex.build(_documents(snapshot_dir, table), tmp, meta=meta)
        if replace or not _is_current(target, fingerprint):  # else a concurrent builder won: keep theirs
            if target.is_symlink() or target.is_file():  # never followed: removed itself
                target.unlink()
            elif target.exists():  # stale
                shutil.rmtree(target)
            try:
                os.replace(tmp, target)
            except OSError:
                if not _is_current(target, fingerprint):
                    raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


INDEXED = "indexed"  # beside an updatable index: a file a part, each document's id and content key


def _keys(articles: pl.LazyFrame) -> pl.LazyFrame:
    """(article_id, key): the key changes when anything indexed about the article does."""
    return (_searchable(articles)
            .select("article_id", pl.struct("title", "text", "published_at").hash().alias("key")))


def _parts_fingerprint(parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(f"{p.key}\t{p.sha256}\n".encode())
    return f"{INDEX_FORMAT}:parts:{h.hexdigest()}"


def _keys_file(target: Path, key: str) -> Path:
    return target / INDEXED / f"{key}.parquet"


def update_or_build(folder: str | os.PathLike, parts) -> ArticleIndex:
    """The index of a table held in ``parts`` (each with ``key``, ``path`` and ``sha256``: a
    build's gathered days) in ``folder/index``, brought up to date by reading only the parts that
    changed since it was last updated and adding the articles it lacks (a new day's), instead of
    indexing every article again. Built whole when absent, of another format, or when an indexed
    article changed or went (rare: a day built again, a copy displaced by an earlier one):
    tantivy keeps a deleted document in its BM25 statistics until segments merge, and an updated
    index must score exactly like a fresh one. The index is marked stale before it is touched
    and current only after the commit, so an interrupted update is rebuilt next time; updates
    take turns."""
    folder = Path(folder)
    parts = list(parts)
    target = folder / SEARCHABLE["articles"]
    with locked(folder / ".index.lock"):
        fingerprint = _parts_fingerprint(parts)
        if _is_current(target, fingerprint):
            return ArticleIndex.open(target)
        meta_file = target / META_FILE
        try:
            meta = json.loads(meta_file.read_text()) if meta_file.is_file() else {}
        except ValueError:
            meta = {}
        indexed = meta.get("parts") or {}
        usable = _exists(target) and meta.get("format") == INDEX_FORMAT and isinstance(indexed, dict) and all(
            _keys_file(target, k).is_file() for k in indexed)
        changed = [p for p in parts if indexed.get(p.key) != p.sha256] if usable else parts
        left = set(indexed) - {p.key for p in parts}
        new = {p.key: _keys(scan_parts([p.path], ARTICLES)).collect() for p in changed}
        added = None
        if usable:
            old = [pl.read_parquet(_keys_file(target, k)) for k in [*(p.key for p in changed if p.key in indexed), *left]]
            old = pl.concat(old) if old else pl.DataFrame(schema={"article_id": pl.String, "key": pl.UInt64})
            fresh = pl.concat(list(new.values())) if new else old.clear()
            if old.join(fresh, on=["article_id", "key"], how="anti").height == 0:
                added = fresh.join(old, on=["article_id", "key"], how="anti").select("article_id")
        meta_file.unlink(missing_ok=True)  # stale until committed
        if added is None:
            shutil.rmtree(target, ignore_errors=True)
            ArticleIndex.build(scan_parts([p.path for p in parts], ARTICLES) if parts else
                               pl.LazyFrame(schema=ARTICLES), target)
            new.update({p.key: _keys(scan_parts([p.path], ARTICLES)).collect() for p in parts if p.key not in new})
            shutil.rmtree(target / INDEXED, ignore_errors=True)
            updated = None
        else:
            index = _tantivy_index(target)
            writer = index.writer(heap_size=128_000_000)
            sources = [p.path for p in changed]
            if sources and added.height:
                _add(writer, scan_parts(sources, ARTICLES).join(added.lazy(), on="article_id", how="semi"))
            writer.commit()
            writer.wait_merging_threads()
            updated = {"added": added.height, "parts_read": len(changed)}
        for key in left:
            _keys_file(target, key).unlink(missing_ok=True)
        for key, frame in new.items():
            write_parquet(frame, _keys_file(target, key))
        meta_file.write_text(json.dumps({"format": INDEX_FORMAT, "fingerprint": fingerprint,
                                         "documents": _tantivy_index(target).searcher().num_docs,
                                         "parts": {p.key: p.sha256 for p in parts}, "updated": updated}))
        return ArticleIndex.open(target)
