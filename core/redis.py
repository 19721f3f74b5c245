"""The process's Redis clients: one per URL and read timeout, built once (redis-py pools
the connections and opens new ones after a fork, so Celery's children share nothing).
Two seconds to connect everywhere: a Redis that does not answer is down, and every caller
has a fallback for that (fail open, or report it)."""

from __future__ import annotations

from functools import lru_cache

import redis
from django.conf import settings


def redis_client(url: str | None = None, *, timeout: float = 2) -> redis.Redis:
    """The client for `url` (default REDIS_URL) whose reads give up after `timeout`
    seconds: a blocking read must outlast its own wait."""
    return _client(url or settings.REDIS_URL, timeout)


@lru_cache(maxsize=8)
def _client(url: str, timeout: float) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=2)
