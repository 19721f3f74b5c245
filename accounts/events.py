"""Announcing a revoked API key to the live streams it opened (one channel group a key)."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)
KEY_REVOKED_TYPE = "key.revoked"


def key_group(prefix: str) -> str:
    """Every live stream opened with one API key (by its public prefix)."""
    return f"apikey.{prefix}"


def key_revoked_publish(prefix: str) -> None:
    """Tell the streams a key opened to close. Best effort: a stream that misses it still
    ends, as every stream re-checks its key on each heartbeat tick."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(key_group(prefix), {"type": KEY_REVOKED_TYPE})
    except Exception:
        logger.warning("could not announce the revocation of key %s", prefix, exc_info=True)
