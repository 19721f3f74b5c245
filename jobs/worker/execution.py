"""Running a job on a worker: claim (or take over a dead attempt), render, store, complete,
and decide what each kind of failure means."""

from __future__ import annotations

import logging
import random
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from uuid import UUID

from django.conf import settings
from django.utils import timezone

from core.disclosure import internal_error, public_error
from jobs import dispatch, transitions
from jobs.dead_letters import dead_letter_record
from jobs.error_codes import JobErrorCode
from jobs.log_context import job_log_bind, stage_log_bind
from jobs.metrics import StageTimer
from jobs.models import JobStatus, PdfJob
from jobs.steps import job_steps_apply
from jobs.worker.chunked import chunk_plan_for, job_dispatch_chunks
from jobs.worker.completion import job_result_complete, result_save
from jobs.worker.fairness import job_fairer_choice
from jobs.worker.faults import fault_before_render
from jobs.worker.heartbeat import Heartbeat
from jobs.worker.liveness import attempt_identity, attempt_is_dead
from jobs.worker.outages import outage_countdown, storage_unavailable
from jobs.worker.progress import ProgressThrottle
from rendering.base_style import INLINE_BASE_CSS
from rendering.deadline import Interrupted, interruptible
from rendering.error_codes import ErrorCode
from rendering.errors import RenderError
from rendering.forms import FORM_ENGINE
from rendering.options import parse_options
from rendering.pdf_files import pdf_files_render
from rendering.report import (
    RenderInput,
    TemplateSource,
    file_render,
    report_layout,
    report_prepare,
)
from reports.limits import limits_from_settings
from reports.models import ReportTemplateVersion
from reports.partials import partials_of_job, partials_sources, template_partials_resolve

logger = logging.getLogger(__name__)


class JobAbandoned(Exception):
    """The job stopped being this attempt's (cancelled or taken over): stop rendering."""


@dataclass(frozen=True)
class Defer:
    """Another attempt may still be alive: look again after `seconds`."""

    seconds: float


def _job_source(job: PdfJob) -> TemplateSource:
    """What renders: the pinned version (or an inline template) with the partial versions
    the job recorded, laid out by the job's renderer (the submit's choice, else the
    version's, recorded when it was queued)."""
    source = _job_template(job)
    if job.partial_versions:
        return replace(source, partials=partials_of_job(job.partial_versions))
    # A job queued without a record (before jobs recorded them, or by a path that does not
    # yet) includes the workspace's templates as published now.
    slug = job.template.slug if job.template is not None else ""
    found = template_partials_resolve(
        workspace=job.workspace_id, engine=source.engine, html=source.html, slug=slug
    )
    return replace(source, partials=partials_sources(found)) if found else source


# Template versions this process rendered lately, by id, with their template's creation
# time. A version is never updated (ReportTemplateVersion.save) and cannot be deleted while
# a job points at it (PROTECT), so a copy stays right: a one-page job's read of it (its
# HTML and CSS) is saved. The template's creation time (the job's template is loaded
# already, for the claim's event) tells a reused id apart (SQLite reuses the ids of rows
# deleted or rolled back: tests). Few: a version's HTML may be large.
_VERSIONS_KEPT = 16
_versions: OrderedDict[int, tuple[ReportTemplateVersion, datetime]] = OrderedDict()
_versions_lock = threading.Lock()  # a thread pool's jobs share it


def _job_version(job: PdfJob) -> ReportTemplateVersion | None:
    """The job's pinned version (None for an inline template), from this process's recent
    copies when it has one."""
    pk = job.template_version_id
    if pk is None:
        return None
    template = job.template if job.template_id is not None else None
    if template is None:  # a version without its template: read as it is
        return job.template_version
    with _versions_lock:
        kept = _versions.get(pk)
        if kept is not None:
            _versions.move_to_end(pk)
    if kept is not None and kept[0].template_id == template.pk and kept[1] == template.created_at:
        PdfJob._meta.get_field("template_version").set_cached_value(job, kept[0])
        return kept[0]
    version = job.template_version  # one query
    if version is not None:
        with _versions_lock:
            _versions[pk] = (version, template.created_at)
            if len(_versions) > _VERSIONS_KEPT:
                _versions.popitem(last=False)
    return version


