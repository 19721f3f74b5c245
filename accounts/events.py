"""Announcing a revoked API key to the live streams it opened (one channel group a key)."""

from __future__ import annotations

import logging

from core.stream_close import streams_close_announce

logger = logging.getLogger(__name__)
KEY_REVOKED_TYPE = "key.revoked"


def key_group(prefix: str) -> str:
    """Every live stream opened with one API key (by its public prefix)."""
    return f"apikey.{prefix}"


def key_revoked_publish(prefix: str) -> None:
    """Tell the streams a key opened to close. Best effort: a stream that misses it still
    ends, as every stream re-checks its key on each heartbeat tick."""
    streams_close_announce(
        key_group(prefix), KEY_REVOKED_TYPE, what=f"the revocation of key {prefix}", log=logger
    )
