"""Job events on the channel layer: one message per transition, sent to the job's group and
to its workspace's group (the dashboard follows all of a workspace's jobs on one subscription)."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any
from uuid import UUID

from channels.layers import get_channel_layer
from channels_redis.core import RedisChannelLayer

from core.redis import redis_client
from jobs.models import JobStatus, PdfJob
from jobs.retry_rule import failure_advice, job_retry_helps

logger = logging.getLogger(__name__)
EVENT_TYPE = "job.event"


def job_group(job_id: UUID | str) -> str:
    return f"job.{job_id}"


def workspace_group(workspace_id: int | str) -> str:
    return f"workspace.{workspace_id}"


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _when(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def job_event_payload(job: PdfJob) -> dict[str, Any]:
    """The job's public state; the same shape the status endpoint, SSE and WebSocket send:
    exactly what `JobStateSerializer(job).data` gives (tests/jobs/live/test_event_payload.py
    holds the two equal for every status). Built directly because it goes out on every
    transition a worker makes: DRF's fields took ~1 ms of a worker's CPU an event."""
    status = str(job.status)
    return {
        "job_id": str(job.job_id),
        "template_name": job.template.name if job.template_id and job.template else None,
        "filename": job.filename,
        "status": status,
        "renderer": job.shown_renderer,
        "progress": int(job.progress),
        "stage": str(job.stage),
        "error": job.error or None,
        "error_code": job.error_code or None,
        "attempts": int(job.attempts),
        "total_attempts": job.earlier_attempts + job.attempts,
        "retryable": job_retry_helps(job),
        "advice": (
            failure_advice(job.error_code).replace("{id}", str(job.job_id))
            if status == JobStatus.FAILED
            else None
        ),
        "page_count": None if job.page_count is None else int(job.page_count),
        "size_bytes": None if job.size_bytes is None else int(job.size_bytes),
        "warnings": [str(warning) for warning in job.warnings],
        "seq": int(job.event_seq),
        "created_at": _when(job.created_at),
        "started_at": _when(job.started_at),
        "completed_at": _when(job.completed_at),
        "expired": job.is_expired,
        "cached_from": _text(job.cached_from),
        "batch_id": _text(job.batch_id),
        "compliance": job.compliance or None,
    }


# Which of the groups (KEYS) anyone follows, after dropping the members older than the
# groups' expiry (ARGV[1]) as channels-redis's group_send does first: one round trip for
# all of an event's groups instead of two per group, and most groups (a job nobody opened,
# a workspace without its dashboard open) have nobody in them.
_FOLLOWED_LUA = """
local followed = {}
for i = 1, #KEYS do
    redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, ARGV[1])
    if redis.call('ZCARD', KEYS[i]) > 0 then
        followed[#followed + 1] = i
    end
end
return followed
"""


def _by_host(layer: RedisChannelLayer, groups: list[str]) -> list[tuple[int, list[str], list[str]]]:
    """The groups by the Redis host that holds them: (host index, groups, their keys)."""
    by_host: dict[int, list[str]] = {}
    for group in groups:
        by_host.setdefault(layer.consistent_hash(group), []).append(group)
    return [
        (index, named, [layer._group_key(group) for group in named])
        for index, named in by_host.items()
    ]


def _stale_before(layer: RedisChannelLayer) -> int:
    """Members added before this are expired, as channels-redis's group_send counts them."""
    return int(time.time() - layer.group_expiry)


async def groups_send(layer: Any, groups: list[str], message: dict[str, Any]) -> None:
    """group_send to each of `groups` that has a member, in order. On channels-redis's
    layer, the groups nobody follows cost one EVAL a Redis host together, not two commands
    each; a followed group then goes through the layer's own group_send (capacity,
    expiry, sharding as it does them). Any other layer gets a plain group_send each."""
    if not isinstance(layer, RedisChannelLayer):
        for group in groups:
            await layer.group_send(group, message)
        return
    followed: set[str] = set()
    for index, named, keys in _by_host(layer, groups):
        found = await layer.connection(index).eval(
            _FOLLOWED_LUA, len(keys), *keys, _stale_before(layer)
        )
        followed.update(named[int(position) - 1] for position in found)
    for group in groups:
        if group in followed:
            await layer.group_send(group, message)


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
    _publish(lambda: payload, job_id=payload["job_id"], workspace_id=workspace_id, to_job=to_job)


def job_event_announce(
    job: PdfJob, *, workspace_id: int | None = None, to_job: bool = True
) -> None:
    """job_event_publish of the job's event (job_event_payload), built only once someone
    follows one of its groups: most events, a submit's always, have no follower."""
    _publish(
        lambda: job_event_payload(job),
        job_id=str(job.job_id),
        workspace_id=workspace_id,
        to_job=to_job,
    )


def _publish(
    payload_of: Callable[[], dict[str, Any]],
    *,
    job_id: str,
    workspace_id: int | None,
    to_job: bool,
) -> None:
    layer = get_channel_layer()
    if layer is None:
        return

    groups = [job_group(job_id)] if to_job else []
    if workspace_id is not None:
        groups.append(workspace_group(workspace_id))

    try:
        followed = _followed_now(layer, groups)
        if followed == []:
            return  # nobody follows: no payload, no hop to the publisher loop at all
        message = {"type": EVENT_TYPE, "event": payload_of()}
        if followed is None:
            sending = groups_send(layer, groups, message)
        else:
            sending = _plain_send(layer, followed, message)
        sent = asyncio.run_coroutine_threadsafe(sending, _publisher_loop())
        sent.result(timeout=PUBLISH_TIMEOUT_SECONDS)
    except Exception:
        logger.warning("could not publish event for job %s", job_id, exc_info=True)


def _followed_now(layer: Any, groups: list[str]) -> list[str] | None:
    """Which of `groups` anyone follows, asked from this thread with the process's plain
    Redis client (the same EVAL as groups_send): most events have no follower, and then
    the hop to the publisher loop and its asyncio client (~0.35 ms of CPU an event) is
    skipped. None when the layer is not channels-redis's or names a host by other than a
    URL: the publisher loop asks then."""
    if not isinstance(layer, RedisChannelLayer):
        return None
    followed: set[str] = set()
    for index, named, keys in _by_host(layer, groups):
        address = layer.hosts[index].get("address")
        if not isinstance(address, str):
            return None
        client = redis_client(address, timeout=PUBLISH_TIMEOUT_SECONDS)
        found = client.eval(_FOLLOWED_LUA, len(keys), *keys, _stale_before(layer))
        followed.update(named[int(position) - 1] for position in found)
    return [group for group in groups if group in followed]


async def _plain_send(layer: Any, groups: list[str], message: dict[str, Any]) -> None:
    for group in groups:
        await layer.group_send(group, message)


def group_publish(groups: list[str], message: dict[str, Any], *, what: str) -> None:
    """Send one channel-layer message to each group, in order (a run's events use it).
    Best effort like job_event_publish: `what` names the sender in the warning."""
    layer = get_channel_layer()
    if layer is None:
        return

    try:
        asyncio.run_coroutine_threadsafe(
            groups_send(layer, groups, message), _publisher_loop()
        ).result(timeout=PUBLISH_TIMEOUT_SECONDS)
    except Exception:
        logger.warning("could not publish event for %s", what, exc_info=True)
