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
import io
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path

import polars as pl
import tantivy
from tantivy import FieldType, Occur, Query

from pastcast.io import MANIFEST, locked, read_manifest, write_parquet
from pastcast.schemas import ARTICLES, TABLES, scan_parts
from pastcast.store import scan_table, table_files
from pastcast.text.normalise import IDEOGRAPHIC, SEGMENTED
from pastcast.search.index_proof import DocumentDigests, micros
from pastcast.search.visibility import not_archive

INDEX_FORMAT = 4  # bump when the schema, analyzer or what is indexed changes; stale indexes get rebuilt
# (4: a term per character in scripts written without spaces)
META_FILE = "pastcast_index.json"
TITLE_BOOST = 1.5  # a query term in the headline says more than one in the body
MAX_QUERY_TERMS = 64
# Query terms found in more than this share of a large index's documents are left out when the
# other terms still find k visible documents (the k-results guarantee holds either way).
FREQUENT_SHARE = 0.2
PRUNE_FROM_DOCS = 100_000
SNIPPET_CHARS = 240
ID_ORDER = "id_order"  # fast field: orders equally scored documents without fetching them
_BATCH_ROWS = 20_000

# Words as tantivy's "en_stem" makes them (runs of letters and digits, lower case, English stems),
# except in scripts written without spaces, where every character is a term of its own (as
# ``pastcast.text.normalise`` tokens them): a run of Chinese characters as one term is found only
# whole, and one over 40 bytes (14 characters) is not indexed at all. Registered on every index
# as ``TOKENIZER``; queries are analyzed with it too, so query terms are exactly the indexed terms
# (the question filter compares stems with it too).
TOKENIZER = "pastcast_text"
_TERMS = f"[{IDEOGRAPHIC}{SEGMENTED}]|[[^\\W_]--[{IDEOGRAPHIC}{SEGMENTED}]]+"  # Rust regex: class difference


def _analyzer(drop_long: bool = True):
    builder = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(_TERMS))
    if drop_long:
        builder = builder.filter(tantivy.Filter.remove_long(40))
    return builder.filter(tantivy.Filter.lowercase()).filter(tantivy.Filter.stemmer("english")).build()


ANALYZER = _analyzer()


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
    sb.add_text_field("title", stored=True, tokenizer_name=TOKENIZER)
    sb.add_text_field("text", stored=True, tokenizer_name=TOKENIZER)
    sb.add_date_field("published_at", stored=True, indexed=True, fast=True)
    sb.add_unsigned_field(ID_ORDER, stored=False, indexed=False, fast=True)
    return sb.build()


def _tantivy_index(path: Path, new: bool = False, frozen: bool = False) -> tantivy.Index:
    """An index at ``path`` (``new``: created, with the schema) with ``TOKENIZER`` registered
    (tantivy keeps a custom tokenizer's name in the schema, not the tokenizer itself).
    ``frozen``: its reader keeps the segments it opened with (tantivy's default follows every
    commit written to the folder, proven or not)."""
    index = tantivy.Index(_schema(), path=str(path), reuse=False) if new else tantivy.Index.open(str(path))
    index.register_tokenizer(TOKENIZER, ANALYZER)
    if frozen:
        index.config_reader(reload_policy="Manual")
    return index


