"""Which model, where, with what budget: options, else ``PASTCAST_LLM_*`` (read here only)."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path


from pastcast.retry import RetryPolicy


def default_cache_dir() -> Path:
    base = os.environ.get("PASTCAST_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "pastcast")
    return Path(base) / "llm"


@dataclass(frozen=True)
class LLMSettings:
    model: str
    api_base: str | None = None
    api_key: str | None = None
    concurrency: int = 8
    max_cost_usd: float | None = None  # hard budget in USD (models with a known price)
    max_tokens: int | None = None  # hard budget in tokens, prompt + completion
    timeout: float = 120.0  # seconds per request
    max_attempts: int = 6  # requests per call, first one included
    backoff_base: float = 1.0  # seconds; the backoff ceiling, doubled per attempt, with full jitter
    backoff_cap: float = 60.0  # seconds; caps the backoff and a server's Retry-After
    cache_dir: Path | None = None  # default ~/.cache/pastcast/llm or $PASTCAST_CACHE/llm
    json_mode: str = "auto"  # auto: a JSON schema where the model supports it, else JSON mode; off
    price_per_million: tuple[float, float] | None = None  # (input, output) USD, overriding litellm's

    @classmethod
    def from_env(cls, **options) -> LLMSettings:
        """Options win over ``PASTCAST_LLM_*`` variables (MODEL, API_BASE, API_KEY, MAX_COST,
        MAX_TOKENS, CONCURRENCY); None options are ignored."""
        options = {k: v for k, v in options.items() if v is not None}
        model = options.pop("model", None) or os.environ.get("PASTCAST_LLM_MODEL")
        if not model:
            raise ValueError("no LLM model: pass --model or set PASTCAST_LLM_MODEL "
                             "(e.g. gpt-4o-mini, anthropic/claude-3-5-haiku-latest, openai/<name> with an api base)")
        options.setdefault("api_base", os.environ.get("PASTCAST_LLM_API_BASE") or None)
        options.setdefault("api_key", os.environ.get("PASTCAST_LLM_API_KEY") or None)
        for key, name, cast in (("max_cost_usd", "PASTCAST_LLM_MAX_COST", float),
                                ("max_tokens", "PASTCAST_LLM_MAX_TOKENS", int),
                                ("concurrency", "PASTCAST_LLM_CONCURRENCY", int)):
            if key not in options and os.environ.get(name):
                options[key] = cast(os.environ[name])
        return cls(model=model, **options)

    @property
    def retry(self) -> RetryPolicy:
        return RetryPolicy(max_attempts=self.max_attempts, base=self.backoff_base, cap=self.backoff_cap)

    def public(self) -> dict:
        """For manifests and logs: never the key."""
        d = {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(self).items()}
        d["api_key"] = "***" if self.api_key else None
        return d


