"""Workspaces in the admin: their members and roles, and their own quota limits."""

from __future__ import annotations

from django.contrib import admin

from workspaces.models import Membership, Workspace, WorkspaceQuota


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ("user",)


class WorkspaceQuotaInline(admin.StackedInline):
    model = WorkspaceQuota
    can_delete = True
    verbose_name_plural = "quota (empty: the WORKSPACE_* setting; 0: no limit)"


@admin.register(Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "personal", "created_at")
    list_filter = ("personal",)
    search_fields = ("name", "slug", "memberships__user__username")
    prepopulated_fields = {"slug": ("name",)}
    inlines = (MembershipInline, WorkspaceQuotaInline)


@admin.register(WorkspaceQuota)
class WorkspaceQuotaAdmin(admin.ModelAdmin):
    list_display = ("workspace", "jobs_per_day", "jobs_per_month", "pages_per_day", "updated_at")
    search_fields = ("workspace__name", "workspace__slug")
