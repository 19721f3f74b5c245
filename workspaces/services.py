"""Making workspaces and members: a team's workspace, and each person's own one on demand."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import DomainNameValidator
from django.db import IntegrityError, transaction
from django.utils.text import slugify

from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError
from workspaces.access import access_lost
from workspaces.audit import AuditAction, audit_changes, audit_record
from workspaces.error_codes import WorkspaceErrorCode
from workspaces.events import member_removed_publish
from workspaces.limits import NAMES as QUOTA_NAMES
from workspaces.mail_domains import public_mail_domain
from workspaces.models import DomainJoin, Membership, Role, SsoDomain, Workspace, WorkspaceQuota


class WorkspaceNameTaken(ApplicationError):
    http_status = 409
    code = WorkspaceErrorCode.WORKSPACE_EXISTS


class LastOwner(ApplicationError):
    """A workspace always keeps an owner: whoever manages its members and keys."""

    http_status = 400
    code = WorkspaceErrorCode.LAST_OWNER


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


def workspace_create(*, name: str, owner: Any, by: Any = None) -> Workspace:
    """A team workspace with `owner` as its first owner; WorkspaceNameTaken if its slug is.
    Its audit log starts with `workspace.created` by `by` (None: a command, `system`)."""
    name = " ".join(str(name).split())
    if len(name) > 200:
        raise ApplicationError(
            "A workspace name is at most 200 characters.",
            code=WorkspaceErrorCode.INVALID_WORKSPACE_NAME,
            http_status=400,
        )
    slug = slugify(name)[:100]
    if not slug:
        raise ApplicationError(
            f"A workspace name needs a letter or digit; {name!r} has none.",
            code=WorkspaceErrorCode.INVALID_WORKSPACE_NAME,
            http_status=400,
        )
    try:
        with transaction.atomic():
            workspace = Workspace.objects.create(name=name, slug=slug)
            Membership.objects.create(user=owner, workspace=workspace, role=Role.OWNER)
            audit_record(
                workspace=workspace,
                actor=by,
                action=AuditAction.WORKSPACE_CREATED,
                target=workspace,
                target_repr=workspace.name,
                changes={"owner": owner.get_username(), "slug": slug},
            )
    except IntegrityError:
        raise WorkspaceNameTaken(f"A workspace with the slug {slug!r} exists already.") from None
    return workspace


def _member_audit(
    *, workspace: Workspace, by: Any, action: AuditAction, member: Any, changes: dict[str, Any]
) -> None:
    """An entry about one member, who is named alike in all of them: by id, and as
    "name <email>" (the name alone when they have no email)."""
    email = getattr(member, "email", "")
    label = f"{member.get_username()} <{email}>" if email else str(member.get_username())
    audit_record(
        workspace=workspace,
        actor=by,
        action=action,
        target_type="member",
        target_id=str(member.pk),
        target_repr=label,
        changes=changes,
    )


def _last_owner_check(*, workspace: Workspace, user: Any, doing: str) -> None:
    """LastOwner if `user` is the workspace's only owner (rows locked: two owners removing
    each other at once cannot both succeed)."""
    owners = list(
        Membership.objects.select_for_update()
        .filter(workspace=workspace, role=Role.OWNER)
        .values_list("user_id", flat=True)
    )
    if owners == [user.pk]:
        raise LastOwner(
            f"{user.get_username()} is the only owner of {workspace.name}; {doing} would leave "
            "it without one. Make another member an owner (or transfer ownership) first."
        )


@transaction.atomic
def membership_set(*, workspace: Workspace, user: Any, role: str, by: Any = None) -> Membership:
    """Add the user to the workspace in `role`, or change the role they have there;
    LastOwner if that demotes its only owner. `by` is who the audit log names."""
    role = Role(role)
    existing = Membership.objects.select_for_update().filter(user=user, workspace=workspace).first()
    if existing is not None and existing.role == role:
        return existing
    if existing is not None and existing.role == Role.OWNER:
        _last_owner_check(workspace=workspace, user=user, doing=f"making them {role.value}")
    membership, _ = Membership.objects.update_or_create(
        user=user, workspace=workspace, defaults={"role": role}
    )
    _member_audit(
        workspace=workspace,
        by=by,
        action=AuditAction.MEMBER_ADDED if existing is None else AuditAction.MEMBER_ROLE_CHANGED,
        member=user,
        changes={"role": [existing.role if existing else None, role.value]},
    )
    return membership


@transaction.atomic
def membership_remove(*, workspace: Workspace, user: Any, by: Any = None) -> bool:
    """Take the user out of the workspace (False if they were not in it); LastOwner for its
    only owner. Their live streams there close; their session falls back to their own
    workspace on its next request. The keys they made stay: keys are the workspace's."""
    existing = Membership.objects.select_for_update().filter(user=user, workspace=workspace).first()
    if existing is None:
        return False
    if existing.role == Role.OWNER:
        _last_owner_check(workspace=workspace, user=user, doing="removing them")
    existing.delete()
    _member_audit(
        workspace=workspace,
        by=by,
        action=AuditAction.MEMBER_REMOVED,
        member=user,
        changes={"role": [existing.role, None]},
    )
    user_id, workspace_id = user.pk, workspace.pk
    access_lost.send(
        sender=Membership,
        workspace_id=workspace_id,
        user_id=user_id,
        reason=f"its creator {user.get_username()} was removed from the workspace",
    )
    transaction.on_commit(lambda: member_removed_publish(user_id, workspace_id))
    return True


