"""Queue depth over time, for the ops dashboard: beat records one sample a minute in a
Redis sorted set in REDIS_URL (the database holds no history of the broker, which may be
RabbitMQ), kept for eight days."""

from __future__ import annotations

import json
import time
from typing import Any

import redis

from core.redis import redis_client
from jobs.ops.queues import BrokerStats

HISTORY_KEY = "pdf:ops:queue-history"  # score: sample time, member: JSON of the sample
KEEP_SECONDS = 8 * 24 * 3600


def queue_history_record(stats: BrokerStats, *, at: float | None = None) -> None:
    at = time.time() if at is None else at
    sample = {
        "t": round(at, 3),
        "depth": {name: q.depth for name, q in stats.queues.items()},
        "workers": stats.workers_alive,
    }
    pipe = redis_client().pipeline(transaction=False)
    pipe.zadd(HISTORY_KEY, {json.dumps(sample, sort_keys=True): at})
    pipe.zremrangebyscore(HISTORY_KEY, "-inf", at - KEEP_SECONDS)
    pipe.execute()


def queue_history(*, since: float) -> list[dict[str, Any]]:
    """Samples since the given time, oldest first; empty when Redis does not answer."""
    try:
        raw: list[bytes] = redis_client().zrangebyscore(HISTORY_KEY, since, "+inf")  # type: ignore[assignment]
    except redis.RedisError:
        return []
    return [json.loads(item) for item in raw]
