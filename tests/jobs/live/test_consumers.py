"""The WebSocket consumers: session users follow only their own jobs (one, or all of them on
one socket); ping gets pong."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async
from asgiref.testing import ApplicationCommunicator
from channels.routing import URLRouter
from django.db import transaction

from jobs import services, transitions
from jobs.live.routing import websocket_urlpatterns
from tests.async_db import closing as _closing
from tests.factories import PdfJobFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


class _Socket(ApplicationCommunicator):
    """A browser's WebSocket at the ASGI level (channels.testing needs daphne)."""

    def __init__(self, job_id, user) -> None:
        path = f"/ws/jobs/{job_id}/" if job_id else "/ws/jobs/"
        scope = {
            "type": "websocket",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "headers": [(b"origin", b"http://testserver"), (b"host", b"testserver")],
            "subprotocols": [],
            "user": user,
        }
        super().__init__(URLRouter(websocket_urlpatterns), scope)

    async def connect(self) -> dict:
        await self.send_input({"type": "websocket.connect"})
        return await self.receive_output(timeout=5)

    async def receive_json_from(self, timeout: float = 5) -> dict:
        message = await self.receive_output(timeout=timeout)
        return json.loads(message["text"])

    async def send_json_to(self, data: dict) -> None:
        await self.send_input({"type": "websocket.receive", "text": json.dumps(data)})

    async def disconnect(self) -> None:
        await self.send_input({"type": "websocket.disconnect", "code": 1000})
        # The consumer's channel-layer read ends only at its blocking pop's timeout;
        # nothing is left to check by then, so stop waiting early.
        await self.wait(timeout=0.2)


def test_session_user_follows_own_job_and_ping_gets_pong():
    user = UserFactory()
    job = PdfJobFactory(owner=user)

    async def scenario() -> tuple[dict, dict]:
        ws = _Socket(job.job_id, user)
        assert (await ws.connect())["type"] == "websocket.accept"
        first = await ws.receive_json_from(timeout=5)
        await ws.send_json_to({"type": "ping"})
        pong = await ws.receive_json_from(timeout=5)
        await ws.disconnect()
        return first, pong

    first, pong = asyncio.run(_closing(scenario()))
    assert first["job_id"] == str(job.job_id)
    assert first["status"] == "queued"
    assert pong == {"type": "pong"}


def test_session_user_cannot_follow_someone_elses_job():
    job = PdfJobFactory()
    stranger = UserFactory(username="stranger")

    async def scenario() -> dict:
        ws = _Socket(job.job_id, stranger)
        assert (await ws.connect())["type"] == "websocket.accept"
        closed = await ws.receive_output(timeout=5)
        await ws.disconnect()
        return closed

    assert asyncio.run(_closing(scenario())) == {"type": "websocket.close", "code": 4404}


@pytest.mark.parametrize("origin", [b"http://evil.example", None])
def test_session_socket_from_another_origin_is_refused(origin):
    user = UserFactory()
    job = PdfJobFactory(owner=user)

    async def scenario() -> dict:
        ws = _Socket(job.job_id, user)
        ws.scope["headers"] = [(b"host", b"testserver")] + ([(b"origin", origin)] if origin else [])
        assert (await ws.connect())["type"] == "websocket.accept"
        closed = await ws.receive_output(timeout=5)
        await ws.disconnect()
        return closed

    assert asyncio.run(_closing(scenario())) == {"type": "websocket.close", "code": 4401}


def test_one_socket_follows_all_of_my_jobs_new_ones_included_and_nobody_elses(sent_tasks):
    user = UserFactory()
    older = PdfJobFactory(owner=user)
    theirs = PdfJobFactory()

    async def scenario() -> list[dict]:
        ws = _Socket(None, user)
        assert (await ws.connect())["type"] == "websocket.accept"
        got = [await ws.receive_json_from(timeout=5)]  # the snapshot: my one job
        await sync_to_async(_submit)(user)
        await sync_to_async(transitions.job_claim)(job_id=older.job_id, worker="w")
        await sync_to_async(transitions.job_claim)(job_id=theirs.job_id, worker="w")
        got.append(await ws.receive_json_from(timeout=5))
        got.append(await ws.receive_json_from(timeout=5))
        await ws.send_json_to({"type": "ping"})
        got.append(await ws.receive_json_from(timeout=5))  # nothing of theirs came first
        await ws.disconnect()
        return got

    snapshot, created, claimed, pong = asyncio.run(_closing(scenario()))
    assert (snapshot["job_id"], snapshot["status"]) == (str(older.job_id), "queued")
    assert (created["status"], created["template_name"]) == ("queued", None)
    assert created["job_id"] != str(older.job_id)
    assert (claimed["job_id"], claimed["status"]) == (str(older.job_id), "processing")
    assert pong == {"type": "pong"}


def _submit(user):
    with transaction.atomic():
        return services.job_create(owner=user, html_template="<p>hi</p>", data={})
