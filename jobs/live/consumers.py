"""ws/jobs/{id}/ and ws/jobs/: the WebSocket twins of the SSE endpoints (and the base of a
run's, runs.live)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from accounts.tenancy import tenant_id_for
from jobs.links import with_links
from jobs.live.access import (
    follow_authorize,
    follower_resolve,
    job_follow_as,
    workspace_follow_as,
)
from jobs.live.stream_slots import StreamLimitReached, StreamSlot, stream_slot_acquire
from jobs.metrics import live_stream
from rendering.errors import ApplicationError

CLOSE_UNAUTHENTICATED = 4401
CLOSE_TOO_MANY_STREAMS = 4429


def _origin_allowed(scope: Mapping[str, Any]) -> bool:
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


class FollowingConsumer(AsyncJsonWebsocketConsumer):
    """Authenticates the caller, then sends what a follow generator yields until it ends."""

    # The follow generators subscribe on their own; without this every socket would also
    # keep an idle channel-layer read of its own (a second Redis receive per subscriber).
    channel_layer_alias = "__job_events_consumer_needs_none__"
    follower: asyncio.Task[None] | None = None
    slot: StreamSlot | None = None
    links = staticmethod(with_links)  # the event's URLs: a job's, or a run's

    async def _authorize(self, check: Callable[..., Any], **arguments: Any) -> Any | None:
        """Run the shared access check (as SSE does); on its 401 or 404, close the socket
        with 4401 or 4404 and return None."""
        headers = dict(self.scope.get("headers", []))
        api_key = headers.get(b"x-api-key", b"").decode("latin1") or None
        if api_key is None and not _origin_allowed(self.scope):
            # Session cookies ride along cross-site; only our own pages may use them.
            await self._refuse(CLOSE_UNAUTHENTICATED)
            return None
        try:
            allowed = await database_sync_to_async(check)(
                api_key=api_key,
                session_user=self.scope.get("user"),
                session=self.scope.get("session"),
                **arguments,
            )
        except ApplicationError as exc:
            # The HTTP answer in close-code form: 4401 "who are you", 4404 "no such job".
            await self._refuse(4000 + exc.http_status)
            return None
        caller = allowed[0] if isinstance(allowed, tuple) else allowed
        try:
            self.slot = await stream_slot_acquire(
                tenant_id=tenant_id_for(workspace=caller.workspace_id)
            )
        except StreamLimitReached:
            await self._refuse(CLOSE_TOO_MANY_STREAMS)
            return None
        return allowed

    async def _connect_following(
        self,
        check: Callable[..., Any],
        follow: Callable[[Any], AsyncIterator[dict[str, Any] | None]],
        **arguments: Any,
    ) -> None:
        """connect(): the access check (the socket closed on a refusal), then accept and
        relay `follow(<what the check allowed>)` until it ends."""
        allowed = await self._authorize(check, **arguments)
        if allowed is None:
            return
        await self.accept()
        self._send_all(follow(allowed))

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

    def _send_all(self, events: AsyncIterator[dict[str, Any] | None]) -> None:
        self.follower = asyncio.create_task(self._relay(events))

    async def _relay(self, events: AsyncIterator[dict[str, Any] | None]) -> None:
        with live_stream("websocket"):
            try:
                async for event in events:
                    if self.slot is not None:
                        await self.slot.renew_if_due()
                    if event is not None:
                        await self.send_json(self.links(event, self._absolute))
                if self.slot is not None:
                    await self.slot.release()  # free now, not when the client acknowledges
                await self.close()
            except OSError:
                pass  # the client went away mid-send (uvicorn's ClientDisconnected)

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


class JobEventsConsumer(FollowingConsumer):
    """ws/jobs/{id}/: one job's events until it ends."""

    async def connect(self) -> None:
        await self._connect_following(
            follow_authorize,
            lambda allowed: job_follow_as(*allowed),
            job_id=self.scope["url_route"]["kwargs"]["job_id"],
        )


class OwnerJobsConsumer(FollowingConsumer):
    """ws/jobs/: every event of the caller's workspace's jobs (the dashboard's one subscription)."""

    async def connect(self) -> None:
        await self._connect_following(follower_resolve, workspace_follow_as)
