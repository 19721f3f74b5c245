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
    client = redis.Redis.from_url(settings.REDIS_URL)
    assert any(w["hostname"] == "w1@test" and w["pid"] == 1 for w in workers_alive())
    count = workers_alive_count(client)
    presence_leave(hostname="w1@test")
    assert workers_alive_count(client) == count - 1
    assert all(w["hostname"] != "w1@test" for w in workers_alive())


def test_a_worker_that_stops_stamping_is_gone_after_its_expiry():
    client = redis.Redis.from_url(settings.REDIS_URL)
    presence_stamp(hostname="w2@test", info={})
    client.zadd(PRESENCE_KEY, {"w2@test": time.time() - 1})  # as if its beats stopped
    assert all(w["hostname"] != "w2@test" for w in workers_alive())
    presence_leave(hostname="w2@test")


def test_two_workers_of_one_hostname_are_two_members_with_their_instances():
    from jobs.worker.presence import workers_alive_instances

    presence_stamp(hostname="celery@clone", info={"pid": 1}, instance="i" * 12)
    presence_stamp(hostname="celery@clone", info={"pid": 1}, instance="j" * 12)
    try:
        clones = [w for w in workers_alive() if w["hostname"] == "celery@clone"]
        assert sorted(w["instance"] for w in clones) == ["i" * 12, "j" * 12]
        assert {"i" * 12, "j" * 12} <= (workers_alive_instances() or set())
    finally:
        presence_leave(hostname="celery@clone", instance="i" * 12)
        presence_leave(hostname="celery@clone", instance="j" * 12)
    assert "i" * 12 not in (workers_alive_instances() or set())
