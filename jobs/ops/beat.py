"""Celery beat's scheduler: the stock one, plus a Redis lock per periodic task so that two
beat processes at once (a deploy's overlap, a second host started by mistake) send each
task once per interval, and the directory of its schedule file made on a fresh checkout."""

from __future__ import annotations

import logging
import os
import socket
from pathlib import Path
from typing import Any

import redis
from celery.beat import PersistentScheduler, ScheduleEntry

from core.redis import redis_client

logger = logging.getLogger(__name__)
LOCK_PREFIX = "pdf:beat:"
# A lock lives for this share of its task's interval: the next run of the beat that took
# it finds it gone, a second beat's run inside the interval finds it held.
LOCK_SHARE = 0.9


def _interval_seconds(entry: ScheduleEntry) -> float:
    run_every = getattr(entry.schedule, "run_every", None)
    return run_every.total_seconds() if run_every is not None else 60.0


def beat_turn_take(*, name: str, interval: float, client: redis.Redis | None = None) -> bool:
    """True when this beat is the one to send `name` this interval. Fails open: with Redis
    down every beat sends, and the periodic tasks are safe to run twice."""
    owner = f"{socket.gethostname()}:{os.getpid()}"
    client = client or redis_client()
    try:
        ttl_ms = max(500, int(interval * LOCK_SHARE * 1000))
        return bool(client.set(f"{LOCK_PREFIX}{name}", owner, nx=True, px=ttl_ms))
    except redis.RedisError:
        logger.warning("beat: Redis unreachable, sending %s without the lock", name)
        return True


class LockedScheduler(PersistentScheduler):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        filename = kwargs.get("schedule_filename")
        if filename:
            Path(filename).parent.mkdir(parents=True, exist_ok=True)
        super().__init__(*args, **kwargs)

    def apply_entry(self, entry: ScheduleEntry, producer: Any = None) -> None:
        if not beat_turn_take(name=str(entry.name), interval=_interval_seconds(entry)):
            logger.info("beat: %s was sent by another beat this interval", entry.name)
            return
        super().apply_entry(entry, producer=producer)
