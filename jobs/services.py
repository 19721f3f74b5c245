"""Accepting jobs and sending them to the workers: submit (with idempotency), enqueue,
re-drive."""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from jobs import transitions
from jobs.callbacks import callback_url_check
from jobs.exceptions import ApplicationError, Conflict
from jobs.execution import RENDER_TASK
from jobs.models import DeadLetter, PdfJob
from jobs.selectors import template_get_visible
from reports.engines import ENGINE_NAMES, get_engine
from reports.models import ReportTemplate, ReportTemplateVersion
from reports.options import parse_options
from reports.schemas import data_depth, data_unstorable_text, data_validate
from reports.services import template_current_version

logger = logging.getLogger(__name__)
TASK_ID_PREFIX = "render-"


def _check_size(name: str, text: str, limit: int) -> None:
    size = len(text.encode("utf-8"))
    if size > limit:
        raise ApplicationError(
            f"{name} is {size} bytes; the limit is {limit} bytes.", code="too_large", status=413
        )


def task_id_for(job_id: UUID | str) -> str:
    """Message ids carry the job id, so the reconciler can see which jobs are in flight."""
    return f"{TASK_ID_PREFIX}{job_id}-{uuid.uuid4().hex[:8]}"


def job_id_from_task_id(task_id: str) -> str | None:
    if not task_id.startswith(TASK_ID_PREFIX):
        return None
    return task_id[len(TASK_ID_PREFIX) : -9] or None


def job_enqueue(*, job_id: UUID | str, countdown: float | None = None) -> bool:
    """Send the render message. A broker failure is logged, not raised: the row stays
    queued and the reconciler sends it once the broker is back."""
    from config.celery_app import app

    try:
        app.send_task(
            RENDER_TASK, args=[str(job_id)], task_id=task_id_for(job_id), countdown=countdown
        )
    except Exception:
        logger.warning("could not enqueue job %s; the reconciler will resend it", job_id)
        return False
    transitions.job_mark_enqueued(job_id=job_id)
    return True


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
            status=422,
        )
    return existing


@dataclass(frozen=True)
class _Source:
    template: ReportTemplate | None
    version: ReportTemplateVersion | None
    engine: str
    html: str


def _validated_data(data: Any) -> dict[str, Any]:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ApplicationError("data must be a JSON object.", code="invalid_data")
    _check_size("data", json.dumps(data), settings.PDF_MAX_DATA_BYTES)
    if problem := data_unstorable_text(data):
        raise ApplicationError(f"data {problem}, which cannot be stored.", code="invalid_data")
    if data_depth(data, limit=settings.PDF_MAX_NESTING_DEPTH) > settings.PDF_MAX_NESTING_DEPTH:
        raise ApplicationError(
            f"data nests deeper than {settings.PDF_MAX_NESTING_DEPTH} levels.", code="too_deep"
        )
    return data


def _resolve_source(
    *,
    owner: Any,
    html_template: str | None,
    template_slug: str | None,
    engine: str | None,
    data: dict[str, Any],
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
        _check_size("html_template", source, settings.PDF_MAX_TEMPLATE_BYTES)
        return _Source(template=None, version=None, engine=engine or "handlebars", html=source)
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
) -> tuple[PdfJob, bool]:
    """Validate a request and queue it; it is sent to the workers once the row commits.
    Returns (job, created): with a known Idempotency-Key, the earlier job and False."""
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
    data = _validated_data(data)
    source = _resolve_source(
        owner=owner,
        html_template=html_template,
        template_slug=template_slug,
        engine=engine,
        data=data,
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
            )
            transaction.on_commit(lambda: job_enqueue(job_id=job.job_id))
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
            transaction.on_commit(lambda: job_enqueue(job_id=job.job_id))
    return job


def dead_letter_redrive(*, dead_letter: DeadLetter) -> PdfJob | None:
    """Re-drive the dead letter's job, counting the attempt on the dead letter."""
    with transaction.atomic():
        job = job_redrive(job_id=dead_letter.job.job_id)
        if job is not None:
            DeadLetter.objects.filter(pk=dead_letter.pk).update(
                retry_count=F("retry_count") + 1, last_retry_at=timezone.now()
            )
    return job
