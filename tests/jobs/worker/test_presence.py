"""Worker presence: stamped, counted, gone when it leaves or stops stamping."""

from __future__ import annotations

import time

import redis
from django.conf import settings

from jobs.worker.presence import (
    PRESENCE_KEY,
    presence_leave,
    presence_stamp,
    workers_alive,
    workers_alive_count,
)


def test_a_stamped_worker_is_alive_until_it_leaves():
    presence_stamp(hostname="w1@test", info={"pid": 1, "queues": ["pdf"]})
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    assert any(w["hostname"] == "w1@test" and w["pid"] == 1 for w in workers_alive())
    count = workers_alive_count(client)
    presence_leave(hostname="w1@test")
    assert workers_alive_count(client) == count - 1
    assert all(w["hostname"] != "w1@test" for w in workers_alive())


def test_a_worker_that_stops_stamping_is_gone_after_its_expiry():
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    presence_stamp(hostname="w2@test", info={})
    client.zadd(PRESENCE_KEY, {"w2@test": time.time() - 1})  # as if its beats stopped
    assert all(w["hostname"] != "w2@test" for w in workers_alive())
    presence_leave(hostname="w2@test")
