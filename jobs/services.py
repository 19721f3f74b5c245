"""Accepting jobs and sending them to the workers: submit (with idempotency), cancel,
re-drive."""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import ApiKey
from accounts.sealing import steps_seal, steps_unseal
from core.errors import Conflict, NotFound
from jobs import dispatch, transitions
from jobs.callbacks import callback_url_check
from jobs.error_codes import JobErrorCode
from jobs.inserts import job_insert
from jobs.log_context import job_log_bind
from jobs.metrics import JOBS_CACHED, JOBS_SUBMITTED, job_renderer
from jobs.models import JobStatus, PdfJob
from jobs.quotas import callback_slot_reserve, job_slot_reserve, workspace_quota_reserve
from jobs.result_cache import cached_job_fields, result_cache_key, result_cache_source
from jobs.retry_rule import failure_advice, job_retry_helps
from jobs.steps import steps_submit_check, submitted_steps_allow
from rendering.engines import ENGINE_NAMES, JOB_ONLY_ENGINES, get_engine, helpers_check
from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError
from rendering.limits import Limits
from rendering.office import OFFICE_ENGINE, office_document_check
from rendering.options import parse_options
from rendering.postprocess.submit import document_submit_check
from rendering.renderers import DEFAULT_RENDERER, get_renderer
from reports import selectors as template_selectors
from reports.error_codes import TemplateErrorCode
from reports.limits import limits_from_settings
from reports.models import ReportTemplate, ReportTemplateVersion
from reports.partials import partials_recorded, template_partials_resolve
from reports.services import template_current_version
from reports.template_cache import template_latest_version_cached
from reports.validation import data_check_sized, data_validate, size_check
from workspaces.models import Workspace
from workspaces.services import workspace_personal

logger = logging.getLogger(__name__)


def request_digest(payload: dict[str, Any]) -> str:
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _replay(*, workspace: Any, idempotency_key: str, digest: str) -> PdfJob | None:
    existing = PdfJob.objects.filter(workspace=workspace, idempotency_key=idempotency_key).first()
    if existing is None:
        return None
    if existing.request_digest != digest:
        raise Conflict(
            f"Idempotency-Key {idempotency_key!r} was already used with a different request "
            f"(job {existing.job_id}); use a new key for a new request.",
            code=JobErrorCode.IDEMPOTENCY_KEY_REUSED,
            http_status=422,
        )
    return existing


@dataclass(frozen=True)
class Source:
    template: ReportTemplate | None
    version: ReportTemplateVersion | None
    engine: str
    html: str
    # The templates it includes, slug -> the published version (reports.partials).
    partials: dict[str, ReportTemplateVersion]


def _resolve_source(
    *,
    workspace: Any,
    html_template: str | None,
    template_slug: str | None,
    engine: str | None,
    data: dict[str, Any],
    data_bytes: int,
    limits: Limits,
) -> Source:
    """The template text to render: inline, or the current version of a stored template
    (whose JSON Schema the data must satisfy), and the workspace's templates it includes."""
    if bool(html_template) == bool(template_slug):
        raise ApplicationError(
            "Send exactly one of html_template (inline source) or template (a stored slug).",
            code=ErrorCode.INVALID_DATA,
        )
    if engine is not None and engine not in (*ENGINE_NAMES, *JOB_ONLY_ENGINES):
        raise ApplicationError(
            f"Unknown engine {engine!r}; use one of: {', '.join(ENGINE_NAMES)}.",
            code=ErrorCode.INVALID_DATA,
        )
    if not template_slug:
        source = str(html_template)
        engine = engine or "handlebars"
        # A conversion's source carries its files (base64): bounded by their own limit.
        office = engine == OFFICE_ENGINE
        limit = (
            limits.max_office_bytes * 4 // 3 + 64 * 1024 if office else limits.max_template_bytes
        )
        size_check("html_template", source, limit)
        partials = template_partials_resolve(workspace=workspace, engine=engine, html=source)
        return Source(template=None, version=None, engine=engine, html=source, partials=partials)
    template, version = stored_source(
        workspace=workspace, template_slug=template_slug, engine=engine
    )
    # 400 naming the path, nothing queued
    data_validate(schema=version.schema, data=data, limits=limits, data_bytes=data_bytes)
    partials = template_partials_resolve(
        workspace=workspace, engine=version.engine, html=version.html, slug=template.slug
    )
    return Source(
        template=template,
        version=version,
        engine=version.engine,
        html=version.html,
        partials=partials,
    )


def stored_source(
    *, workspace: Any, template_slug: str, engine: str | None = None
) -> tuple[ReportTemplate, ReportTemplateVersion]:
    """The current version of a stored template the workspace may use (a 400 naming why
    not); the data is checked against its schema by the caller (one submit, or each record
    of a run)."""
    latest = template_latest_version_cached(workspace=workspace, slug=template_slug)
    try:
        template = (
            latest.template
            if latest is not None
            else template_selectors.template_get_visible(workspace=workspace, slug=template_slug)
        )
    except NotFound:
        raise ApplicationError(
            f"No template with slug {template_slug!r} exists.",
            code=TemplateErrorCode.UNKNOWN_TEMPLATE,
        ) from None
    if engine is not None and engine != template.engine:
        raise ApplicationError(
            f"Template {template_slug!r} uses the {template.engine} engine, not {engine}.",
            code=ErrorCode.INVALID_DATA,
        )
    if template.is_archived:
        raise ApplicationError(
            f"Template {template_slug!r} is archived; restore it to use it.",
            code=TemplateErrorCode.TEMPLATE_ARCHIVED,
        )
    return template, latest or template_current_version(template=template)


