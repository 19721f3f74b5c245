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
from jobs.chunked import chunk_plan_for, job_dispatch_chunks
from jobs.faults import fault_before_render
from jobs.heartbeat import Heartbeat
from jobs.liveness import attempt_identity, attempt_is_dead
from jobs.models import DeadLetter, JobStatus, PdfJob
from jobs.progress import ProgressThrottle
from reports.errors import RenderError
from reports.options import parse_options
from reports.rendering import report_layout, report_prepare

logger = logging.getLogger(__name__)
RENDER_TASK = "jobs.render_pdf"


class JobAbandoned(Exception):
    """The job stopped being this attempt's (cancelled or taken over): stop rendering."""


@dataclass(frozen=True)
class Defer:
    """Another attempt may still be alive: look again after `seconds`."""

    seconds: float


@dataclass(frozen=True)
class JobSource:
    engine: str
    html: str
    css: str


def _job_source(job: PdfJob) -> JobSource:
    if job.template_version_id is not None:
        version = job.template_version
        return JobSource(engine=version.engine, html=version.html, css=version.css)
    if job.template_id is not None and job.template is not None:
        return JobSource(engine=job.template.engine, html=job.template.html, css=job.template.css)
    if job.html_template:
        return JobSource(engine=job.engine, html=job.html_template, css="")
    raise RenderError("The template this job used has been deleted.")


def storage_key(job_id: UUID | str) -> str:
    # One key per job: a re-run overwrites instead of leaving a second object behind.
    return f"{job_id}.pdf"


def _dead_letter(job: PdfJob, *, error: str, code: str, permanent: bool, **extra: str) -> None:
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


def job_fail_permanently(
    *, job_id: UUID | str, error: str, code: str, dead_letter: bool = True, **extra: str
) -> PdfJob | None:
    """Fail with no retry; timeouts and poison jobs also go to the dead-letter table."""
    job = transitions.job_fail(job_id=job_id, error=error, code=code)
    if job is not None and dead_letter:
        _dead_letter(job, error=error, code=code, permanent=True, **extra)
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
    throttle = ProgressThrottle()
    with Heartbeat(job_id=job.job_id, worker=worker) as heartbeat:

        def on_stage(stage: str, progress: int) -> None:
            if heartbeat.lost.is_set():
                raise JobAbandoned
            if throttle.due():
                transitions.job_progress(job_id=job.job_id, stage=stage, progress=progress)

        def tick() -> None:
            if heartbeat.lost.is_set():
                raise JobAbandoned

        try:
            fault_before_render(job.data, tick)
            source = _job_source(job)
            options = parse_options(job.options)
            prepared = report_prepare(
                engine=source.engine,
                source=source.html,
                css=source.css,
                data=job.data,
                options=options,
                on_stage=on_stage,
            )
            plan = chunk_plan_for(prepared.document)
            if plan is not None:  # laid out by several workers; the merge completes it
                job_dispatch_chunks(job=job, plan=plan, prepared=prepared)
                return job
            rendered = report_layout(prepared, options=options, on_stage=on_stage)
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
    return done


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
        _dead_letter(
            failed,
            error=message,
            code="retries_exhausted",
            permanent=False,
            traceback=traceback,
            task_id=task_id,
            worker=job.worker,
        )
    return None
