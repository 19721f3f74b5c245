"""Kombu's Redis transport with one client per channel for its synchronous commands.

Kombu's Redis channel builds a new `redis.Redis` around its connection pool for every
publish (`Channel.conn_or_acquire`), and redis-py's constructor fills a table of ~170
response callbacks each time: about a tenth of a submit's CPU went to it. A client is
only a pool and those callbacks (every command takes a connection from the pool and gives
it back), so one per channel serves every publish; a channel that has dropped its pool
(closed, or reconnecting) gets a new client around its new pool."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kombu.transport import TRANSPORT_ALIASES
from kombu.transport import redis as kombu_redis


class Channel(kombu_redis.Channel):
    _sync_client: Any = None

    @contextmanager
    def conn_or_acquire(self, client: Any = None) -> Iterator[Any]:
        if client:
            yield client
            return
        cached = self._sync_client
        if cached is None or cached.connection_pool is not self.pool:
            cached = self._sync_client = self._create_client()  # type: ignore[attr-defined]
        yield cached


class Transport(kombu_redis.Transport):
    Channel = Channel


def install() -> None:
    """Make redis:// and rediss:// broker URLs use this transport (before any connection)."""
    for scheme in ("redis", "rediss"):
        TRANSPORT_ALIASES[scheme] = f"{__name__}:Transport"
