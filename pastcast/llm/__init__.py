"""The one place that talks to litellm: every LLM call of pastcast goes through ``LLMClient``.

Any provider works by model string (``gpt-4o-mini``, ``anthropic/claude-...``,
``openrouter/...``, ``openai/<name>`` with ``api_base`` for a vLLM or Ollama server); model,
API base and key come from options or ``PASTCAST_LLM_MODEL`` / ``PASTCAST_LLM_API_BASE`` /
``PASTCAST_LLM_API_KEY`` (else the providers' usual variables, which litellm reads).

Every call is:
- cached on disk (SQLite) by model, prompt name and content hash, rendered messages and
  parameters: a rerun, or a rebuild of an unchanged day, makes no request;
- run concurrently, at most ``concurrency`` requests in flight (asyncio);
- retried on 429, 5xx, timeouts and connection errors as ``pastcast.retry.RetryPolicy`` says
  (exponential backoff with full jitter, a server's Retry-After in seconds or as an HTTP date
  honoured, at most ``max_attempts`` requests); other errors (bad request, auth) are not retried;
- parsed as JSON and validated against the prompt's pydantic schema, with one repair request
  that shows the model its error, then given up (the caller drops the item with the reason);
- booked in a ledger (tokens, cost or unknown, latency, cache hit) with a hard budget: once
  spent reaches ``max_cost_usd`` (or ``max_tokens`` for a model with no known price) no new
  request starts; requests already in flight finish and are kept.

litellm is imported lazily, with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` so the import never
fetches the price map from the network. Its own log records go through Python logging (the
``LiteLLM`` loggers, with litellm's secret redaction; litellm's stream handler is removed), quiet
by default: ERROR and above, or the level named by ``LITELLM_LOG`` (e.g. ``WARNING``, ``DEBUG``).

Prompts are package data (``pastcast/prompts/*.toml``), found with ``importlib.resources``, so
an installed wheel has them too.
"""

from pastcast.llm.client import LITELLM_LOGGERS, LLMClient, _litellm, parse_json
from pastcast.llm.ledger import CACHE_SCHEMA, LEDGER, BudgetExhausted, CallResult, Usage
from pastcast.llm.prompts import PROMPTS_DIR, Prompt, load_prompt
from pastcast.llm.settings import LLMSettings, default_cache_dir

__all__ = ["CACHE_SCHEMA", "LEDGER", "LITELLM_LOGGERS", "PROMPTS_DIR", "BudgetExhausted", "CallResult", "LLMClient",
           "LLMSettings", "Prompt", "Usage", "default_cache_dir", "load_prompt", "parse_json"]
