"""Job events on the channel layer: one message per transition, sent to the job's group and
to its owner's group (the dashboard follows all of a person's jobs on one subscription)."""

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


def owner_group(owner_id: int | str) -> str:
    return f"owner.{owner_id}"


def job_event_payload(job: PdfJob) -> dict[str, Any]:
    """The job's public state; the same shape the status endpoint, SSE and WebSocket send."""
    return dict(JobStateSerializer(job).data)


def job_event_publish(payload: dict[str, Any], *, owner_id: int | None = None) -> None:
    """Send to every subscriber of the job and of its owner's jobs. Best effort: the
    database stays the truth."""
    layer = get_channel_layer()
    if layer is None:
        return
    message = {"type": EVENT_TYPE, "event": payload}
    try:
        async_to_sync(layer.group_send)(job_group(payload["job_id"]), message)
        if owner_id is not None:
            async_to_sync(layer.group_send)(owner_group(owner_id), message)
    except Exception:
        logger.warning("could not publish event for job %s", payload["job_id"], exc_info=True)
