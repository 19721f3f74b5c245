"""The audit log's one writer: the services call `audit_record` for each change a
workspace's owners must be able to trace (who, what, to which thing, when)."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from django.db import models

from workspaces.models import AuditEntry, Workspace
from workspaces.permissions import is_api_key


class AuditAction(StrEnum):
    TEMPLATE_CREATED = "template.created"
    TEMPLATE_CHANGED = "template.changed"
    TEMPLATE_PUBLISHED = "template.published"  # a new version: what new jobs render
    TEMPLATE_ARCHIVED = "template.archived"
    TEMPLATE_RESTORED = "template.restored"
    KEY_CREATED = "key.created"
    KEY_REVOKED = "key.revoked"
    MEMBER_ADDED = "member.added"
    MEMBER_ROLE_CHANGED = "member.role_changed"
    MEMBER_REMOVED = "member.removed"
    MEMBER_INVITED = "member.invited"
    OWNERSHIP_TRANSFERRED = "ownership.transferred"
    DEAD_LETTER_REDRIVEN = "dead_letter.redriven"
    DEAD_LETTER_DISCARDED = "dead_letter.discarded"
    QUOTA_CHANGED = "quota.changed"
    MEMBER_JOINED_BY_DOMAIN = "member.joined_by_domain"
    INVITATION_WITHDRAWN = "invitation.withdrawn"
    SSO_CHANGED = "sso.changed"
    SSO_DOMAIN_VERIFIED = "sso.domain_verified"  # an operator's approval, or its withdrawal
    CERTIFICATE_UPLOADED = "certificate.uploaded"
    CERTIFICATE_REVOKED = "certificate.revoked"
    SCHEDULE_CREATED = "schedule.created"
    SCHEDULE_CHANGED = "schedule.changed"
    SCHEDULE_DELETED = "schedule.deleted"
    SCHEDULE_RUN_NOW = "schedule.run_now"
    WORKSPACE_CREATED = "workspace.created"  # a team workspace, by its first owner


def actor_label(actor: Any) -> str:
    """How an actor reads in the log: a username, `key <prefix>… (creator)`, or `system`."""
    if actor is None or not (is_api_key(actor) or getattr(actor, "is_authenticated", False)):
        return "system"
    if is_api_key(actor):
        return f"key {actor.prefix}… ({actor.user.username})"
    return str(actor.get_username())


def audit_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, list[Any]]:
    """What a change did, as an entry's `changes` keep it: [before, after] of each of
    `after`'s names whose value differs; a name that stayed the same is left out."""
    return {name: [before[name], value] for name, value in after.items() if before[name] != value}


def audit_record(
    *,
    workspace: Workspace | int,
    actor: Any,
    action: AuditAction,
    target: models.Model | None = None,
    target_type: str = "",
    target_id: str = "",
    target_repr: str = "",
    changes: dict[str, Any] | None = None,
) -> AuditEntry:
    """Append one entry. `actor` is a person, an API key or None (the service itself);
    `target` a model instance, or its type, id and text given by hand."""
    key = actor if is_api_key(actor) else None
    user = key.user if key is not None else actor
    if user is not None and not getattr(user, "is_authenticated", False):
        user = None
    if target is not None:
        target_type = target_type or target._meta.model_name or ""
        target_id = target_id or str(target.pk)
        target_repr = target_repr or str(target)
    return AuditEntry.objects.create(
        workspace_id=workspace if isinstance(workspace, int) else workspace.pk,
        actor_user=user,
        actor_key=key.prefix if key is not None else "",
        actor=actor_label(actor)[:200],
        action=action.value,
        target_type=target_type[:50],
        target_id=target_id[:64],
        target=target_repr[:300],
        changes=changes or {},
    )
