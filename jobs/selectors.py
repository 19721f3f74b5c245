"""Reads of jobs (a workspace's own, else NotFound) and of what beat will do with a failed one."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from core.errors import Gone, NotFound
from core.uuids import uuid_or_none
from jobs.error_codes import JobErrorCode
from jobs.models import DeadLetter, JobStatus, PdfJob


def job_list(
    *, workspace: Any, status: str | None = None, batch_id: uuid.UUID | None = None
) -> QuerySet[PdfJob]:
    jobs = PdfJob.objects.filter(workspace=workspace).select_related("template")
    if batch_id:
        jobs = jobs.filter(batch_id=batch_id)
    return jobs.filter(status=status) if status else jobs


def job_get(*, workspace: Any, job_id: str | uuid.UUID) -> PdfJob:
    """The workspace's job; another workspace's is indistinguishable from a missing one."""
    parsed = uuid_or_none(job_id)
    job = job_list(workspace=workspace).filter(job_id=parsed).first() if parsed else None
    if job is None:
        raise NotFound(f"No job {job_id} was found.")
    return job


def job_get_completed(*, job_id: str | uuid.UUID) -> PdfJob:
    """A completed job with a stored PDF, for its signed download link (no owner: the
    link is the credential); Gone (410) once retention deleted the PDF."""
    parsed = uuid_or_none(job_id)
    job = (
        PdfJob.objects.filter(job_id=parsed, status=JobStatus.COMPLETED).first() if parsed else None
    )
    if job is None or not job.pdf_file:
        raise NotFound(f"Job {job_id} has no PDF.")
    if job.expired_at is not None:
        raise Gone(pdf_expired_message(job))
    return job


def pdf_expired_message(job: PdfJob) -> str:
    days = settings.PDF_RETENTION_DAYS
    return (
        f"The PDF of job {job.job_id} was deleted on {job.expired_at:%Y-%m-%d}: PDFs are kept "
        f"{days} days after their job completed (PDF_RETENTION_DAYS). Submit the job again "
        "for a new one."
    )


def dead_letter_redrive_expected(*, job: PdfJob) -> bool:
    """Will beat re-drive this failed job by itself? True for a transient failure
    (`retries_exhausted`, the one kind dead-lettered as not permanent) with re-drives left
    that is still young enough at the next pass of dead_letters_redrive_due. The job's dead
    letter may not be written yet when this is asked (it follows the failure's commit):
    then it is a first failure, with every re-drive left."""
    if job.status != JobStatus.FAILED or job.error_code != JobErrorCode.RETRIES_EXHAUSTED:
        return False
    letter = DeadLetter.objects.filter(job=job).first()
    if letter is None:
        return settings.DLQ_MAX_RETRIES > 0
    if letter.permanent or letter.retry_count >= settings.DLQ_MAX_RETRIES:
        return False
    next_pass = timezone.now() + timedelta(seconds=settings.DLQ_REDRIVE_INTERVAL_SECONDS)
    return letter.created_at >= next_pass - timedelta(seconds=settings.DLQ_MAX_AGE_SECONDS)
