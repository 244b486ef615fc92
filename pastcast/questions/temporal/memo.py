"""Temporal-leak work kept between builds, so a nightly build judges only the questions new
articles can change and searches only the phrases they can change.

What a question's verdict reads from the corpus lies in days it can name in advance: the
lookback before it opens, first appearances up to ``window_days`` after it resolves (later
ones are ``late``), and the window after each. Articles added to a build (a new day, a day
written again) are all published on or after the earliest day among them, E. So a question
the build before judged, unchanged (same row, same settings), whose last such day (its
``horizon``: resolution date + 2 ``window_days`` - 2) is before E keeps its outcome as stored:
in a nightly build, every question that resolved two windows ago. The others are judged again,
from their stored phrases, with the first appearances the memo keeps by phrase: one is searched
again only if the index holds it on or after E (the new articles may have moved it), or when
the article it was first seen in is gone from a part written again.

Stored as ``<path>`` (the questions' outcomes: row key, verdict, new open date, phrases, their
outcomes, horizon, drops and evidence as Parquet lists of structs) and ``<path stem>.facts.parquet``
(the first appearances: the phrase's terms, its text, the article, its time and holders per
day), with ``<path>.json`` recording the article parts they were worked out against and both
tables' sha256. A part that is gone, another window, another version of pastcast, polars or the
index format: everything is worked out again, once (``forget`` too).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from datetime import date, datetime, timedelta
from pathlib import Path

import polars as pl

from pastcast.io import sha256_file, write_json, write_parquet
from pastcast.questions.row_memo import row_keys
from pastcast.questions.temporal.corpus import Fact, FirstSeen
from pastcast.questions.temporal.phrases import Phrase
from pastcast.questions.temporal.rule import TemporalConfig
from pastcast.schemas import ARTICLES, DROPS, QUESTION_EVIDENCE, UTC_TS, columns_frame, scan_parts
from pastcast.questions.row_memo import rules_fingerprint
from pastcast.search.index import INDEX_FORMAT

MEMO_FORMAT = 1
PHRASE = pl.Struct({"text": pl.String, "kind": pl.String, "script": pl.String, "field": pl.String})
OUTCOME_COLUMNS = {"_key": pl.String, "verdict": pl.String, "opens": pl.Date, "phrases": pl.List(PHRASE),
                   "outcomes": pl.List(pl.String), "horizon": pl.Date,
                   "evidence": pl.List(pl.Struct(QUESTION_EVIDENCE)), "drops": pl.List(pl.Struct(DROPS))}
FACT_COLUMNS = {"terms": pl.String, "text": pl.String, "article_id": pl.String, "published_at": UTC_TS,
                "window": pl.List(pl.Struct({"day": pl.Date, "n": pl.Int64}))}
ALWAYS_STABLE = date(1, 1, 1)  # horizon of a verdict that reads no article (no open date, no phrase)
_SEP = "\x1f"


def terms_key(terms: tuple[str, ...]) -> str:
    return _SEP.join(terms)


def horizon(resolves: date | None, verdict: str, config: TemporalConfig) -> date | None:
    """The last publication day whose articles can change this verdict (None: any day can)."""
    if verdict in ("no_open_date", "no_distinctive_phrase"):
        return ALWAYS_STABLE
    if resolves is None:
        return None
    return resolves + timedelta(days=2 * config.window_days - 2)


class TemporalMemo:
    """The outcomes and first appearances of the last build (``path``), against ``parts``: part
    key -> (sha256, file) of the corpus now."""

    def __init__(self, path: str | Path, parts: dict[str, tuple[str, Path]], forget: bool = False):
        self.path = Path(path)
        self.facts_path = self.path.with_name(self.path.stem + ".facts.parquet")
        self.parts = parts
        self._record = self.path.with_name(self.path.name + ".json")
        record = {} if forget else self._read_record()
        searched = record.get("parts") or {}
        gone = any(k not in parts for k in searched)
        self._scheme = record.get("scheme")
        self._outcomes = self._load(self.path, OUTCOME_COLUMNS, record.get("sha256")) if record and not gone else None
        self._facts = self._load(self.facts_path, FACT_COLUMNS, record.get("facts_sha256")) if record and not gone else None
        changed = [k for k in parts if searched.get(k) != parts[k][0]]
        self.rewritten = [k for k in changed if k in searched]  # parts written again: articles may be gone
        self.added_files = [parts[k][1] for k in sorted(changed)]
        self._now: list[pl.DataFrame] = []
        self._kept: list[str] = []
        self._new_facts: dict[tuple[str, ...], Fact] = {}
        self._earliest: date | None | bool = False  # not worked out yet
        self.reused = 0  # questions whose stored outcome stood
        self.judged = 0  # questions judged this build
        self.rechecked = 0  # stored first appearances searched again (the index held them on or after E)

    def _read_record(self) -> dict:
        try:
            return json.loads(self._record.read_text())
        except (OSError, ValueError):
            return {}

    @staticmethod
    def _load(path: Path, schema: dict, digest: str | None) -> pl.DataFrame | None:
        try:
            if digest != sha256_file(path):
                return None  # the table and its record are of different builds
            table = pl.read_parquet(path)
        except (OSError, pl.exceptions.PolarsError):
            return None
        return table if all(table.schema.get(c) == t for c, t in schema.items()) else None

    # -- settings -------------------------------------------------------------------------

    def _scheme_of(self, config: TemporalConfig) -> str:
        from pastcast import __version__

        salt = json.dumps({"memo": MEMO_FORMAT, "index": INDEX_FORMAT, "pastcast": __version__,
                           "polars": pl.__version__, "rules": rules_fingerprint(), **asdict(config)},
                          sort_keys=True, default=str)
        return hashlib.sha256(salt.encode()).hexdigest()[:16]

    def keys(self, questions: pl.DataFrame, config: TemporalConfig) -> list[str]:
        """Each row's key: its content (a 64-bit row hash) under these settings."""
        scheme = self._scheme_of(config)
        if scheme != self._scheme:  # other settings or versions: nothing stored applies
            self._outcomes = self._facts = None
            self._scheme = scheme
        return [f"{h:016x}" for h in row_keys(questions)]

    # -- what changed ---------------------------------------------------------------------

    def earliest_new_day(self) -> date | None:
        """The earliest publication day (UTC) of the articles added or written again since the
        last build (None: none were; ``date.min``: parts were written again with no dated article
        left, so anything may have changed)."""
        if self._earliest is False:
            if not self.added_files:
                self._earliest = None
            else:
                day = (scan_parts(self.added_files, ARTICLES)
                       .select(pl.col("published_at").min().dt.date()).collect().item())
                self._earliest = date.min if day is None else day
        return self._earliest

    def recall(self, keys: list[str]) -> pl.DataFrame:
        """The stored outcomes of these keys (the ``OUTCOME_COLUMNS``)."""
        if self._outcomes is None:
            return pl.DataFrame(schema=OUTCOME_COLUMNS)
        wanted = pl.DataFrame({"_key": keys}, schema={"_key": pl.String}).unique()
        return self._outcomes.join(wanted, on="_key", how="semi")

    def first_appearances(self, terms: set[tuple[str, ...]]) -> dict[tuple[str, ...], Fact]:
        """The stored facts of these phrases (by terms): (text, first seen or None: absent,
        holders per day from then or None: not asked); a phrase whose first article is gone from
        a part written again is left out."""
        if self._facts is None or not terms:
            return {}
        wanted = pl.DataFrame({"terms": [terms_key(t) for t in terms]}, schema={"terms": pl.String})
        found = self._facts.join(wanted, on="terms", how="semi")
        if self.rewritten and found["article_id"].drop_nulls().len():
            ids = found["article_id"].drop_nulls().unique()
            present = (scan_parts([p for _, p in self.parts.values()], ARTICLES)
                       .filter(pl.col("article_id").is_in(ids.implode())).select("article_id").collect())
            found = found.filter(pl.col("article_id").is_null()
                                 | pl.col("article_id").is_in(present["article_id"].implode()))
        out = {}
        for key, text, article_id, published_at, window in found.iter_rows():
            first = None if article_id is None else FirstSeen(article_id, published_at)
            out[tuple(key.split(_SEP))] = (text, first, None if window is None else {w["day"]: w["n"] for w in window})
        return out

    # -- this build -----------------------------------------------------------------------

    def remember(self, outcomes: pl.DataFrame) -> None:
        """Outcomes worked out this build (``OUTCOME_COLUMNS``), for the next."""
        self._now.append(outcomes.select(list(OUTCOME_COLUMNS)).cast(OUTCOME_COLUMNS))

    def keep(self, keys: list[str]) -> None:
        """The stored outcomes of these keys stand, for the next build too."""
        self._kept += keys

    def learn(self, facts: dict[tuple[str, ...], Fact]) -> None:
        """First appearances searched this build."""
        self._new_facts.update(facts)

    def save(self) -> None:
        kept = self.recall(self._kept) if self._kept else pl.DataFrame(schema=OUTCOME_COLUMNS)
        outcomes = pl.concat([kept, *self._now]).unique("_key", keep="last")
        facts = list(self._new_facts.values())
        fresh = columns_frame({
            "terms": [terms_key(t) for t in self._new_facts],
            "text": [text for text, _, _ in facts],
            "article_id": [f.article_id if f else None for _, f, _ in facts],
            "published_at": [f.published_at if f else None for _, f, _ in facts],
            "window": [None if w is None else [{"day": d, "n": n} for d, n in sorted(w.items())] for _, _, w in facts],
        }, FACT_COLUMNS)
        facts = fresh if self._facts is None else pl.concat([
            self._facts.join(fresh.select("terms"), on="terms", how="anti"), fresh])
        write_parquet(outcomes, self.path)
        write_parquet(facts, self.facts_path)
        write_json({"format": MEMO_FORMAT, "scheme": self._scheme, "saved_at": datetime.now().isoformat(),
                    "parts": {k: sha for k, (sha, _) in self.parts.items()},
                    "sha256": sha256_file(self.path), "facts_sha256": sha256_file(self.facts_path)}, self._record)


def phrase_rows(phrases: list[Phrase]) -> list[dict]:
    return [{"text": p.text, "kind": p.kind, "script": p.script, "field": p.field} for p in phrases]


def phrases_from(rows: list[dict] | None) -> list[Phrase]:
    return [Phrase(r["text"], r["kind"], r["script"], r["field"]) for r in rows or []]
