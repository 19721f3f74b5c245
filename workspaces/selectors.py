"""Reads of workspaces: which ones a person is in, and their role in one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import Q, QuerySet

from core.errors import NotFound
from workspaces.models import AuditEntry, Membership, SsoDomain, Workspace


def workspace_list_for(*, user: Any) -> QuerySet[Workspace]:
    """The workspaces the user is a member of, their own first."""
    return Workspace.objects.filter(memberships__user=user).order_by("-personal", "name")


def membership_role(*, user: Any, workspace_id: int | None) -> str | None:
    """The user's role in the workspace, None if they are not in it."""
    if workspace_id is None or user is None or not getattr(user, "is_authenticated", False):
        return None
    return (
        Membership.objects.filter(user=user, workspace_id=workspace_id)
        .values_list("role", flat=True)
        .first()
    )


def workspace_find(*, name: str) -> Workspace:
    """The workspace with this slug, else the one with this exact name; NotFound otherwise."""
    found = Workspace.objects.filter(Q(slug=name) | Q(name=name)).order_by("-personal")
    by_slug = [workspace for workspace in found if workspace.slug == name]
    if by_slug:
        return by_slug[0]
    if len(found) == 1:
        return found[0]
    if not found:
        raise NotFound(f"No workspace named {name!r} was found.")
    raise NotFound(f"{len(found)} workspaces are named {name!r}; name one by its slug.")


def audit_entries(
    *, workspace: Workspace, filters: Mapping[str, Any] | None = None
) -> QuerySet[AuditEntry]:
    """The workspace's audit log, newest first, narrowed by the audit filters (the API's and
    the page's, AuditFilterSerializer): `action`; `actor` matches a username or a key's
    prefix; `q` any of actor, action and target; `since` inclusive, `until` not."""
    filters = filters or {}
    action, actor, search = (filters.get(name, "") for name in ("action", "actor", "q"))
    since, until = filters.get("since"), filters.get("until")
    entries = AuditEntry.objects.filter(workspace=workspace)
    if action:
        entries = entries.filter(action=action)
    if actor:
        entries = entries.filter(
            Q(actor_user__username=actor) | Q(actor_key=actor) | Q(actor__icontains=actor)
        )
    if since is not None:
        entries = entries.filter(at__gte=since)
    if until is not None:
        entries = entries.filter(at__lt=until)
    if search:
        entries = entries.filter(
            Q(actor__icontains=search)
            | Q(action__icontains=search)
            | Q(target__icontains=search)
            | Q(target_id__icontains=search)
        )
    return entries.order_by("-at", "-pk")


def membership_list(*, workspace: Workspace) -> QuerySet[Membership]:
    return (
        Membership.objects.filter(workspace=workspace)
        .select_related("user")
        .order_by("user__username")
    )


def workspace_sso(*, workspace: Workspace) -> dict[str, Any]:
    """The email domains that join people to the workspace, those an operator verified
    (only they join anyone), and the role people join in."""
    rows = SsoDomain.objects.filter(workspace=workspace).values_list("domain", "verified")
    return {
        "workspace": workspace.slug,
        "domains": [domain for domain, _ in rows],
        "verified": [domain for domain, verified in rows if verified],
        "role": workspace.sso_role,
    }
