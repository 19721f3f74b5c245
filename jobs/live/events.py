"""Job events on the channel layer: one group per job, one message per transition."""

from __future__ import annotations

import logging
from typing import Any
from uuid import UUID

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from jobs.api.serializers import JobStateSerializer
from jobs.models import PdfJob

logger = logging.getLogger(__name__)
EVENT_TYPE = "job.event"


def job_group(job_id: UUID | str) -> str:
    return f"job.{job_id}"


def job_event_payload(job: PdfJob) -> dict[str, Any]:
    """The job's public state; the same shape the status endpoint, SSE and WebSocket send."""
    return dict(JobStateSerializer(job).data)


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
