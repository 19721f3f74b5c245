"""Job events on the channel layer: one message per transition, sent to the job's group and
to its workspace's group (the dashboard follows all of a workspace's jobs on one subscription)."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import Any
from uuid import UUID

from channels.layers import get_channel_layer

from jobs.models import PdfJob
from jobs.state import JobStateSerializer

logger = logging.getLogger(__name__)
EVENT_TYPE = "job.event"


def job_group(job_id: UUID | str) -> str:
    return f"job.{job_id}"


def workspace_group(workspace_id: int | str) -> str:
    return f"workspace.{workspace_id}"


def job_event_payload(job: PdfJob) -> dict[str, Any]:
    """The job's public state; the same shape the status endpoint, SSE and WebSocket send."""
    return dict(JobStateSerializer(job).data)


PUBLISH_TIMEOUT_SECONDS = 5
_loop: asyncio.AbstractEventLoop | None = None
_loop_pid = 0
_loop_lock = threading.Lock()


def _publisher_loop() -> asyncio.AbstractEventLoop:
    """This process's event loop for publishing, on a thread of its own. async_to_sync ran
    each publish on a new loop, and channels-redis keeps its connections per loop: a
    connect, a send and a close each time (8 ms a publish here, 0.8 ms on one loop)."""
    global _loop, _loop_pid
    with _loop_lock:
        if _loop is None or _loop_pid != os.getpid():  # a forked worker child starts its own
            _loop = asyncio.new_event_loop()
            threading.Thread(target=_loop.run_forever, name="event-publisher", daemon=True).start()
            _loop_pid = os.getpid()
        return _loop


def job_event_publish(
    payload: dict[str, Any], *, workspace_id: int | None = None, to_job: bool = True
) -> None:
    """Send to every subscriber of the job (unless not `to_job`) and of its workspace's jobs.
    Best effort: the database stays the truth. Waits for the sends, so a job's events
    leave in the order of its transitions."""
    layer = get_channel_layer()
    if layer is None:
        return
    message = {"type": EVENT_TYPE, "event": payload}

    async def send() -> None:
        if to_job:
            await layer.group_send(job_group(payload["job_id"]), message)
        if workspace_id is not None:
            await layer.group_send(workspace_group(workspace_id), message)

    try:
        sent = asyncio.run_coroutine_threadsafe(send(), _publisher_loop())
        sent.result(timeout=PUBLISH_TIMEOUT_SECONDS)
    except Exception:
        logger.warning("could not publish event for job %s", payload["job_id"], exc_info=True)


def group_publish(groups: list[str], message: dict[str, Any], *, what: str) -> None:
    """Send one channel-layer message to each group, in order (a run's events use it).
    Best effort like job_event_publish: `what` names the sender in the warning."""
    layer = get_channel_layer()
    if layer is None:
        return

    async def send() -> None:
        for group in groups:
            await layer.group_send(group, message)

    try:
        asyncio.run_coroutine_threadsafe(send(), _publisher_loop()).result(
            timeout=PUBLISH_TIMEOUT_SECONDS
        )
    except Exception:
        logger.warning("could not publish event for %s", what, exc_info=True)
