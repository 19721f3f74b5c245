"""Workspaces in the admin: their members and roles, their own quota limits (both saved
through the services, so the audit log names who changed them), the email domains that join
people to them by single sign-on, and the audit log."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.forms import BaseInlineFormSet, ModelForm
from django.http import HttpRequest

from core.admin_records import RecordAdmin
from rendering.errors import ApplicationError
from workspaces.limits import NAMES
from workspaces.models import AuditEntry, Membership, SsoDomain, Workspace, WorkspaceQuota
from workspaces.services import (
    membership_remove,
    membership_set,
    sso_domain_operator_remove,
    sso_domain_operator_save,
    workspace_quota_set,
)


class MembershipInline(admin.TabularInline[Membership, Workspace]):
    model = Membership
    extra = 0
    autocomplete_fields = ("user",)


class WorkspaceQuotaInline(admin.StackedInline[WorkspaceQuota, Workspace]):
    model = WorkspaceQuota
    can_delete = True
    verbose_name_plural = "quota (empty: the WORKSPACE_* setting; 0: no limit)"


def _limits(row: WorkspaceQuota | None) -> dict[str, int | None]:
    return {name: getattr(row, name) if row is not None else None for name in NAMES}


class SsoDomainInline(admin.TabularInline[SsoDomain, Workspace]):
    """Whoever runs the service may set any claimable domain here (the owners' page allows
    only their own) and verifies it: the approval without which nobody joins by it. The
    database still keeps a domain to one workspace."""

    model = SsoDomain
    fields = ("domain", "verified")
    extra = 0
    verbose_name_plural = "single sign-on domains (people join in the workspace's SSO role)"


@admin.register(Workspace)
class WorkspaceAdmin(admin.ModelAdmin[Workspace]):
    list_display = ("name", "slug", "personal", "created_at")
    list_filter = ("personal",)
    search_fields = ("name", "slug", "memberships__user__username")
    prepopulated_fields = {"slug": ("name",)}
    inlines = (MembershipInline, WorkspaceQuotaInline, SsoDomainInline)

    def save_formset(
        self,
        request: HttpRequest,
        form: ModelForm[Any],
        formset: BaseInlineFormSet[Any, Workspace, Any],
        change: bool,
    ) -> None:
        workspace = form.instance
        rows: list[Any] = formset.save(commit=False)
        try:
            if formset.model is Membership:
                for gone in formset.deleted_objects:
                    membership_remove(workspace=workspace, user=gone.user, by=request.user)
                for row in rows:
                    membership_set(
                        workspace=workspace, user=row.user, role=row.role, by=request.user
                    )
            elif formset.model is SsoDomain:
                for gone in formset.deleted_objects:
                    sso_domain_operator_remove(row=gone, by=request.user)
                for row in rows:
                    row.workspace = workspace
                    sso_domain_operator_save(row=row, by=request.user)
            elif formset.model is WorkspaceQuota:
                if formset.deleted_objects:
                    workspace_quota_set(workspace=workspace, by=request.user, **_limits(None))
                for row in rows:
                    workspace_quota_set(workspace=workspace, by=request.user, **_limits(row))
        except ApplicationError as exc:  # the last owner: refused, said on the page
            self.message_user(request, exc.message, level=messages.ERROR)


@admin.register(WorkspaceQuota)
class WorkspaceQuotaAdmin(admin.ModelAdmin[WorkspaceQuota]):
    list_display = ("workspace", "jobs_per_day", "jobs_per_month", "pages_per_day", "updated_at")
    search_fields = ("workspace__name", "workspace__slug")

    def save_model(
        self, request: HttpRequest, obj: WorkspaceQuota, form: ModelForm[Any], change: bool
    ) -> None:
        workspace_quota_set(workspace=obj.workspace, by=request.user, **_limits(obj))


@admin.register(AuditEntry)
class AuditEntryAdmin(RecordAdmin[AuditEntry]):
    """Read-only: the log is append-only from the application, the admin included."""

    list_display = ("at", "workspace", "actor", "action", "target")
    list_filter = ("action",)
    search_fields = ("actor", "action", "target", "target_id", "workspace__name")
    date_hierarchy = "at"
    list_select_related = ("workspace",)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
