"""ASGI middleware: a request body over the limit is answered 413 before Django reads it.

Django's ASGI handler spools the whole body to a temporary file before routing, so an
unauthenticated client could stream gigabytes onto the disk; DATA_UPLOAD_MAX_MEMORY_SIZE
is only checked after that. This sits in front of Django: a declared Content-Length over
the limit is refused at once, and a body without one (chunked) is counted as it arrives.

A caller nobody knows yet gets a far smaller allowance (`anonymous_max_bytes`: enough for
a sign-in form): a larger body is read only once `is_known(scope)` says the request
carries a valid API key or signed-in session, else it is a 401 before a byte is read.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from core.error_codes import ApiErrorCode
from rendering.error_codes import ErrorCode
from rendering.limits import size_text

Scope = Any
Message = Any
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class BodyLimitMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        *,
        max_bytes: int,
        anonymous_max_bytes: int | None = None,
        is_known: Callable[[Scope], Awaitable[bool]] | None = None,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.anonymous_max_bytes = anonymous_max_bytes if is_known is not None else None
        self.is_known = is_known

    async def _known(self, scope: Scope, state: dict[str, bool]) -> bool:
        if "known" not in state:  # asked once a request, and only for a large body
            state["known"] = self.is_known is not None and await self.is_known(scope)
        return state["known"]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        anonymous = self.anonymous_max_bytes
        state: dict[str, bool] = {}
        length = _content_length(scope)
        if length is not None:
            if length > self.max_bytes:
                await self._refuse(send)
                return
            if anonymous is not None and length > anonymous and not await self._known(scope, state):
                await self._refuse_anonymous(send)
                return
            await self.app(scope, receive, send)  # the server enforces the declared length
            return
        # No length declared: read up to the limit here, then hand the body on.
        messages: list[Message] = []
        received = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break  # the client went away; let Django see the disconnect
            received += len(message.get("body", b""))
            if received > self.max_bytes:
                await self._refuse(send)
                return
            if (
                anonymous is not None
                and received > anonymous
                and not await self._known(scope, state)
            ):
                await self._refuse_anonymous(send)
                return
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        message = f"The request body is larger than the {size_text(self.max_bytes)} allowed."
        await _answer(send, 413, {"error": message, "code": ErrorCode.TOO_LARGE})

    async def _refuse_anonymous(self, send: Send) -> None:
        message = (
            f"A request body over {size_text(self.anonymous_max_bytes or 0)} needs a valid "
            "X-API-Key "
            "or a signed-in session."
        )
        await _answer(send, 401, {"error": message, "code": ApiErrorCode.NOT_AUTHENTICATED})


async def _answer(send: Send, status: int, payload: dict[str, str]) -> None:
    body = json.dumps(payload).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
