"""The evaluator: replay a snapshot on a daily clock to agents and score their forecasts."""

from pastcast.evaluate.agents import AbstainAgent, Agent, RetrievalAgent, get_agent
from pastcast.evaluate.environment import LedgerEntry, OpenQuestion, ReplayEnvironment, ResolvedQuestion
from pastcast.evaluate.index import ArticleIndex, Hit, open_or_build
from pastcast.evaluate.leaderboard import leaderboard, render_leaderboard
from pastcast.evaluate.matching import matches, normalise
from pastcast.evaluate.runner import RunResult, run_eval
from pastcast.evaluate.scoring import (
    InvalidForecast,
    brier_skill_score,
    time_weighted_bss,
    top1_accuracy,
    validate,
)

__all__ = [
    "AbstainAgent", "Agent", "ArticleIndex", "Hit", "InvalidForecast", "LedgerEntry", "OpenQuestion",
    "ReplayEnvironment", "ResolvedQuestion", "RetrievalAgent", "RunResult", "brier_skill_score",
    "get_agent", "leaderboard", "matches", "normalise", "open_or_build", "render_leaderboard",
    "run_eval", "time_weighted_bss", "top1_accuracy", "validate",
]
