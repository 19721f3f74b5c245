"""Running a job on a worker: claim (or take over a dead attempt), render, store, complete,
and decide what each kind of failure means."""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from datetime import timedelta
from uuid import UUID

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.utils import timezone

from jobs import transitions
from jobs.models import JobStatus, PdfJob
from jobs.ops.dead_letters import dead_letter_record
from jobs.worker.faults import fault_before_render
from jobs.worker.heartbeat import Heartbeat
from jobs.worker.liveness import attempt_identity, attempt_is_dead
from rendering.errors import RenderError
from rendering.options import parse_options
from rendering.report import TemplateSource, report_render
from reports.limits import limits_from_settings

logger = logging.getLogger(__name__)


class JobAbandoned(Exception):
    """The job stopped being this attempt's (cancelled or taken over): stop rendering."""


@dataclass(frozen=True)
class Defer:
    """Another attempt may still be alive: look again after `seconds`."""

    seconds: float


def _job_source(job: PdfJob) -> TemplateSource:
    version = job.template_version
    if version is not None:
        return TemplateSource(engine=version.engine, html=version.html, css=version.css)
    if job.template is not None:
        template = job.template
        return TemplateSource(engine=template.engine, html=template.html, css=template.css)
    if job.html_template:
        return TemplateSource(engine=job.engine, html=job.html_template)
    raise RenderError("The template this job used has been deleted.")


def storage_key(job_id: UUID | str) -> str:
    # One key per job: a re-run overwrites instead of leaving a second object behind.
    return f"{job_id}.pdf"


def job_fail_permanently(
    *, job_id: UUID | str, error: str, code: str, dead_letter: bool = True, **extra: str
) -> PdfJob | None:
    """Fail with no retry; timeouts and poison jobs also go to the dead-letter table."""
    job = transitions.job_fail(job_id=job_id, error=error, code=code)
    if job is not None and dead_letter:
        dead_letter_record(job, error=error, code=code, permanent=True, **extra)
    return job


def job_start(*, job_id: UUID | str, worker: str) -> PdfJob | Defer | None:
    """Claim a queued job, or take over a processing one whose attempt is dead.
    None: nothing to do (finished, cancelled, unknown). Defer: an attempt may be alive."""
    job = transitions.job_claim(job_id=job_id, worker=worker)
    if job is not None:
        return job
    current = PdfJob.objects.filter(job_id=job_id).first()
    if current is None or current.status != JobStatus.PROCESSING:
        return None
    stale_before = timezone.now() - timedelta(seconds=settings.PDF_HEARTBEAT_STALE_SECONDS)
    if not attempt_is_dead(
        worker=current.worker, heartbeat_at=current.heartbeat_at, stale_before=stale_before
    ):
        return Defer(seconds=settings.PDF_HEARTBEAT_STALE_SECONDS)
    if current.attempts >= settings.PDF_MAX_ATTEMPTS:
        job_fail_permanently(
            job_id=job_id,
            error=(
                f"The worker rendering this job died {current.attempts} times "
                f"(limit PDF_MAX_ATTEMPTS={settings.PDF_MAX_ATTEMPTS}); the job is set aside "
                "as a poison job. Check its template and data before re-driving it."
            ),
            code="worker_lost",
            worker=current.worker,
        )
        return None
    logger.warning("job %s: attempt on %s is dead; taking over", job_id, current.worker)
    return transitions.job_reclaim(job_id=job_id, worker=worker, dead_worker=current.worker)


def job_execute(*, job_id: UUID | str) -> PdfJob | Defer | None:
    """The worker's body. Permanent errors fail the job here; anything else propagates for
    the task to retry (see job_handle_transient_error)."""
    worker = attempt_identity()
    started = job_start(job_id=job_id, worker=worker)
    if not isinstance(started, PdfJob):
        return started
    job = started
    with Heartbeat(job_id=job.job_id, worker=worker) as heartbeat:

        def on_stage(stage: str, progress: int) -> None:
            if heartbeat.lost.is_set():
                raise JobAbandoned
            transitions.job_progress(job_id=job.job_id, stage=stage, progress=progress)

        def tick() -> None:
            if heartbeat.lost.is_set():
                raise JobAbandoned

        try:
            fault_before_render(job.data, tick)
            rendered = report_render(
                source=_job_source(job),
                data=job.data,
                options=parse_options(job.options),
                limits=limits_from_settings(),
                on_stage=on_stage,
            )
            on_stage("storing", 90)
        except RenderError as exc:
            return job_fail_permanently(
                job_id=job.job_id, error=exc.message, code=exc.code, dead_letter=False
            )
        except JobAbandoned:
            return None
        storage = storages["reports"]
        key = storage.save(storage_key(job.job_id), ContentFile(rendered.content))
    done = transitions.job_complete(
        job_id=job.job_id,
        pdf_file=key,
        page_count=rendered.page_count,
        size_bytes=rendered.size,
        warnings=rendered.warnings,
    )
    if (
        done is None
        and PdfJob.objects.filter(job_id=job.job_id, status=JobStatus.CANCELLED).exists()
    ):
        storage.delete(key)  # cancelled while rendering: the result is discarded
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


def job_fail_timeout(*, job_id: UUID | str, limit: str, worker: str = "") -> PdfJob | None:
    """A render ran past a time limit: permanent (the same render would run as long again)."""
    seconds = settings.PDF_HARD_TIME_LIMIT if limit == "hard" else settings.PDF_SOFT_TIME_LIMIT
    return job_fail_permanently(
        job_id=job_id,
        error=(
            f"timeout: the render ran longer than {seconds} s ({limit} time limit). Make the "
            "report smaller or split it; the job was not retried."
        ),
        code="timeout",
        worker=worker,
    )


def retry_countdown(*, attempt: int) -> float:
    """Exponential backoff with jitter (half to full of the doubled delay), capped."""
    ceiling = min(
        settings.PDF_RETRY_BACKOFF_MAX_SECONDS,
        settings.PDF_RETRY_BACKOFF_SECONDS * 2 ** max(0, attempt - 1),
    )
    return random.uniform(ceiling / 2, ceiling)  # noqa: S311 - jitter, not security


def job_handle_transient_error(
    *, job_id: UUID | str, error: BaseException, traceback: str = "", task_id: str = ""
) -> float | None:
    """Schedule another attempt (return its countdown) or, with retries or attempts used
    up, fail the job and dead-letter it for re-drive (return None)."""
    message = f"{type(error).__name__}: {error}"
    job = PdfJob.objects.filter(job_id=job_id, status=JobStatus.PROCESSING).first()
    if job is None:
        return None  # no longer processing (cancelled, taken over): nothing to retry
    retries_used = job.attempts - 1
    if retries_used < settings.PDF_MAX_RETRIES and job.attempts < settings.PDF_MAX_ATTEMPTS:
        if transitions.job_retry(job_id=job_id, error=message, code="transient") is None:
            return None
        return retry_countdown(attempt=job.attempts)
    failed = transitions.job_fail(
        job_id=job_id,
        error=f"Gave up after {job.attempts} attempts. Last error: {message}",
        code="retries_exhausted",
    )
    if failed is not None:
        dead_letter_record(
            failed,
            error=message,
            code="retries_exhausted",
            permanent=False,
            traceback=traceback,
            task_id=task_id,
            worker=job.worker,
        )
    return None
