"""The generation caches inside a request: one read of all their generations, a change
committed elsewhere seen by the next request, the request's own change at once."""

from __future__ import annotations

import uuid

import pytest
from django.db import transaction

from core import generation_cache
from core.generation_cache import GenerationCache, request_scope
from core.redis import redis_client


def _cache() -> tuple[GenerationCache[int], list[int]]:
    cache: GenerationCache[int] = GenerationCache(f"test-{uuid.uuid4().hex}")
    loads: list[int] = []
    return cache, loads


def _load(loads: list[int]) -> int:
    loads.append(len(loads) + 1)
    return loads[-1]


def test_a_request_reads_every_caches_generation_at_its_first_look_up():
    cache, loads = _cache()
    other, _ = _cache()
    with request_scope():
        cache.get("k", lambda: _load(loads))
        read = generation_cache._request.generations
        assert set(generation_cache._KEYS) <= set(read)
        assert other._key in read  # the other cache's look-up needs no Redis call of its own
    assert not hasattr(generation_cache._request, "generations")


def test_a_change_committed_elsewhere_is_seen_by_the_next_request():
    cache, loads = _cache()
    with request_scope():
        assert cache.get("k", lambda: _load(loads)) == 1
        redis_client().incr(cache._key)  # another process committed a change
        assert cache.get("k", lambda: _load(loads)) == 1  # this request read before it
    with request_scope():
        assert cache.get("k", lambda: _load(loads)) == 2
    # Outside a request (a worker) every look-up reads the generation itself.
    redis_client().incr(cache._key)
    assert cache.get("k", lambda: _load(loads)) == 3
    assert cache.get("k", lambda: _load(loads)) == 3


@pytest.mark.django_db(transaction=True)
def test_the_requests_own_committed_change_is_seen_by_its_later_look_ups():
    cache, loads = _cache()
    with request_scope():
        assert cache.get("k", lambda: _load(loads)) == 1
        with transaction.atomic():
            cache.invalidate()
            assert cache.get("k", lambda: _load(loads)) == 2  # its own write: past the cache
        assert cache.get("k", lambda: _load(loads)) == 3  # committed: loaded again
        assert cache.get("k", lambda: _load(loads)) == 3
    with request_scope():
        assert cache.get("k", lambda: _load(loads)) == 3


def test_a_request_inside_a_request_leaves_the_outer_ones_generations():
    cache, loads = _cache()
    with request_scope():
        cache.get("k", lambda: _load(loads))
        outer = generation_cache._request.generations
        with request_scope():
            cache.get("k", lambda: _load(loads))
        assert generation_cache._request.generations is outer
