"""Invitations by email: an owner invites an address in a role; the mailed link carries a
signed token, good for WORKSPACE_INVITATION_DAYS and for one acceptance."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.mail import EmailMessage
from django.core.validators import validate_email
from django.db import transaction
from django.forms import ValidationError
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from core.errors import LimitReached
from rendering.errors import ApplicationError
from workspaces.audit import AuditAction, audit_record
from workspaces.error_codes import WorkspaceErrorCode
from workspaces.models import Invitation, Membership, Role, Workspace
from workspaces.services import membership_set

logger = logging.getLogger(__name__)
_SALT = "workspaces.invitation"


class InvitationInvalid(ApplicationError):
    """The link was used already, expired, was withdrawn or altered: the page says which."""

    http_status = 410
    code = WorkspaceErrorCode.INVITATION_INVALID


class InvitationForSomeoneElse(InvitationInvalid):
    """The signed-in person's address is not the invited one: the link stays unused."""

    http_status = 403


def invitation_token(invitation: Invitation) -> str:
    return signing.dumps(str(invitation.public_id), salt=_SALT)


def invitation_link(invitation: Invitation) -> str:
    path = reverse("invitation-accept", args=[invitation_token(invitation)])
    return f"{settings.PUBLIC_BASE_URL}{path}"


def _mail(invitation: Invitation) -> None:
    """Best effort after the commit: the owner sees the link on the page either way."""
    context = {"invitation": invitation, "link": invitation_link(invitation)}
    message = EmailMessage(
        subject=f"{settings.EMAIL_SUBJECT_PREFIX}You are invited to {invitation.workspace.name}",
        body=render_to_string("workspaces/mail/invitation.txt", context),
        to=[invitation.email],
    )
    try:
        message.send()
    except Exception:
        logger.warning("could not mail the invitation to %s", invitation.email, exc_info=True)


class InvitationsThrottled(LimitReached):
    """The workspace sent its invitations for the day: the service is no mail relay."""

    limit = "WORKSPACE_INVITATIONS_PER_DAY"


def _invitation_rate_check(*, workspace: Workspace, now: datetime) -> None:
    """429 once the workspace sent WORKSPACE_INVITATIONS_PER_DAY invitations in the last 24
    hours (withdrawn ones count: their mail went out). Workspace row locked: no race."""
    Workspace.objects.select_for_update().filter(pk=workspace.pk).first()
    cap = settings.WORKSPACE_INVITATIONS_PER_DAY
    sent = Invitation.objects.filter(workspace=workspace, created_at__gt=now - timedelta(days=1))
    if sent.count() >= cap:
        raise InvitationsThrottled(
            f"{workspace.name} sent {cap} invitations in the last 24 hours, the most a "
            f"workspace may (WORKSPACE_INVITATIONS_PER_DAY={cap}); try again later."
        )


def invitation_create(*, workspace: Workspace, email: str, role: str, by: Any) -> Invitation:
    """Invite `email` in `role` and mail the link; ALREADY_MEMBER (409) if that person is in
    the workspace already. A new invitation of the same address withdraws the older one."""
    email = email.strip().lower()
    try:
        validate_email(email)
    except ValidationError:
        raise ApplicationError(f"{email!r} is not an email address.") from None
    role = Role(role)
    users = get_user_model().objects.filter(email__iexact=email)
    if Membership.objects.filter(workspace=workspace, user__in=users).exists():
        raise ApplicationError(
            f"{email} is a member of {workspace.name} already; change their role instead.",
            code=WorkspaceErrorCode.ALREADY_MEMBER,
            http_status=409,
        )
    now = timezone.now()
    with transaction.atomic():
        _invitation_rate_check(workspace=workspace, now=now)
        Invitation.objects.filter(
            workspace=workspace, email=email, accepted_at__isnull=True, withdrawn_at__isnull=True
        ).update(withdrawn_at=now)
        invitation = Invitation.objects.create(
            workspace=workspace,
            email=email,
            role=role,
            invited_by=by if getattr(by, "pk", None) else None,
            expires_at=now + timedelta(days=settings.WORKSPACE_INVITATION_DAYS),
        )
        _invitation_audit(invitation, workspace=workspace, by=by, action=AuditAction.MEMBER_INVITED)
        transaction.on_commit(lambda: _mail(invitation))
    return invitation


