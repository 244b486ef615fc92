"""What a run's calls cost and gave: the ledger's schema, results, usage, the budget signal and the on-disk reply cache."""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import polars as pl
from pydantic import BaseModel



CACHE_SCHEMA = "1"
LEDGER = {
    "ts": pl.Datetime("us", "UTC"),
    "item_id": pl.String,
    "model": pl.String,
    "prompt": pl.String,  # name@hash
    "status": pl.String,  # ok, cached, invalid, error, budget
    "attempts": pl.Int64,  # HTTP requests made for this call (0 when cached)
    "prompt_tokens": pl.Int64,
    "completion_tokens": pl.Int64,
    "cost_usd": pl.Float64,  # null: the model has no known price
    "seconds": pl.Float64,
    "detail": pl.String,
}



class BudgetExhausted(Exception):
    """The run's budget is spent: no new request may start."""


@dataclass
class CallResult:
    item_id: str
    ok: bool
    value: BaseModel | None = None
    reason: str = ""  # why not ok: invalid_json, llm_error, budget_exhausted
    detail: str = ""
    cached: bool = False


@dataclass
class Usage:
    requests: int = 0  # HTTP requests made
    calls: int = 0  # logical calls answered (from the network or the cache)
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cost_known: bool = True  # False once a call had no price: cost_usd is then a lower bound
    failures: dict[str, int] = field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def as_dict(self) -> dict:
        return {**asdict(self), "tokens": self.tokens,
                "cost_usd": round(self.cost_usd, 6) if self.cost_known else None}


class _Cache:
    """Replies by call key in one SQLite file; safe to share between runs and processes."""

    def __init__(self, folder: Path):
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "llm-cache.sqlite"
        self._db = sqlite3.connect(self.path, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT, "
                         "prompt TEXT, content TEXT, prompt_tokens INTEGER, completion_tokens INTEGER, "
                         "cost_usd REAL, created TEXT)")
        self._db.commit()

    def get(self, key: str) -> tuple[str, int, int, float | None] | None:
        row = self._db.execute("SELECT content, prompt_tokens, completion_tokens, cost_usd FROM replies "
                               "WHERE key = ?", (key,)).fetchone()
        return tuple(row) if row else None

    def put(self, key: str, model: str, prompt: str, content: str, usage: tuple[int, int, float | None]) -> None:
        self._db.execute("INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (key, model, prompt, content, *usage, datetime.now(timezone.utc).isoformat()))
        self._db.commit()

    def close(self) -> None:
        self._db.close()


