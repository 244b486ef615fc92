"""One retry policy for everything pastcast asks of the network: the LLM client
(``pastcast.llm``) and remote downloads (``pastcast.sources.remote``).

- at most ``max_attempts`` requests, the first one included;
- between them, exponential backoff with full jitter: after the n-th failed request the wait is
  uniform in ``[0, min(cap, base * 2**(n-1))]``, so many clients that failed together do not
  retry in step;
- a server's ``Retry-After`` (delay-seconds, or an HTTP date) replaces the backoff, capped at
  ``cap`` as well.

Only the arithmetic lives here: each caller decides what is worth a retry and sleeps its own
way (``time.sleep`` or ``asyncio.sleep``), so tests inject the sleep, the clock and the random
source and never wait.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any, Protocol


class _Uniform(Protocol):
    def uniform(self, a: float, b: float) -> float: ...


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6  # requests per call, the first one included
    base: float = 1.0  # seconds: the ceiling of the first retry's wait, doubled per retry
    cap: float = 60.0  # seconds: caps the backoff ceiling and a server's Retry-After

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, not {self.max_attempts}")
        if self.base < 0 or self.cap < 0:
            raise ValueError("base and cap must not be negative")

    def should_retry(self, failures: int) -> bool:
        """Whether another request may follow ``failures`` failed ones."""
        return failures < self.max_attempts

    def ceiling(self, failures: int) -> float:
        """The most the backoff waits after ``failures`` failed requests (1 or more)."""
        return min(self.cap, self.base * 2.0 ** min(max(failures, 1) - 1, 1023))

    def delay(self, failures: int, retry_after: float | None = None, rng: _Uniform | None = None) -> float:
        """Seconds to wait after ``failures`` failed requests: the server's ``retry_after``
        when it gave one, else a full-jitter draw below the exponential ceiling; never above
        ``cap``."""
        if retry_after is not None:
            return min(max(0.0, retry_after), self.cap)
        return (rng or random).uniform(0.0, self.ceiling(failures))


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds from a ``Retry-After`` value: delay-seconds (a fraction is accepted) or an HTTP
    date (``Wed, 21 Oct 2015 07:28:00 GMT``, measured from ``now``, default the current UTC
    time); a date in the past gives 0. None when there is no value or it is neither."""
    text = (value or "").strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:  # an HTTP date is always GMT
        when = when.replace(tzinfo=timezone.utc)
    now = now or datetime.now(timezone.utc)
    return max(0.0, (when - now).total_seconds())


def retry_after_header(headers: Any, now: datetime | None = None) -> float | None:
    """``parse_retry_after`` of a response's headers (any mapping with ``get``: httpx, urllib's
    message, a dict), None without the header."""
    if headers is None:
        return None
    for name in ("retry-after", "Retry-After"):
        try:
            value = headers.get(name)
        except (AttributeError, TypeError):
            return None
        if value:
            return parse_retry_after(str(value), now)
    return None
