"""Schedule (a template rendered on a cron expression, then delivered) and ScheduleRun
(one of its runs and what came of it)."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models

from core.model_links import kept_link

if TYPE_CHECKING:
    from accounts.models import ApiKey
    from core.model_links import OptionalLink
    from jobs.models import PdfJob


class Schedule(models.Model):
    schedule_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    workspace = models.ForeignKey(
        "workspaces.Workspace", on_delete=models.CASCADE, related_name="schedules"
    )
    template = models.ForeignKey(
        "reports.ReportTemplate", on_delete=models.CASCADE, related_name="schedules"
    )
    name = models.CharField(max_length=200, blank=True)
    # The data every run renders with, unless data_url is set: then fetched at run time.
    data = models.JSONField(default=dict, blank=True)
    data_url = models.URLField(max_length=2000, blank=True)
    cron = models.CharField(max_length=100, help_text="Five fields: minute hour dom month dow.")
    timezone = models.CharField(max_length=64, default="UTC")
    # [{type: email, to: [...]}, {type: webhook, url}, {type: s3, bucket, prefix}]
    deliveries = models.JSONField(default=list, blank=True)
    paused = models.BooleanField(default=False)
    # Why the service paused it (its creator lost access); empty when a person paused it.
    paused_reason = models.CharField(max_length=200, blank=True)
    # The next tick, in UTC. The due task moves it with a compare-and-set, so each tick
    # runs once however many beats or workers look at it.
    next_run_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="schedules"
    )
    # The key that created it (null from the browser): its secret signs the webhooks.
    api_key: OptionalLink[ApiKey] = kept_link("accounts.ApiKey")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "jobs_schedule"  # made when schedules lived in jobs; the move kept the table
        ordering = ["-created_at"]
        indexes = [
            models.Index(
                fields=["next_run_at"],
                name="schedule_due_idx",
                condition=models.Q(paused=False),
            ),
            models.Index(fields=["workspace", "-created_at"], name="schedule_workspace_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.name or self.template_id} ({self.cron} {self.timezone})"


class RunOutcome(models.TextChoices):
    STARTING = "starting", "Starting"  # claimed; data not fetched, job not submitted yet
    RENDERING = "rendering", "Rendering"  # its job is queued or processing
    DELIVERING = "delivering", "Delivering"  # the job completed; deliveries under way
    DELIVERED = "delivered", "Delivered"
    DELIVERY_FAILED = "delivery_failed", "Delivery failed"
    FAILED = "failed", "Failed"  # no PDF: the data fetch, the submit or the job failed


FINISHED_OUTCOMES = frozenset({RunOutcome.DELIVERED, RunOutcome.DELIVERY_FAILED, RunOutcome.FAILED})


class RunTrigger(models.TextChoices):
    TICK = "tick", "Cron tick"
    MANUAL = "manual", "Run now"


class ScheduleRun(models.Model):
    run_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    schedule = models.ForeignKey(Schedule, on_delete=models.CASCADE, related_name="runs")
    job: OptionalLink[PdfJob] = kept_link("jobs.PdfJob")
    trigger = models.CharField(max_length=10, choices=RunTrigger.choices)
    # The tick this run is for (a run-now: the moment it was asked for).
    scheduled_for = models.DateTimeField()
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(
        max_length=20, choices=RunOutcome.choices, default=RunOutcome.STARTING, db_index=True
    )
    error = models.TextField(blank=True)
    # One entry per delivery of the schedule: {type, target, status: sent|failed, error}.
    delivery_results = models.JSONField(default=list, blank=True)
    delivery_attempts = models.PositiveSmallIntegerField(default=0)
    # Recipients its mail deliveries were sent to (taken from the workspace's daily mail
    # limit before sending) and when the last was: SCHEDULE_MAILS_PER_DAY counts these.
    mail_recipients = models.PositiveIntegerField(default=0)
    # When a worker took the run's deliveries (compare-and-set under the row lock); the
    # sending happens after that transaction, so this, not the lock, keeps a second worker
    # from sending the same deliveries at once.
    delivery_claimed_at = models.DateTimeField(null=True, blank=True)
    mailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "jobs_schedulerun"
        ordering = ["-started_at"]
        indexes = [
            models.Index(fields=["schedule", "-started_at"], name="schedule_run_idx"),
            models.Index(fields=["mailed_at"], name="schedule_run_mailed_idx"),
        ]

    def __str__(self) -> str:
        return f"run {self.run_id} of {self.schedule_id} ({self.outcome})"
