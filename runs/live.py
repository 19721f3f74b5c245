"""Following a run live, by SSE (GET /api/v1/runs/{id}/events) and WebSocket
(ws/runs/{id}/): its state (counts in records), then every newer one, until it finishes.
The same loop, access check and stream slots as a job's (jobs.live)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any
from uuid import UUID

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from accounts.authentication import Caller
from core.errors import NotFound
from core.websocket_routes import websocket_path
from jobs.live.access import followed_as, follower_resolve
from jobs.live.consumers import FollowingConsumer
from jobs.live.events import group_publish
from jobs.live.sse import respond
from jobs.live.subscriptions import Member, row_follow
from runs.links import run_status_path
from runs.models import Run, RunStatus
from workspaces.permissions import Action, authorize

if TYPE_CHECKING:
    from core.websocket_routes import WebSocketRoutes

RUN_EVENT_TYPE = "run.event"


def run_group(run_id: UUID | str) -> str:
    return f"run.{run_id}"


def run_state(run: Run) -> dict[str, Any]:
    """The run's public state without links or records: what a live event carries."""
    return {
        "run_id": str(run.run_id),
        "status": run.status,
        "total": run.total,
        "completed": run.completed,
        "failed": run.failed,
        "progress": run.progress,
        "seq": run.event_seq,
    }


def run_event_publish(run: Run) -> None:
    group_publish(
        [run_group(run.run_id)],
        {"type": RUN_EVENT_TYPE, "event": run_state(run)},
        what=f"run {run.run_id}",
    )


async def _current(run_id: str) -> dict[str, Any]:
    return run_state(await Run.objects.aget(run_id=run_id))


def run_follow(
    run_id: str, *, heartbeat: float, key_prefix: str | None = None, member: Member = None
) -> AsyncIterator[dict[str, Any] | None]:
    """Yield the run's states, newest seq only, until it finishes; None on idle ticks."""
    return row_follow(
        run_group(run_id),
        read=lambda: _current(run_id),
        finished=lambda state: state["status"] != RunStatus.RUNNING,
        label=f"run {run_id}",
        heartbeat=heartbeat,
        key_prefix=key_prefix,
        member=member,
    )


def run_follow_authorize(
    *, api_key: str | None, session_user: Any, run_id: str, session: Any = None
) -> tuple[Caller, str]:
    """The caller and the run id they may follow, like follow_authorize for a job."""
    caller = follower_resolve(api_key=api_key, session_user=session_user, session=session)
    try:
        run = Run.objects.filter(run_id=uuid.UUID(run_id), workspace_id=caller.workspace_id).first()
    except ValueError:
        run = None
    if run is None:
        raise NotFound(f"No run {run_id} was found.")
    authorize(caller.actor, Action.JOB_VIEW, run)
    return caller, str(run.run_id)


def run_links(payload: dict[str, Any], absolute: Callable[[str], str]) -> dict[str, Any]:
    return {**payload, "status_url": absolute(run_status_path(payload["run_id"]))}


def _follow(caller: Caller, run_id: str) -> AsyncIterator[dict[str, Any] | None]:
    return run_follow(run_id, **followed_as(caller))


@csrf_exempt
@require_GET
async def run_events(request: HttpRequest, run_id: str) -> HttpResponseBase:
    return await respond(
        request,
        run_follow_authorize,
        lambda found: _follow(*found),
        with_ids=True,
        links=run_links,
        run_id=run_id,
    )


class RunEventsConsumer(FollowingConsumer):
    """ws/runs/{id}/: a run's states (counts in records) until it finishes."""

    links = staticmethod(run_links)

    async def connect(self) -> None:
        await self._connect_following(
            run_follow_authorize,
            lambda allowed: _follow(*allowed),
            run_id=self.scope["url_route"]["kwargs"]["run_id"],
        )


websocket_urlpatterns: WebSocketRoutes = [
    websocket_path("ws/runs/<str:run_id>/", RunEventsConsumer.as_asgi())
]