def _with_warnings(fields: dict[str, Any], warnings: list[str] | None) -> dict[str, Any]:
    """`fields` whose warnings start with the submit's own (the worker keeps them first)."""
    if not warnings:
        return fields
    return {**fields, "warnings": list(dict.fromkeys([*warnings, *fields.get("warnings", [])]))}


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
    renderer: str | None = None,
    helpers: str = "",
    api_key: ApiKey | None = None,
    batch_id: UUID | None = None,
    cache: bool | None = None,
    steps: Any = None,
    workspace: Workspace | None = None,
    warnings: list[str] | None = None,
) -> tuple[PdfJob, bool]:
    """Validate a request and queue it; it is sent to the workers once the row commits.
    Returns (job, created): with a known Idempotency-Key, the earlier job and False.
    `renderer` overrides the template version's; `helpers` go with an inline template.
    `api_key` (the submitting key) signs the job's webhooks and may give a default
    callback URL. `cache` (default: the template's cache_results) completes the job at
    once from an identical earlier one of the tenant (jobs.result_cache). The job belongs
    to `workspace` (by default the owner's own) and uses its templates. `warnings` are the
    submit's own (a drop-in that changed the renderer): the job's warnings start with them."""
    if workspace is None:
        workspace = workspace_personal(user=owner)
    if not callback_url and api_key is not None:
        callback_url = api_key.default_callback_url
    request = {
        "html_template": html_template,
        "template": template_slug,
        "data": data,
        "engine": engine,
        "options": options,
        "callback_url": callback_url,
    }
    # Only when sent, so the digests of keys stored before these fields existed still match.
    sent = (("renderer", renderer), ("helpers", helpers), ("cache", cache), ("steps", steps))
    request |= {k: v for k, v in sent if v is not None and v != ""}
    digest = request_digest(request)
    if idempotency_key:
        if len(idempotency_key) > 255:
            raise ApplicationError("Idempotency-Key is longer than 255 characters.")
        replayed = _replay(workspace=workspace, idempotency_key=idempotency_key, digest=digest)
        if replayed is not None:
            return replayed, False
    limits = limits_from_settings()
    data, data_bytes = data_check_sized({} if data is None else data, limits=limits)
    source = _resolve_source(
        workspace=workspace,
        html_template=html_template,
        template_slug=template_slug,
        engine=engine,
        data=data,
        data_bytes=data_bytes,
        limits=limits,
    )
    # Syntax and IP literals only: the worker resolves the name when it delivers.
    if callback_url and (problem := callback_url_check(callback_url, resolve=False)):
        raise ApplicationError(problem, code=ErrorCode.INVALID_DATA)
    if callback_url and api_key is None:
        # A webhook is signed with the submitting key's secret: without a key (a browser
        # session) it could not be, and a receiver could not tell it from a forgery.
        raise ApplicationError(
            "callback_url needs a submit with an API key: its webhook secret signs the callbacks.",
            code=JobErrorCode.CALLBACK_NEEDS_API_KEY,
        )
    if source.version is not None and source.version.options and isinstance(options, dict | None):
        # The template's options, each one the submit sends replacing the template's.
        options = source.version.options | (options or {})
    template_steps = (
        steps_unseal(source.version.steps)
        if source.version is not None and source.version.steps
        else None
    )
    submitted_steps_allow(
        actor=owner if api_key is None else api_key,
        workspace=workspace,
        submitted=steps,
        template_steps=template_steps,
    )
    if steps is None and template_steps:
        steps = template_steps  # checked again: merge sources, certificates
    parsed_options = parse_options(options)
    if source.version is None:  # a stored version's source was checked when it was saved
        get_engine(source.engine).check(source.html)  # a syntax error is a 400 now, not later
    if renderer is not None:
        get_renderer(renderer)  # an unknown one is a 400 naming the three
    if helpers and source.template is not None:
        raise ApplicationError(
            "helpers go with an inline html_template; a stored template carries its own.",
            code=ErrorCode.INVALID_DATA,
        )
    if helpers:
        size_check("helpers", helpers, limits.max_template_bytes)
        helpers_check(source.engine, helpers, limits)

    renderer = renderer or (source.version.renderer if source.version else DEFAULT_RENDERER)
    if parsed_options.page_ranges and source.engine != OFFICE_ENGINE:
        raise ApplicationError(
            "options.page_ranges applies to office conversions (POST /api/v1/convert) only.",
            code=ErrorCode.INVALID_DATA,
        )
    if source.engine == OFFICE_ENGINE:  # LibreOffice writes the profile, not a renderer
        office_document_check(parsed_options.pdf)
    else:
        document_submit_check(parsed_options.pdf, renderer)  # 400 / 422 now, not a failed job
    job_steps = steps_submit_check(workspace=workspace, raw=steps, document=parsed_options.pdf)
    options_dict = parsed_options.as_dict()
    cache_key = result_cache_key(
        owner_id=owner.pk,
        version_id=source.version.pk if source.version else None,
        html=source.html,
        engine=source.engine,
        helpers=helpers,
        renderer=renderer,
        partials=partials_recorded(source.partials),
        data=data,
        # Steps change the PDF, so they are part of what an identical earlier job means.
        options=options_dict | ({"steps": job_steps} if job_steps else {}),
    )
    if cache is None:
        cache = bool(source.template is not None and source.template.cache_results)
    try:
        with transaction.atomic():
            hit = result_cache_source(owner=owner, cache_key=cache_key) if cache else None
            workspace_quota_reserve(workspace=workspace)  # 429 past a day's or month's use
            # 429 past PDF_MAX_JOBS_IN_FLIGHT, atomically; a cache hit counts too (its
            # callback and mail cost what a render's do).
            job_slot_reserve(owner=owner)
            if callback_url:
                callback_slot_reserve(owner=owner)  # 429 past the tenant's backlog
            job = PdfJob(
                owner=owner,
                workspace=workspace,
                template=source.template,
                template_version=source.version,
                html_template="" if source.template else source.html,
                partial_versions=partials_recorded(source.partials),
                engine=source.engine,
                renderer=renderer,
                helpers=helpers,
                data=data,
                options=options_dict,
                steps=steps_seal(job_steps),  # an encrypt step's passwords never stored plain
                callback_url=callback_url,
                idempotency_key=idempotency_key,
                request_digest=digest,
                api_key=api_key,
                batch_id=batch_id,
                cache_key=cache_key,
                # Sent on commit: the reconciler counts from here whether or not the
                # publish then succeeds, exactly as from an UPDATE after it.
                enqueued_at=timezone.now() if hit is None else None,
                **_with_warnings(cached_job_fields(hit) if hit is not None else {}, warnings),
            )
            job_insert(job)  # as PdfJob.objects.create, with the INSERT compiled once
            transaction.on_commit(JOBS_SUBMITTED.labels(renderer=job_renderer(job)).inc)
            if hit is None:
                transaction.on_commit(
                    lambda: dispatch.job_enqueue(job_id=job.job_id, note_time=False)
                )
            else:
                transaction.on_commit(JOBS_CACHED.labels(renderer=job_renderer(job)).inc)
            # The owner's dashboard shows the new job at once, wherever it was submitted; a
            # cache hit, completed already, also sends what a render's completion would.
            transitions.job_announce_on_commit(job, new=True)
    except IntegrityError:
        # The same key raced in from another request: answer with the job that won.
        replayed = _replay(workspace=workspace, idempotency_key=idempotency_key, digest=digest)
        if replayed is None:
            raise
        return replayed, False
    job_log_bind(job)
    template = source.template.slug if source.template else "inline"
    logger.info("job accepted (%s engine, template %s)", job.engine, template)
    if job.cached_from:
        logger.info("job completed from the result cache of job %s", job.cached_from)
    return job, True


