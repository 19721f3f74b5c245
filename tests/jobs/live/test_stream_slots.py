"""Live streams are limited per tenant (in Redis) and per process, and a revoked key's
streams close."""

from __future__ import annotations

import asyncio
import gc
import time

import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient

from accounts.services import api_key_create, api_key_revoke
from core.leases import lease_count
from jobs.live import stream_slots as streams
from tests.async_db import closing as _closing
from tests.factories import PdfJobFactory, UserFactory
from tests.jobs.live.test_consumers import _Socket

pytestmark = pytest.mark.django_db(transaction=True)


class _KeySocket(_Socket):
    def __init__(self, job_id, raw_key: str) -> None:
        super().__init__(job_id, None)
        self.scope["headers"] = [(b"host", b"testserver"), (b"x-api-key", raw_key.encode())]


def test_websockets_past_the_tenant_limit_close_with_4429(settings):
    settings.STREAMS_MAX_PER_TENANT = 2
    user = UserFactory()
    job = PdfJobFactory(owner=user)

    async def scenario() -> tuple[list[str], dict, str]:
        sockets = [_Socket(job.job_id, user) for _ in range(3)]
        answers = [(await ws.connect())["type"] for ws in sockets[:2]]
        await sockets[2].connect()
        refused = await sockets[2].receive_output(timeout=5)
        await sockets[0].disconnect()
        again = _Socket(job.job_id, user)
        reopened = (await again.connect())["type"]
        for ws in (sockets[1], again):
            await ws.disconnect()
        return answers, refused, reopened

    answers, refused, reopened = asyncio.run(_closing(scenario()))
    assert answers == ["websocket.accept", "websocket.accept"]
    assert (refused["type"], refused["code"]) == ("websocket.close", 4429)
    assert reopened == "websocket.accept"  # a closed stream frees its slot


def test_sse_past_the_tenant_limit_is_429_naming_it(settings):
    settings.STREAMS_MAX_PER_TENANT = 1
    user = UserFactory()
    key = api_key_create(user=user)[1]
    job = PdfJobFactory(owner=user)

    async def scenario():
        client = AsyncClient()
        url = f"/api/v1/jobs/{job.job_id}/events"
        first = await client.get(url, headers={"X-API-Key": key})
        second = await client.get(url, headers={"X-API-Key": key})
        if first.status_code == 200:
            await first.streaming_content.aclose()
        return first, second

    first, second = asyncio.run(_closing(scenario()))
    assert first.status_code == 200, first.content
    assert second.status_code == 429
    assert second.json()["limit"] == "STREAMS_MAX_PER_TENANT"
    assert "Retry-After" in second


def test_streams_past_the_process_limit_are_refused(settings):
    gc.collect()  # streams of earlier tests that were dropped without closing
    settings.STREAMS_MAX_PER_PROCESS = len(streams._open_in_process) + 1
    user, other = UserFactory(), UserFactory()
    job, other_job = PdfJobFactory(owner=user), PdfJobFactory(owner=other)

    async def scenario() -> tuple[str, dict]:
        first = _Socket(job.job_id, user)
        opened = (await first.connect())["type"]
        second = _Socket(other_job.job_id, other)
        await second.connect()
        refused = await second.receive_output(timeout=5)
        await first.disconnect()
        return opened, refused

    opened, refused = asyncio.run(_closing(scenario()))
    assert opened == "websocket.accept"
    assert refused["code"] == 4429


def test_revoking_a_key_closes_the_streams_it_opened():
    user = UserFactory()
    key, raw = api_key_create(user=user)
    job = PdfJobFactory(owner=user)

    async def scenario() -> tuple[dict, float]:
        ws = _KeySocket(job.job_id, raw)
        assert (await ws.connect())["type"] == "websocket.accept"
        assert (await ws.receive_json_from())["status"] == "queued"
        started = time.monotonic()
        await sync_to_async(api_key_revoke)(user=user, key_id=key.pk)
        closed = await ws.receive_output(timeout=10)
        took = time.monotonic() - started
        await ws.disconnect()
        return closed, took

    closed, took = asyncio.run(_closing(scenario()))
    assert closed["type"] == "websocket.close"
    assert took < 3  # announced on the key's group, not found at the next heartbeat
    held = lease_count(name=streams._lease_name(key.workspace_id))
    assert held == 0  # its slot is free again
