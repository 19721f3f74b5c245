"""Dead letters: one row per job that ran out of retries (or was set aside as permanent),
and their re-drive by operators and by beat."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from jobs import services
from jobs.dispatch import RENDER_TASK
from jobs.metrics import JOBS_DEAD_LETTERED
from jobs.models import DeadLetter, JobStatus, PdfJob
from workspaces.audit import AuditAction, audit_record

BATCH = 500


def dead_letter_record(
    job: PdfJob, *, error: str, code: str, permanent: bool, **extra: str
) -> None:
    """One dead letter per job: a job that fails again after a re-drive updates its row, so
    retry_count and the age window span every re-drive instead of restarting."""
    fields = {
        "error": error,
        "error_code": code,
        "permanent": permanent,
        "attempts": job.attempts,
        "task_name": RENDER_TASK,
        **extra,
    }
    if not DeadLetter.objects.filter(job=job).update(**fields):
        DeadLetter.objects.create(job=job, **fields)
    JOBS_DEAD_LETTERED.labels(error_code=code).inc()


def _audit(letter: DeadLetter, by: Any, action: AuditAction) -> None:
    job = letter.job
    if job.workspace_id is not None:
        audit_record(
            workspace=job.workspace_id,
            actor=by,
            action=action,
            target_type="job",
            target_id=str(job.job_id),
            target_repr=f"job {job.job_id} ({letter.error_code or 'failed'})",
        )


def dead_letter_redrive(*, dead_letter: DeadLetter, by: Any = None) -> PdfJob | None:
    """Re-drive the dead letter's job, counting the attempt on the dead letter; `by` is the
    operator (None: beat), named in the audit log."""
    with transaction.atomic():
        job = services.job_redrive(job_id=dead_letter.job.job_id)
        if job is not None:
            DeadLetter.objects.filter(pk=dead_letter.pk).update(
                retry_count=F("retry_count") + 1, last_retry_at=timezone.now()
            )
            _audit(dead_letter, by, AuditAction.DEAD_LETTER_REDRIVEN)
    return job


def dead_letters_discard(*, dead_letters: QuerySet[DeadLetter], by: Any = None) -> int:
    """Drop dead letters an operator has dealt with (their jobs stay as they are)."""
    with transaction.atomic():
        for letter in dead_letters.select_related("job"):
            _audit(letter, by, AuditAction.DEAD_LETTER_DISCARDED)
        count, _ = dead_letters.delete()
    return count


def dead_letters_redrive_due() -> int:
    """Re-drive dead letters younger than DLQ_MAX_AGE with retry_count < DLQ_MAX_RETRIES.
    Permanent failures are never re-driven automatically."""
    young = timezone.now() - timedelta(seconds=settings.DLQ_MAX_AGE_SECONDS)
    due = DeadLetter.objects.filter(
        permanent=False,
        retry_count__lt=settings.DLQ_MAX_RETRIES,
        created_at__gte=young,
        job__status=JobStatus.FAILED,
    ).select_related("job")[:BATCH]
    return sum(1 for letter in due if dead_letter_redrive(dead_letter=letter))
