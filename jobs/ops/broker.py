"""What the broker holds: the job ids of render messages that are waiting in Redis, or
reserved by a worker that is plausibly still going to run them.

Only kombu's Redis transport can be listed like this. AMQP (RabbitMQ) offers no look at
waiting messages, but it does not lose an acknowledged publish from a durable queue, and
returns a dead consumer's unacked messages itself: the reconciler then trusts every send
the database recorded and re-sends only what was never sent, or has waited longer than a
message could be held (see jobs.ops.reconciler)."""

from __future__ import annotations

import json
import logging
import time
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import redis
from django.conf import settings

from core.redis import redis_client
from jobs.dispatch import job_id_from_task_id

logger = logging.getLogger(__name__)
# kombu's Redis transport: reserved (unacked) messages by delivery tag, and when each
# was delivered.
UNACKED_KEY = "unacked"
UNACKED_INDEX_KEY = "unacked_index"


def broker_is_redis() -> bool:
    return urlsplit(settings.CELERY_BROKER_URL).scheme in {"redis", "rediss", "redis+socket"}


def _job_id(message: dict[str, Any]) -> str | None:
    return job_id_from_task_id(str(message.get("headers", {}).get("id", "")))


def _eta(message: dict[str, Any]) -> float | None:
    eta = message.get("headers", {}).get("eta")
    try:
        return datetime.fromisoformat(eta).timestamp() if eta else None
    except ValueError:
        return None


def _reserved_is_live(message: dict[str, Any], delivered_at: float, *, grace: float) -> bool:
    """A reserved message is live while its countdown runs, or shortly after delivery (a
    worker claims a job within moments of taking its message). One held longer, whose job
    is still queued, was reserved by a worker that died: an orphan until the visibility
    timeout returns it."""
    now = time.time()
    eta = _eta(message)
    if eta is not None:
        return now < eta + grace
    return now < delivered_at + grace


def job_ids_in_broker(*, grace: float | None = None) -> set[str] | None:
    """Job ids with a live message; None when the broker cannot be read."""
    grace = settings.RECONCILE_QUEUED_AFTER_SECONDS if grace is None else grace
    client = redis_client(settings.CELERY_BROKER_URL, timeout=5)
    try:
        waiting = client.lrange(settings.CELERY_TASK_DEFAULT_QUEUE, 0, -1)
        reserved = client.hgetall(UNACKED_KEY)
        scored: list[tuple[bytes | str, float]] = client.zrange(
            UNACKED_INDEX_KEY, 0, -1, withscores=True
        )  # type: ignore[assignment]
        delivered = dict(scored)
    except redis.RedisError:
        logger.warning("broker unreachable; cannot tell which jobs are in flight")
        return None
    ids: set[str] = set()
    for raw in waiting:
        try:
            job_id = _job_id(json.loads(raw))
        except (ValueError, TypeError, AttributeError):
            continue
        if job_id:
            ids.add(job_id)
    for tag, raw in reserved.items():
        try:
            message = json.loads(raw)[0]  # [message, exchange, routing_key]
            job_id = _job_id(message)
        except (ValueError, TypeError, AttributeError, IndexError, KeyError):
            continue
        if job_id and _reserved_is_live(message, delivered.get(tag, 0.0), grace=grace):
            ids.add(job_id)
    return ids
