"""Following jobs live: one job (its current state, then every newer event, until it ends)
or all of one owner's jobs (the dashboard's single subscription).

Shared by the SSE endpoints and the WebSocket consumers. Subscribes before reading the
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
from django.db.models import Q

from jobs.live.events import job_event_payload, job_group, owner_group
from jobs.models import TERMINAL_STATUSES, PdfJob

logger = logging.getLogger(__name__)


async def _current(job_id: str) -> dict[str, Any]:
    return job_event_payload(await PdfJob.objects.select_related("template").aget(job_id=job_id))


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


# The dashboard shows this many of the owner's latest jobs; a (re)connect sends their state.
OWNER_SNAPSHOT_JOBS = 25


async def _owner_jobs(owner_id: int, *, job_ids: set[str]) -> list[dict[str, Any]]:
    """Current state of the owner's unfinished jobs and of the given ones."""
    rows = PdfJob.objects.filter(
        ~Q(status__in=TERMINAL_STATUSES) | Q(job_id__in=job_ids), owner_id=owner_id
    )
    return [job_event_payload(job) async for job in rows.select_related("template")]


async def owner_follow(owner_id: int, *, heartbeat: float) -> AsyncIterator[dict[str, Any] | None]:
    """Yield the state of the owner's latest jobs, then every event of any of their jobs
    (new ones included); None on idle ticks. Never ends by itself: the client closes it.
    Each idle tick re-reads the unfinished jobs, so a lost channel message only delays an
    update by one tick."""
    layer = get_channel_layer()
    channel = await layer.new_channel()
    group = owner_group(owner_id)
    await layer.group_add(group, channel)
    last: dict[str, int] = {}  # seq sent per job id
    running: set[str] = set()  # ids last sent as unfinished: re-read on idle ticks

    def newer(event: dict[str, Any]) -> bool:
        if event["seq"] <= last.get(event["job_id"], -1):
            return False
        last[event["job_id"]] = event["seq"]
        if event["status"] in TERMINAL_STATUSES:
            running.discard(event["job_id"])
        else:
            running.add(event["job_id"])
        return True

    try:
        latest = PdfJob.objects.filter(owner_id=owner_id).select_related("template")
        snapshot = [
            job_event_payload(job)
            async for job in latest.order_by("-created_at")[:OWNER_SNAPSHOT_JOBS]
        ]
        for event in reversed(snapshot):  # oldest first, as they happened
            if newer(event):
                yield event
        while True:
            try:
                message = await asyncio.wait_for(layer.receive(channel), timeout=heartbeat)
                fresh = [message["event"]]
            except TimeoutError:
                fresh = []
            except Exception:
                logger.warning("channel layer receive failed for owner %s", owner_id, exc_info=True)
                await asyncio.sleep(min(1.0, heartbeat))
                fresh = []
            if not fresh:
                fresh = await _owner_jobs(owner_id, job_ids=set(running))
            sent = [event for event in fresh if newer(event)]
            for event in sent:
                yield event
            if not sent:
                yield None
    finally:
        await layer.group_discard(group, channel)