def job_redrive(*, job_id: UUID | str) -> PdfJob | None:
    """failed -> queued and send it to the workers again (operator or dead-letter re-drive)."""
    with transaction.atomic():
        job = transitions.job_requeue_failed(job_id=job_id)
        if job is not None:
            transaction.on_commit(lambda: dispatch.job_enqueue(job_id=job.job_id))
    return job


def job_retry(*, job: PdfJob) -> PdfJob:
    """The caller's own re-drive of a failed job; Conflict (409) for any other status.
    It counts against the tenant's in-flight quota like a new submit (429 past it). A
    failure a retry cannot fix (the template, the data) is a Conflict saying what to change
    instead; operators can still re-drive it (job_redrive)."""
    if job.status == JobStatus.FAILED and not job_retry_helps(job):
        raise Conflict(
            f"Retrying job {job.job_id} would fail the same way ({job.error_code}). "
            + failure_advice(job.error_code).replace("{id}", str(job.job_id))
        )
    if job.status == JobStatus.FAILED:
        with transaction.atomic():
            job_slot_reserve(owner=job.owner)
            redriven = transitions.job_requeue_failed(job_id=job.job_id)
            if redriven is not None:
                transaction.on_commit(lambda: dispatch.job_enqueue(job_id=redriven.job_id))
                return redriven
        job.refresh_from_db()
    raise Conflict(f"Job {job.job_id} is {job.status}; only a failed job can be retried.")


def job_cancel(*, job: PdfJob) -> PdfJob:
    """Cancel a queued or processing job; Conflict (409) once it has finished."""
    cancelled = transitions.job_mark_cancelled(job_id=job.job_id)
    if cancelled is None:
        job.refresh_from_db()
        raise Conflict(f"Job {job.job_id} is already {job.status}; it cannot be cancelled.")
    return cancelled
