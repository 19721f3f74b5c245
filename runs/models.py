"""Run (a template rendered once per record, each record an ordinary job) and RunRecord."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models

from core.model_links import kept_link

if TYPE_CHECKING:
    from core.model_links import OptionalLink
    from reports.models import ReportTemplate


class RunOutput(models.TextChoices):
    ZIP = "zip", "One ZIP of the PDFs"
    COMBINED = "combined", "One combined PDF"
    SEPARATE = "separate", "Separate PDFs"


class RunStatus(models.TextChoices):
    RUNNING = "running", "Running"
    COMPLETED = "completed", "Completed"  # every valid record rendered
    PARTIAL = "partial", "Completed with failures"  # some rendered, some failed
    FAILED = "failed", "Failed"  # none rendered


class Run(models.Model):
    """A template rendered once per record, each record an ordinary job (PdfJob.batch_id
    is the run's id). The counters are recounted from the jobs when one of them finishes
    (runs.progress), so they never drift from the jobs' own status."""

    run_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    workspace = models.ForeignKey(
        "workspaces.Workspace", on_delete=models.CASCADE, related_name="runs"
    )
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # Null for a generate-pdf-batch submit, whose items may each name their own template.
    template: OptionalLink[ReportTemplate] = kept_link("reports.ReportTemplate", "runs")
    output = models.CharField(max_length=10, choices=RunOutput.choices, default=RunOutput.ZIP)
    filename_pattern = models.CharField(max_length=300, blank=True)
    status = models.CharField(
        max_length=10, choices=RunStatus.choices, default=RunStatus.RUNNING, db_index=True
    )
    total = models.PositiveIntegerField(default=0, help_text="Records sent, valid or not.")
    completed = models.PositiveIntegerField(default=0)
    # Records whose job failed or was cancelled, and records refused at submit.
    failed = models.PositiveIntegerField(default=0)
    # The combined PDF once built (key in report storage), reused by later downloads.
    combined_file = models.CharField(max_length=500, blank=True)
    # Its build on a worker: when it was claimed (one build at a time: compare-and-set on
    # this field) and how many of the run's PDFs it has merged so far.
    combined_started_at = models.DateTimeField(null=True, blank=True)
    combined_done = models.PositiveIntegerField(default=0)
    event_seq = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "jobs_run"  # made when runs lived in jobs; the move kept the table
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["workspace", "-created_at"], name="run_workspace_idx")]

    def __str__(self) -> str:
        return f"run {self.run_id} ({self.status}, {self.completed}/{self.total})"

    @property
    def is_finished(self) -> bool:
        return self.status != RunStatus.RUNNING

    @property
    def progress(self) -> int:
        """Percent of the records finished (rendered or failed)."""
        return 100 if not self.total else (self.completed + self.failed) * 100 // self.total


class RunRecord(models.Model):
    """One record of a run: its data, and its job, or why it was refused (then no job)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="records")
    index = models.PositiveIntegerField(help_text="Position in the request, from 0.")
    data = models.JSONField(default=dict, blank=True)
    job = models.OneToOneField(
        "jobs.PdfJob", on_delete=models.SET_NULL, null=True, blank=True, related_name="run_record"
    )
    error = models.TextField(blank=True, help_text="Why the record was refused at submit.")

    class Meta:
        db_table = "jobs_runrecord"
        ordering = ["index"]
        constraints = [
            models.UniqueConstraint(fields=["run", "index"], name="run_record_index_unique")
        ]

    def __str__(self) -> str:
        return f"record {self.index} of {self.run.run_id}"
