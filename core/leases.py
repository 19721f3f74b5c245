"""Counted leases in Redis: at most N holders of a name at once, across every process.

A sorted set of holders scored by lease expiry, taken and counted in one Lua call, so two
processes cannot both take the last place. A holder that dies without letting go frees
its place when its lease runs out. With Redis down a lease is granted (fail open): the
other bounds (rates in the database, time limits) still hold.
"""

from __future__ import annotations

import logging
import time
import uuid

from django.conf import settings
from redis.exceptions import RedisError

from core.redis import redis_client

logger = logging.getLogger(__name__)

_TAKE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""
_COUNT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZCARD', KEYS[1])
"""


def _key(name: str) -> str:
    return f"{settings.LIMITS_KEY_PREFIX}:lease:{name}"


def lease_take(*, name: str, limit: int, seconds: float) -> str | None:
    """A holder's token for one of `limit` places under `name`, held for at most
    `seconds`; None when every place is taken."""
    token = uuid.uuid4().hex
    now = time.time()
    try:
        taken = redis_client().eval(
            _TAKE, 1, _key(name), now, now + seconds, limit, token, int(seconds) + 60
        )
    except (RedisError, OSError):
        logger.warning("lease %s not counted: Redis is unavailable", name.split(":")[0])
        return token
    return token if taken else None


def lease_renew(*, name: str, token: str, seconds: float) -> None:
    """Hold the place `token` took for another `seconds` (a holder that lives long, such
    as an open stream, renews on its heartbeat); a lease already expired stays gone."""
    try:
        client = redis_client()
        client.zadd(_key(name), {token: time.time() + seconds}, xx=True)
        client.expire(_key(name), int(seconds) + 60)
    except (RedisError, OSError):
        logger.warning("lease %s not renewed: Redis is unavailable", name.split(":")[0])


def lease_release(*, name: str, token: str) -> None:
    try:
        redis_client().zrem(_key(name), token)
    except (RedisError, OSError):
        logger.warning("lease %s not released: Redis is unavailable (it expires)", name)


def lease_count(*, name: str) -> int:
    """Places held under `name` now (expired leases not counted)."""
    try:
        return int(redis_client().eval(_COUNT, 1, _key(name), time.time()))
    except (RedisError, OSError):
        return 0
