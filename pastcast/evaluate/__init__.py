"""The evaluator: replay a snapshot on a daily clock to agents and score their forecasts.

Names are imported on first use (PEP 562), so importing one evaluator module (the scorer, say)
does not load the search index, the runner or the LLM client. A name that is also a module's
(``leaderboard``) is not exported: the module's import would shadow it."""

from __future__ import annotations

import importlib

_EXPORTS = {
    "AbstainAgent": "agents", "Agent": "agents", "RetrievalAgent": "agents", "get_agent": "agents",
    "LedgerEntry": "environment", "OpenQuestion": "environment", "ReplayEnvironment": "environment",
    "ResolvedQuestion": "environment",
    "render_leaderboard": "leaderboard",  # the function leaderboard: pastcast.evaluate.leaderboard.leaderboard
    "RunResult": "runner", "run_eval": "runner",
    "InvalidForecast": "scoring", "brier_skill_score": "scoring", "time_weighted_bss": "scoring",
    "top1_accuracy": "scoring", "validate": "scoring",
}
_ELSEWHERE = {
    "ArticleIndex": "pastcast.search.index", "Hit": "pastcast.search.index",
    "open_or_build": "pastcast.search.index_store", "matches": "pastcast.matching", "normalise": "pastcast.matching",
}

__all__ = sorted([*_EXPORTS, *_ELSEWHERE])


def __getattr__(name: str):
    if name in _EXPORTS:
        module = importlib.import_module(f"pastcast.evaluate.{_EXPORTS[name]}")
    elif name in _ELSEWHERE:
        module = importlib.import_module(_ELSEWHERE[name])
    else:
        raise AttributeError(f"module 'pastcast.evaluate' has no attribute {name!r}")
    return getattr(module, name)