@transaction.atomic
def ownership_transfer(*, workspace: Workspace, to: Any, by: Any) -> Membership:
    """Make member `to` an owner and `by` (an owner) an editor: the hand-over of a team.
    To yourself it is a 400: the demotion would leave the workspace with no owner."""
    if to.pk == by.pk:
        raise ApplicationError(
            f"{by.get_username()} cannot transfer the ownership of {workspace.name} to "
            "themselves; pick another member.",
            code=ErrorCode.INVALID_DATA,
            http_status=400,
        )
    if not Membership.objects.filter(user=to, workspace=workspace).exists():
        raise ApplicationError(
            f"{to.get_username()} is not a member of {workspace.name}; invite them first.",
            code=ErrorCode.INVALID_DATA,
            http_status=400,
        )
    Membership.objects.filter(user=to, workspace=workspace).update(role=Role.OWNER)
    Membership.objects.filter(user=by, workspace=workspace).update(role=Role.EDITOR)
    _member_audit(
        workspace=workspace,
        by=by,
        action=AuditAction.OWNERSHIP_TRANSFERRED,
        member=to,
        changes={"from": by.get_username(), "to": to.get_username()},
    )
    return Membership.objects.get(user=to, workspace=workspace)


@transaction.atomic
def workspace_quota_set(*, workspace: Workspace, by: Any = None, **limits: int | None) -> None:
    """Set the workspace's own limits (None: the WORKSPACE_* setting; 0: no limit)."""
    unknown = sorted(set(limits) - set(QUOTA_NAMES))
    if unknown:
        raise ApplicationError(
            f"Unknown quota limits: {', '.join(unknown)}; they are {', '.join(QUOTA_NAMES)}.",
            code=ErrorCode.INVALID_DATA,
            http_status=400,
        )
    row, _ = WorkspaceQuota.objects.select_for_update().get_or_create(workspace=workspace)
    before = {name: getattr(row, name) for name in limits}
    for name, value in limits.items():
        setattr(row, name, value)
    row.save()
    changed = audit_changes(before, limits)
    if changed:
        audit_record(
            workspace=workspace,
            actor=by,
            action=AuditAction.QUOTA_CHANGED,
            target=row,
            target_type="quota",
            target_id=str(workspace.pk),
            changes=changed,
        )


def _domain_of(email: str) -> str:
    return email.rpartition("@")[2].strip().lower()


def workspace_join_by_email_domain(*, user: Any, email: str) -> Membership | None:
    """Join the person to the workspace that claims their address's domain, in its join
    role, the first time only (DomainJoin): a later sign-in neither re-adds a member an
    owner removed nor resets a role an owner changed. An existing membership is kept."""
    claim = (
        SsoDomain.objects.filter(domain=_domain_of(email), verified=True)
        .select_related("workspace")
        .first()
    )
    if claim is None or not user.is_active or claim.workspace.personal:
        return None
    workspace = claim.workspace
    with transaction.atomic():
        _, first_time = DomainJoin.objects.get_or_create(
            user=user, workspace=workspace, defaults={"email": email}
        )
        if not first_time:
            return None
        membership, made = Membership.objects.get_or_create(
            user=user, workspace=workspace, defaults={"role": workspace.sso_role}
        )
        if made:
            _member_audit(
                workspace=workspace,
                by=user,
                action=AuditAction.MEMBER_JOINED_BY_DOMAIN,
                member=user,
                changes={"role": membership.role, "domain": claim.domain},
            )
    return membership if made else None


def _invalid(message: str) -> ApplicationError:
    return ApplicationError(message, code=WorkspaceErrorCode.INVALID_SSO_DOMAIN, http_status=400)