def _job_template(job: PdfJob) -> TemplateSource:
    version = _job_version(job)
    renderer = job.renderer
    made_for = tuple(job.template.renderers) if job.template is not None else ()
    # The version it was queued with, else (queued before versions) the template as it is.
    source = version if version is not None else job.template
    if source is not None:
        return TemplateSource(
            engine=source.engine,
            html=source.html,
            css=source.css,
            renderer=renderer,
            helpers=source.helpers,
            made_for=made_for,
        )
    if job.html_template:
        return TemplateSource(
            engine=job.engine,
            html=job.html_template,
            renderer=renderer,
            helpers=job.helpers,
            base_css=INLINE_BASE_CSS,  # browser-like sizes on every renderer
        )
    raise RenderError("The template this job used has been deleted.")


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
    None: nothing to do (finished, cancelled, unknown). Defer: an attempt may be alive.
    A fairer tenant's job may be claimed instead (jobs.worker.fairness); this one is sent again."""
    # The fairness check and the claim are one statement: the fairer job if there is one,
    # else this one.
    fairer = job_fairer_choice(job_id=job_id)
    job = transitions.job_claim(job_id=job_id, worker=worker, instead=fairer)
    if job is not None:
        if job.job_id != UUID(str(job_id)):  # a fairer tenant's job was claimed instead
            dispatch.job_enqueue(job_id=job_id)  # keeps its place for the next free slot
        return job
    if fairer is not None:
        # The fairer job was claimed by another slot meanwhile (or this one is not queued):
        # this one, as when the check and the claim were two statements.
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
            code=JobErrorCode.WORKER_LOST,
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
    job_log_bind(job)
    stage_log_bind("started")
    stages = StageTimer()
    stages.enter("started")
    with Heartbeat(job_id=job.job_id, worker=worker) as heartbeat:

        def on_stage(stage: str, progress: int) -> None:
            if heartbeat.lost.is_set():
                raise JobAbandoned
            stages.enter(stage)  # timings and logs see every stage; the row is coalesced
            stage_log_bind(stage)
            if throttle.due():
                transitions.job_progress(
                    job_id=job.job_id, stage=stage, progress=progress, like=job
                )

        def tick() -> None:
            if heartbeat.lost.is_set():
                raise JobAbandoned

        try:
            # A cancel seen by the heartbeat stops the render where it is (a layout's next
            # bytecode, the browser's page closed), not after it: the slot frees in seconds.
            with interruptible() as stop:
                heartbeat.on_lost = stop
                tick()
                fault_before_render(job.data, tick)
                source = _job_source(job)
                options = parse_options(job.options)
                limits = limits_from_settings()
                render_input = RenderInput(
                    source=source, data=job.data, options=options, limits=limits, on_stage=on_stage
                )
                if source.engine == FORM_ENGINE and job.template is None and not job.data:
                    # PDFs people already have (Gotenberg's PDF-engine routes): passed on
                    rendered = pdf_files_render(source.html, flatten=options.flatten, limits=limits)
                elif (
                    file_pdf := file_render(render_input)
                ) is not None:  # a file template (office files, a form, a Word document)
                    rendered = file_pdf
                else:
                    prepared = report_prepare(render_input)
                    # Steps run on the whole PDF in this process: such a job is laid out whole.
                    chunks = (
                        None
                        if job.steps
                        else chunk_plan_for(
                            renderer=source.renderer, prepared=prepared, options=options
                        )
                    )
                    if chunks is not None:  # laid out by several workers; the merge completes
                        job_dispatch_chunks(job=job, chunks=chunks, prepared=prepared)
                        return job
                    rendered = report_layout(prepared, render_input)
                rendered = job_steps_apply(
                    job=job, rendered=rendered, document=options.pdf, on_stage=on_stage
                )
            heartbeat.on_lost = None
            on_stage("storing", 90)
        except RenderError as exc:
            return job_fail_permanently(
                job_id=job.job_id,
                error=public_error(exc.message, job_id=job.job_id),
                code=exc.code,
                dead_letter=False,
            )
        except (JobAbandoned, Interrupted):
            logger.info("job %s: stopped rendering, the job is no longer this attempt's", job_id)
            return None
        key = result_save(job_id=job.job_id, rendered=rendered)
        stages.finish()
    return job_result_complete(job_id=job.job_id, key=key, rendered=rendered, like=job)


def job_fail_timeout(*, job_id: UUID | str, limit: str, worker: str = "") -> PdfJob | None:
    """A render ran past a time limit: permanent (the same render would run as long again)."""
    seconds = settings.PDF_HARD_TIME_LIMIT if limit == "hard" else settings.PDF_SOFT_TIME_LIMIT
    return job_fail_permanently(
        job_id=job_id,
        error=(
            f"timeout: the render ran longer than {seconds} s ({limit} time limit). Make the "
            "report smaller or split it; the job was not retried."
        ),
        code=ErrorCode.TIMEOUT,
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
    *,
    job_id: UUID | str,
    error: BaseException,
    traceback: str = "",
    task_id: str = "",
    outage_since: float | None = None,
    outage_retries: int = 0,
) -> float | None:
    """Schedule another attempt (return its countdown) or, with retries or attempts used
    up, fail the job and dead-letter it for re-drive (return None). A storage outage that
    began at `outage_since` retries on its own budget (jobs.worker.outages) first."""
    job = PdfJob.objects.filter(job_id=job_id, status=JobStatus.PROCESSING).first()
    if job is None:
        return None  # no longer processing (cancelled, taken over): nothing to retry
    if outage_since is not None and storage_unavailable(error):
        countdown = outage_countdown(since=outage_since, retries=outage_retries)
        if countdown is not None:
            shown, _ = internal_error(
                error, job_id=job_id, what="The report store is unreachable; the job waits for it"
            )
            rescheduled = transitions.job_reschedule(
                job_id=job_id,
                error=shown,
                code=JobErrorCode.STORAGE_UNAVAILABLE,
                refund_attempt=True,
            )
            return countdown if rescheduled is not None else None
    retries_used = job.attempts - 1
    # Exception text names hosts, paths and internals: the tenant gets a reference to it.
    if retries_used < settings.PDF_MAX_RETRIES and job.attempts < settings.PDF_MAX_ATTEMPTS:
        shown, _ = internal_error(
            error, job_id=job_id, what="An internal error interrupted the render; it is retried"
        )
        if (
            transitions.job_reschedule(job_id=job_id, error=shown, code=JobErrorCode.TRANSIENT)
            is None
        ):
            return None
        return retry_countdown(attempt=job.attempts)
    shown, message = internal_error(
        error,
        job_id=job_id,
        what=f"Gave up after {job.attempts} attempts; the last one met an internal error",
    )
    failed = transitions.job_fail(job_id=job_id, error=shown, code=JobErrorCode.RETRIES_EXHAUSTED)
    if failed is not None:
        dead_letter_record(
            failed,
            error=message,
            code=JobErrorCode.RETRIES_EXHAUSTED,
            permanent=False,
            traceback=traceback,
            task_id=task_id,
            worker=job.worker,
        )
    return None
