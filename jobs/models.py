"""PdfJob (one requested report), DeadLetter (a job that ran out of retries) and the rest
of the jobs app's tables."""

from __future__ import annotations

import re
import uuid
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.utils.text import slugify

from core.model_links import kept_link, workspace_link
from rendering.engines import engine_choices
from rendering.engines.docx import DOCX_ENGINE
from rendering.office import OFFICE_ENGINE
from reports.models import Renderer, ReportTemplate, ReportTemplateVersion

if TYPE_CHECKING:
    from accounts.models import ApiKey
    from core.model_links import OptionalLink
    from workspaces.models import Workspace

# The renderer a job shows when LibreOffice makes its PDF (PdfJob.shown_renderer).
LIBREOFFICE = "libreoffice"


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    PROCESSING = "processing", "Processing"
    COMPLETED = "completed", "Completed"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


TERMINAL_STATUSES = frozenset({JobStatus.COMPLETED, JobStatus.FAILED, JobStatus.CANCELLED})

_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
# Template tags in a title ("Invoice {{number}}") are dropped, not guessed at.
_TEMPLATE_TAG = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)


def inline_filename(html: str, job_id: uuid.UUID) -> str:
    """An inline job's download name: its <title> as a slug, else `report-<job id>.pdf` (the
    id's first 8 digits) so that two downloads of one afternoon do not overwrite each other."""
    found = _TITLE.search(html[:20_000])
    name = slugify(_TEMPLATE_TAG.sub(" ", found.group(1)))[:80].strip("-") if found else ""
    return f"{name or f'report-{job_id.hex[:8]}'}.pdf"


