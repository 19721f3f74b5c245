"""The ASGI body limit answers 413 before the application (Django) reads anything."""

from __future__ import annotations

import asyncio
import base64
import json

import pytest

from core.body_limit import BodyLimitMiddleware


def _run(
    headers: list[tuple[bytes, bytes]], chunks: list[bytes], *, known: bool | None = None
) -> tuple[list[dict], dict]:
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

    async def is_known(scope) -> bool:
        seen["asked"] = seen.get("asked", 0) + 1
        return bool(known)

    if known is None:
        middleware = BodyLimitMiddleware(app, max_bytes=1000)
    else:
        middleware = BodyLimitMiddleware(
            app, max_bytes=1000, anonymous_max_bytes=100, is_known=is_known
        )
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


def test_an_unknown_caller_may_not_send_more_than_a_small_body():
    sent, seen = _run([(b"content-length", b"500")], [b"x" * 500], known=False)
    assert sent[0]["status"] == 401
    assert json.loads(sent[1]["body"])["code"] == "not_authenticated"
    assert (seen["reads"], seen["app_called"]) == (0, False)  # refused before reading
    sent, seen = _run([], [b"x" * 80, b"x" * 80, b"x" * 80], known=False)  # chunked
    assert sent[0]["status"] == 401
    assert seen["reads"] == 2
    # A small body (a sign-in form) needs no question; a known caller sends up to the limit.
    sent, seen = _run([(b"content-length", b"50")], [b"y" * 50], known=False)
    assert (sent[0]["status"], seen.get("asked")) == (200, None)
    sent, seen = _run([(b"content-length", b"900")], [b"z" * 900], known=True)
    assert (sent[0]["status"], seen["body"], seen["asked"]) == (200, b"z" * 900, 1)


@pytest.mark.django_db
def test_a_caller_is_known_by_a_valid_key_or_a_signed_in_session(client, user):
    from accounts.authentication import asgi_caller_is_known
    from accounts.services import api_key_create, api_key_revoke

    key, raw = api_key_create(user=user)

    def scope(*headers: tuple[bytes, bytes]) -> dict:
        return {"type": "http", "headers": list(headers)}

    assert asgi_caller_is_known(scope((b"x-api-key", raw.encode())))
    assert not asgi_caller_is_known(scope((b"x-api-key", b"rk_forged_key")))
    # The drop-in routes' clients send the key as basic auth (a Gotenberg upload).
    basic = base64.b64encode(f"{raw}:".encode())
    assert asgi_caller_is_known(scope((b"authorization", b"Basic " + basic)))
    forged = base64.b64encode(b"admin:rk_forged_key")
    assert not asgi_caller_is_known(scope((b"authorization", b"Basic " + forged)))
    assert not asgi_caller_is_known(scope())
    client.force_login(user)
    session = client.cookies["sessionid"].value
    assert asgi_caller_is_known(scope((b"cookie", f"sessionid={session}".encode())))
    assert not asgi_caller_is_known(scope((b"cookie", b"sessionid=made-up")))
    api_key_revoke(user=user, key_id=key.pk)
    assert not asgi_caller_is_known(scope((b"x-api-key", raw.encode())))
