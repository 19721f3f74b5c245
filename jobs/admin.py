"""The operators' console: inspect jobs and dead letters, re-drive or cancel them."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import django_celery_results.admin  # noqa: F401 - registered first, so unregistered below
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.views.decorators.http import require_POST
from django_celery_results.models import GroupResult, TaskResult

from core.admin_records import RecordAdmin
from core.errors import Conflict
from jobs import dead_letters, dispatch, services
from jobs.links import pdf_path
from jobs.models import DeadLetter, JobStatus, PdfJob, WebhookAttempt, WebhookDelivery
from jobs.ops import alert_admin  # noqa: F401 - registers the Alert admin
from workspaces.permissions import Action, can, roles_allowed


# Classes, not style attributes: the Content-Security-Policy allows no inline styles.
class _AdminCss:
    css = {"all": ("css/admin.css",)}


def _status_badge(status: str) -> SafeString:
    known = status if status in JobStatus.values else "unknown"
    return format_html('<b class="job-status job-status-{}">{}</b>', known, status.upper())


def _pretty_json(value: object) -> SafeString:
    return format_html(
        '<pre class="json-pretty">{}</pre>', json.dumps(value, indent=2, ensure_ascii=False)[:20000]
    )


def _allowed(request: HttpRequest, action: Action, rows: Iterable[Any], job: str = "") -> list[Any]:
    """The rows whose workspace lets the admin user do `action` (superusers: all;
    operators re-drive in every workspace), each checked by workspaces.permissions."""
    return [row for row in rows if can(request.user, action, getattr(row, job) if job else row)]


def _refused(
    request: HttpRequest, admin_: admin.ModelAdmin[Any], count: int, action: Action
) -> None:
    if count:
        needed = ", ".join(role.value for role in roles_allowed(action))
        admin_.message_user(
            request,
            f"{count} skipped: {action.value} there needs one of: {needed}.",
            level=messages.WARNING,
        )


def _redrive(request: HttpRequest, admin_: admin.ModelAdmin[Any], jobs: list[PdfJob]) -> None:
    allowed = _allowed(request, Action.JOB_REDRIVE, jobs)
    _refused(request, admin_, len(jobs) - len(allowed), Action.JOB_REDRIVE)
    done = sum(1 for job in allowed if services.job_redrive(job_id=job.job_id))
    skipped = len(allowed) - done
    admin_.message_user(
        request,
        f"Re-driven {done} job(s)." + (f" {skipped} skipped: not failed." if skipped else ""),
        level=messages.SUCCESS if done else messages.WARNING,
    )


def _cancelled(job: PdfJob) -> bool:
    try:
        services.job_cancel(job=job)
    except Conflict:
        return False
    return True


# Celery's result tables serve the chunked renders' chords (CELERY_RESULT_BACKEND); they
# are nothing an operator acts on, so the console does not list them.
for _model in (TaskResult, GroupResult):
    if admin.site.is_registered(_model):
        admin.site.unregister(_model)


class ErrorCodeFilter(admin.SimpleListFilter):
    """The codes failed jobs have, without the blank of the jobs that did not fail."""

    title = "error code"
    parameter_name = "error_code"

    def lookups(
        self, request: HttpRequest, model_admin: admin.ModelAdmin[Any]
    ) -> list[tuple[str, str]]:
        codes = (
            PdfJob.objects.exclude(error_code="")
            .order_by("error_code")
            .values_list("error_code", flat=True)
            .distinct()
        )
        return [(code, code) for code in codes]

    def queryset(self, request: HttpRequest, queryset: QuerySet[PdfJob]) -> QuerySet[PdfJob]:
        return queryset.filter(error_code=self.value()) if self.value() else queryset


@admin.register(PdfJob)
class PdfJobAdmin(RecordAdmin[PdfJob]):  # status belongs to the state machine: use the actions
    Media = _AdminCss
    # Fits 1,280 px: the error is cut short here and whole on the job's page.
    list_display = (
        "short_id",
        "whose",
        "status_badge",
        "template_column",  # the renderer is a filter, not a column: the list fits 1,280 px
        "attempts",
        "error_code",
        "short_error",
        "created_at",
        "duration",
    )
    list_filter = ("status", ErrorCodeFilter, "engine", "renderer", "created_at")
    change_form_template = "admin/jobs/pdfjob/change_form.html"
    search_fields = ("job_id", "owner__username", "error", "idempotency_key")
    date_hierarchy = "created_at"
    list_select_related = ("owner", "workspace", "template")
    actions = ("redrive_jobs", "cancel_jobs")
    fieldsets = (
        (
            "State",
            {
                "fields": (
                    "job_id",
                    "status_badge",
                    "stage",
                    "progress",
                    "attempts",
                    "error_code",
                    "error",
                    "warnings",
                    "worker",
                    "heartbeat_at",
                )
            },
        ),
        (
            "Result",
            {
                "fields": (
                    "download",
                    "page_count",
                    "size_bytes",
                    "expired_at",
                    "cached_from",
                    "compliance",  # never `steps`: an encrypt step holds its passwords
                )
            },
        ),
        (
            "Request",
            {
                "fields": (
                    "owner",
                    "template",
                    "engine",
                    "renderer",
                    "options_json",
                    "data_json",
                    "html_template",
                    "helpers",
                    "callback_url",
                    "idempotency_key",
                    "api_key",
                    "batch_id",
                )
            },
        ),
        ("Callback", {"fields": ("callback_sent_at", "callback_attempts", "callback_error")}),
        (
            "Timing",
            {
                "fields": (
                    "created_at",
                    "enqueued_at",
                    "started_at",
                    "completed_at",
                    "duration",
                    "event_seq",
                )
            },
        ),
    )
    readonly_fields = [f for section in fieldsets for f in section[1]["fields"]]  # type: ignore[misc]

    @admin.display(description="job", ordering="job_id")
    def short_id(self, job: PdfJob) -> SafeString:
        return format_html('<span title="{}">{}…</span>', job.job_id, str(job.job_id)[:8])

    @admin.display(description="status", ordering="status")
    def status_badge(self, job: PdfJob) -> SafeString:
        return _status_badge(job.status)

    @admin.display(description="workspace / by", ordering="workspace__name")
    def whose(self, job: PdfJob) -> str:
        """One column for both, so the list still fits 1,280 px."""
        workspace = job.workspace.name if job.workspace_id and job.workspace else "-"
        return f"{workspace} / {job.owner.get_username() if job.owner_id else '-'}"

    @admin.display(description="template", ordering="template__name")
    def template_column(self, job: PdfJob) -> str:
        return job.template.name if job.template_id and job.template else "inline"

    @admin.display(description="error")
    def short_error(self, job: PdfJob) -> str:
        first = job.error.splitlines()[0] if job.error else ""
        return first if len(first) <= 60 else first[:59] + "…"

    def get_urls(self) -> list[URLPattern]:
        redrive = self.admin_site.admin_view(require_POST(self.redrive_view))
        own = [path("<path:object_id>/redrive/", redrive, name="jobs_pdfjob_redrive")]
        return own + super().get_urls()

    def redrive_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """The failed job's page's button: the same re-drive as the list action."""
        job = get_object_or_404(PdfJob, pk=object_id)
        _redrive(request, self, [job])  # the role check as the list action does it
        return HttpResponseRedirect(reverse("admin:jobs_pdfjob_change", args=[job.pk]))

    @admin.display(description="took")
    def duration(self, job: PdfJob) -> str:
        """The last attempt's own time: since a retry's start, not since the job's creation."""
        if not job.completed_at:
            return "-"
        started = job.started_at or job.created_at
        return f"{(job.completed_at - started).total_seconds():.1f} s"

    @admin.display(description="PDF")
    def download(self, job: PdfJob) -> SafeString | str:
        if job.status != JobStatus.COMPLETED:
            return "-"
        if job.is_expired:
            return "deleted by retention (PDF_RETENTION_DAYS)"
        return format_html('<a href="{}">Download {}</a>', pdf_path(job.job_id), job.filename)

    @admin.display(description="options")
    def options_json(self, job: PdfJob) -> SafeString:
        return _pretty_json(job.options)

    @admin.display(description="data")
    def data_json(self, job: PdfJob) -> SafeString:
        return _pretty_json(job.data)

    @admin.action(description="Re-drive selected failed jobs")
    def redrive_jobs(self, request: HttpRequest, queryset: QuerySet[PdfJob]) -> None:
        _redrive(request, self, list(queryset))

    @admin.action(description="Cancel selected queued or processing jobs")
    def cancel_jobs(self, request: HttpRequest, queryset: QuerySet[PdfJob]) -> None:
        allowed = _allowed(request, Action.JOB_CANCEL, queryset)
        _refused(request, self, len(queryset) - len(allowed), Action.JOB_CANCEL)
        done = sum(1 for job in allowed if _cancelled(job))
        self.message_user(request, f"Cancelled {done} job(s).")


