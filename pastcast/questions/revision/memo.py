"""Revision work kept between builds, so a nightly build searches the corpus for the new
questions only.

A question that reaches the revision step exactly as in the build before (same row, same
settings) keeps that build's outcome (kept, revised or dropped, with its evidence); if articles
were added since (the new day, a day rewritten), it is searched again in those articles alone,
for a report earlier than its resolution date, and only if one of them was published before
that date (``resolved_before_new`` counts the others: in a nightly build, most old questions).
A new or changed question is searched in the whole corpus. What the memo holds is keyed by
the row's content (a 64-bit row hash) and the revision settings with the polars version: a
change of either is a new question to it. ``full`` builds ignore it (and write it afresh).

Results equal a full search except when the new articles would push a report out of the top
``k`` hits of a search over everything: the memo can then find it where a full search would
not (an earlier report still in view), never the reverse.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from datetime import date
from pathlib import Path

import polars as pl

from pastcast.drops import Drop, fields_of
from pastcast.io import sha256_file, write_json, write_parquet
from pastcast.questions.row_memo import row_keys
from pastcast.questions.steps import Evidence, by_question, drop_records, evidence_records
from pastcast.schemas import ARTICLES, DROPS, QUESTION_EVIDENCE, QUESTIONS, columns_frame, scan_parts
from pastcast.questions.row_memo import rules_fingerprint
from pastcast.search.index import INDEX_FORMAT, ArticleIndex

MEMO_FORMAT = 4  # 2: keys are row hashes; 3: drops and evidence stored as nested columns, not JSON; 4: yes/no questions searched
# the records as Parquet lists of structs: a nightly build reads a year of them without decoding text
MEMO_COLUMNS = {"_key": pl.String, "_kept": pl.Boolean, "_evidence": pl.List(pl.Struct(QUESTION_EVIDENCE)),
                "_drops": pl.List(pl.Struct(DROPS))}


def _table(entries: pl.DataFrame, column: str, schema: dict) -> pl.DataFrame:
    """The records of ``column`` (lists of structs) as one frame of ``schema``, in the
    entries' order."""
    if entries.is_empty():
        return pl.DataFrame(schema=schema)
    return (entries.select(pl.col(column)).explode(column).drop_nulls(column).unnest(column)
            .select(list(schema)).cast(schema))


