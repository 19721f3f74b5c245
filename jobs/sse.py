"""GET /api/v1/jobs/{id}/events: Server-Sent Events, one message per job event."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.views.decorators.http import require_GET

from jobs import selectors
from jobs.authentication import API_KEY_HEADER
from jobs.caller import Caller, caller_resolve
from jobs.exceptions import NotFound
from jobs.links import with_links
from jobs.streams import StreamLimitReached, StreamSlot, stream_slot_acquire
from jobs.subscriptions import job_follow


def _authorize(request: HttpRequest, job_id: str) -> tuple[Caller | None, str, int, str]:
    caller = caller_resolve(api_key=request.headers.get(API_KEY_HEADER), session_user=request.user)
    if caller is None:
        return None, "", 401, "Authentication credentials were not provided or are invalid."
    try:
        return caller, str(selectors.job_get(owner=caller.user, job_id=job_id).job_id), 200, ""
    except NotFound as exc:
        return None, "", 404, exc.message


def _last_event_id(request: HttpRequest) -> int:
    raw = request.headers.get("Last-Event-ID", "")
    return int(raw) if raw.isdigit() else -1


async def _stream(
    request: HttpRequest, job_id: str, caller: Caller, slot: StreamSlot
) -> AsyncIterator[str]:
    try:
        yield "retry: 2000\n\n"
        follow = job_follow(
            job_id,
            heartbeat=settings.SSE_HEARTBEAT_SECONDS,
            after_seq=_last_event_id(request),
            key_prefix=caller.key_prefix,
        )
        async for event in follow:
            await slot.renew_if_due()
            if event is None:
                yield ": keep-alive\n\n"
                continue
            payload: dict[str, Any] = with_links(event, request.build_absolute_uri)
            yield f"id: {payload['seq']}\ndata: {json.dumps(payload)}\n\n"
    finally:
        await slot.release()


@require_GET
async def job_events(request: HttpRequest, job_id: str) -> HttpResponse:
    caller, found, status, message = await sync_to_async(_authorize)(request, job_id)
    if caller is None:
        code = "not_authenticated" if status == 401 else "not_found"
        return JsonResponse({"error": message, "code": code}, status=status)
    try:
        slot = await stream_slot_acquire(tenant_id=caller.user.pk)
    except StreamLimitReached as exc:
        return JsonResponse(
            {"error": exc.message, "code": "too_many_streams", "limit": exc.limit},
            status=429,
            headers={"Retry-After": str(settings.SSE_HEARTBEAT_SECONDS)},
        )
    response = StreamingHttpResponse(
        _stream(request, found, caller, slot), content_type="text/event-stream"
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx must not buffer the stream
    return response