def _id_order(article_id: str) -> int:
    """The first 8 bytes of the id's UTF-8 as a number: two ids that differ in those bytes
    compare like their numbers (UTF-8 byte order is code-point order, so str order)."""
    return int.from_bytes(article_id.encode("utf-8")[:8].ljust(8, b"\0"), "big")


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
    was laid out (tantivy orders ties by segment and address, which differ between builds).
    Ties are ordered by the ``id_order`` fast field, read without fetching a document, so a
    query that ties thousands of documents fetches only the ``k`` it returns (and any sharing
    the ``k``-th's score and id prefix, ordered by their whole ids)."""
    limit = 2 * k
    while True:
        hits = searcher.search(query, limit=limit, count=False).hits
        if len(hits) < limit or hits[k - 1][0] > hits[-1][0]:
            break  # every document tied with the k-th is in hand
        limit *= 4
    if len(hits) > k:
        boundary = hits[k - 1][0]
        hits = [h for h in hits if h[0] >= boundary]
        orders = searcher.fast_field_values(ID_ORDER, [address for _, address in hits])
        if None not in orders:
            ranked = sorted(((-score, order), i) for i, ((score, _), order) in enumerate(zip(hits, orders)))
            cut = ranked[k - 1][0]
            hits = [hits[i] for key, i in ranked if key <= cut]
    docs = [(score, address, searcher.doc(address)) for score, address in hits]
    docs.sort(key=lambda d: (-d[0], d[2].get_first("article_id")))
    return docs[:k]


def _add(writer, articles: pl.DataFrame | pl.LazyFrame) -> int:
    n = 0
    for batch in _batches(articles):
        for aid, title, text, published in batch.iter_rows():
            doc = tantivy.Document(article_id=aid, title=title or "", text=text or "",
                                   published_at=published.astimezone(timezone.utc))
            doc.add_unsigned(ID_ORDER, _id_order(aid))  # a keyword int would be typed i64
            writer.add_document(doc)
            n += 1
    return n


class ArticleIndex:
    def __init__(self, index: tantivy.Index, path: Path, table: DocumentDigests | None = None):
        self._index = index
        self._schema = index.schema
        self.path = path
        # The verified table the index was proven to hold (``open_or_build`` for the
        # evaluator): every hit is checked against it again, and counts come from it.
        self._table = table

    @classmethod
    def build(cls, articles: pl.DataFrame | pl.LazyFrame, path: str | os.PathLike, meta: dict | None = None) -> ArticleIndex:
        """Index ``articles`` into ``path`` (created; must not hold another index).

        Articles without a publication time are left out: they could never pass the gate.
        """
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        index = _tantivy_index(path, new=True)
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
        return cls(_tantivy_index(path), path)

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
        if self._table is not None:
            return self._table.count(micros(end_of_day_exclusive(since - timedelta(days=1))),
                                     micros(end_of_day_exclusive(through)))
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
        if self._table is not None:  # the table's date gates and its digest vouches for what is served
            lower = micros(end_of_day_exclusive(since - timedelta(days=1))) if since is not None else None
            upper = micros(end_of_day_exclusive(as_of))
            found = [f for f in found if self._table.admits(f[2], lower, upper)]
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

    # -- where a phrase first appears (the question filter's temporal-leak check) ---------------

    def _within(self, query: Query, since: date | None, through: date | None) -> Query:
        """``query`` among documents published from the start of ``since`` to the end of
        ``through`` (UTC days; None: unbounded on that side)."""
        if since is None and through is None:
            return query
        bounds = {}
        if since is not None:
            bounds.update(lower_bound=end_of_day_exclusive(since - timedelta(days=1)), include_lower=True)
        if through is not None:
            bounds.update(upper_bound=end_of_day_exclusive(through), include_upper=False)
        gate = Query.range_query(self._schema, "published_at", FieldType.Date, **bounds)
        return Query.boolean_query([(Occur.Must, Query.const_score_query(gate, 0.0)), (Occur.Must, query)])

    def _days(self, query: Query) -> dict[date, int]:
        """How many documents matching ``query`` were published on each UTC day (days with none
        left out), by one aggregation over the ``published_at`` fast field."""
        found = self._index.searcher().aggregate(query, {"days": {"date_histogram": {
            "field": "published_at", "fixed_interval": "1d", "min_doc_count": 1}}})
        return {datetime.fromtimestamp(b["key"] / 1000, timezone.utc).date(): int(b["doc_count"])
                for b in found["days"]["buckets"] if b["doc_count"]}

    def phrase_days(self, phrase: str, since: date | None = None, through: date | None = None) -> dict[date, int] | None:
        """How many documents hold ``phrase`` (``phrase_query``) in their title or text, per UTC
        publication day from ``since`` through ``through`` (None: unbounded); None when the
        phrase cannot be searched for (no terms, a term too long to be indexed, or a pattern
        matching too many terms)."""
        query = phrase_query(self._schema, phrase)
        if query is None:
            return None
        try:
            return self._days(self._within(query, since, through))
        except ValueError:  # a regex phrase expanding to more terms than tantivy allows
            return None

    def first_holding(self, phrase: str, since: date | None = None,
                      through: date | None = None) -> tuple[str, datetime] | None:
        """(article id, published_at) of the earliest document holding ``phrase`` in its title
        or text (among those published from ``since`` through ``through``); ties of the same
        instant go to the smallest id. None when none does or the phrase cannot be searched."""
        query = phrase_query(self._schema, phrase)
        if query is None:
            return None
        searcher = self._index.searcher()
        gated = self._within(query, since, through)
        limit = 8
        while True:
            try:
                hits = searcher.search(gated, limit=limit, count=False, order_by_field="published_at",
                                       order=tantivy.Order.Asc).hits
            except ValueError:
                return None
            if not hits:
                return None
            first = hits[0][0]
            if len(hits) < limit or hits[-1][0] != first:
                break
            limit *= 4  # every hit shares the earliest instant: widen to see all of them
        docs = [searcher.doc(address) for key, address in hits if key == first]
        doc = min(docs, key=lambda d: d.get_first("article_id"))
        return doc.get_first("article_id"), doc.get_first("published_at")

    def holding(self, phrase: str, since: date | None = None, through: date | None = None,
                limit: int = 100) -> list[tuple[str, datetime, str]]:
        """(article id, published_at, title and text) of up to ``limit`` documents holding
        ``phrase`` (title or text) published from ``since`` through ``through``, earliest first:
        for a caller that must read how the phrase is written (the index folds case)."""
        query = phrase_query(self._schema, phrase)
        if query is None:
            return []
        searcher = self._index.searcher()
        try:
            hits = searcher.search(self._within(query, since, through), limit=limit, count=False,
                                   order_by_field="published_at", order=tantivy.Order.Asc).hits
        except ValueError:
            return []
        docs = [searcher.doc(address) for _, address in hits]
        found = [(d.get_first("article_id"), d.get_first("published_at"),
                  f"{d.get_first('title') or ''}\n{d.get_first('text') or ''}") for d in docs]
        return sorted(found, key=lambda f: (f[1], f[0]))

    def words_days(self, words: Iterable[str], since: date | None = None, through: date | None = None) -> dict[date, int]:
        """Per UTC day, how many documents hold any of ``words`` (analyzed like the index, title or
        text): with a script's most frequent words, how much of the corpus is written in it."""
        terms = list(dict.fromkeys(t for w in words for t in ANALYZER.analyze(w)))
        if not terms:
            return {}
        query = Query.boolean_query([(Occur.Should, Query.term_query(self._schema, f, t))
                                     for t in terms for f in ("title", "text")])
        return self._days(self._within(query, since, through))

    def characters_days(self, characters: str, since: date | None = None,
                        through: date | None = None) -> dict[date, int]:
        """Per UTC day, how many documents hold any of ``characters`` (title or text): for scripts
        written without spaces, each of whose characters is a term."""
        chars = list(dict.fromkeys(t for c in characters if not c.isspace() for t in ANALYZER.analyze(c)))
        if not chars:
            return {}
        query = Query.boolean_query([(Occur.Should, Query.term_query(self._schema, f, c))
                                     for c in chars for f in ("title", "text")])
        return self._days(self._within(query, since, through))


# A phrase is looked for as the index analyzed it, except that its terms are never dropped for
# length: a term of 40+ bytes is not indexed, so a phrase holding one can never be found
# (``phrase_query`` gives None rather than a shorter phrase). In scripts written without spaces
# every character is a term, so "三体" is the phrase 三 体, found in "我读了三体".
_PHRASE_ANALYZER = _analyzer(drop_long=False)
MAX_TERM_BYTES = 40  # ANALYZER's remove_long: longer terms are not indexed


def phrase_terms(phrase: str) -> tuple[str, ...] | None:
    """The terms ``phrase`` is looked for as, in order (what two phrases are the same search
    by); None when it has none or one too long to be indexed."""
    terms = _PHRASE_ANALYZER.analyze(phrase or "")
    if not terms or any(len(t.encode("utf-8")) >= MAX_TERM_BYTES for t in terms):
        return None
    return tuple(terms)


def phrase_query(schema: tantivy.Schema, phrase: str) -> Query | None:
    """Documents holding ``phrase`` in their title or text: its terms in a row (a term query for
    one term; in scripts written without spaces a term a character). None when the phrase has
    no terms or a term too long to be indexed."""
    terms = phrase_terms(phrase)
    if terms is None:
        return None
    per_field = [Query.term_query(schema, f, terms[0]) if len(terms) == 1 else Query.phrase_query(schema, f, terms)
                 for f in ("title", "text")]
    return Query.boolean_query([(Occur.Should, q) for q in per_field])


def _exists(path: Path) -> bool:
    return path.is_dir() and tantivy.Index.exists(str(path))  # exists() raises on a missing dir


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
        _warn(f"{path}: the cached search index cannot be read ({reason}): built again from the verified table")
        return None
    difference = documents.difference(held)
    if difference is not None:
        _warn(f"{path}: the cached search index is not the verified table's ({difference}): built again")
        return None
    return ArticleIndex(index, path, documents)


def _warn(message: str) -> None:
    """On stderr, like the evaluator's other warnings (stdout may be an MCP client's channel)."""
    print(f"warning: {message}", file=sys.stderr, flush=True)


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
