"""Following a run live: its state, then every newer one (counts in records), until it
finishes. Like job_follow: subscribe first, then read; re-read the row on idle ticks."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

from channels.layers import get_channel_layer

from jobs.live.run_events import run_group, run_state
from jobs.live.subscriptions import Member, revoked, still_allowed, subscribe, unsubscribe
from jobs.models import Run, RunStatus

logger = logging.getLogger(__name__)


async def _current(run_id: str) -> dict[str, Any]:
    return run_state(await Run.objects.aget(run_id=run_id))


async def run_follow(
    run_id: str, *, heartbeat: float, key_prefix: str | None = None, member: Member = None
) -> AsyncIterator[dict[str, Any] | None]:
    """Yield the run's states, newest seq only; None on idle ticks. Ends when the key is
    revoked or the member leaves the workspace, like job_follow."""
    layer = get_channel_layer()
    channel = await layer.new_channel()
    groups = await subscribe(layer, channel, run_group(run_id), key_prefix, member)
    last = -1
    try:
        candidate: dict[str, Any] | None = await _current(run_id)
        while True:
            if candidate is not None and candidate["seq"] > last:
                last = candidate["seq"]
                yield candidate
                if candidate["status"] != RunStatus.RUNNING:
                    return
            else:
                yield None
            try:
                message = await asyncio.wait_for(layer.receive(channel), timeout=heartbeat)
                if revoked(message):
                    return
                candidate = message["event"]
            except TimeoutError:
                if not await still_allowed(key_prefix, member):
                    return
                candidate = await _current(run_id)
            except Exception:
                logger.warning("channel layer receive failed for run %s", run_id, exc_info=True)
                await asyncio.sleep(min(1.0, heartbeat))
                candidate = await _current(run_id)
    finally:
        await unsubscribe(layer, channel, groups)
