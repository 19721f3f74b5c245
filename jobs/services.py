"""Getting a report made: accept a job, run it on a worker, and decide what a failure means."""

from __future__ import annotations

import json
import logging
import random
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.db import transaction

from jobs import transitions
from jobs.exceptions import ApplicationError
from jobs.models import DeadLetter, PdfJob
from jobs.selectors import template_get_visible
from reports.engines import ENGINE_NAMES, get_engine
from reports.errors import RenderError
from reports.options import parse_options
from reports.rendering import report_render
from reports.schemas import data_depth, data_validate
from reports.services import template_current_version

logger = logging.getLogger(__name__)
RENDER_TASK = "jobs.render_pdf"


@dataclass(frozen=True)
class JobSource:
    engine: str
    html: str
    css: str


def _check_size(name: str, text: str, limit: int) -> None:
    size = len(text.encode("utf-8"))
    if size > limit:
        raise ApplicationError(
            f"{name} is {size} bytes; the limit is {limit} bytes.", code="too_large", status=413
        )


def job_enqueue(*, job_id: UUID | str) -> None:
    """Send the render message. A broker failure is logged, not raised: the row is queued."""
    from config.celery_app import app

    try:
        app.send_task(RENDER_TASK, args=[str(job_id)])
    except Exception:
        logger.exception("could not enqueue job %s; it stays queued for the reconciler", job_id)


def job_create(
    *,
    owner: Any,
    data: Any,
    html_template: str | None = None,
    template_slug: str | None = None,
    engine: str | None = None,
    options: Any = None,
    callback_url: str = "",
) -> PdfJob:
    """Validate a request and queue it; it is sent to the workers once the row commits."""
    if bool(html_template) == bool(template_slug):
        raise ApplicationError(
            "Send exactly one of html_template (inline source) or template (a stored slug).",
            code="template_required",
        )
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ApplicationError("data must be a JSON object.", code="invalid_data")
    _check_size("data", json.dumps(data), settings.PDF_MAX_DATA_BYTES)
    if data_depth(data, limit=settings.PDF_MAX_NESTING_DEPTH) > settings.PDF_MAX_NESTING_DEPTH:
        raise ApplicationError(
            f"data nests deeper than {settings.PDF_MAX_NESTING_DEPTH} levels.", code="too_deep"
        )
    if engine is not None and engine not in ENGINE_NAMES:
        raise ApplicationError(
            f"Unknown engine {engine!r}; use one of: {', '.join(ENGINE_NAMES)}.",
            code="unknown_engine",
        )
    template = version = None
    if template_slug:
        template = template_get_visible(owner=owner, slug=template_slug)
        if template is None:
            raise ApplicationError(
                f"No template with slug {template_slug!r} exists.", code="unknown_template"
            )
        if engine is not None and engine != template.engine:
            raise ApplicationError(
                f"Template {template_slug!r} uses the {template.engine} engine, not {engine}.",
                code="engine_mismatch",
            )
        if template.is_archived:
            raise ApplicationError(
                f"Template {template_slug!r} is archived; restore it to use it.",
                code="template_archived",
            )
        version = template_current_version(template=template)
        data_validate(schema=version.schema, data=data)  # 400 naming the path, nothing queued
        engine, source = version.engine, version.html
    else:
        engine, source = engine or "handlebars", str(html_template)
        _check_size("html_template", source, settings.PDF_MAX_TEMPLATE_BYTES)
    parsed_options = parse_options(options)
    get_engine(engine).check(source)  # a syntax error is a 400 now, not a failed job later

    with transaction.atomic():
        job = PdfJob.objects.create(
            owner=owner,
            template=template,
            template_version=version,
            html_template="" if template else source,
            engine=engine,
            data=data,
            options=parsed_options.as_dict(),
            callback_url=callback_url,
        )
        transaction.on_commit(lambda: job_enqueue(job_id=job.job_id))
    return job


