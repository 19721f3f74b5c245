"""GET /api/v1/jobs/{id}/events and /api/v1/jobs/events: Server-Sent Events, one message per
job event (of one job, or of all the caller's jobs)."""

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
from jobs.caller import caller_resolve
from jobs.exceptions import NotFound
from jobs.links import with_links
from jobs.metrics import live_stream
from jobs.subscriptions import job_follow, owner_follow


def _authorize(request: HttpRequest, job_id: str) -> tuple[str | None, int, str]:
    user = caller_resolve(api_key=request.headers.get(API_KEY_HEADER), session_user=request.user)
    if user is None:
        return None, 401, "Authentication credentials were not provided or are invalid."
    try:
        return str(selectors.job_get(owner=user, job_id=job_id).job_id), 200, ""
    except NotFound as exc:
        return None, 404, exc.message


def _last_event_id(request: HttpRequest) -> int:
    raw = request.headers.get("Last-Event-ID", "")
    return int(raw) if raw.isdigit() else -1


async def _stream(request: HttpRequest, job_id: str) -> AsyncIterator[str]:
    with live_stream("sse"):
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
async def job_events(request: HttpRequest, job_id: str) -> HttpResponse:
    found, status, message = await sync_to_async(_authorize)(request, job_id)
    if found is None:
        code = "not_authenticated" if status == 401 else "not_found"
        return JsonResponse({"error": message, "code": code}, status=status)
    response = StreamingHttpResponse(_stream(request, found), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx must not buffer the stream
    return response


def _owner(request: HttpRequest) -> int | None:
    user = caller_resolve(api_key=request.headers.get(API_KEY_HEADER), session_user=request.user)
    return None if user is None else int(user.pk)


async def _owner_stream(request: HttpRequest, owner_id: int) -> AsyncIterator[str]:
    with live_stream("sse"):
        yield "retry: 2000\n\n"
        async for event in owner_follow(owner_id, heartbeat=settings.SSE_HEARTBEAT_SECONDS):
            if event is None:
                yield ": keep-alive\n\n"
                continue
            payload: dict[str, Any] = with_links(event, request.build_absolute_uri)
            yield f"data: {json.dumps(payload)}\n\n"  # no id: seq counts per job, not stream


@require_GET
async def owner_job_events(request: HttpRequest) -> HttpResponse:
    """Every event of the caller's jobs; a reconnect starts with their current state."""
    owner_id = await sync_to_async(_owner)(request)
    if owner_id is None:
        return JsonResponse(
            {
                "error": "Authentication credentials were not provided or are invalid.",
                "code": "not_authenticated",
            },
            status=401,
        )
    response = StreamingHttpResponse(
        _owner_stream(request, owner_id), content_type="text/event-stream"
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx must not buffer the stream
    return response
