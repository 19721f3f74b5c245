"""Following one job live: its current state, then every newer event, until it ends.

Shared by the SSE endpoint and the WebSocket consumer. Subscribes before reading the
database so no transition can fall between the read and the subscription, drops events
the subscriber already has (by `seq`), and re-reads the row on each idle tick so a lost
channel message delays an update by one tick instead of losing it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

from channels.layers import get_channel_layer

from jobs.live.events import job_event_payload, job_group
from jobs.models import TERMINAL_STATUSES, PdfJob

logger = logging.getLogger(__name__)


async def _current(job_id: str) -> dict[str, Any]:
    return job_event_payload(await PdfJob.objects.aget(job_id=job_id))


async def _fresher(job_id: str, last: int) -> dict[str, Any] | None:
    fresh = await _current(job_id)
    return fresh if fresh["seq"] > last else None


async def job_follow(
    job_id: str, *, heartbeat: float, after_seq: int = -1
) -> AsyncIterator[dict[str, Any] | None]:
    """Yield event payloads newer than after_seq; yield None on idle ticks (heartbeats)."""
    layer = get_channel_layer()
    channel = await layer.new_channel()
    group = job_group(job_id)
    await layer.group_add(group, channel)
    last = after_seq
    try:
        candidate: dict[str, Any] | None = await _current(job_id)
        while True:
            if candidate is not None and candidate["seq"] > last:
                last = candidate["seq"]
                yield candidate
                if candidate["status"] in TERMINAL_STATUSES:
                    return
            elif candidate is None:
                yield None
            try:
                message = await asyncio.wait_for(layer.receive(channel), timeout=heartbeat)
                candidate = message["event"]
            except TimeoutError:
                candidate = await _fresher(job_id, last)
            except Exception:
                # A channel-layer failure must not end the stream: cancelling a blocking
                # Redis read at the heartbeat can surface as redis' own TimeoutError (seen
                # ~1 in 1,000 ticks under `make bench-push`). The row stays the truth.
                logger.warning("channel layer receive failed for job %s", job_id, exc_info=True)
                await asyncio.sleep(min(1.0, heartbeat))
                candidate = await _fresher(job_id, last)
    finally:
        await layer.group_discard(group, channel)
