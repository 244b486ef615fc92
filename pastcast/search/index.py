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

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path

import polars as pl
import tantivy
from tantivy import FieldType, Occur, Query

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
