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
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypedDict

from channels.layers import BaseChannelLayer, get_channel_layer
from django.db.models import Q
from django.utils import timezone

from accounts.events import KEY_REVOKED_TYPE, key_group
from accounts.models import ApiKey
from jobs.live.events import job_event_payload, job_group, workspace_group
from jobs.live.receiving import Receiver
from jobs.models import TERMINAL_STATUSES, PdfJob
from workspaces.events import MEMBER_REMOVED_TYPE, member_group
from workspaces.models import Membership

# A session's stream names its person and workspace (user id, workspace id): removing the
# person from the workspace ends it. A key's stream has none: keys are the workspace's.
Member = tuple[int, int] | None

logger = logging.getLogger(__name__)


class StreamBounds(TypedDict):
    """How a stream is kept: an idle tick every `heartbeat` seconds, and what ends it (its
    API key's revocation, its member's removal)."""

    heartbeat: float
    key_prefix: str | None
    member: Member


def _layer() -> BaseChannelLayer:
    """The channel layer (CHANNEL_LAYERS); every setting configures one."""
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("No channel layer: CHANNEL_LAYERS is empty.")
    return layer


async def _current(job_id: str) -> dict[str, Any]:
    return job_event_payload(await PdfJob.objects.select_related("template").aget(job_id=job_id))


async def key_active(prefix: str | None) -> bool:
    if prefix is None:
        return True
    # Revoked or expired (an expiry passes without any announcement).
    return await (
        ApiKey.objects.filter(prefix=prefix, revoked_at__isnull=True)
        .exclude(expires_at__lte=timezone.now())
        .aexists()
    )


async def still_allowed(prefix: str | None, member: Member) -> bool:
    if member is not None:
        user_id, workspace_id = member
        found = Membership.objects.filter(user_id=user_id, workspace_id=workspace_id)
        if not await found.aexists():
            return False
    return await key_active(prefix)


async def subscribe(
    layer: Any, channel: str, group: str, key_prefix: str | None, member: Member = None
) -> list[str]:
    """Join the stream's group, and its API key's (revoking the key ends the stream) or its
    member's (removing the person from the workspace ends it)."""
    groups = [group] + ([key_group(key_prefix)] if key_prefix else [])
    groups += [member_group(*member)] if member is not None else []
    for name in groups:
        await layer.group_add(name, channel)
    return groups


async def unsubscribe(layer: Any, channel: str, groups: list[str]) -> None:
    for name in groups:
        await layer.group_discard(name, channel)


def revoked(message: dict[str, Any]) -> bool:
    return message.get("type") in (KEY_REVOKED_TYPE, MEMBER_REMOVED_TYPE)


async def row_follow(
    group: str,
    *,
    read: Callable[[], Awaitable[dict[str, Any]]],
    finished: Callable[[dict[str, Any]], bool],
    label: str,
    heartbeat: float,
    after_seq: int = -1,
    key_prefix: str | None = None,
    member: Member = None,
) -> AsyncIterator[dict[str, Any] | None]:
    """Follow one row's events (a job's, a run's): its state from `read`, then every newer
    one announced on `group`, until `finished`; None on idle ticks (heartbeats). The stream
    ends when its API key is revoked or its member leaves the workspace (announced on their
    groups, and re-checked on every idle tick in case the announcement was lost)."""
    layer = _layer()
    channel = await layer.new_channel()
    groups = await subscribe(layer, channel, group, key_prefix, member)
    last = after_seq

    async def fresher() -> dict[str, Any] | None:
        fresh = await read()
        return fresh if fresh["seq"] > last else None

    receiver = Receiver(layer, channel)
    try:
        candidate: dict[str, Any] | None = await read()
        while True:
            if candidate is not None and candidate["seq"] > last:
                last = candidate["seq"]
                yield candidate
                if finished(candidate):
                    return
            elif candidate is None:
                yield None
            try:
                message = await receiver.next(heartbeat)
            except Exception:
                # A channel-layer failure (Redis restarting, redis' own TimeoutError) must
                # not end the stream. The row stays the truth.
                logger.warning("channel layer receive failed for %s", label, exc_info=True)
                await asyncio.sleep(min(1.0, heartbeat))
                candidate = await fresher()
                continue
            if message is None:  # an idle tick
                if not await still_allowed(key_prefix, member):
                    return
                candidate = await fresher()
            elif revoked(message):
                return
            else:
                candidate = message["event"]
    finally:
        await receiver.close()
        await unsubscribe(layer, channel, groups)


def job_follow(
    job_id: str,
    *,
    heartbeat: float,
    after_seq: int = -1,
    key_prefix: str | None = None,
    member: Member = None,
) -> AsyncIterator[dict[str, Any] | None]:
    """Yield the job's event payloads newer than after_seq, until it ends."""
    return row_follow(
        job_group(job_id),
        read=lambda: _current(job_id),
        finished=lambda event: event["status"] in TERMINAL_STATUSES,
        label=f"job {job_id}",
        heartbeat=heartbeat,
        after_seq=after_seq,
        key_prefix=key_prefix,
        member=member,
    )


# The dashboard shows this many of the workspace's latest jobs; a (re)connect sends their state.
OWNER_SNAPSHOT_JOBS = 25


async def _workspace_jobs(workspace_id: int, *, job_ids: set[str]) -> list[dict[str, Any]]:
    """Current state of the workspace's unfinished jobs and of the given ones."""
    rows = PdfJob.objects.filter(
        ~Q(status__in=TERMINAL_STATUSES) | Q(job_id__in=job_ids), workspace_id=workspace_id
    )
    return [job_event_payload(job) async for job in rows.select_related("template")]


async def workspace_follow(
    workspace_id: int,
    *,
    heartbeat: float,
    key_prefix: str | None = None,
    member: Member = None,
) -> AsyncIterator[dict[str, Any] | None]:
    """Yield the state of the workspace's latest jobs, then every event of any of its jobs
    (new ones included); None on idle ticks. Never ends by itself: the client closes it.
    Each idle tick re-reads the unfinished jobs, so a lost channel message only delays an
    update by one tick."""
    layer = _layer()
    channel = await layer.new_channel()
    groups = await subscribe(layer, channel, workspace_group(workspace_id), key_prefix, member)
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

    receiver = Receiver(layer, channel)
    try:
        latest = PdfJob.objects.filter(workspace_id=workspace_id).select_related("template")
        snapshot = [
            job_event_payload(job)
            async for job in latest.order_by("-created_at")[:OWNER_SNAPSHOT_JOBS]
        ]
        for event in reversed(snapshot):  # oldest first, as they happened
            if newer(event):
                yield event
        while True:
            fresh: list[dict[str, Any]] = []
            try:
                message = await receiver.next(heartbeat)
            except Exception:
                logger.warning(
                    "channel layer receive failed for workspace %s", workspace_id, exc_info=True
                )
                await asyncio.sleep(min(1.0, heartbeat))
            else:
                if message is None:  # an idle tick
                    if not await still_allowed(key_prefix, member):
                        return
                elif revoked(message):
                    return
                else:
                    fresh = [message["event"]]
            if not fresh:
                fresh = await _workspace_jobs(workspace_id, job_ids=set(running))
            sent = [event for event in fresh if newer(event)]
            for event in sent:
                yield event
            if not sent:
                yield None
    finally:
        await receiver.close()
        await unsubscribe(layer, channel, groups)