def _plain(record) -> dict:
    """A record's fields, tuples as lists (what a list column takes)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in fields_of(record).items()}


class RevisionMemo:
    """The outcomes of the last build's revision step (``path``, a Parquet table; beside it
    ``<path>.json``, the article parts its index held and the table's sha256), against
    ``parts``: part key -> (sha256, file) of the corpus now."""

    def __init__(self, path: str | Path, parts: dict[str, tuple[str, Path]], settings: dict, forget: bool = False):
        self.path = Path(path)
        self.parts = parts
        salt = json.dumps({"memo": MEMO_FORMAT, "index": INDEX_FORMAT, "polars": pl.__version__,
                           "rules": rules_fingerprint(), **settings}, sort_keys=True, default=str)
        self._prefix = hashlib.sha256(salt.encode()).hexdigest()[:16]
        self._searched: dict[str, str] = {}
        self._earlier = self._empty() if forget else self._load()  # forget: a full build searches everything
        # the parts added or changed since the last build, the same for every row (None: a part
        # it searched is gone, so every row is searched in full)
        self._changed = (None if any(k not in parts for k in self._searched) else
                         [path for k, (sha, path) in sorted(parts.items()) if self._searched.get(k) != sha])
        self._now: list[dict] = []  # entries of rows worked out this build
        self._kept_keys: list[str] = []  # keys whose earlier entry stands as stored
        self._indexes: dict[tuple[Path, ...], ArticleIndex] = {}
        self._tmp: list[Path] = []
        self._earliest: dict[tuple[Path, ...], date | None] = {}
        self.reused = 0  # questions whose earlier outcome stood
        self.searched_new = 0  # questions searched in the new articles only
        self.resolved_before_new = 0  # not searched: every new article is from their resolution day on

    @property
    def _record(self) -> Path:
        return self.path.with_name(self.path.name + ".json")

    @staticmethod
    def _empty() -> pl.DataFrame:
        return pl.DataFrame(schema={**QUESTIONS, **MEMO_COLUMNS})

    def _load(self) -> pl.DataFrame:
        try:
            record = json.loads(self._record.read_text())
            if record.get("sha256") != sha256_file(self.path):
                return self._empty()  # the table and its record are of different builds: search again
            table = pl.read_parquet(self.path)
        except (OSError, ValueError, pl.exceptions.PolarsError):
            return self._empty()  # no memo, or one cut short: everything is searched again
        if any(table.schema.get(c) != t for c, t in MEMO_COLUMNS.items()) or set(QUESTIONS) - set(table.columns):
            return self._empty()  # another format: every row is searched again, once
        self._searched = dict(record.get("parts") or {})
        return table.select(*QUESTIONS, *MEMO_COLUMNS).unique("_key", keep="first")

    def keys(self, questions: pl.DataFrame) -> list[str]:
        """Each row's key: its content (a 64-bit row hash, stable within a polars version,
        which the salt names) under these settings."""
        return [f"{self._prefix}:{h:016x}" for h in row_keys(questions)]

    def recall(self, keys: list[str]) -> tuple[pl.DataFrame, list[Path]]:
        """The earlier entries of the rows of these keys (the outcome row in the QUESTIONS
        columns, then ``_key``, ``_kept``, ``_evidence``, ``_drops``) and the files of the parts
        added or changed since they were searched; none when a part they were searched in is
        gone (then every row is searched in full)."""
        if self._changed is None or self._earlier.is_empty():
            return self._empty(), []
        return self._earlier.join(pl.DataFrame({"_key": keys}, schema={"_key": pl.String}).unique(),
                                  on="_key", how="semi"), self._changed

    @staticmethod
    def outcome_rows(entries: pl.DataFrame) -> pl.DataFrame:
        return entries.select(list(QUESTIONS))

    @staticmethod
    def evidence_table(entries: pl.DataFrame) -> pl.DataFrame:
        """The stored evidence of these entries as one QUESTION_EVIDENCE frame."""
        return _table(entries, "_evidence", QUESTION_EVIDENCE)

    @staticmethod
    def drops_table(entries: pl.DataFrame) -> pl.DataFrame:
        """The stored drops of these entries as one DROPS frame."""
        return _table(entries, "_drops", DROPS)

    @classmethod
    def evidence(cls, entries: pl.DataFrame) -> dict[str, list[Evidence]]:
        """The stored evidence of these entries as records, by question id."""
        return by_question(evidence_records(cls.evidence_table(entries)))

    @classmethod
    def drops(cls, entries: pl.DataFrame) -> dict[str, list[Drop]]:
        """The stored drops of these entries as records, by question id."""
        return by_question(drop_records(cls.drops_table(entries)))

    def new_articles_index(self, files: list[Path]) -> ArticleIndex:
        """A date-gated index of these parts' articles alone (built once a run)."""
        key = tuple(files)
        if key not in self._indexes:
            tmp = Path(tempfile.mkdtemp(prefix="pastcast-revision-new-"))
            self._tmp.append(tmp)
            self._indexes[key] = ArticleIndex.build(scan_parts(files, ARTICLES), tmp / "index")
        return self._indexes[key]

    def earliest_new_day(self, files: list[Path]) -> date | None:
        """The earliest publication day (UTC) of these parts' articles (None: they have none):
        a question whose search gate is before it cannot find anything new in them."""
        key = tuple(files)
        if key not in self._earliest:
            # published_at is a UTC instant: its date is the UTC day the search gate compares
            self._earliest[key] = (scan_parts(files, ARTICLES).select(pl.col("published_at").min().dt.date())
                                   .collect().item())
        return self._earliest[key]

    def remember(self, key: str, outcome: dict, kept: bool, evidence: list[Evidence], drops: list[Drop]) -> None:
        """The outcome of the row of ``key`` (as it entered the step) for the next build."""
        self._now.append({**outcome, "_key": key, "_kept": kept,
                          "_evidence": [_plain(e) for e in evidence], "_drops": [_plain(d) for d in drops]})

    def keep(self, keys: list[str]) -> None:
        """The earlier entries of these keys stand as stored, for the next build too."""
        self._kept_keys += keys

    def save(self) -> None:
        schema = {**QUESTIONS, **MEMO_COLUMNS}
        kept = self._earlier.join(pl.DataFrame({"_key": self._kept_keys}, schema={"_key": pl.String}).unique(),
                                  on="_key", how="semi")
        table = pl.concat([kept, columns_frame({c: [r.get(c) for r in self._now] for c in schema}, schema)])
        write_parquet(table, self.path)
        write_json({"sha256": sha256_file(self.path), "parts": {k: sha for k, (sha, _) in self.parts.items()}},
                   self._record)

    def close(self) -> None:
        for tmp in self._tmp:
            shutil.rmtree(tmp, ignore_errors=True)
        self._tmp.clear()
        self._indexes.clear()
