"""When to try a request again, and how long to wait first.

429 and 503 mean the service did not act on the request, so any request is retried, after
`Retry-After` when the service names a time. Other 5xx answers and broken connections may
come after the service acted, so only requests that are safe to repeat are retried: reads,
and submits (which carry an Idempotency-Key, so a repeat returns the same job)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx

NOT_ACTED_ON = frozenset({429, 503})
MAYBE_ACTED_ON = frozenset({500, 502, 504})


@dataclass(frozen=True)
class RetryEvent:
    """Told to `on_retry` before each wait, so a caller can say why it is waiting."""

    method: str
    url: str
    attempt: int
    delay: float
    reason: str


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 6
    backoff: float = 0.5  # first wait on a 5xx; doubles each retry, with jitter
    max_backoff: float = 30.0
    max_retry_after: float = 300.0  # a longer Retry-After is shortened to this

    def backoff_delay(self, attempt: int) -> float:
        ceiling = min(self.max_backoff, self.backoff * 2.0**attempt)
        return ceiling * random.uniform(0.5, 1.0)  # noqa: S311 - jitter, not security

    def delay(
        self, *, attempt: int, response: httpx.Response | None, idempotent: bool
    ) -> float | None:
        """Seconds to wait before attempt `attempt + 1`, or None to give up and answer."""
        if attempt >= self.max_retries:
            return None
        if response is None:  # the connection failed
            return self.backoff_delay(attempt) if idempotent else None
        status = response.status_code
        if status in NOT_ACTED_ON:
            after = retry_after_seconds(response.headers.get("Retry-After"))
            if after is not None:
                return min(after, self.max_retry_after)
            return self.backoff_delay(attempt)
        if status in MAYBE_ACTED_ON and idempotent:
            return self.backoff_delay(attempt)
        return None


def retry_after_seconds(value: str | None, *, now: datetime | None = None) -> float | None:
    """Parse Retry-After: delay-seconds or an HTTP date (RFC 9110 section 10.2.3)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())
