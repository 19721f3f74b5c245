"""Alerts in the admin: a read-only history of what was opened, when and why."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from core.admin_records import RecordAdmin
from jobs.models import Alert


class AlertStateFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(
        self, request: HttpRequest, model_admin: admin.ModelAdmin[Any]
    ) -> list[tuple[str, str]]:
        return [("open", "Open"), ("resolved", "Resolved")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "open":
            return queryset.filter(resolved_at__isnull=True)
        if self.value() == "resolved":
            return queryset.filter(resolved_at__isnull=False)
        return queryset


@admin.register(Alert)
class AlertAdmin(RecordAdmin[Alert]):  # alerts are opened by the rules, not by hand
    list_display = ("rule", "is_open", "opened_at", "resolved_at", "value", "threshold", "message")
    list_filter = (AlertStateFilter, "rule")
    date_hierarchy = "opened_at"
    readonly_fields = [field.name for field in Alert._meta.fields]

    @admin.display(boolean=True, description="open")
    def is_open(self, alert: Alert) -> bool:
        return alert.is_open
