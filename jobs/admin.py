"""The operators' console: inspect jobs and dead letters, re-drive or cancel them."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from jobs import services, transitions
from jobs.models import ApiKey, DeadLetter, PdfJob


@admin.register(PdfJob)
class PdfJobAdmin(admin.ModelAdmin):
    list_display = (
        "job_id",
        "owner",
        "status",
        "progress",
        "attempts",
        "engine",
        "template",
        "page_count",
        "created_at",
        "completed_at",
    )
    list_filter = ("status", "engine", "error_code", "created_at")
    search_fields = ("job_id", "owner__username", "error")
    date_hierarchy = "created_at"
    list_select_related = ("owner", "template")
    readonly_fields = [field.name for field in PdfJob._meta.fields]
    actions = ("redrive_jobs", "cancel_jobs")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Re-drive selected failed jobs")
    def redrive_jobs(self, request: HttpRequest, queryset: QuerySet[PdfJob]) -> None:
        done = sum(1 for job in queryset if services.job_redrive(job_id=job.job_id))
        skipped = queryset.count() - done
        self.message_user(request, f"Re-driven {done} job(s); {skipped} were not failed.")

    @admin.action(description="Cancel selected queued or processing jobs")
    def cancel_jobs(self, request: HttpRequest, queryset: QuerySet[PdfJob]) -> None:
        done = sum(1 for job in queryset if transitions.job_cancel(job_id=job.job_id))
        self.message_user(request, f"Cancelled {done} job(s).")


@admin.register(DeadLetter)
class DeadLetterAdmin(admin.ModelAdmin):
    list_display = ("job", "error", "attempts", "retry_count", "last_retry_at", "created_at")
    list_filter = ("created_at",)
    search_fields = ("job__job_id", "error")
    readonly_fields = [field.name for field in DeadLetter._meta.fields]
    actions = ("redrive", "discard")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Re-drive the jobs of selected dead letters")
    def redrive(self, request: HttpRequest, queryset: QuerySet[DeadLetter]) -> None:
        done = sum(1 for letter in queryset if services.dead_letter_redrive(dead_letter=letter))
        level = messages.SUCCESS if done else messages.WARNING
        self.message_user(request, f"Re-driven {done} job(s).", level=level)

    @admin.action(description="Discard selected dead letters")
    def discard(self, request: HttpRequest, queryset: QuerySet[DeadLetter]) -> None:
        count, _ = queryset.delete()
        self.message_user(request, f"Discarded {count} dead letter(s).")


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ("prefix", "user", "name", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("prefix", "user__username", "name")
    readonly_fields = ("prefix", "digest", "created_at", "last_used_at")
    actions = ("revoke",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # keys are shown once, so they are made by create_api_key

    @admin.action(description="Revoke selected keys")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        from django.utils import timezone

        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(request, f"Revoked {count} key(s).")
