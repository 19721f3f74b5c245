"""GET /api/v1/jobs/{id}/events and /api/v1/jobs/events: Server-Sent Events, one message per
job event (of one job, or of all the caller's jobs)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import HttpRequest, JsonResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from accounts.authentication import API_KEY_HEADER
from accounts.tenancy import tenant_id_for
from jobs.error_codes import JobErrorCode
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

Events = AsyncIterator[dict[str, Any] | None]


def _last_event_id(request: HttpRequest) -> int:
    raw = request.headers.get("Last-Event-ID", "")
    return int(raw) if raw.isdigit() else -1


Links = Callable[[dict[str, Any], Callable[[str], str]], dict[str, Any]]


async def _stream(
    request: HttpRequest,
    events: Events,
    slot: StreamSlot,
    *,
    with_ids: bool,
    links: Links = with_links,
) -> AsyncIterator[str]:
    try:
        with live_stream("sse"):
            yield "retry: 2000\n\n"
            async for event in events:
                await slot.renew_if_due()
                if event is None:
                    yield ": keep-alive\n\n"
                    continue
                payload: dict[str, Any] = links(event, request.build_absolute_uri)
                # An owner's stream has no id: seq counts per job, not per stream.
                event_id = f"id: {payload['seq']}\n" if with_ids else ""
                yield f"{event_id}data: {json.dumps(payload)}\n\n"
    finally:
        await slot.release()


async def respond(
    request: HttpRequest,
    check: Callable[..., Any],
    follow: Callable[[Any], Events],
    *,
    with_ids: bool,
    links: Links = with_links,
    **arguments: Any,
) -> HttpResponseBase:
    """Run the shared access check (as the WebSocket consumers do), then stream (a run's
    stream too: runs.live)."""
    try:
        allowed = await sync_to_async(check)(
            api_key=request.headers.get(API_KEY_HEADER),
            session_user=request.user,
            session=getattr(request, "session", None),
            **arguments,
        )
    except ApplicationError as exc:
        return JsonResponse({"error": exc.message, "code": exc.code}, status=exc.http_status)
    caller = allowed[0] if isinstance(allowed, tuple) else allowed
    try:
        slot = await stream_slot_acquire(tenant_id=tenant_id_for(workspace=caller.workspace_id))
    except StreamLimitReached as exc:
        return JsonResponse(
            {"error": exc.message, "code": JobErrorCode.TOO_MANY_STREAMS, "limit": exc.limit},
            status=429,
            headers={"Retry-After": str(settings.SSE_HEARTBEAT_SECONDS)},
        )
    stream = _stream(request, follow(allowed), slot, with_ids=with_ids, links=links)
    response = StreamingHttpResponse(stream, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx must not buffer the stream
    return response


# csrf_exempt: they only answer GET, so any other method gets require_GET's 405 (the
# CSRF check would answer an unknown method with a 403 first).
@csrf_exempt
@require_GET
async def job_events(request: HttpRequest, job_id: str) -> HttpResponseBase:
    """One job's events until it ends; `Last-Event-ID` resumes after that event."""
    after = _last_event_id(request)
    return await respond(
        request,
        follow_authorize,
        lambda found: job_follow_as(*found, after_seq=after),
        with_ids=True,
        job_id=job_id,
    )


@csrf_exempt
@require_GET
async def owner_job_events(request: HttpRequest) -> HttpResponseBase:
    """Every event of the caller's workspace's jobs; a reconnect starts with their state."""
    return await respond(request, follower_resolve, workspace_follow_as, with_ids=False)
