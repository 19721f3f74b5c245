"""Workspace (owns templates, jobs and keys) and Membership (a person's role in one)."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.utils import timezone

from core.model_links import kept_link
from core.write_once import WriteOnceModel

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from core.model_links import OptionalLink


class Role(models.TextChoices):
    OWNER = "owner", "Owner"
    EDITOR = "editor", "Editor"
    REQUESTER = "requester", "Requester"
    VIEWER = "viewer", "Viewer"
    OPERATOR = "operator", "Operator"


class Workspace(models.Model):
    """A team's space; every user also has a personal one, made with their first sign-in
    or by the migration that brought workspaces in."""

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    personal = models.BooleanField(
        default=False, help_text="A user's own workspace, made for them; not a team's."
    )
    sso_role = models.CharField(
        max_length=20,
        choices=[(Role.REQUESTER, "Requester"), (Role.VIEWER, "Viewer")],
        default=Role.REQUESTER,
        # Also in the database: code of the release before (a rolling deploy) and older
        # migrations' models insert workspaces without this column.
        db_default=Role.REQUESTER,
        help_text="The role of someone joined by their email domain (SsoDomain).",
    )
    # Set only by an operator (the admin): schedules write there with the service's own AWS
    # credentials, so a tenant must never choose a bucket outside this list (issue 42).
    schedule_s3_destinations = models.TextField(
        blank=True,
        default="",
        db_default="",
        help_text="Where this workspace's schedules may deliver to S3 with the service's own "
        "AWS credentials, one a line: a bucket (any key in it) or bucket/prefix (only keys "
        "under that prefix). Empty: no S3 delivery. A workspace owner chooses among these.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=20, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["workspace__name"]
        constraints = [
            models.UniqueConstraint(fields=["user", "workspace"], name="membership_unique_per_pair")
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.workspace} ({self.role})"


class WorkspaceQuota(models.Model):
    """A workspace's own limits; an empty field (or no row) means the WORKSPACE_* setting
    of that name, and 0 means no limit."""

    workspace = models.OneToOneField(
        Workspace, on_delete=models.CASCADE, primary_key=True, related_name="quota"
    )
    jobs_per_day = models.PositiveIntegerField(null=True, blank=True)
    jobs_per_month = models.PositiveIntegerField(null=True, blank=True)
    pages_per_day = models.PositiveIntegerField(null=True, blank=True)
    pages_per_month = models.PositiveIntegerField(null=True, blank=True)
    bytes_per_day = models.PositiveBigIntegerField(null=True, blank=True)
    bytes_per_month = models.PositiveBigIntegerField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"quota of {self.workspace}"


class AuditQuerySet(models.QuerySet["AuditEntry"]):
    """The audit log is append-only from the application: a bulk update or delete through
    the ORM is refused (a workspace's deletion still takes its entries, by cascade)."""

    def update(self, **kwargs: object) -> int:
        raise TypeError("Audit entries are append-only; they cannot be updated.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise TypeError("Audit entries are append-only; they cannot be deleted.")


class AuditEntry(WriteOnceModel):
    """Who did what to which thing of a workspace, and when; written by the services
    (workspaces.audit.audit_record), never changed afterwards."""

    rewrite_error = TypeError
    rewrite_message = "Audit entries are append-only; they cannot be changed."

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="audit")
    at = models.DateTimeField(default=timezone.now, db_index=True)
    # A person, or an API key (then `actor_key` holds its prefix and `actor_user` the key's
    # creator); both empty for the service itself (beat re-driving dead letters).
    actor_user: OptionalLink[User] = kept_link(settings.AUTH_USER_MODEL)
    actor_key = models.CharField(max_length=16, blank=True)
    # How the actor read when it acted: kept when the user or the key is gone later.
    actor = models.CharField(max_length=200)
    action = models.CharField(max_length=64, db_index=True)
    target_type = models.CharField(max_length=50)
    target_id = models.CharField(max_length=64, blank=True)
    target = models.CharField(max_length=300, blank=True)
    changes = models.JSONField(default=dict, blank=True)

    objects = AuditQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-pk"]
        verbose_name_plural = "audit entries"
        indexes = [models.Index(fields=["workspace", "-at"], name="audit_workspace_at")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor} {self.action} {self.target}"

    def delete(self, *args: object, **kwargs: object) -> tuple[int, dict[str, int]]:
        raise TypeError("Audit entries are append-only; they cannot be deleted.")


class Invitation(models.Model):
    """An owner's invitation of an email address into a workspace in a role: mailed as a
    signed link, good until `expires_at` and for one acceptance."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField()
    role = models.CharField(max_length=20, choices=Role.choices)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by: OptionalLink[User] = kept_link(settings.AUTH_USER_MODEL)
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.email} to {self.workspace} ({self.role})"


class SsoDomain(models.Model):
    """An email domain whose people join the workspace when they first sign in by single
    sign-on with a verified address there; a domain joins one workspace only."""

    domain = models.CharField(max_length=253, unique=True)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="sso_domains")
    created_at = models.DateTimeField(auto_now_add=True)
    # The proof that the workspace's organisation owns the domain: an operator's approval in
    # the admin. Until then the domain joins nobody (an owner's own address is no proof).
    verified = models.BooleanField(
        default=False,
        db_default=False,
        help_text="An operator checked that this workspace's organisation owns the domain; "
        "only then do people join by it.",
    )

    class Meta:
        ordering = ["domain"]

    def __str__(self) -> str:
        return f"{self.domain} -> {self.workspace}"


class DomainJoin(models.Model):
    """That a person was joined to a workspace by their domain: it happens once, so a member
    an owner removed (or whose role an owner changed) is not joined again."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="domain_joins"
    )
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="domain_joins")
    email = models.EmailField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "workspace"], name="domain_join_once")
        ]

    def __str__(self) -> str:
        return f"{self.email} joined {self.workspace}"
