"""Following a job survives a failing channel layer: the database row is re-read."""

from __future__ import annotations

import asyncio

import pytest
from redis.exceptions import TimeoutError as RedisTimeoutError

from jobs.live import subscriptions
from jobs.models import JobStatus, PdfJob
from tests.async_db import closing as _closing
from tests.factories import PdfJobFactory

pytestmark = pytest.mark.django_db(transaction=True)


class _FlakyLayer:
    """A channel layer whose first receive fails the way a cancelled Redis read does."""

    def __init__(self) -> None:
        self.receives = 0

    async def new_channel(self) -> str:
        return "specific.test!1"

    async def group_add(self, group: str, channel: str) -> None:
        return None

    async def group_discard(self, group: str, channel: str) -> None:
        return None

    async def receive(self, channel: str) -> dict:
        self.receives += 1
        if self.receives == 1:
            raise RedisTimeoutError("Timeout reading from 127.0.0.1:6379")
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")


def test_a_channel_layer_error_does_not_end_the_stream(monkeypatch):
    job = PdfJobFactory()
    layer = _FlakyLayer()
    monkeypatch.setattr(subscriptions, "get_channel_layer", lambda: layer)

    async def scenario() -> list[dict]:
        follow = subscriptions.job_follow(str(job.job_id), heartbeat=0.05)
        first = await anext(follow)
        await PdfJob.objects.filter(pk=job.pk).aupdate(
            status=JobStatus.PROCESSING, progress=20, event_seq=1
        )
        second = await anext(follow)
        await follow.aclose()
        return [first, second]

    first, second = asyncio.run(_closing(scenario()))
    assert (first["seq"], first["status"]) == (0, "queued")
    assert (second["seq"], second["status"], second["progress"]) == (1, "processing", 20)
    assert layer.receives == 1
