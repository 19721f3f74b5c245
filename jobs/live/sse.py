"""GET /api/v1/jobs/{id}/events: Server-Sent Events, one message per job event."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import HttpRequest, JsonResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.views.decorators.http import require_GET

from accounts.authentication import API_KEY_HEADER
from jobs.links import with_links
from jobs.live.access import follow_authorize
from jobs.live.subscriptions import job_follow
from rendering.errors import ApplicationError


def _authorize(request: HttpRequest, job_id: str) -> str:
    return follow_authorize(
        api_key=request.headers.get(API_KEY_HEADER), session_user=request.user, job_id=job_id
    )


def _last_event_id(request: HttpRequest) -> int:
    raw = request.headers.get("Last-Event-ID", "")
    return int(raw) if raw.isdigit() else -1


async def _stream(request: HttpRequest, job_id: str) -> AsyncIterator[str]:
    yield "retry: 2000\n\n"
    follow = job_follow(
        job_id, heartbeat=settings.SSE_HEARTBEAT_SECONDS, after_seq=_last_event_id(request)
    )
    async for event in follow:
        if event is None:
            yield ": keep-alive\n\n"
            continue
        payload: dict[str, Any] = with_links(event, request.build_absolute_uri)
        yield f"id: {payload['seq']}\ndata: {json.dumps(payload)}\n\n"


@require_GET
async def job_events(request: HttpRequest, job_id: str) -> HttpResponseBase:
    try:
        found = await sync_to_async(_authorize)(request, job_id)
    except ApplicationError as exc:
        return JsonResponse({"error": exc.message, "code": exc.code}, status=exc.http_status)
    response = StreamingHttpResponse(_stream(request, found), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx must not buffer the stream
    return response
