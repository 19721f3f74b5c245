"""Telling live streams to close: one best-effort message to their channel group."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer


def streams_close_announce(
    group: str, message_type: str, *, what: str, log: logging.Logger
) -> None:
    """Send `{"type": message_type}` to `group`. Best effort: a stream that misses it still
    ends, as every stream re-checks its credential on each heartbeat tick, so a failure is
    only logged (`could not announce <what>`) on the caller's `log`."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, {"type": message_type})
    except Exception:
        log.warning("could not announce %s", what, exc_info=True)
