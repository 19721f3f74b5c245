"""Waiting on a channel-layer channel with a deadline, without losing what arrives at it.

`asyncio.wait_for(layer.receive(channel), timeout)` cancels the receive when the deadline
passes, and channels_redis drops a message that reached the channel's buffer just as its
receive was cancelled: with 2 ms deadlines, 16 of 300 messages were lost that way (a
stream's heartbeat makes it rare, a test recorder's short ticks made a chaos test count one
claim of three). A Receiver keeps one receive running across deadlines instead."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from channels.layers import BaseChannelLayer


class Receiver:
    """Receives one channel's messages; `next(timeout)` is None when the deadline passes
    first, and the receive it started goes on for the next call. `close()` ends it."""

    def __init__(self, layer: BaseChannelLayer, channel: str) -> None:
        self.layer, self.channel = layer, channel
        self._pending: asyncio.Future[dict[str, Any]] | None = None

    async def next(self, timeout: float) -> dict[str, Any] | None:
        if self._pending is None:
            self._pending = asyncio.ensure_future(self.layer.receive(self.channel))
        done, _ = await asyncio.wait({self._pending}, timeout=timeout)
        if not done:
            return None
        received, self._pending = self._pending, None
        return received.result()  # the layer's own error, if it failed

    async def close(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._pending
            self._pending = None