def sso_domain_claimable(*, workspace: Workspace, domain: str) -> None:
    """A domain any workspace may claim for joining: a domain name, not a public mail
    domain (anyone has an address there), and never for a personal workspace."""
    try:
        DomainNameValidator(accept_idna=False)(domain)
    except ValidationError:
        raise _invalid(f"{domain!r} is not a domain name (write it as example.com).") from None
    if workspace.personal:
        raise _invalid(
            f"A personal workspace does not take people in by email domain ({domain}); "
            "make a team workspace for them."
        )
    if public_mail_domain(domain):
        raise _invalid(
            f"{domain} is a public mail domain: anyone can have an address there, so it "
            "cannot join people to a workspace."
        )


def _clean_domains(domains: list[str], *, workspace: Workspace, by: Any) -> list[str]:
    """Bare domain names, lower-cased, each claimable; each must also be the domain of the
    setter's own email address (superusers excepted). That is no proof (an address is set
    without one): a domain joins nobody until an operator verifies it."""
    cleaned = sorted({domain.strip().lower().removeprefix("@") for domain in domains} - {""})
    own = _domain_of(getattr(by, "email", "") or "")
    for domain in cleaned:
        sso_domain_claimable(workspace=workspace, domain=domain)
        if not getattr(by, "is_superuser", False) and domain != own:
            raise _invalid(
                f"You may offer only your own email address's domain ({own or 'you have none'}),"
                f" not {domain}."
            )
    return cleaned


def _sso_audit(
    workspace: Workspace,
    *,
    by: Any,
    changes: dict[str, Any],
    domain: str = "",
    action: AuditAction = AuditAction.SSO_CHANGED,
) -> None:
    """The audit entry of a change to who joins `workspace` by email domain: typed "sso",
    aimed at the workspace, and named by the one domain an operator changed (else by the
    workspace)."""
    audit_record(
        workspace=workspace,
        actor=by,
        action=action,
        target=workspace,
        target_type="sso",
        target_repr=domain,
        changes=changes,
    )


def workspace_sso_set(*, workspace: Workspace, domains: list[str], role: str, by: Any) -> Workspace:
    """Who joins the workspace by email domain, and in which role (requester or viewer);
    an empty list stops joining (members joined before stay)."""
    if role not in (Role.REQUESTER, Role.VIEWER):
        raise _invalid(f"People joined by domain are requesters or viewers, not {role!r}.")
    cleaned = _clean_domains(domains, workspace=workspace, by=by)
    taken = (
        SsoDomain.objects.filter(domain__in=cleaned)
        .exclude(workspace=workspace)
        .values_list("domain", flat=True)
    )
    if taken:
        raise ApplicationError(
            f"{', '.join(sorted(taken))} already joins people to another workspace.",
            code=WorkspaceErrorCode.SSO_DOMAIN_TAKEN,
            http_status=409,
        )
    before_domains = sorted(workspace.sso_domains.values_list("domain", flat=True))
    before_role = workspace.sso_role
    try:
        with transaction.atomic():
            workspace.sso_role = Role(role)
            workspace.save(update_fields=["sso_role"])
            workspace.sso_domains.exclude(domain__in=cleaned).delete()
            for domain in cleaned:
                SsoDomain.objects.get_or_create(domain=domain, workspace=workspace)
            changes = audit_changes(
                {"domains": before_domains, "role": before_role},
                {"domains": cleaned, "role": workspace.sso_role},
            )
            if changes:
                _sso_audit(workspace, by=by, changes=changes)
    except IntegrityError:  # another workspace claimed it meanwhile
        raise ApplicationError(
            "One of these domains was just claimed by another workspace.",
            code=WorkspaceErrorCode.SSO_DOMAIN_TAKEN,
            http_status=409,
        ) from None
    return workspace


@transaction.atomic
def sso_domain_operator_save(*, row: SsoDomain, by: Any) -> SsoDomain:
    """An operator's domain row (the admin): any claimable domain, on any team workspace;
    `verified` is the operator's approval that the workspace's organisation owns it, the
    one proof joining by domain accepts. Each change is audited."""
    row.domain = row.domain.strip().lower().removeprefix("@")
    sso_domain_claimable(workspace=row.workspace, domain=row.domain)
    before = SsoDomain.objects.filter(pk=row.pk).first() if row.pk else None
    row.save()
    # A new row: no domain before it, and not verified.
    was = (
        {"domains": [before.domain], "verified": before.verified}
        if before
        else {"domains": [], "verified": False}
    )
    changes = audit_changes(was, {"domains": [row.domain], "verified": row.verified})
    if changes:
        verified = "verified" in changes
        _sso_audit(
            row.workspace,
            by=by,
            changes=changes,
            domain=row.domain,
            action=AuditAction.SSO_DOMAIN_VERIFIED if verified else AuditAction.SSO_CHANGED,
        )
    return row


@transaction.atomic
def sso_domain_operator_remove(*, row: SsoDomain, by: Any) -> None:
    _sso_audit(row.workspace, by=by, changes={"domains": [[row.domain], []]}, domain=row.domain)
    row.delete()