def _invitation_audit(
    invitation: Invitation, *, workspace: Workspace, by: Any, action: AuditAction
) -> None:
    """An entry about an invitation, named by the address it went to, with its role."""
    audit_record(
        workspace=workspace,
        actor=by,
        action=action,
        target=invitation,
        target_type="invitation",
        target_repr=invitation.email,
        changes={"role": Role(invitation.role).value},
    )


@transaction.atomic
def invitation_withdraw(*, workspace: Workspace, invitation_id: int, by: Any = None) -> bool:
    """Withdraw an open invitation (its link stops working); False if there is none. `by`
    is who the audit log names; withdrawing one already withdrawn logs nothing."""
    invitation = (
        Invitation.objects.select_for_update()
        .filter(pk=invitation_id, workspace=workspace, accepted_at__isnull=True)
        .first()
    )
    if invitation is None:
        return False
    if invitation.withdrawn_at is None:
        invitation.withdrawn_at = timezone.now()
        invitation.save(update_fields=["withdrawn_at"])
        _invitation_audit(
            invitation, workspace=workspace, by=by, action=AuditAction.INVITATION_WITHDRAWN
        )
    return True


def invitation_read(token: str) -> Invitation:
    """The invitation the token names, if it can still be accepted; InvitationInvalid with
    the reason otherwise."""
    try:
        public_id = signing.loads(token, salt=_SALT)
    except signing.BadSignature:
        raise InvitationInvalid(
            "This invitation link is not valid (it may have been cut or altered)."
        ) from None
    invitation = Invitation.objects.select_related("workspace").filter(public_id=public_id).first()
    if invitation is None:
        raise InvitationInvalid("This invitation no longer exists.")
    name = invitation.workspace.name
    if invitation.accepted_at is not None:
        raise InvitationInvalid(f"This invitation to {name} was used already.")
    if invitation.withdrawn_at is not None:
        raise InvitationInvalid(f"This invitation to {name} was withdrawn.")
    if invitation.expires_at <= timezone.now():
        raise InvitationInvalid(
            f"This invitation to {name} expired on {invitation.expires_at:%Y-%m-%d %H:%M} UTC."
        )
    return invitation


def invitation_recipient_check(*, invitation: Invitation, user: Any) -> None:
    """InvitationForSomeoneElse unless the person's address is the invited one: a
    forwarded or leaked link makes no one else a member."""
    if (getattr(user, "email", "") or "").strip().lower() != invitation.email:
        raise InvitationForSomeoneElse(
            f"This invitation to {invitation.workspace.name} is for {invitation.email}; you "
            f"are signed in as {user.get_username()}, with another address. Sign in as the "
            "invited person (or sign out to make an account for that address) and open the "
            "link again."
        )


@transaction.atomic
def invitation_accept(*, token: str, user: Any) -> Membership:
    """Make `user` a member in the invitation's role (one who is a member already keeps
    their role); once only: a second acceptance is InvitationInvalid. Only the invited
    address accepts: InvitationForSomeoneElse (403) for anyone else, the link unused."""
    invitation = invitation_read(token)
    invitation_recipient_check(invitation=invitation, user=user)
    taken = Invitation.objects.filter(
        pk=invitation.pk,
        accepted_at__isnull=True,
        withdrawn_at__isnull=True,
        expires_at__gt=timezone.now(),
    ).update(accepted_at=timezone.now(), accepted_by=user)
    if not taken:  # accepted (or withdrawn) between the read and now
        raise InvitationInvalid(f"This invitation to {invitation.workspace.name} was used already.")
    existing = Membership.objects.filter(user=user, workspace=invitation.workspace).first()
    if existing is not None:
        return existing
    return membership_set(workspace=invitation.workspace, user=user, role=invitation.role, by=user)


def invitations_pending(*, workspace: Workspace) -> list[Invitation]:
    return list(
        Invitation.objects.filter(
            workspace=workspace,
            accepted_at__isnull=True,
            withdrawn_at__isnull=True,
            expires_at__gt=timezone.now(),
        )
    )
