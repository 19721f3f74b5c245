"""The broker's queues as operators see them: depth and the age of the oldest waiting
message per queue, and the number of live workers, read in one Redis round trip."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from math import isnan

import redis
from django.conf import settings

from jobs.dispatch import SENT_AT_HEADER
from jobs.worker.presence import PRESENCE_KEY


@dataclass(frozen=True)
class QueueStats:
    depth: int
    oldest_age: float  # seconds; 0 when empty, NaN when the oldest message is unstamped


@dataclass(frozen=True)
class BrokerStats:
    queues: dict[str, QueueStats]
    workers_alive: int

    @property
    def oldest(self) -> tuple[str, float]:
        """The queue whose oldest message has waited longest, and how long."""
        known = [(q.oldest_age, name) for name, q in self.queues.items() if not isnan(q.oldest_age)]
        age, name = max(known, default=(0.0, ""))
        return name, age


def celery_queues() -> list[str]:
    routed = {route["queue"] for route in settings.CELERY_TASK_ROUTES.values()}
    return sorted({settings.CELERY_TASK_DEFAULT_QUEUE, *routed})


def _oldest_age(raw: bytes | None, now: float) -> float:
    if raw is None:
        return 0.0
    try:
        sent = float(json.loads(raw)["headers"][SENT_AT_HEADER])
    except (ValueError, KeyError, TypeError):
        return float("nan")
    return max(0.0, now - sent)


def broker_stats() -> BrokerStats | None:
    """None when the broker does not answer."""
    queues = celery_queues()
    client = redis.Redis.from_url(
        settings.CELERY_BROKER_URL, socket_timeout=2, socket_connect_timeout=2
    )
    try:
        pipe = client.pipeline(transaction=False)
        for queue in queues:
            pipe.llen(queue)
            pipe.lindex(queue, -1)  # kombu LPUSHes and BRPOPs: the oldest is last
        pipe.zcount(PRESENCE_KEY, time.time(), "+inf")
        replies = pipe.execute()
    except redis.RedisError:
        return None
    finally:
        client.close()
    now = time.time()
    return BrokerStats(
        queues={
            queue: QueueStats(
                depth=int(replies[2 * i]), oldest_age=_oldest_age(replies[2 * i + 1], now)
            )
            for i, queue in enumerate(queues)
        },
        workers_alive=int(replies[-1]),
    )
