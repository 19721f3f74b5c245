"""The broker's queues as operators see them: depth and the age of the oldest waiting
message per queue, and the number of live workers (from REDIS_URL, whatever the broker).

On Redis the depths and ages are one round trip to the broker. On RabbitMQ a passive
queue declare gives each depth; AMQP cannot peek at a waiting message without taking it,
so the oldest message's age there is NaN (unknown), as for an unstamped message."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from math import isnan, nan
from typing import cast

import redis
from amqp.channel import Channel as AmqpChannel
from amqp.exceptions import NotFound
from django.conf import settings
from kombu.connection import Connection
from kombu.exceptions import OperationalError

from core.redis import redis_client
from jobs.dispatch import SENT_AT_HEADER
from jobs.ops.broker import broker_is_redis
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


def _redis_queues(queues: list[str]) -> dict[str, QueueStats]:
    pipe = redis_client(settings.CELERY_BROKER_URL).pipeline(transaction=False)
    for queue in queues:
        pipe.llen(queue)
        pipe.lindex(queue, -1)  # kombu LPUSHes and BRPOPs: the oldest is last
    replies = pipe.execute()
    now = time.time()
    return {
        queue: QueueStats(
            depth=int(replies[2 * i]), oldest_age=_oldest_age(replies[2 * i + 1], now)
        )
        for i, queue in enumerate(queues)
    }


def _amqp_queues(queues: list[str]) -> dict[str, QueueStats]:
    stats = {}
    with Connection(settings.CELERY_BROKER_URL, connect_timeout=2) as connection:
        connection.ensure_connection(max_retries=1)
        for queue in queues:
            # An AMQP broker here, so its channel (kombu types the transport-neutral base).
            channel = cast(AmqpChannel, connection.channel())
            try:
                declared = channel.queue_declare(queue=queue, passive=True)
                depth = declared[1] if declared is not None else 0  # None only with nowait
            except NotFound:  # not declared yet: no worker has consumed it, nothing sent
                depth = 0
            finally:
                channel.close()
            stats[queue] = QueueStats(depth=int(depth), oldest_age=0.0 if not depth else nan)
    return stats


def _workers_alive() -> int:
    return int(redis_client().zcount(PRESENCE_KEY, time.time(), "+inf"))


def broker_stats() -> BrokerStats | None:
    """None when the broker (or Redis, which holds worker presence) does not answer."""
    queues = celery_queues()
    try:
        depths = _redis_queues(queues) if broker_is_redis() else _amqp_queues(queues)
        alive = _workers_alive()
    except (redis.RedisError, OperationalError, OSError):
        return None
    return BrokerStats(queues=depths, workers_alive=alive)