@admin.register(DeadLetter)
class DeadLetterAdmin(RecordAdmin[DeadLetter]):  # re-drive or discard it with the actions
    Media = _AdminCss
    list_display = (
        "job_link",
        "error_code",
        "short_error",
        "permanent",
        "attempts",
        "retry_count",
        "last_retry_at",
        "created_at",
        "job_status",
    )
    list_filter = ("permanent", "error_code", "created_at")
    search_fields = ("job__job_id", "error")
    list_select_related = ("job",)
    readonly_fields = [field.name for field in DeadLetter._meta.fields] + ["job_link"]
    actions = ("redrive", "discard")

    @admin.display(description="job")
    def job_link(self, letter: DeadLetter) -> SafeString:
        url = reverse("admin:jobs_pdfjob_change", args=[letter.job_id])
        job_id = letter.job.job_id
        return format_html('<a href="{}" title="{}">{}…</a>', url, job_id, str(job_id)[:8])

    @admin.display(description="job status")
    def job_status(self, letter: DeadLetter) -> SafeString:
        return _status_badge(letter.job.status)

    @admin.display(description="error")
    def short_error(self, letter: DeadLetter) -> str:
        return letter.error[:120]

    @admin.action(description="Re-drive the jobs of selected dead letters")
    def redrive(self, request: HttpRequest, queryset: QuerySet[DeadLetter]) -> None:
        allowed = _allowed(request, Action.JOB_REDRIVE, queryset, job="job")
        _refused(request, self, len(queryset) - len(allowed), Action.JOB_REDRIVE)
        done = sum(
            1
            for letter in allowed
            if dead_letters.dead_letter_redrive(dead_letter=letter, by=request.user)
        )
        level = messages.SUCCESS if done else messages.WARNING
        self.message_user(request, f"Re-driven {done} job(s).", level=level)

    @admin.action(description="Discard selected dead letters")
    def discard(self, request: HttpRequest, queryset: QuerySet[DeadLetter]) -> None:
        allowed = _allowed(request, Action.JOB_REDRIVE, queryset, job="job")
        _refused(request, self, len(queryset) - len(allowed), Action.JOB_REDRIVE)
        chosen = queryset.filter(pk__in=[letter.pk for letter in allowed])
        count = dead_letters.dead_letters_discard(dead_letters=chosen, by=request.user)
        self.message_user(request, f"Discarded {count} dead letter(s).")


