"""GET /api/v1/runs/{id}/events: a run's states as Server-Sent Events, until it finishes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from jobs.links import run_status_path
from jobs.live.access import run_follow_authorize, stream_member
from jobs.live.run_follow import run_follow
from jobs.live.sse import respond


def run_links(payload: dict[str, Any], absolute: Callable[[str], str]) -> dict[str, Any]:
    return {**payload, "status_url": absolute(run_status_path(payload["run_id"]))}


@csrf_exempt
@require_GET
async def run_events(request: HttpRequest, run_id: str) -> HttpResponseBase:
    return await respond(
        request,
        run_follow_authorize,
        lambda found: run_follow(
            found[1],
            heartbeat=settings.SSE_HEARTBEAT_SECONDS,
            key_prefix=found[0].key_prefix,
            member=stream_member(found[0]),
        ),
        with_ids=True,
        links=run_links,
        run_id=run_id,
    )
