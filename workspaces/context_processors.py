"""What the nav shows of workspaces: the current one, the others to switch to, and whether
the person may see the workspace's keys and usage (owners)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from workspaces.current import workspace_current
from workspaces.permissions import Action, can
from workspaces.selectors import workspace_list_for


def workspace_nav(request: HttpRequest) -> dict[str, Any]:
    """Lazy, so a page that shows no nav (or a signed-out visitor) asks nothing."""

    def nav() -> dict[str, Any]:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return {}
        current = workspace_current(request)
        return {
            "current": current,
            "all": list(workspace_list_for(user=user)),
            "owner": can(user, Action.KEY_MANAGE, current),
        }

    return {"workspace_nav": SimpleLazyObject(nav)}
