"""The date-gated search layer every stage may use and that uses no stage: the BM25 index
with the date gate inside the query (``index``), where an index lives and when one may be
opened (``index_store``: a snapshot's, the user cache's, proven by ``index_proof``, and a build's
updatable one), what may be served and from when
(``visibility``), and search queries from question titles (``keywords``). Nothing is imported
here: ``pastcast.search.index`` loads tantivy, which the other two do not need."""
