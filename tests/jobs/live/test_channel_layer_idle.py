"""An idle follower waits on the real channel layer past its 5 s block without a Redis
read timeout (which `make run` logged as a TimeoutError traceback every few seconds)."""

from __future__ import annotations

import asyncio
import time

import pytest
from channels.layers import get_channel_layer
from redis.exceptions import TimeoutError as RedisTimeoutError

from config.settings.workers import CHANNEL_LAYER_SOCKET_TIMEOUT

pytestmark = [pytest.mark.process, pytest.mark.timeout(30)]


def test_an_idle_receive_outlasts_the_layers_block_without_a_redis_timeout():
    async def idle_receive() -> float:
        layer = get_channel_layer()
        channel = await layer.new_channel()
        started = time.monotonic()
        try:
            # Past channels-redis' 5 s BZPOPMIN: the empty answer must be read, not timed out.
            await asyncio.wait_for(layer.receive(channel), timeout=7)
        except RedisTimeoutError as exc:
            raise AssertionError(f"the layer's read timed out: {exc}") from exc
        except TimeoutError:
            return time.monotonic() - started
        raise AssertionError("a message arrived on a channel nobody sends to")

    assert asyncio.run(idle_receive()) >= 6.9
    assert CHANNEL_LAYER_SOCKET_TIMEOUT > 5  # longer than channels-redis' brpop_timeout
