"""BM25 search over a snapshot's articles (or a build's) with the date gate inside the query.

The gate (published_at < midnight UTC after day D, i.e. <= end of D) is a Must clause of the
same tantivy boolean query as the text terms, so tantivy ranks only visible documents and
"k results on day D" means the k best among documents visible on D, never a post-filtered
remainder of a global top-k.

On indexes of 100,000+ documents, query terms in more than a fifth of them are left out when
the remaining terms still find k visible documents (they carry little BM25 weight and cost most
of the time); otherwise every term counts, so k results come back whenever k visible documents
match.

Queries are never parsed: user text is run through the same analyzer as the index
(tantivy's built-in ``en_stem``) and turned into term queries, so no input can raise a
query-syntax error or smuggle in field or range operators.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path

import polars as pl
import tantivy
from tantivy import FieldType, Occur, Query

from pastcast.io import MANIFEST, locked, read_manifest, sha256_file, write_parquet
from pastcast.search.visibility import not_archive

INDEX_FORMAT = 2  # bump when the schema, analyzer or what is indexed changes; stale indexes get rebuilt
META_FILE = "pastcast_index.json"
TITLE_BOOST = 1.5  # a query term in the headline says more than one in the body
MAX_QUERY_TERMS = 64
# Query terms found in more than this share of a large index's documents are left out when the
# other terms still find k visible documents (the k-results guarantee holds either way).
FREQUENT_SHARE = 0.2
PRUNE_FROM_DOCS = 100_000
SNIPPET_CHARS = 240
_BATCH_ROWS = 20_000

# Mirrors tantivy's built-in "en_stem" tokenizer used for title and text, so query terms
# are exactly the indexed terms (the question filter compares stems with it too).
ANALYZER = (
    tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
    .filter(tantivy.Filter.remove_long(40))
    .filter(tantivy.Filter.lowercase())
    .filter(tantivy.Filter.stemmer("english"))
    .build()
)


@dataclass(frozen=True)
class Hit:
    article_id: str
    title: str
    published_at: datetime
    score: float
    snippet: str
    text: str = field(default="", repr=False)  # full body, for agents that read articles


def _schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("article_id", stored=True, tokenizer_name="raw")
    sb.add_text_field("title", stored=True, tokenizer_name="en_stem")
    sb.add_text_field("text", stored=True, tokenizer_name="en_stem")
    sb.add_date_field("published_at", stored=True, indexed=True, fast=True)
    return sb.build()


def end_of_day_exclusive(day: date) -> datetime:
    """Midnight UTC starting the day after ``day``: visible means published strictly before it."""
    return datetime.combine(day + timedelta(days=1), time(0), tzinfo=timezone.utc)


def query_terms(text: str) -> list[str]:
    """Analyzed, de-duplicated terms of free text, in first-seen order."""
    return list(dict.fromkeys(ANALYZER.analyze(text or "")))[:MAX_QUERY_TERMS]


def _searchable(articles: pl.DataFrame | pl.LazyFrame):
    """The articles the gate can place: dated, and not archive pages. An archive page (crawled
    over ``CURRENT_NEWS_DAYS`` after its stated date) is kept in the corpus with its true date,
    but its text is the text at crawl time, which may carry later edits (and its date may be a
    template's default): served from its stated date it could show later news early."""
    columns = articles.collect_schema().names() if isinstance(articles, pl.LazyFrame) else articles.columns
    return articles.filter(pl.col("published_at").is_not_null() & not_archive(columns))


def _batches(articles: pl.DataFrame | pl.LazyFrame) -> Iterator[pl.DataFrame]:
    cols = ["article_id", "title", "text", "published_at"]
    if isinstance(articles, pl.DataFrame):
        yield from _searchable(articles).select(cols).iter_slices(_BATCH_ROWS)
        return
    # Streaming batches keep memory flat on a month of articles.
    yield from _searchable(articles).select(cols).collect_batches(chunk_size=_BATCH_ROWS)


def _top(searcher, query, k: int) -> list[tuple[float, object, object]]:
    """The ``k`` best (score, address, document), best first, equal scores in article-id order:
    which of several equally scored documents make the cut must not depend on how the index
    was laid out (tantivy orders ties by segment and address, which differ between builds)."""
    limit = 2 * k
    while True:
        hits = searcher.search(query, limit=limit, count=False).hits
        if len(hits) < limit or hits[k - 1][0] > hits[-1][0]:
            break  # every document tied with the k-th is in hand
        limit *= 4
    if len(hits) > k:
        boundary = hits[k - 1][0]
        hits = [h for h in hits if h[0] >= boundary]
    docs = [(score, address, searcher.doc(address)) for score, address in hits]
    docs.sort(key=lambda d: (-d[0], d[2].get_first("article_id")))
    return docs[:k]


def _add(writer, articles: pl.DataFrame | pl.LazyFrame) -> int:
    n = 0
    for batch in _batches(articles):
        for aid, title, text, published in batch.iter_rows():
            writer.add_document(tantivy.Document(article_id=aid, title=title or "", text=text or "",
                                                 published_at=published.astimezone(timezone.utc)))
            n += 1
    return n


class ArticleIndex:
    def __init__(self, index: tantivy.Index, path: Path):
        self._index = index
        self._schema = index.schema
        self.path = path

    @classmethod
    def build(cls, articles: pl.DataFrame | pl.LazyFrame, path: str | os.PathLike, meta: dict | None = None) -> ArticleIndex:
        """Index ``articles`` into ``path`` (created; must not hold another index).

        Articles without a publication time are left out: they could never pass the gate.
        """
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        index = tantivy.Index(_schema(), path=str(path), reuse=False)
        writer = index.writer(heap_size=128_000_000)
        n = _add(writer, articles)
        writer.commit()
        writer.wait_merging_threads()
        (path / META_FILE).write_text(json.dumps({"format": INDEX_FORMAT, "documents": n, **(meta or {})}))
        index.reload()
        return cls(index, path)

    @classmethod
    def open(cls, path: str | os.PathLike) -> ArticleIndex:
        path = Path(path)
        if not _exists(path):
            raise FileNotFoundError(f"no article index at {path}")
        return cls(tantivy.Index.open(str(path)), path)

    @property
    def meta(self) -> dict:
        f = self.path / META_FILE
        return json.loads(f.read_text()) if f.exists() else {}

    def __len__(self) -> int:
        return self._index.searcher().num_docs

    def _gate(self, as_of: date, since: date | None = None) -> Query:
        """Published before the end of ``as_of`` (UTC) and, with ``since``, on or after its start."""
        lower = {} if since is None else {"lower_bound": end_of_day_exclusive(since - timedelta(days=1)),
                                          "include_lower": True}
        return Query.range_query(self._schema, "published_at", FieldType.Date,
                                 upper_bound=end_of_day_exclusive(as_of), include_upper=False, **lower)

    def _gated_query(self, terms: list[str], as_of: date, since: date | None = None) -> Query:
        text_q = Query.boolean_query(
            [(Occur.Should, Query.boost_query(Query.term_query(self._schema, "title", t), TITLE_BOOST)) for t in terms]
            + [(Occur.Should, Query.term_query(self._schema, "text", t)) for t in terms]
        )
        # const score 0: the gate filters, it must not add to the BM25 score.
        return Query.boolean_query([(Occur.Must, Query.const_score_query(self._gate(as_of, since), 0.0)),
                                    (Occur.Must, text_q)])

    def count_published(self, since: date, through: date) -> int:
        """How many indexed documents were published from the start of ``since`` to the end
        of ``through`` (UTC days): what became visible over those days."""
        if through < since:
            return 0
        return self._index.searcher().search(self._gate(through, since), limit=1, count=True).count

    def _selective(self, searcher, terms: list[str]) -> list[str]:
        """On a large index, the terms found in at most ``FREQUENT_SHARE`` of its documents
        (all of them when none is that selective). Such frequent terms weigh little in BM25,
        but the date gate makes tantivy walk their long posting lists (p99 17.5 -> 8.9 ms at 1M
        articles, bench/README.md)."""
        n = searcher.num_docs
        if n < PRUNE_FROM_DOCS:
            return terms
        keep = [t for t in terms if searcher.doc_freq("text", t) <= FREQUENT_SHARE * n]
        return keep or terms

    def search(self, query: str, as_of: date, k: int = 10, snippets: bool = True,
               since: date | None = None) -> list[Hit]:
        """The ``k`` best BM25 matches among articles published on or before ``as_of`` (UTC)
        and, with ``since``, on or after it (both gates apply before the top ``k``).
        ``snippets=False`` skips the highlighted snippets (a fifth of the time) for callers that
        read the whole text."""
        if isinstance(as_of, datetime):  # a datetime is a date subclass; gate on its UTC day
            as_of = as_of.astimezone(timezone.utc).date() if as_of.tzinfo else as_of.date()
        terms = query_terms(query)
        if not terms or k <= 0:
            return []
        searcher = self._index.searcher()
        q = self._gated_query(terms, as_of, since)
        selective = self._selective(searcher, terms)
        found = None
        if selective != terms:  # the frequent terms only slow the gated search down ...
            pruned = self._gated_query(selective, as_of, since)
            found = _top(searcher, pruned, k)
            if len(found) == k:
                q = pruned
            else:  # ... unless the others find fewer than k: then every term counts
                found = None
        if found is None:
            found = _top(searcher, q, k)
        generator = None
        if snippets:
            generator = tantivy.SnippetGenerator.create(searcher, q, self._schema, "text")
            generator.set_max_num_chars(SNIPPET_CHARS)
        hits = []
        for score, address, doc in found:
            text = doc.get_first("text") or ""
            fragment = generator.snippet_from_doc(doc).fragment() if generator else ""
            snippet = fragment or text[:SNIPPET_CHARS]
            hits.append(
                Hit(
                    article_id=doc.get_first("article_id"),
                    title=doc.get_first("title") or "",
                    published_at=doc.get_first("published_at"),
                    score=float(score),
                    snippet=snippet,
                    text=text,
                )
            )
        return hits


def _exists(path: Path) -> bool:
    return path.is_dir() and tantivy.Index.exists(str(path))  # exists() raises on a missing dir


# Posts are searched like articles: a post is visible from its created_at on.
SEARCHABLE = {"articles": "index", "posts": "index-posts"}  # table -> index folder in the snapshot


def _documents(snapshot_dir: Path, table: str) -> pl.LazyFrame:
    frame = pl.scan_parquet(snapshot_dir / f"{table}.parquet")
    if table == "posts":
        return frame.select(pl.col("post_id").alias("article_id"),
                            pl.concat_str(pl.col("platform"), pl.col("kind"), pl.col("community"),
                                          separator=" ", ignore_nulls=True).alias("title"),
                            "text", pl.col("created_at").alias("published_at"))
    return frame


def _stated_digest(snapshot_dir: Path, table: str) -> str | None:
    """The table's sha256 as the snapshot's manifest states it (None without one)."""
    manifest = read_manifest(snapshot_dir) if (snapshot_dir / MANIFEST).is_file() else {}
    return ((manifest.get("tables") or {}).get(table) or {}).get("sha256")


def _fingerprint(snapshot_dir: Path, table: str = "articles") -> str:
    """Identifies a table: the manifest's sha256 when present, else size and mtime."""
    digest = _stated_digest(snapshot_dir, table)
    if not digest:
        st = (snapshot_dir / f"{table}.parquet").stat()
        digest = f"{st.st_size}:{st.st_mtime_ns}"
    return f"{INDEX_FORMAT}:{table}:{digest}" if table != "articles" else f"{INDEX_FORMAT}:{digest}"


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
    cache, keyed by the table's sha256, and opened from there.
    """
    snapshot_dir = Path(snapshot_dir)
    source = snapshot_dir / f"{table}.parquet"
    if trust_snapshot_copy:
        fingerprint = _fingerprint(snapshot_dir, table)
    else:  # keyed by the bytes indexed, which must be the manifest's
        digest = sha256_file(source)
        stated = _stated_digest(snapshot_dir, table)
        if stated and digest != stated:
            raise ValueError(f"{snapshot_dir}: {table} ({source.name}) differs from the manifest (sha256): "
                             f"not indexed")
        fingerprint = f"{INDEX_FORMAT}:{table}:{digest}"
    local = snapshot_dir / SEARCHABLE[table]
    cached = Path(cache_dir or default_cache_dir()) / hashlib.sha256(
        f"{snapshot_dir.resolve()}|{fingerprint}".encode()
    ).hexdigest()[:24]
    for candidate in ((local, cached) if trust_snapshot_copy else (cached,)):
        if _is_current(candidate, fingerprint):
            return ArticleIndex.open(candidate)
    target = local if trust_snapshot_copy and _writable(snapshot_dir) else cached
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".index-", dir=target.parent))
    try:
        ArticleIndex.build(_documents(snapshot_dir, table), tmp, meta={"fingerprint": fingerprint})
        if not trust_snapshot_copy and sha256_file(source) != digest:  # changed while it was read
            raise ValueError(f"{snapshot_dir}: {table} ({source.name}) changed while it was indexed: not indexed")
        if not _is_current(target, fingerprint):  # else a concurrent builder won: keep theirs
            if target.exists():  # stale
                shutil.rmtree(target)
            try:
                os.replace(tmp, target)
            except OSError:
                if not _is_current(target, fingerprint):
                    raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return ArticleIndex.open(target)


INDEXED = "indexed.parquet"  # beside an updatable index: each document's id and content key


def _keys(articles: pl.LazyFrame) -> pl.LazyFrame:
    """(article_id, key): the key changes when anything indexed about the article does."""
    return (_searchable(articles)
            .select("article_id", pl.struct("title", "text", "published_at").hash().alias("key")))


def update_or_build(folder: str | os.PathLike) -> ArticleIndex:
    """The index of ``folder/articles.parquet`` in ``folder/index``, brought up to date by
    adding only the articles it lacks (a new day's), instead of indexing every article again.
    Built whole when absent, of another format, or when an indexed article changed or went
    (rare: a day built again, a copy displaced by an earlier one): tantivy keeps a deleted
    document in its BM25 statistics until segments merge, and an updated index must score
    exactly like a fresh one. The index is marked stale before it is touched and current only
    after the commit, so an interrupted update is rebuilt next time; updates take turns."""
    folder = Path(folder)
    target = folder / SEARCHABLE["articles"]
    with locked(folder / ".index.lock"):
        fingerprint = _fingerprint(folder)
        if _is_current(target, fingerprint) and (target / INDEXED).is_file():
            return ArticleIndex.open(target)
        articles = pl.scan_parquet(folder / "articles.parquet")
        new = _keys(articles).collect(engine="streaming")  # ids and hashes only, texts streamed
        meta_file = target / META_FILE
        meta = json.loads(meta_file.read_text()) if meta_file.is_file() else {}
        old = pl.read_parquet(target / INDEXED) if (target / INDEXED).is_file() else None
        gone = old.join(new, on=["article_id", "key"], how="anti").height if old is not None else None
        if not (_exists(target) and meta.get("format") == INDEX_FORMAT and gone == 0):
            shutil.rmtree(target, ignore_errors=True)
            ArticleIndex.build(articles, target, meta={"fingerprint": fingerprint, "updated": None})
            write_parquet(new, target / INDEXED)
            return ArticleIndex.open(target)
        added = new.join(old, on=["article_id", "key"], how="anti").select("article_id")
        meta_file.unlink()  # stale until committed
        index = tantivy.Index.open(str(target))
        writer = index.writer(heap_size=128_000_000)
        _add(writer, articles.join(added.lazy(), on="article_id", how="semi"))
        writer.commit()
        writer.wait_merging_threads()
        write_parquet(new, target / INDEXED)
        meta_file.write_text(json.dumps({"format": INDEX_FORMAT, "documents": new.height, "fingerprint": fingerprint,
                                         "updated": {"added": added.height}}))
        return ArticleIndex.open(target)
