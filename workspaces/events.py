"""Announcing a member's removal to the live streams they opened in that workspace."""

from __future__ import annotations

import logging

from core.stream_close import streams_close_announce

logger = logging.getLogger(__name__)
MEMBER_REMOVED_TYPE = "member.removed"


def member_group(user_id: int, workspace_id: int) -> str:
    """Every live stream a person opened (with their session) in one workspace."""
    return f"member.{workspace_id}.{user_id}"


def member_removed_publish(user_id: int, workspace_id: int) -> None:
    """Tell those streams to close. Best effort: a stream that misses it still ends, as
    every session stream re-checks the membership on each heartbeat tick."""
    streams_close_announce(
        member_group(user_id, workspace_id),
        MEMBER_REMOVED_TYPE,
        what=f"the removal of user {user_id} from workspace {workspace_id}",
        log=logger,
    )
