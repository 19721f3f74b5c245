"""A schedule runs as its creator (and key): once they lose access it is paused, saying why."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from schedules.models import Schedule
from workspaces.models import Membership

REASON_REMOVED = "its creator is no longer a member of the workspace"
REASON_DEACTIVATED = "its creator's account is deactivated"
REASON_KEY_REVOKED = "the API key it was created with is revoked"


def schedule_access_lost(*, schedule: Schedule) -> str:
    """Why the schedule may not run as its creator any more ("" if it may)."""
    if not schedule.created_by.is_active:
        return REASON_DEACTIVATED
    key = schedule.api_key
    if key is not None and key.revoked_at is not None:
        return REASON_KEY_REVOKED
    member = Membership.objects.filter(
        workspace_id=schedule.workspace_id, user_id=schedule.created_by_id
    ).exists()
    return "" if member else REASON_REMOVED


def schedules_pause(
    *,
    reason: str,
    workspace_id: int | None = None,
    user_id: int | None = None,
    api_key_id: int | None = None,
    **_: Any,
) -> int:
    """Pause the running schedules of that creator (in that workspace) or key, with the
    reason shown on each; how many. A resume counts the next tick from then."""
    if user_id is None and api_key_id is None:
        return 0
    found = Schedule.objects.filter(paused=False)
    if workspace_id is not None:
        found = found.filter(workspace_id=workspace_id)
    who = Q(created_by_id=user_id) if user_id is not None else Q(api_key_id=api_key_id)
    return found.filter(who).update(paused=True, next_run_at=None, paused_reason=reason[:200])


def access_lost_received(sender: Any, **kwargs: Any) -> None:
    """workspaces.access.access_lost: pause in the sender's transaction."""
    schedules_pause(**kwargs)
