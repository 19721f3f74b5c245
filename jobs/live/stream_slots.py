"""Open live streams (SSE and WebSocket followers) per tenant and per web process.

The per-tenant count lives in Redis, shared by every web process: a counted lease
(core.leases) per open stream. A stream renews its lease on every heartbeat tick, so a
process that dies without closing its streams frees their slots once the leases run out
(three heartbeats). The per-process count is a plain counter: one event loop serves a
process's streams.
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from django.conf import settings

from core.leases import lease_release, lease_renew, lease_take

# The process's open streams; weak, so a stream dropped without being closed (a response
# whose body never started) stops counting once it is collected.
_open_in_process: weakref.WeakSet[StreamSlot] = weakref.WeakSet()


class StreamLimitReached(Exception):
    def __init__(self, message: str, *, limit: str) -> None:
        super().__init__(message)
        self.message = message
        self.limit = limit


def _lease_seconds() -> int:
    return 3 * settings.SSE_HEARTBEAT_SECONDS + 5


def _lease_name(tenant_id: object) -> str:
    return f"streams:tenant:{tenant_id}"


@dataclass(eq=False)  # hashed by identity, for the weak set
class StreamSlot:
    tenant_id: object
    member: str
    released: bool = False
    renewed_at: float = 0.0

    async def renew_if_due(self) -> None:
        """Renew the lease once a third of it has passed (called on every stream step)."""
        if time.monotonic() - self.renewed_at >= _lease_seconds() / 3:
            self.renewed_at = time.monotonic()
            await self.renew()

    async def renew(self) -> None:
        await sync_to_async(lease_renew, thread_sensitive=False)(
            name=_lease_name(self.tenant_id), token=self.member, seconds=_lease_seconds()
        )

    async def release(self) -> None:
        if self.released:
            return
        self.released = True
        _open_in_process.discard(self)
        await sync_to_async(lease_release, thread_sensitive=False)(
            name=_lease_name(self.tenant_id), token=self.member
        )


async def stream_slot_acquire(*, tenant_id: object) -> StreamSlot:
    """A slot for one more open stream, or StreamLimitReached naming the limit."""
    if len(_open_in_process) >= settings.STREAMS_MAX_PER_PROCESS:
        raise StreamLimitReached(
            f"This server has {len(_open_in_process)} live streams open, its limit "
            f"(STREAMS_MAX_PER_PROCESS={settings.STREAMS_MAX_PER_PROCESS}); poll the status "
            "URL or try again shortly.",
            limit="STREAMS_MAX_PER_PROCESS",
        )
    slot = StreamSlot(tenant_id=tenant_id, member="", renewed_at=time.monotonic())
    _open_in_process.add(slot)  # counted before the await, so concurrent opens see it
    try:
        # Fails open on the shared count (the per-process one still holds): with Redis
        # down the stream itself degrades to re-reading the row on each tick.
        token = await sync_to_async(lease_take, thread_sensitive=False)(
            name=_lease_name(tenant_id),
            limit=settings.STREAMS_MAX_PER_TENANT,
            seconds=_lease_seconds(),
        )
    except BaseException:
        _open_in_process.discard(slot)
        raise
    if token is None:
        _open_in_process.discard(slot)
        raise StreamLimitReached(
            f"You have {settings.STREAMS_MAX_PER_TENANT} live streams open, the limit "
            "(STREAMS_MAX_PER_TENANT); close some or poll the status URL.",
            limit="STREAMS_MAX_PER_TENANT",
        )
    slot.member = token
    return slot
