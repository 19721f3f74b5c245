"""Workspaces in the admin: their members and roles, their own quota limits, and the email
domains that join people to them by single sign-on."""

from __future__ import annotations

from django.contrib import admin

from workspaces.models import Membership, SsoDomain, Workspace, WorkspaceQuota


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ("user",)


class WorkspaceQuotaInline(admin.StackedInline):
    model = WorkspaceQuota
    can_delete = True
    verbose_name_plural = "quota (empty: the WORKSPACE_* setting; 0: no limit)"


class SsoDomainInline(admin.TabularInline):
    """Whoever runs the service may set any domain here (the owners' page allows only their
    own); the database still keeps a domain to one workspace."""

    model = SsoDomain
    extra = 0
    verbose_name_plural = "single sign-on domains (people join in the workspace's SSO role)"


@admin.register(Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "personal", "created_at")
    list_filter = ("personal",)
    search_fields = ("name", "slug", "memberships__user__username")
    prepopulated_fields = {"slug": ("name",)}
    inlines = (MembershipInline, WorkspaceQuotaInline, SsoDomainInline)


@admin.register(WorkspaceQuota)
class WorkspaceQuotaAdmin(admin.ModelAdmin):
    list_display = ("workspace", "jobs_per_day", "jobs_per_month", "pages_per_day", "updated_at")
    search_fields = ("workspace__name", "workspace__slug")
