"""Open live streams (SSE and WebSocket followers) per tenant and per web process.

The per-tenant count lives in Redis, shared by every web process: a sorted set of the
tenant's open streams scored by lease expiry. A stream renews its lease on every
heartbeat tick, so a process that dies without closing its streams frees their slots
once the leases run out (three heartbeats). The per-process count is a plain counter:
one event loop serves a process's streams.
"""

from __future__ import annotations

import logging
import time
import uuid
import weakref
from dataclasses import dataclass
from functools import lru_cache

import redis
from asgiref.sync import sync_to_async
from django.conf import settings
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

_ACQUIRE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""
# The process's open streams; weak, so a stream dropped without being closed (a response
# whose body never started) stops counting once it is collected.
_open_in_process: weakref.WeakSet[StreamSlot] = weakref.WeakSet()


class StreamLimitReached(Exception):
    def __init__(self, message: str, *, limit: str) -> None:
        super().__init__(message)
        self.message = message
        self.limit = limit


@lru_cache(maxsize=1)
def _redis() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)


def _lease_seconds() -> int:
    return 3 * settings.SSE_HEARTBEAT_SECONDS + 5


def _key(tenant_id: object) -> str:
    return f"{settings.LIMITS_KEY_PREFIX}:streams:tenant:{tenant_id}"


@dataclass(eq=False)  # hashed by identity, for the weak set
class StreamSlot:
    tenant_id: object
    member: str
    released: bool = False
    renewed_at: float = 0.0

    async def renew_if_due(self) -> None:
        """Renew the lease once a third of it has passed (called on every stream step)."""
        if time.monotonic() - self.renewed_at >= _lease_seconds() / 3:
            self.renewed_at = time.monotonic()
            await self.renew()

    async def renew(self) -> None:
        expiry = time.time() + _lease_seconds()
        try:
            await sync_to_async(_redis().zadd, thread_sensitive=False)(
                _key(self.tenant_id), {self.member: expiry}, xx=True
            )
        except RedisError:
            logger.warning("stream lease not renewed: Redis is unavailable")

    async def release(self) -> None:
        if self.released:
            return
        self.released = True
        _open_in_process.discard(self)
        try:
            await sync_to_async(_redis().zrem, thread_sensitive=False)(
                _key(self.tenant_id), self.member
            )
        except RedisError:
            logger.warning("stream slot not released: Redis is unavailable (its lease expires)")


def _acquire_in_redis(tenant_id: object, member: str) -> bool:
    now = time.time()
    return bool(
        _redis().eval(
            _ACQUIRE,
            1,
            _key(tenant_id),
            now,
            now + _lease_seconds(),
            settings.STREAMS_MAX_PER_TENANT,
            member,
            _lease_seconds() * 2,
        )
    )


async def stream_slot_acquire(*, tenant_id: object) -> StreamSlot:
    """A slot for one more open stream, or StreamLimitReached naming the limit."""
    if len(_open_in_process) >= settings.STREAMS_MAX_PER_PROCESS:
        raise StreamLimitReached(
            f"This server has {len(_open_in_process)} live streams open, its limit "
            f"(STREAMS_MAX_PER_PROCESS={settings.STREAMS_MAX_PER_PROCESS}); poll the status "
            "URL or try again shortly.",
            limit="STREAMS_MAX_PER_PROCESS",
        )
    slot = StreamSlot(tenant_id=tenant_id, member=uuid.uuid4().hex, renewed_at=time.monotonic())
    _open_in_process.add(slot)  # counted before the await, so concurrent opens see it
    member = slot.member
    try:
        acquired = await sync_to_async(_acquire_in_redis, thread_sensitive=False)(tenant_id, member)
    except RedisError:
        # Fail open on the shared count (the per-process one still holds): with Redis
        # down the stream itself degrades to re-reading the row on each tick.
        logger.warning("tenant stream limit not checked: Redis is unavailable")
        acquired = True
    except BaseException:
        _open_in_process.discard(slot)
        raise
    if not acquired:
        _open_in_process.discard(slot)
        raise StreamLimitReached(
            f"You have {settings.STREAMS_MAX_PER_TENANT} live streams open, the limit "
            "(STREAMS_MAX_PER_TENANT); close some or poll the status URL.",
            limit="STREAMS_MAX_PER_TENANT",
        )
    return slot
