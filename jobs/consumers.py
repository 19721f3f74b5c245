"""ws/jobs/{id}/: the WebSocket twin of the SSE endpoint."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any
from urllib.parse import urlsplit

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from jobs import selectors
from jobs.caller import caller_resolve
from jobs.exceptions import NotFound
from jobs.links import with_links
from jobs.streams import StreamLimitReached, StreamSlot, stream_slot_acquire
from jobs.subscriptions import job_follow

CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY_STREAMS = 4429


def _origin_allowed(scope: dict[str, Any]) -> bool:
    """Same origin as the page's host, or one of CSRF_TRUSTED_ORIGINS (behind a proxy):
    the WebSocket twin of Django's CSRF origin check."""
    headers = dict(scope.get("headers", []))
    origin = headers.get(b"origin", b"").decode("latin1").lower().rstrip("/")
    host = headers.get(b"host", b"").decode("latin1").lower()
    if not origin or not host:
        return False
    if urlsplit(origin).netloc == host:
        return True
    return origin in {trusted.lower().rstrip("/") for trusted in settings.CSRF_TRUSTED_ORIGINS}


class JobEventsConsumer(AsyncJsonWebsocketConsumer):
    # job_follow subscribes on its own; without this every socket would also keep an idle
    # channel-layer read of its own (a second Redis receive per subscriber for nothing).
    channel_layer_alias = "__job_events_consumer_needs_none__"
    follower: asyncio.Task[None] | None = None
    slot: StreamSlot | None = None

    async def connect(self) -> None:
        headers = dict(self.scope.get("headers", []))
        api_key = headers.get(b"x-api-key", b"").decode("latin1") or None
        if api_key is None and not _origin_allowed(self.scope):
            # Session cookies ride along cross-site; only our own pages may use them.
            await self._refuse(CLOSE_UNAUTHENTICATED)
            return
        caller = await database_sync_to_async(caller_resolve)(
            api_key=api_key, session_user=self.scope.get("user")
        )
        if caller is None:
            await self._refuse(CLOSE_UNAUTHENTICATED)
            return
        try:
            job = await database_sync_to_async(selectors.job_get)(
                owner=caller.user, job_id=self.scope["url_route"]["kwargs"]["job_id"]
            )
        except NotFound:
            await self._refuse(CLOSE_NOT_FOUND)
            return
        try:
            self.slot = await stream_slot_acquire(tenant_id=caller.user.pk)
        except StreamLimitReached:
            await self._refuse(CLOSE_TOO_MANY_STREAMS)
            return
        await self.accept()
        self.follower = asyncio.create_task(self._follow(str(job.job_id), caller.key_prefix))

    async def _refuse(self, code: int) -> None:
        # Accept, then close with an application code: a bare handshake 403 tells a client
        # nothing, while 4401/4404 say "who are you" and "no such job" apart.
        await self.accept()
        await self.close(code=code)

    def _absolute(self, path: str) -> str:
        headers = dict(self.scope.get("headers", []))
        host = headers.get(b"host", b"localhost").decode("latin1")
        scheme = "https" if self.scope.get("scheme") in ("wss", "https") else "http"
        return f"{scheme}://{host}{path}"

    async def _follow(self, job_id: str, key_prefix: str | None) -> None:
        follow = job_follow(job_id, heartbeat=settings.SSE_HEARTBEAT_SECONDS, key_prefix=key_prefix)
        try:
            async for event in follow:
                if self.slot is not None:
                    await self.slot.renew_if_due()
                if event is not None:
                    await self.send_json(with_links(event, self._absolute))
            if self.slot is not None:
                await self.slot.release()  # free now, not when the client acknowledges
            await self.close()
        except OSError:
            pass  # the client went away mid-send (uvicorn's ClientDisconnected); nothing to do

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        # Client keep-alive: a browser cannot see WebSocket pings, so it sends its own and
        # treats a missing pong as a dead connection. The traffic also keeps idle proxies
        # from closing the socket. Anything else a client sends is ignored.
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})

    async def disconnect(self, code: int) -> None:
        if self.follower is not None:
            self.follower.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.follower
        if self.slot is not None:
            await self.slot.release()
