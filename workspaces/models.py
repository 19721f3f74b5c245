"""Workspace (owns templates, jobs and keys) and Membership (a person's role in one)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


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


class SsoDomain(models.Model):
    """An email domain whose people join the workspace when they first sign in by single
    sign-on with a verified address there; a domain joins one workspace only."""

    domain = models.CharField(max_length=253, unique=True)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="sso_domains")
    created_at = models.DateTimeField(auto_now_add=True)

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
