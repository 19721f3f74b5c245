"""Accepting jobs and sending them to the workers: submit (with idempotency), cancel,
re-drive."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.db import IntegrityError, transaction

from accounts.models import ApiKey
from jobs import transitions
from jobs.callbacks import callback_url_check
from jobs.live.events import job_event_payload, job_event_publish
from jobs.models import JobStatus, PdfJob
from jobs.worker import dispatch
from rendering.engines import ENGINE_NAMES, get_engine
from rendering.errors import ApplicationError, Conflict, NotFound
from rendering.options import parse_options
from reports import selectors as template_selectors
from reports.limits import limits_from_settings
from reports.models import ReportTemplate, ReportTemplateVersion
from reports.services import template_current_version
from reports.validation import data_check, data_validate, size_check


def request_digest(payload: dict[str, Any]) -> str:
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _replay(*, owner: Any, idempotency_key: str, digest: str) -> PdfJob | None:
    existing = PdfJob.objects.filter(owner=owner, idempotency_key=idempotency_key).first()
    if existing is None:
        return None
    if existing.request_digest != digest:
        raise Conflict(
            f"Idempotency-Key {idempotency_key!r} was already used with a different request "
            f"(job {existing.job_id}); use a new key for a new request.",
            code="idempotency_key_reused",
            http_status=422,
        )
    return existing


@dataclass(frozen=True)
class _Source:
    template: ReportTemplate | None
    version: ReportTemplateVersion | None
    engine: str
    html: str


def _resolve_source(
    *,
    owner: Any,
    html_template: str | None,
    template_slug: str | None,
    engine: str | None,
    data: dict[str, Any],
    max_template_bytes: int,
) -> _Source:
    """The template text to render: inline, or the current version of a stored template
    (whose JSON Schema the data must satisfy)."""
    if bool(html_template) == bool(template_slug):
        raise ApplicationError(
            "Send exactly one of html_template (inline source) or template (a stored slug).",
            code="template_required",
        )
    if engine is not None and engine not in ENGINE_NAMES:
        raise ApplicationError(
            f"Unknown engine {engine!r}; use one of: {', '.join(ENGINE_NAMES)}.",
            code="unknown_engine",
        )
    if not template_slug:
        source = str(html_template)
        size_check("html_template", source, max_template_bytes)
        return _Source(template=None, version=None, engine=engine or "handlebars", html=source)
    try:
        template = template_selectors.template_get_visible(owner=owner, slug=template_slug)
    except NotFound:
        raise ApplicationError(
            f"No template with slug {template_slug!r} exists.", code="unknown_template"
        ) from None
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
    return _Source(template=template, version=version, engine=version.engine, html=version.html)


def job_create(
    *,
    owner: Any,
    data: Any,
    html_template: str | None = None,
    template_slug: str | None = None,
    engine: str | None = None,
    options: Any = None,
    callback_url: str = "",
    idempotency_key: str = "",
    api_key: ApiKey | None = None,
    batch_id: UUID | None = None,
) -> tuple[PdfJob, bool]:
    """Validate a request and queue it; it is sent to the workers once the row commits.
    Returns (job, created): with a known Idempotency-Key, the earlier job and False.
    `api_key` (the submitting key) signs the job's webhooks and may give a default
    callback URL."""
    if not callback_url and api_key is not None:
        callback_url = api_key.default_callback_url
    digest = request_digest(
        {
            "html_template": html_template,
            "template": template_slug,
            "data": data,
            "engine": engine,
            "options": options,
            "callback_url": callback_url,
        }
    )
    if idempotency_key:
        if len(idempotency_key) > 255:
            raise ApplicationError("Idempotency-Key is longer than 255 characters.")
        replayed = _replay(owner=owner, idempotency_key=idempotency_key, digest=digest)
        if replayed is not None:
            return replayed, False
    limits = limits_from_settings()
    data = data_check({} if data is None else data, limits=limits)
    source = _resolve_source(
        owner=owner,
        html_template=html_template,
        template_slug=template_slug,
        engine=engine,
        data=data,
        max_template_bytes=limits.max_template_bytes,
    )
    if callback_url and (problem := callback_url_check(callback_url)):
        raise ApplicationError(problem, code="invalid_callback_url")
    parsed_options = parse_options(options)
    get_engine(source.engine).check(source.html)  # a syntax error is a 400 now, not later

    try:
        with transaction.atomic():
            job = PdfJob.objects.create(
                owner=owner,
                template=source.template,
                template_version=source.version,
                html_template="" if source.template else source.html,
                engine=source.engine,
                data=data,
                options=parsed_options.as_dict(),
                callback_url=callback_url,
                idempotency_key=idempotency_key,
                request_digest=digest,
                api_key=api_key,
                batch_id=batch_id,
            )
            transaction.on_commit(lambda: dispatch.job_enqueue(job_id=job.job_id))
            # The owner's dashboard shows the new job at once, wherever it was submitted.
            transaction.on_commit(
                lambda: job_event_publish(job_event_payload(job), owner_id=job.owner_id)
            )
    except IntegrityError:
        # The same key raced in from another request: answer with the job that won.
        replayed = _replay(owner=owner, idempotency_key=idempotency_key, digest=digest)
        if replayed is None:
            raise
        return replayed, False
    return job, True


def job_redrive(*, job_id: UUID | str) -> PdfJob | None:
    """failed -> queued and send it to the workers again (operator or dead-letter re-drive)."""
    with transaction.atomic():
        job = transitions.job_redrive(job_id=job_id)
        if job is not None:
            transaction.on_commit(lambda: dispatch.job_enqueue(job_id=job.job_id))
    return job


def job_retry(*, job: PdfJob) -> PdfJob:
    """The caller's own re-drive of a failed job; Conflict (409) for any other status."""
    if job.status == JobStatus.FAILED:
        redriven = job_redrive(job_id=job.job_id)
        if redriven is not None:
            return redriven
        job.refresh_from_db()
    raise Conflict(f"Job {job.job_id} is {job.status}; only a failed job can be retried.")


def job_cancel(*, job: PdfJob) -> PdfJob:
    """Cancel a queued or processing job; Conflict (409) once it has finished."""
    cancelled = transitions.job_cancel(job_id=job.job_id)
    if cancelled is None:
        job.refresh_from_db()
        raise Conflict(f"Job {job.job_id} is already {job.status}; it cannot be cancelled.")
    return cancelled
