"""Announcing a member's removal to the live streams they opened in that workspace."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)
MEMBER_REMOVED_TYPE = "member.removed"


def member_group(user_id: int, workspace_id: int) -> str:
    """Every live stream a person opened (with their session) in one workspace."""
    return f"member.{workspace_id}.{user_id}"


def member_removed_publish(user_id: int, workspace_id: int) -> None:
    """Tell those streams to close. Best effort: a stream that misses it still ends, as
    every session stream re-checks the membership on each heartbeat tick."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(
            member_group(user_id, workspace_id), {"type": MEMBER_REMOVED_TYPE}
        )
    except Exception:
        logger.warning(
            "could not announce the removal of user %s from workspace %s",
            user_id,
            workspace_id,
            exc_info=True,
        )
