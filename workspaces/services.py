"""Making workspaces and members: a team's workspace, and each person's own one on demand."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.utils.text import slugify

from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError
from workspaces.models import Membership, Role, Workspace


class WorkspaceNameTaken(ApplicationError):
    http_status = 409
    code = ErrorCode.WORKSPACE_EXISTS


def personal_slug(user: Any) -> str:
    """The slug of a user's own workspace (the migration that brought workspaces names the
    same); the pk keeps it unique where two usernames slugify alike."""
    return f"{slugify(user.username)[:80] or 'user'}-{user.pk}"


def workspace_personal(*, user: Any) -> Workspace:
    """The user's own workspace, made with them as its owner the first time it is asked for
    (so users made by any path, createsuperuser included, get one)."""
    found = Workspace.objects.filter(
        personal=True, memberships__user=user, memberships__role=Role.OWNER
    ).first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            workspace = Workspace.objects.create(
                name=user.username, slug=personal_slug(user), personal=True
            )
            Membership.objects.create(user=user, workspace=workspace, role=Role.OWNER)
            return workspace
    except IntegrityError:  # a concurrent request made it first
        return Workspace.objects.get(slug=personal_slug(user))


def workspace_create(*, name: str, owner: Any) -> Workspace:
    """A team workspace with `owner` as its first owner; WorkspaceNameTaken if its slug is."""
    slug = slugify(name)[:100]
    if not slug:
        raise ApplicationError(
            f"A workspace name needs a letter or digit; {name!r} has none.",
            code=ErrorCode.INVALID_WORKSPACE_NAME,
            http_status=400,
        )
    try:
        with transaction.atomic():
            workspace = Workspace.objects.create(name=name, slug=slug)
            Membership.objects.create(user=owner, workspace=workspace, role=Role.OWNER)
    except IntegrityError:
        raise WorkspaceNameTaken(f"A workspace with the slug {slug!r} exists already.") from None
    return workspace


def membership_set(*, workspace: Workspace, user: Any, role: str) -> Membership:
    """Add the user to the workspace in `role`, or change the role they have there."""
    membership, _ = Membership.objects.update_or_create(
        user=user, workspace=workspace, defaults={"role": Role(role)}
    )
    return membership