class PdfJob(models.Model):
    job_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pdf_jobs"
    )
    # Whose job it is: every member of the workspace sees it, in their role. `owner` is the
    # person who submitted it (or whose key did): their mail, their in-flight quota.
    workspace: OptionalLink[Workspace] = workspace_link("pdf_jobs")
    template: OptionalLink[ReportTemplate] = kept_link(ReportTemplate, "jobs")
    # The exact version rendered, so a retry or re-drive renders what was submitted.
    template_version = models.ForeignKey(
        ReportTemplateVersion,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="jobs",
    )
    # The templates it includes, slug -> ReportTemplateVersion id (reports.partials), fixed
    # at submit: a partial published after the job was queued does not change what renders.
    partial_versions = models.JSONField(default=dict, blank=True)
    html_template = models.TextField(blank=True, help_text="Inline template source.")
    engine = models.CharField(max_length=20, choices=engine_choices)
    # What lays the job out: the submit's choice, else its template version's.
    renderer = models.CharField(max_length=20, choices=Renderer.choices, default=Renderer.XHTML2PDF)
    helpers = models.TextField(blank=True, help_text="Inline template's Handlebars helpers.")
    data = models.JSONField(default=dict, blank=True)
    options = models.JSONField(default=dict, blank=True)
    # Ordered post-render steps (rendering.postprocess.steps), normalised at submit.
    steps = models.JSONField(default=list, blank=True)
    callback_url = models.URLField(max_length=2000, blank=True)
    callback_sent_at = models.DateTimeField(null=True, blank=True)
    callback_attempts = models.PositiveSmallIntegerField(default=0)
    callback_error = models.TextField(blank=True)
    # The key that submitted the job (null from the browser): its secret signs the webhooks.
    api_key: OptionalLink[ApiKey] = kept_link("accounts.ApiKey")
    # Jobs submitted together by one generate-pdf-batch call share this id.
    batch_id = models.UUIDField(null=True, blank=True, db_index=True)
    # Idempotency-Key of the submit, and a digest of the request it came with.
    idempotency_key = models.CharField(max_length=255, blank=True)
    request_digest = models.CharField(max_length=64, blank=True)

    # Written only by jobs.transitions.
    status = models.CharField(
        max_length=20, choices=JobStatus.choices, default=JobStatus.QUEUED, db_index=True
    )
    progress = models.PositiveSmallIntegerField(default=0)
    stage = models.CharField(max_length=40, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    # Attempts of the runs before a retry or re-drive started the count again.
    earlier_attempts = models.PositiveIntegerField(default=0)
    event_seq = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    error_code = models.CharField(max_length=40, blank=True)
    warnings = models.JSONField(default=list, blank=True)
    # What the finished PDF was checked for (options.pdf): {profile, checks, signature}.
    compliance = models.JSONField(default=dict, blank=True)
    worker = models.CharField(max_length=200, blank=True, help_text="host:pid of the attempt.")
    # Written by the running attempt every few seconds; a stale one means a dead attempt.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)

    pdf_file = models.CharField(max_length=500, blank=True, help_text="Key in report storage.")
    page_count = models.PositiveIntegerField(null=True, blank=True)
    size_bytes = models.PositiveBigIntegerField(null=True, blank=True)
    # Set when retention took the PDF away (jobs.retention): no pdf_url, downloads are 410.
    # pdf_file stays, so the object is only deleted once no unexpired job points at it.
    expired_at = models.DateTimeField(null=True, blank=True)
    # What the job renders, as a hash (jobs.result_cache): equal keys make equal PDFs.
    cache_key = models.CharField(max_length=64, blank=True)
    # The job whose stored PDF this one reuses (a cache hit: no render of its own).
    cached_from = models.UUIDField(null=True, blank=True)

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "PDF job"
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["owner", "-created_at"], name="job_owner_created_idx"),
            # Per-tenant counts: the in-flight quota at submit, fair dispatch per message.
            models.Index(fields=["owner", "status"], name="job_owner_status_idx"),
            models.Index(fields=["status", "updated_at"], name="job_status_updated_idx"),
            # A workspace's job list, newest first, and its counts per status.
            models.Index(fields=["workspace", "-created_at"], name="job_workspace_created_idx"),
            models.Index(fields=["workspace", "status"], name="job_workspace_status_idx"),
            # Retention: the completed PDFs still kept, oldest first.
            models.Index(
                fields=["completed_at"],
                name="job_pdf_kept_idx",
                condition=models.Q(expired_at__isnull=True) & ~models.Q(pdf_file=""),
            ),
            # Which jobs still point at a stored object (shared by cache hits).
            models.Index(
                fields=["pdf_file"], name="job_pdf_file_idx", condition=~models.Q(pdf_file="")
            ),
            # A tenant's earlier job with the same content.
            models.Index(
                fields=["owner", "cache_key"],
                name="job_owner_cache_key_idx",
                condition=~models.Q(cache_key=""),
            ),
        ]
        constraints = [
            # An Idempotency-Key is the workspace's (its keys and members share it), so a
            # replay never answers with another workspace's job.
            models.UniqueConstraint(
                fields=["workspace", "idempotency_key"],
                condition=~models.Q(idempotency_key=""),
                name="job_idempotency_key_unique_per_workspace",
            )
        ]

    def __str__(self) -> str:
        return f"{self.job_id} ({self.status})"

    @property
    def shown_renderer(self) -> str:
        """What makes the job's PDF: LibreOffice for a conversion or a Word template, else
        its renderer. (The renderer column keeps its default for those: its choices are
        written out in the migrations, so a new one would take a migration.)"""
        return LIBREOFFICE if self.engine in (OFFICE_ENGINE, DOCX_ENGINE) else self.renderer

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    @property
    def is_expired(self) -> bool:
        return self.expired_at is not None

    @property
    def filename(self) -> str:
        """The download's name (Content-Disposition): the submit's `filename` option, else
        `<template slug>.pdf` as the form promises, else one drawn from the inline HTML."""
        if chosen := self.options.get("filename"):
            return str(chosen)
        template = self.template
        if template is None and self.template_version is not None:
            template = self.template_version.template
        if template is not None:
            return f"{template.slug}.pdf"
        return inline_filename(self.html_template, self.job_id)


class DeadLetter(models.Model):
    """A job that exhausted its retries, kept for inspection and re-drive."""

    job = models.ForeignKey(PdfJob, on_delete=models.CASCADE, related_name="dead_letters")
    error_code = models.CharField(max_length=40, blank=True)
    # Permanent failures (timeouts, poison jobs) are kept for people, never auto re-driven.
    permanent = models.BooleanField(default=False)
    task_id = models.CharField(max_length=255, blank=True)
    task_name = models.CharField(max_length=255, blank=True)
    error = models.TextField()
    traceback = models.TextField(blank=True)
    worker = models.CharField(max_length=200, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    retry_count = models.PositiveIntegerField(default=0)
    last_retry_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["permanent", "retry_count", "created_at"], name="dlq_redrive_idx")
        ]

    def __str__(self) -> str:
        return f"dead letter for {self.job.job_id}"


