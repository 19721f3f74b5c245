"""Which Celery workers are alive: each worker's main process stamps a Redis sorted set
every WORKER_PRESENCE_SECONDS, so a scrape or the dashboard reads them in one call, and a
worker that died simply stops being there. The set lives in REDIS_URL, never the broker
(which may be RabbitMQ); a member is the worker's name and its start's instance, so two
hosts with one hostname are two members."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import redis
from django.conf import settings

from core.daemon_loop import DaemonLoop
from core.redis import redis_client

PRESENCE_KEY = "pdf:workers"  # member: hostname#instance, score: when its presence expires
INFO_KEY = "pdf:workers:info"  # member -> JSON (host, pid, processes, queues, started_at)


def _client() -> redis.Redis:
    return redis_client()


def _member(hostname: str, instance: str) -> str:
    return f"{hostname}#{instance}" if instance else hostname


def _expires_after() -> float:
    # Three missed beats before a worker counts as gone.
    return 3 * settings.WORKER_PRESENCE_SECONDS


def presence_stamp(*, hostname: str, info: dict[str, Any], instance: str = "") -> None:
    now = time.time()
    member = _member(hostname, instance)
    client = _client()
    try:
        pipe = client.pipeline(transaction=False)
        pipe.zadd(PRESENCE_KEY, {member: now + _expires_after()})
        pipe.hset(INFO_KEY, member, json.dumps(info))
        pipe.execute()
    finally:
        client.close()


def presence_leave(*, hostname: str, instance: str = "") -> None:
    member = _member(hostname, instance)
    client = _client()
    try:
        client.zrem(PRESENCE_KEY, member)
        client.hdel(INFO_KEY, member)
    finally:
        client.close()


def workers_alive_count(client: redis.Redis) -> int:
    return int(client.zcount(PRESENCE_KEY, time.time(), "+inf"))


def workers_alive() -> list[dict[str, Any]]:
    """Live workers with what they said about themselves, by hostname."""
    client = _client()
    try:
        members: list[bytes] = client.zrangebyscore(PRESENCE_KEY, time.time(), "+inf")  # type: ignore[assignment]
        names = [member.decode() for member in members]
        infos = client.hmget(INFO_KEY, names) if names else []
    finally:
        client.close()
    return [
        {
            "hostname": name.partition("#")[0],
            "instance": name.partition("#")[2],
            **(json.loads(raw) if raw else {}),
        }
        for name, raw in zip(names, infos, strict=True)
    ]


def workers_alive_instances() -> frozenset[str] | None:
    """The instances of the workers present now; None when Redis does not answer (then
    nobody can be judged gone by presence)."""
    client = _client()
    try:
        members: list[bytes] = client.zrangebyscore(PRESENCE_KEY, time.time(), "+inf")  # type: ignore[assignment]
    except redis.RedisError:
        return None
    finally:
        client.close()
    return frozenset(member.decode().partition("#")[2] for member in members)


class PresenceBeat(DaemonLoop):
    """A daemon thread in the worker's main process that keeps its presence stamped."""

    def __init__(
        self, *, hostname: str, info: Callable[[], dict[str, Any]], instance: str = ""
    ) -> None:
        self.hostname = hostname
        self.instance = instance
        self.info = info  # read at every beat: pool children come and go
        super().__init__("worker-presence", self._stamp, lambda: settings.WORKER_PRESENCE_SECONDS)

    def _stamp(self) -> None:
        try:
            presence_stamp(hostname=self.hostname, info=self.info(), instance=self.instance)
        except redis.RedisError:
            pass  # Redis is down; the worker is in trouble anyway, try again later

    def stop(self) -> None:
        super().stop()
        self._thread.join(timeout=5)
        try:
            presence_leave(hostname=self.hostname, instance=self.instance)
        except redis.RedisError:
            pass  # it expires by itself
