"""Which workspace a request acts in, and as whom: an API key's own workspace, else the one
the browser's session chose (the switcher), else the person's own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.http import Http404

from core.errors import NotFound
from workspaces.models import Workspace
from workspaces.permissions import Action, authorize, authorize_page, is_api_key, role_in
from workspaces.services import workspace_personal

SESSION_KEY = "workspace_id"


def actor_of(request: Any) -> Any:
    """The API key a request came with (it acts in its own role), else its user."""
    auth = getattr(request, "auth", None)
    return auth if is_api_key(auth) else request.user


def workspace_of_actor(actor: Any, *, session: Any = None) -> Workspace:
    """A key's workspace; a person's chosen one (if they are still in it), else their own."""
    if is_api_key(actor):
        if actor.workspace_id is None:  # only a key made between the two migrations
            return workspace_personal(user=actor.user)
        workspace: Workspace = actor.workspace  # joined when the key was resolved
        return workspace
    chosen = session.get(SESSION_KEY) if session is not None else None
    if chosen is not None and role_in(actor, chosen) is not None:
        return Workspace.objects.get(pk=chosen)
    return workspace_personal(user=actor)


def workspace_current(request: Any) -> Workspace:
    """The workspace the request acts in (cached on the request: asked for many times)."""
    cached = getattr(request, "_workspace", None)
    if cached is None:
        cached = workspace_of_actor(actor_of(request), session=getattr(request, "session", None))
        request._workspace = cached
    return cached


def workspace_switch(request: Any, *, workspace_id: int) -> Workspace:
    """Make the session act in this workspace; NotFound if the person is not in it."""
    if role_in(request.user, workspace_id) is None:
        raise NotFound(f"No workspace {workspace_id} was found.")
    request.session[SESSION_KEY] = workspace_id
    workspace = Workspace.objects.get(pk=workspace_id)
    request._workspace = workspace
    return workspace


def workspace_for(request: Any, action: Action) -> Workspace:
    """For the API: the request's workspace once its caller (key or person) may do
    `action` in it; PermissionDenied (403, naming the roles that may) otherwise."""
    workspace = workspace_current(request)
    authorize(actor_of(request), action, workspace)
    return workspace


def workspace_page_for(request: Any, action: Action) -> Workspace:
    """For the browser pages: the same, with Django's 403 page for a refusal."""
    workspace = workspace_current(request)
    authorize_page(request.user, action, workspace)
    return workspace


T = TypeVar("T")


def api_get(request: Any, action: Action, getter: Callable[..., T], **key: Any) -> T:
    """For the API: `getter(workspace=<the current one>, **key)` if the caller's role may do
    `action` on what it finds (403 naming the roles that may); one that is not there or is
    another workspace's stays the getter's NotFound (404, they look the same)."""
    found = getter(workspace=workspace_current(request), **key)
    authorize(actor_of(request), action, found)
    return found


def page_get(
    request: Any, action: Action, getter: Callable[..., T], *, missing: str = "", **key: Any
) -> T:
    """For the browser pages: `getter(workspace=<the current one>, **key)` if the person's
    role may do `action` on what it finds; Django's 404 page saying `missing` (else the
    getter's message) for one that is not there or is another workspace's (they look the
    same), its 403 page otherwise."""
    try:
        found = getter(workspace=workspace_current(request), **key)
    except NotFound as exc:
        raise Http404(missing or exc.message) from None
    authorize_page(request.user, action, found)
    return found
