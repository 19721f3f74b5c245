"""Runs in the admin (autodiscovered): find a run by id, template or workspace, see its
counts and its records; read-only, as runs change only through their jobs."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from core.admin_records import RecordAdmin
from runs.models import Run, RunRecord


class RunRecordInline(admin.TabularInline[RunRecord, Run]):
    model = RunRecord
    extra = 0
    can_delete = False
    fields = ("index", "job", "error")
    readonly_fields = fields
    ordering = ("index",)
    max_num = 0

    def get_queryset(self, request: HttpRequest) -> Any:
        # The first records only: a 5,000-record run's page stays small.
        return super().get_queryset(request).select_related("job")


@admin.register(Run)
class RunAdmin(RecordAdmin[Run]):  # started through the API or the runs page, with their checks
    list_display = (
        "run_id",
        "workspace",
        "template",
        "output",
        "status",
        "counts",
        "created_at",
        "finished_at",
    )
    list_filter = ("status", "output")
    search_fields = ("run_id", "template__slug", "template__name", "workspace__name")
    list_select_related = ("workspace", "template")
    date_hierarchy = "created_at"
    readonly_fields = (
        "run_id",
        "workspace",
        "owner",
        "template",
        "output",
        "filename_pattern",
        "status",
        "total",
        "completed",
        "failed",
        "created_at",
        "finished_at",
        "page",
    )
    fields = readonly_fields
    inlines = (RunRecordInline,)

    @admin.display(description="rendered / failed / total")
    def counts(self, run: Run) -> str:
        return f"{run.completed} / {run.failed} / {run.total}"

    @admin.display(description="page")
    def page(self, run: Run) -> str:
        url = reverse("run-page", kwargs={"run_id": run.run_id})
        return format_html('<a href="{}">{}</a>', url, url)
