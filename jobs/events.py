"""Job events on the channel layer: one group per job, one message per transition."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import Any
from uuid import UUID

from channels.layers import get_channel_layer

from jobs.models import PdfJob

logger = logging.getLogger(__name__)
EVENT_TYPE = "job.event"


def job_group(job_id: UUID | str) -> str:
    return f"job.{job_id}"


def _iso(value: Any) -> str | None:
    return value.isoformat() if value else None


def job_event_payload(job: PdfJob) -> dict[str, Any]:
    """The job's public state; the same shape the status endpoint, SSE and WebSocket send."""
    return {
        "job_id": str(job.job_id),
        "status": job.status,
        "progress": job.progress,
        "stage": job.stage,
        "error": job.error or None,
        "error_code": job.error_code or None,
        "attempts": job.attempts,
        "page_count": job.page_count,
        "size_bytes": job.size_bytes,
        "warnings": job.warnings,
        "seq": job.event_seq,
        "created_at": _iso(job.created_at),
        "started_at": _iso(job.started_at),
        "completed_at": _iso(job.completed_at),
    }


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


def job_event_publish(payload: dict[str, Any]) -> None:
    """Send to every subscriber of the job. Best effort: the database stays the truth.
    Waits for the send, so a job's events leave in the order of its transitions."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        message = {"type": EVENT_TYPE, "event": payload}
        sent = asyncio.run_coroutine_threadsafe(
            layer.group_send(job_group(payload["job_id"]), message), _publisher_loop()
        )
        sent.result(timeout=PUBLISH_TIMEOUT_SECONDS)
    except Exception:
        logger.warning("could not publish event for job %s", payload["job_id"], exc_info=True)
