"""The end of every render, whole or merged from chunks: the PDF stored under the job's one
key, the job completed, the PDF discarded if the job was cancelled meanwhile, a slow job
logged."""

from __future__ import annotations

import logging
from uuid import UUID

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import storages

from core.disclosure import public_text
from jobs import transitions
from jobs.models import JobStatus, PdfJob
from rendering.renderers.base import RenderedPdf

logger = logging.getLogger(__name__)


def storage_key(job_id: UUID | str) -> str:
    # One key per job: a re-run overwrites instead of leaving a second object behind.
    return f"{job_id}.pdf"


def result_save(*, job_id: UUID | str, rendered: RenderedPdf) -> str:
    """Store the PDF; the key it was stored under. Apart from job_result_complete so the
    whole render saves while its heartbeat still beats and its last stage is still timed."""
    return storages["reports"].save(storage_key(job_id), ContentFile(rendered.content))


def job_result_complete(
    *, job_id: UUID | str, key: str, rendered: RenderedPdf, like: PdfJob | None = None
) -> PdfJob | None:
    """Complete the job with the stored PDF; None (and the PDF deleted, if the job was
    cancelled) when the job is no longer processing."""
    # The submit's own warnings (job_create's `warnings`) stay first; a render adds its own.
    # `like` (the claimed row) has them already; the chunked merge reads them.
    noted = (
        like.warnings
        if like is not None
        else PdfJob.objects.filter(job_id=job_id).values_list("warnings", flat=True).first()
    )
    warnings = [*(noted or []), *(public_text(warning) for warning in rendered.warnings)]
    done = transitions.job_complete(
        job_id=job_id,
        pdf_file=key,
        page_count=rendered.page_count,
        size_bytes=rendered.size,
        warnings=list(dict.fromkeys(warnings)),
        like=like,
        compliance=rendered.compliance,
    )
    # Cancelled meanwhile: the result is discarded, and the worker has let go of the job
    # (it stops counting as busy: jobs.quotas).
    if done is None and PdfJob.objects.filter(job_id=job_id, status=JobStatus.CANCELLED).update(
        heartbeat_at=None
    ):
        storages["reports"].delete(key)
    if done is not None:
        log_if_slow(done)
    return done


def log_if_slow(job: PdfJob) -> None:
    """Warn about a completed job that took longer than PDF_SLOW_JOB_SECONDS from submit to
    completion, with where the time went (waiting for a worker vs rendering)."""
    if job.completed_at is None:
        return
    total = (job.completed_at - job.created_at).total_seconds()
    if total <= settings.PDF_SLOW_JOB_SECONDS:
        return
    started = job.started_at or job.created_at
    logger.warning(
        "slow job %s: %.1f s from submit to completion (limit PDF_SLOW_JOB_SECONDS=%s): "
        "%.1f s queued, %.1f s rendering, %s attempt(s), %s page(s), %s bytes",
        job.job_id,
        total,
        settings.PDF_SLOW_JOB_SECONDS,
        (started - job.created_at).total_seconds(),
        (job.completed_at - started).total_seconds(),
        job.attempts,
        job.page_count,
        job.size_bytes,
        extra={
            "job_id": str(job.job_id),
            "total_seconds": total,
            "queued_seconds": (started - job.created_at).total_seconds(),
            "render_seconds": (job.completed_at - started).total_seconds(),
        },
    )