class WebhookAttemptInline(admin.TabularInline[WebhookAttempt, WebhookDelivery]):
    model = WebhookAttempt
    extra = 0
    can_delete = False
    fields = ("attempted_at", "status_code", "error", "duration_ms")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin[WebhookDelivery]):
    """Signed webhooks sent to callback URLs: each with its attempts and answers."""

    list_display = ("message_id", "event_type", "job", "url", "created_at", "delivered_at")
    list_filter = ("event_type", ("delivered_at", admin.EmptyFieldListFilter))
    search_fields = ("job__job_id", "url")
    readonly_fields = ("message_id", "job", "event_type", "url", "payload", "created_at")
    fields = (*readonly_fields, "delivered_at")
    inlines = [WebhookAttemptInline]
    actions = ["resend"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Resend selected deliveries (same webhook-id, new signature)")
    def resend(self, request: HttpRequest, queryset: QuerySet[WebhookDelivery]) -> None:
        # On the callbacks queue, like every webhook: the admin never waits on a receiver.
        sent = [
            delivery.message_id
            for delivery in queryset
            if dispatch.webhook_resend_enqueue(delivery_id=delivery.pk)
        ]
        if sent:
            self.message_user(
                request,
                f"Resending {len(sent)} delivery(ies); each attempt appears on its page.",
            )
        if len(sent) < len(queryset):
            self.message_user(request, "The broker refused some resends.", messages.ERROR)
