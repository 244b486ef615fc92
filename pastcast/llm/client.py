"""``LLMClient``: cached, concurrent, retried, validated and budgeted calls through litellm (see the package doc)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import re
import time
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

import polars as pl
from pydantic import BaseModel, ValidationError

from pastcast.llm.ledger import CACHE_SCHEMA, LEDGER, BudgetExhausted, CallResult, Usage, _Cache
from pastcast.llm.prompts import Prompt
from pastcast.llm.settings import LLMSettings, default_cache_dir
from pastcast.retry import retry_after_header

LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")
_T = TypeVar("_T")


_logging_routed = False


def _litellm():
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    _route_litellm_logging()
    return litellm


def _route_litellm_logging() -> None:
    """litellm's loggers into Python logging, once: its own stream handler (stdout for INFO,
    stderr above) goes, records propagate to the application's handlers, the secret-redaction
    filter moves from that handler onto the loggers, and the level is ERROR unless
    ``LITELLM_LOG`` names one."""
    global _logging_routed
    if _logging_routed:
        return
    _logging_routed = True
    try:
        from litellm import _logging as litellm_logging
    except ImportError:  # a litellm without that module: leave its logging alone
        return
    own = getattr(litellm_logging, "handler", None)
    redact = getattr(litellm_logging, "_secret_filter", None)
    configured = os.environ.get("LITELLM_LOG", "").strip().upper()
    level = logging.getLevelName(configured) if configured else logging.ERROR
    for name in LITELLM_LOGGERS:
        logger = logging.getLogger(name)
        if own is not None and own in logger.handlers:
            logger.removeHandler(own)
        if redact is not None and redact not in logger.filters:
            logger.addFilter(redact)
        logger.propagate = True
        logger.setLevel(level if isinstance(level, int) else logging.ERROR)


def _retry_after(exc: Exception) -> float | None:
    """Seconds from a Retry-After header (seconds or an HTTP date), if the error carries one."""
    for headers in (getattr(exc, "litellm_response_headers", None),
                    getattr(getattr(exc, "response", None), "headers", None)):
        wait = retry_after_header(headers)
        if wait is not None:
            return wait
    return None


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S)


def parse_json(content: str, schema: type[BaseModel]) -> BaseModel:
    """The reply as ``schema``; tolerates a Markdown code fence around the JSON."""
    text = content or ""
    fenced = _FENCE.match(text)
    return schema.model_validate_json(fenced.group(1) if fenced else text)


class LLMClient:
    """Cached, concurrent, retried, validated and budgeted LLM calls for one run.

    ``sleep`` waits between retries (``asyncio.sleep``; tests inject one that records)."""

    def __init__(self, settings: LLMSettings, schemas: Mapping[str, type[BaseModel]],
                 sleep: Callable[[float], Awaitable[Any]] | None = None):
        self.settings = settings
        self.schemas = dict(schemas)
        self.usage = Usage()
        self.ledger: list[dict] = []
        self._litellm = _litellm()
        self._cache = _Cache(Path(settings.cache_dir or default_cache_dir()))
        self._retry = settings.retry
        self._sleep = sleep or asyncio.sleep
        self._semaphore: asyncio.Semaphore | None = None
        self._semaphore_loop: asyncio.AbstractEventLoop | None = None
        self._runner: asyncio.Runner | None = None
        self._price = self._price_per_token()
        if settings.max_cost_usd is not None and self._price is None and settings.max_tokens is None:
            raise ValueError(f"model {settings.model} has no known price, so a cost budget cannot be "
                             "enforced: give a token budget (--max-tokens) or its price "
                             "(price_per_million) instead")

    # -- pricing and budget -----------------------------------------------------------------
    def _price_per_token(self) -> tuple[float, float] | None:
        if self.settings.price_per_million:
            inp, out = self.settings.price_per_million
            return inp / 1e6, out / 1e6
        try:
            info = self._litellm.get_model_info(self.settings.model)
        except Exception:  # litellm raises several types for an unmapped model
            return None
        inp, out = info.get("input_cost_per_token"), info.get("output_cost_per_token")
        return (float(inp), float(out or 0.0)) if inp is not None else None

    @property
    def price_known(self) -> bool:
        return self._price is not None

    def _check_budget(self) -> None:
        s, u = self.settings, self.usage
        if s.max_cost_usd is not None and self._price is not None and u.cost_usd >= s.max_cost_usd:
            raise BudgetExhausted(f"cost budget spent: ${u.cost_usd:.4f} of ${s.max_cost_usd:.4f}")
        if s.max_tokens is not None and u.tokens >= s.max_tokens:
            raise BudgetExhausted(f"token budget spent: {u.tokens:,} of {s.max_tokens:,} tokens")

    @property
    def budget_left(self) -> bool:
        try:
            self._check_budget()
            return True
        except BudgetExhausted:
            return False

    # -- one request ------------------------------------------------------------------------
    def _params(self, prompt: Prompt, schema: type[BaseModel]) -> dict:
        params: dict[str, Any] = {"temperature": prompt.temperature, "max_tokens": prompt.max_tokens}
        mode = self.settings.json_mode
        if mode == "auto":
            try:
                structured = self._litellm.supports_response_schema(model=self.settings.model)
            except Exception:
                structured = False
            mode = "schema" if structured else "object"
        if mode == "schema":
            params["response_format"] = {"type": "json_schema", "json_schema": {
                "name": schema.__name__, "schema": schema.model_json_schema(), "strict": False}}
        elif mode == "object":
            params["response_format"] = {"type": "json_object"}
        return params

    def _key(self, prompt: Prompt, messages: list[dict], params: dict) -> str:
        blob = json.dumps({"v": CACHE_SCHEMA, "model": self.settings.model, "prompt": prompt.name,
                           "prompt_sha256": prompt.sha256, "messages": messages, "params": params},
                          sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()

    def _cost(self, response, prompt_tokens: int, completion_tokens: int) -> float | None:
        if self._price is None:
            return None
        if self.settings.price_per_million:
            return prompt_tokens * self._price[0] + completion_tokens * self._price[1]
        try:
            return float(self._litellm.completion_cost(completion_response=response))
        except Exception:
            return prompt_tokens * self._price[0] + completion_tokens * self._price[1]

    async def _request(self, messages: list[dict], params: dict) -> tuple[str, int, int, float | None, int]:
        """(content, prompt tokens, completion tokens, cost, requests made); retries inside."""
        litellm, s = self._litellm, self.settings
        retryable = (litellm.RateLimitError, litellm.InternalServerError, litellm.ServiceUnavailableError,
                     litellm.BadGatewayError, litellm.Timeout, litellm.APIConnectionError)
        policy, attempt = self._retry, 0
        while True:
            self._check_budget()
            attempt += 1
            self.usage.requests += 1
            try:
                response = await litellm.acompletion(
                    model=s.model, messages=messages, api_base=s.api_base, api_key=s.api_key,
                    timeout=s.timeout, num_retries=0, max_retries=0,
                    drop_params=True,  # a provider without JSON mode gets the prompt's instructions only
                    **params)
            except retryable as exc:
                if not policy.should_retry(attempt):
                    raise
                await self._sleep(policy.delay(attempt, _retry_after(exc)))
                continue
            usage = getattr(response, "usage", None)
            p_tok = int(getattr(usage, "prompt_tokens", 0) or 0)
            c_tok = int(getattr(usage, "completion_tokens", 0) or 0)
            message = response.choices[0].message
            content = message.content or ""
            if params.get("tools"):  # a tool-using turn: the whole message, as JSON
                calls = [{"id": c.id, "name": c.function.name, "arguments": c.function.arguments or "{}"}
                         for c in (message.tool_calls or [])]
                content = json.dumps({"content": content, "tool_calls": calls})
            return content, p_tok, c_tok, self._cost(response, p_tok, c_tok), attempt

    async def _answer(self, item_id: str, prompt: Prompt, messages: list[dict], params: dict
                      ) -> tuple[str, bool, int]:
        """(content, from cache, requests made) for one message list; booked in the ledger."""
        key = self._key(prompt, messages, params)
        hit = self._cache.get(key)
        started = time.perf_counter()
        if hit is not None:
            self.usage.calls += 1
            self.usage.cache_hits += 1
            self._book(item_id, prompt, "cached", 0, hit[1], hit[2], 0.0, started)
            return hit[0], True, 0
        async with self._slots():
            content, p_tok, c_tok, cost, attempts = await self._request(messages, params)
        self.usage.calls += 1
        self.usage.prompt_tokens += p_tok
        self.usage.completion_tokens += c_tok
        if cost is None:
            self.usage.cost_known = False
        else:
            self.usage.cost_usd += cost
        self._cache.put(key, self.settings.model, prompt.ref, content, (p_tok, c_tok, cost))
        self._book(item_id, prompt, "ok", attempts, p_tok, c_tok, cost, started)
        return content, False, attempts

    def _slots(self) -> asyncio.Semaphore:
        """The in-flight limit, bound to the running event loop (a new loop gets a new one)."""
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._semaphore_loop is not loop:
            self._semaphore = asyncio.Semaphore(self.settings.concurrency)
            self._semaphore_loop = loop
        return self._semaphore

    def _book(self, item_id: str, prompt: Prompt, status: str, attempts: int, p_tok: int, c_tok: int,
              cost: float | None, started: float, detail: str = "") -> None:
        self.ledger.append({"ts": datetime.now(timezone.utc), "item_id": item_id, "model": self.settings.model,
                            "prompt": prompt.ref, "status": status, "attempts": attempts,
                            "prompt_tokens": p_tok, "completion_tokens": c_tok,
                            "cost_usd": cost if status != "cached" else 0.0,
                            "seconds": round(time.perf_counter() - started, 4), "detail": detail})

    def _fail(self, item_id: str, prompt: Prompt, reason: str, detail: str, started: float) -> CallResult:
        self.usage.failures[reason] = self.usage.failures.get(reason, 0) + 1
        self._book(item_id, prompt, {"budget_exhausted": "budget", "invalid_json": "invalid"}.get(reason, "error"),
                   0, 0, 0, None, started, detail[:500])
        return CallResult(item_id, False, reason=reason, detail=detail)

    # -- public -----------------------------------------------------------------------------
    async def call(self, item_id: str, prompt: Prompt, inputs: Mapping[str, Any]) -> CallResult:
        """One validated answer to ``prompt`` with ``inputs``, or the reason there is none."""
        schema = self.schemas[prompt.schema]
        messages = prompt.messages(inputs)
        params = self._params(prompt, schema)
        started = time.perf_counter()
        import openai  # installed with litellm; the base class of every error litellm raises

        try:
            content, cached, _ = await self._answer(item_id, prompt, messages, params)
            try:
                return CallResult(item_id, True, parse_json(content, schema), cached=cached)
            except (ValidationError, ValueError) as first:
                # One repair: the model sees its reply and what is wrong with it.
                repair = [*messages, {"role": "assistant", "content": content},
                          {"role": "user", "content": "That reply is not valid JSON for the required schema: "
                                                      f"{_short(first)}. Reply with only the corrected JSON object."}]
                content, cached2, _ = await self._answer(item_id, prompt, repair, params)
                try:
                    return CallResult(item_id, True, parse_json(content, schema), cached=cached and cached2)
                except (ValidationError, ValueError) as second:
                    return self._fail(item_id, prompt, "invalid_json", _short(second), started)
        except BudgetExhausted as exc:
            return self._fail(item_id, prompt, "budget_exhausted", str(exc), started)
        except (openai.OpenAIError, asyncio.TimeoutError) as exc:  # litellm's errors subclass openai's
            return self._fail(item_id, prompt, "llm_error", f"{type(exc).__name__}: {str(exc)[:300]}", started)

    async def achat(self, item_id: str, prompt: Prompt, messages: list[dict], tools: list[dict]) -> dict:
        """One tool-using turn (no JSON schema): ``{"content", "tool_calls": [{"id", "name",
        "arguments"}]}``; cached, retried and budgeted like ``call``. Raises BudgetExhausted."""
        params = {"temperature": prompt.temperature, "max_tokens": prompt.max_tokens, "tools": tools}
        content, _, _ = await self._answer(item_id, prompt, messages, params)
        return json.loads(content)

    def chat(self, item_id: str, prompt: Prompt, messages: list[dict], tools: list[dict]) -> dict:
        """``achat`` from synchronous code, on the client's one event loop (see ``run``)."""
        return self.run(self.achat(item_id, prompt, messages, tools))

    def run(self, coro: Coroutine[Any, Any, _T]) -> _T:
        """Run ``coro`` to completion on this client's event loop: one ``asyncio.Runner`` for
        the client's life, so litellm's background logging worker stays on one loop (a new loop
        per call makes it warn "event loop changed" every time). ``close`` ends the loop, as
        does collecting the client."""
        if self._runner is None:
            self._runner = asyncio.Runner()
            self._runner_finalizer = weakref.finalize(self, _end_runner, self._runner)
        return self._runner.run(coro)

    async def flush_logging(self, timeout: float = 5.0) -> None:
        """Let litellm's background logging worker finish the records queued on this loop, so
        none is left behind for another loop to pick up (and warn about)."""
        await _flush_litellm_logging(timeout)

    def ledger_frame(self) -> pl.DataFrame:
        return pl.DataFrame(self.ledger, schema=LEDGER) if self.ledger else pl.DataFrame(schema=LEDGER)

    def close(self) -> None:
        if self._runner is not None:
            self._runner = None
            self._runner_finalizer()
        self._cache.close()


async def _flush_litellm_logging(timeout: float = 5.0) -> None:
    """Wait, at most ``timeout`` seconds, for litellm's background logging worker to finish what
    is queued; a no-op where litellm has no such worker."""
    try:
        from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER
    except ImportError:
        return
    try:
        await asyncio.wait_for(GLOBAL_LOGGING_WORKER.flush(), timeout)
    except Exception:  # best effort: logging never fails a run
        pass


def _end_runner(runner: asyncio.Runner) -> None:
    """Flush litellm's logging on the runner's loop, then close it (cancelling what is left).
    Collected while another loop runs in this thread, it can do neither: the loop is left to
    the garbage collector."""
    try:
        runner.run(_flush_litellm_logging())
    except RuntimeError:  # closed already, or another loop is running
        pass
    try:
        runner.close()
    except RuntimeError:
        pass


def _short(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'reply'}: {e['msg']}" for e in exc.errors()[:5])
    return str(exc)[:300]