class AlertRule(models.TextChoices):
    GENERATION_SLOW = "generation_slow", "Average generation time"
    FAILURE_RATE = "failure_rate", "Failure rate"
    QUEUE_AGE = "queue_age", "Oldest queued message"
    DEAD_LETTERS = "dead_letters", "Dead letters growing"
    NO_WORKER = "no_worker", "No worker alive"


class Alert(models.Model):
    """One episode of a rule's condition holding: opened once, resolved when it clears."""

    rule = models.CharField(max_length=30, choices=AlertRule.choices)
    message = models.TextField(help_text="What was seen when the alert opened.")
    value = models.FloatField(help_text="The measured value when it opened.")
    threshold = models.FloatField()
    last_value = models.FloatField(help_text="The value at the latest evaluation.")
    last_checked_at = models.DateTimeField()
    opened_at = models.DateTimeField(db_index=True)
    # When the condition was first seen clear again; the alert resolves once it has stayed
    # clear for ALERT_RESOLVE_AFTER_SECONDS, so a value hovering at the threshold does not
    # open and resolve it every minute.
    cleared_at = models.DateTimeField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_message = models.TextField(blank=True)
    notify_error = models.TextField(blank=True, help_text="Why a notification did not go out.")

    class Meta:
        ordering = ["-opened_at"]
        constraints = [
            # At most one open alert per rule: the guard that keeps it from opening twice.
            models.UniqueConstraint(
                fields=["rule"],
                condition=models.Q(resolved_at__isnull=True),
                name="alert_one_open_per_rule",
            )
        ]

    def __str__(self) -> str:
        state = "resolved" if self.resolved_at else "open"
        return f"{self.get_rule_display()} ({state})"

    @property
    def is_open(self) -> bool:
        return self.resolved_at is None


class WebhookDelivery(models.Model):
    """One event sent to a job's callback URL. Its `webhook_id` and body stay the same
    over every retry (Standard Webhooks: receivers deduplicate on the id)."""

    webhook_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    job = models.ForeignKey(PdfJob, on_delete=models.CASCADE, related_name="deliveries")
    event_type = models.CharField(max_length=40)
    url = models.URLField(max_length=2000)
    payload = models.TextField(help_text="The exact JSON body signed and sent.")
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "webhook deliveries"
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["job", "event_type"], name="one_delivery_per_event")
        ]

    def __str__(self) -> str:
        return f"{self.event_type} of {self.job_id} ({self.message_id})"

    @property
    def message_id(self) -> str:
        """The `webhook-id` header."""
        return f"msg_{self.webhook_id.hex}"


class WebhookAttempt(models.Model):
    """One POST of a delivery and what the receiver answered."""

    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="attempts")
    attempted_at = models.DateTimeField(auto_now_add=True)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)
    duration_ms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["attempted_at"]

    def __str__(self) -> str:
        return f"{self.status_code or self.error[:40]} at {self.attempted_at:%Y-%m-%d %H:%M:%S}"


class ResultWebhook(models.Model):
    """How a job's result is sent when it was asked for the Gotenberg way: the PDF itself
    to the job's callback_url, its failure as JSON to `error_url`, each with its method and
    the caller's extra headers (sealed: they often carry a receiver's credentials)."""

    job = models.OneToOneField(PdfJob, on_delete=models.CASCADE, related_name="result_webhook")
    error_url = models.URLField(max_length=2000)
    method = models.CharField(max_length=8, default="POST")
    error_method = models.CharField(max_length=8, default="POST")
    sealed_headers = models.TextField(blank=True, help_text="Fernet-sealed JSON object.")
    trace = models.CharField(max_length=200, blank=True, help_text="The Gotenberg-Trace sent.")

    def __str__(self) -> str:
        return f"result webhook of {self.job_id}"
