"""A follower's idle ticks lose none of the messages that arrive meanwhile (jobs.live.
receiving): with channels_redis, a receive cancelled at a deadline dropped a message that
was reaching it."""

from __future__ import annotations

import asyncio
import uuid

import pytest
import redis.exceptions
from channels_redis.core import RedisChannelLayer
from django.conf import settings

from jobs.live.receiving import Receiver

pytestmark = [pytest.mark.process, pytest.mark.timeout(60)]

SENT = 300


def test_messages_arriving_across_many_short_deadlines_are_all_received():
    async def scenario() -> tuple[list[int], int]:
        layer = RedisChannelLayer(hosts=[settings.REDIS_URL], prefix=f"t{uuid.uuid4().hex}")
        channel = await layer.new_channel()
        await layer.group_add("followers", channel)

        async def publish() -> None:
            for n in range(SENT):
                await layer.group_send("followers", {"type": "event", "n": n})
                await asyncio.sleep(0.0005)

        publisher = asyncio.ensure_future(publish())
        receiver, received, ticks = Receiver(layer, channel), [], 0
        deadline = asyncio.get_running_loop().time() + 30
        while len(received) < SENT and asyncio.get_running_loop().time() < deadline:
            # 2 ms deadlines: cancelling the receive at each lost 16 of 300 messages here.
            message = await receiver.next(0.002)
            if message is None:
                ticks += 1
            else:
                received.append(message["n"])
        await publisher
        await receiver.close()
        await layer.flush()
        return received, ticks

    received, ticks = asyncio.run(scenario())
    assert ticks > 0  # deadlines passed while messages were on their way
    assert received == list(range(SENT))


def test_closing_a_receiver_ends_its_pending_receive():
    async def scenario() -> asyncio.Future | None:
        layer = RedisChannelLayer(hosts=[settings.REDIS_URL], prefix=f"t{uuid.uuid4().hex}")
        receiver = Receiver(layer, await layer.new_channel())
        assert await receiver.next(0.01) is None
        pending = receiver._pending
        await receiver.close()
        assert receiver._pending is None
        await layer.flush()
        return pending

    pending = asyncio.run(scenario())
    assert pending is not None
    assert pending.done()
    # Ended by the cancel, taking no message: cancelled, or, when the cancel lands while
    # redis-py's read is inside its timeout scope, with the TimeoutError redis-py makes of
    # it (4 closes in 300 on a loaded machine).
    assert pending.cancelled() or isinstance(pending.exception(), redis.exceptions.TimeoutError)
