"""The ASGI body limit answers 413 before the application (Django) reads anything."""

from __future__ import annotations

import asyncio
import json

from core.body_limit import BodyLimitMiddleware


def _run(headers: list[tuple[bytes, bytes]], chunks: list[bytes]) -> tuple[list[dict], dict]:
    seen: dict = {"app_called": False, "body": b"", "reads": 0}
    sent: list[dict] = []
    queue = [
        {"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1}
        for i, chunk in enumerate(chunks)
    ]

    async def receive() -> dict:
        seen["reads"] += 1
        return queue.pop(0)

    async def send(message: dict) -> None:
        sent.append(message)

    async def app(scope, app_receive, app_send) -> None:
        seen["app_called"] = True
        while True:
            message = await app_receive()
            seen["body"] += message.get("body", b"")
            if not message.get("more_body"):
                break
        await app_send({"type": "http.response.start", "status": 200, "headers": []})

    middleware = BodyLimitMiddleware(app, max_bytes=1000)
    scope = {"type": "http", "method": "POST", "path": "/", "headers": headers}
    asyncio.run(middleware(scope, receive, send))
    return sent, seen


def test_a_declared_length_over_the_limit_is_413_without_reading_the_body():
    sent, seen = _run([(b"content-length", b"10000000000")], [b"x" * 10])
    assert sent[0]["status"] == 413
    assert json.loads(sent[1]["body"])["code"] == "too_large"
    assert seen["reads"] == 0
    assert seen["app_called"] is False


def test_a_chunked_body_is_cut_off_once_past_the_limit():
    sent, seen = _run([], [b"x" * 600, b"x" * 600, b"x" * 600])
    assert sent[0]["status"] == 413
    assert seen["reads"] == 2  # the third chunk is never read
    assert seen["app_called"] is False


def test_bodies_within_the_limit_reach_the_application_whole():
    sent, seen = _run([], [b"a" * 500, b"b" * 500])
    assert sent[0]["status"] == 200
    assert seen["body"] == b"a" * 500 + b"b" * 500
    sent, seen = _run([(b"content-length", b"1000")], [b"c" * 1000])
    assert (sent[0]["status"], seen["body"]) == (200, b"c" * 1000)
