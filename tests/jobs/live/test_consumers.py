"""The WebSocket consumer: session users follow only their own jobs; ping gets pong."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.testing import ApplicationCommunicator
from channels.routing import URLRouter

from jobs.live.routing import websocket_urlpatterns
from tests.async_db import closing as _closing
from tests.factories import PdfJobFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


class _Socket(ApplicationCommunicator):
    """A browser's WebSocket at the ASGI level (channels.testing needs daphne)."""

    def __init__(self, job_id, user) -> None:
        path = f"/ws/jobs/{job_id}/"
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
