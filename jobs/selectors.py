"""Reads of jobs, always scoped to the caller; a missing job raises NotFound."""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.db.models import QuerySet

from jobs.models import JobStatus, PdfJob
from rendering.errors import Gone, NotFound


def _parse_uuid(value: str | uuid.UUID) -> uuid.UUID | None:
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        return None


def job_list(
    *, owner: Any, status: str | None = None, batch_id: uuid.UUID | None = None
) -> QuerySet[PdfJob]:
    jobs = PdfJob.objects.filter(owner=owner).select_related("template")
    if batch_id:
        jobs = jobs.filter(batch_id=batch_id)
    return jobs.filter(status=status) if status else jobs


def job_get(*, owner: Any, job_id: str | uuid.UUID) -> PdfJob:
    """The caller's job; another caller's job is indistinguishable from a missing one."""
    parsed = _parse_uuid(job_id)
    job = job_list(owner=owner).filter(job_id=parsed).first() if parsed else None
    if job is None:
        raise NotFound(f"No job {job_id} was found.")
    return job


def job_get_completed(*, job_id: str | uuid.UUID) -> PdfJob:
    """A completed job with a stored PDF, for its signed download link (no owner: the
    link is the credential); Gone (410) once retention deleted the PDF."""
    parsed = _parse_uuid(job_id)
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
