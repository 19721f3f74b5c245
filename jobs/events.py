"""Job events on the channel layer: one group per job, one message per transition."""

from __future__ import annotations

import logging
from typing import Any
from uuid import UUID

from asgiref.sync import async_to_sync
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


def job_event_publish(payload: dict[str, Any]) -> None:
    """Send to every subscriber of the job. Best effort: the database stays the truth."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(
            job_group(payload["job_id"]), {"type": EVENT_TYPE, "event": payload}
        )
    except Exception:
        logger.warning("could not publish event for job %s", payload["job_id"], exc_info=True)


KEY_REVOKED_TYPE = "key.revoked"


def key_group(prefix: str) -> str:
    """Every live stream opened with one API key (by its public prefix)."""
    return f"apikey.{prefix}"


def key_revoked_publish(prefix: str) -> None:
    """Tell the streams a key opened to close. Best effort: a stream that misses it still
    ends, as every stream re-checks its key on each heartbeat tick."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(key_group(prefix), {"type": KEY_REVOKED_TYPE})
    except Exception:
        logger.warning("could not announce the revocation of key %s", prefix, exc_info=True)