def _job_source(job: PdfJob) -> JobSource:
    if job.template_version_id is not None:
        version = job.template_version
        return JobSource(engine=version.engine, html=version.html, css=version.css)
    if job.template_id is not None and job.template is not None:
        return JobSource(engine=job.template.engine, html=job.template.html, css=job.template.css)
    if job.html_template:
        return JobSource(engine=job.engine, html=job.html_template, css="")
    raise RenderError("The template this job used has been deleted.")


def _storage_key(job: PdfJob) -> str:
    # One key per job: a re-run overwrites instead of leaving a second object behind.
    return f"{job.job_id}.pdf"


def job_run(*, job_id: UUID | str, worker: str = "") -> PdfJob | None:
    """Claim, render, store and complete a job. Permanent errors fail the job here;
    anything else propagates so the task can retry it."""
    job = transitions.job_claim(job_id=job_id, worker=worker)
    if job is None:
        return None  # not queued: another delivery has it, or it was cancelled

    def on_stage(stage: str, progress: int) -> None:
        transitions.job_progress(job_id=job_id, stage=stage, progress=progress)

    try:
        source = _job_source(job)
        rendered = report_render(
            engine=source.engine,
            source=source.html,
            css=source.css,
            data=job.data,
            options=parse_options(job.options),
            on_stage=on_stage,
        )
    except RenderError as exc:
        return transitions.job_fail(job_id=job_id, error=exc.message, code=exc.code)

    on_stage("storing", 90)
    storage = storages["reports"]
    key = storage.save(_storage_key(job), ContentFile(rendered.content))
    done = transitions.job_complete(
        job_id=job_id,
        pdf_file=key,
        page_count=rendered.page_count,
        size_bytes=rendered.size,
        warnings=rendered.warnings,
    )
    if done is None:
        # Cancelled while rendering: the result is discarded, not left orphaned.
        storage.delete(key)
    return done


def retry_countdown(*, retries: int) -> float:
    """Exponential backoff with full jitter, capped."""
    ceiling = min(
        settings.PDF_RETRY_BACKOFF_MAX_SECONDS, settings.PDF_RETRY_BACKOFF_SECONDS * 2**retries
    )
    return random.uniform(ceiling / 2, ceiling)  # noqa: S311 - jitter, not security


def job_handle_transient_error(
    *,
    job_id: UUID | str,
    error: BaseException,
    retries: int,
    traceback: str = "",
    task_id: str = "",
    worker: str = "",
) -> float | None:
    """Schedule a retry (return its countdown) or, with retries used up, fail the job and
    dead-letter it (return None)."""
    message = f"{type(error).__name__}: {error}"
    if retries < settings.PDF_MAX_RETRIES:
        if transitions.job_retry(job_id=job_id, error=message, code="transient") is None:
            return None  # no longer processing (cancelled): nothing to retry
        return retry_countdown(retries=retries)
    job = transitions.job_fail(
        job_id=job_id,
        error=f"Gave up after {retries + 1} attempts. Last error: {message}",
        code="retries_exhausted",
    )
    if job is not None:
        DeadLetter.objects.create(
            job=job,
            task_id=task_id,
            task_name=RENDER_TASK,
            error=message,
            traceback=traceback,
            worker=worker,
            attempts=job.attempts,
        )
    return None


def job_redrive(*, job_id: UUID | str) -> PdfJob | None:
    """failed -> queued and send it to the workers again (operator or dead-letter re-drive)."""
    with transaction.atomic():
        job = transitions.job_redrive(job_id=job_id)
        if job is not None:
            transaction.on_commit(lambda: job_enqueue(job_id=job.job_id))
    return job


def dead_letter_redrive(*, dead_letter: DeadLetter) -> PdfJob | None:
    """Re-drive the dead letter's job, counting the attempt on the dead letter."""
    from django.db.models import F
    from django.utils import timezone

    with transaction.atomic():
        job = job_redrive(job_id=dead_letter.job.job_id)
        if job is not None:
            DeadLetter.objects.filter(pk=dead_letter.pk).update(
                retry_count=F("retry_count") + 1, last_retry_at=timezone.now()
            )
    return job
