"""The one retry policy of the LLM client and remote downloads (pastcast.retry): the Retry-After
parser (seconds, HTTP dates, junk) and the policy's attempts and waits (full jitter under an
exponential ceiling, a server's wait capped). No test sleeps: the clock and the random source
are passed in."""

import email.message
import math
import random
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import httpx
import pytest

from pastcast.retry import RetryPolicy, parse_retry_after, retry_after_header

NOW = datetime(2026, 3, 8, 12, 0, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("value, seconds", [
    ("120", 120.0), ("0", 0.0), (" 7 ", 7.0), ("0.3", 0.3),  # delay-seconds, a fraction tolerated
    ("-5", 0.0),  # a negative wait is no wait
    ("Sun, 08 Mar 2026 12:00:30 GMT", 30.0),  # an HTTP date, measured from now
    ("Sunday, 08-Mar-26 12:01:00 GMT", 60.0),  # the obsolete RFC 850 form
    ("Sun, 08 Mar 2026 11:00:00 GMT", 0.0),  # a date in the past: retry now
    ("Sun, 08 Mar 2026 12:00:10", 10.0),  # no zone: HTTP dates are GMT
    ("Sun, 08 Mar 2026 13:00:10 +0100", 10.0),  # an explicit offset is honoured
])
def test_retry_after_in_seconds_or_as_an_http_date(value, seconds):
    assert parse_retry_after(value, now=NOW) == pytest.approx(seconds)


@pytest.mark.parametrize("value", [None, "", "   ", "soon", "nan", "inf", "12 seconds", "Sun, 99 Foo 2026"])
def test_retry_after_that_is_neither_gives_none(value):
    assert parse_retry_after(value, now=NOW) is None


def test_an_http_date_defaults_to_the_current_time():
    ahead = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=90), usegmt=True)
    assert 0 < parse_retry_after(ahead) <= 90


def test_the_header_is_read_from_any_kind_of_headers():
    message = email.message.Message()  # what urllib's HTTPError carries
    message["Retry-After"] = "3"
    for headers in (message, httpx.Headers({"Retry-After": "3"}), {"retry-after": "3"}, {"Retry-After": "3"}):
        assert retry_after_header(headers, now=NOW) == 3.0
    assert retry_after_header({"Retry-After": "Sun, 08 Mar 2026 12:00:05 GMT"}, now=NOW) == 5.0
    for headers in (None, {}, {"retry-after": ""}, {"Retry-After": "later"}, object()):
        assert retry_after_header(headers, now=NOW) is None


def test_attempts_count_the_first_request():
    policy = RetryPolicy(max_attempts=3)
    assert [policy.should_retry(n) for n in (1, 2, 3, 4)] == [True, True, False, False]
    assert not RetryPolicy(max_attempts=1).should_retry(1)
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError):
        RetryPolicy(base=-1.0)


def test_the_backoff_ceiling_doubles_up_to_the_cap():
    policy = RetryPolicy(base=0.5, cap=3.0)
    assert [policy.ceiling(n) for n in (1, 2, 3, 4, 5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert policy.ceiling(10_000) == 3.0  # no overflow after very many failures


class Recorder:
    """A random source that records the interval it is asked for and answers its top."""

    def __init__(self):
        self.asked = []

    def uniform(self, a, b):
        self.asked.append((a, b))
        return b


def test_full_jitter_draws_from_zero_to_the_ceiling():
    policy, rng = RetryPolicy(base=1.0, cap=60.0), Recorder()
    assert [policy.delay(n, rng=rng) for n in (1, 2, 3, 7, 8)] == [1.0, 2.0, 4.0, 60.0, 60.0]
    assert rng.asked == [(0.0, 1.0), (0.0, 2.0), (0.0, 4.0), (0.0, 60.0), (0.0, 60.0)]
    seeded = random.Random(16)
    draws = [policy.delay(3, rng=seeded) for _ in range(2000)]
    assert all(0.0 <= d <= 4.0 for d in draws)
    assert min(draws) < 0.1 and max(draws) > 3.9  # the whole interval, not a band below the ceiling
    assert math.isclose(sum(draws) / len(draws), 2.0, abs_tol=0.15)


def test_a_server_wait_replaces_the_backoff_and_is_capped():
    policy, rng = RetryPolicy(base=1.0, cap=60.0), Recorder()
    assert policy.delay(1, retry_after=30.0, rng=rng) == 30.0
    assert policy.delay(5, retry_after=0.0, rng=rng) == 0.0
    assert policy.delay(1, retry_after=3600.0, rng=rng) == 60.0  # a server asking for an hour gets the cap
    assert policy.delay(1, retry_after=-2.0, rng=rng) == 0.0
    assert rng.asked == []  # no random draw when the server said how long
