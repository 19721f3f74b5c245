"""What every drop-in route shares: the submit as the calling key, the bounded wait for
its job, the finished PDF, and the early refusal of an oversized body."""

from __future__ import annotations

import asyncio
from typing import Any

from asgiref.sync import async_to_sync
from django.conf import settings
from django.core.files.storage import storages
from django.http import HttpResponse
from rest_framework.request import Request

from accounts.models import ApiKey
from jobs import selectors, services
from jobs.live.subscriptions import job_follow
from jobs.models import TERMINAL_STATUSES, JobStatus, PdfJob
from rendering.error_codes import ErrorCode, code_info
from rendering.errors import ApplicationError
from rendering.limits import size_text
from reports import selectors as template_selectors
from workspaces.current import actor_of, workspace_current
from workspaces.permissions import Action, authorize


def body_size_check(request: Request) -> None:
    """413 on a declared body over REQUEST_MAX_BODY_BYTES, before the multipart parser
    reads a byte of it (in front of Django, core.body_limit does the same for ASGI)."""
    declared = request.META.get("CONTENT_LENGTH") or "0"
    limit = settings.REQUEST_MAX_BODY_BYTES
    if declared.isdigit() and int(declared) > limit:
        raise ApplicationError(
            f"The request body is larger than the {size_text(limit)} allowed "
            "(REQUEST_MAX_BODY_BYTES).",
            code=ErrorCode.TOO_LARGE,
            http_status=413,
        )


def template_slug_visible(request: Request, *, slug: str = "", name: str = "") -> str:
    """The slug of the caller's template with this slug or name (a built-in sample too);
    another workspace's is a 404 like a missing one."""
    workspace = workspace_current(request)
    authorize(actor_of(request), Action.TEMPLATE_VIEW, workspace)
    visible = template_selectors.template_list_visible(workspace=workspace, archived=False)
    if slug:
        return template_selectors.template_get_visible(workspace=workspace, slug=slug).slug
    found = visible.filter(name=name).values_list("slug", flat=True).first()
    if found is None:
        found = visible.filter(slug=name).values_list("slug", flat=True).first()
    if found is None:
        raise ApplicationError(
            f"No template named {name!r} was found.", code=ErrorCode.NOT_FOUND, http_status=404
        )
    return found


def adapter_submit(request: Request, **fields: Any) -> PdfJob:
    """job_create as the calling key in its workspace: the same validation, quotas and
    persistence as POST /api/v1/generate-pdf-async."""
    workspace = workspace_current(request)
    authorize(actor_of(request), Action.JOB_SUBMIT, workspace)
    job, _ = services.job_create(
        owner=request.user,
        workspace=workspace,
        api_key=request.auth if isinstance(request.auth, ApiKey) else None,
        **fields,
    )
    return job


async def _until_terminal(job_id: str, seconds: float) -> None:
    try:
        async with asyncio.timeout(seconds):
            async for event in job_follow(job_id, heartbeat=1.0):
                if event is not None and event["status"] in TERMINAL_STATUSES:
                    return
    except TimeoutError:
        return


def job_wait(request: Request, job: PdfJob) -> PdfJob:
    """The job once it finished, or a 504 naming it after ADAPTER_WAIT_SECONDS (the job
    goes on; its status is at /api/v1/jobs/{id})."""
    if not job.is_terminal:
        # Follows the job's live events (as SSE does) instead of polling the row.
        async_to_sync(_until_terminal)(str(job.job_id), float(settings.ADAPTER_WAIT_SECONDS))
        job = selectors.job_get(workspace=workspace_current(request), job_id=job.job_id)
    if not job.is_terminal:
        error = ApplicationError(
            f"Job {job.job_id} did not finish within {settings.ADAPTER_WAIT_SECONDS} s "
            f"(ADAPTER_WAIT_SECONDS); it goes on: GET /api/v1/jobs/{job.job_id}.",
            code=ErrorCode.TIMEOUT,
            http_status=504,
        )
        error.details = {"job_id": str(job.job_id)}  # type: ignore[attr-defined]
        raise error
    return job


def job_failure(job: PdfJob) -> ApplicationError:
    """A finished job without a PDF, as the error its code answers (a bad template is a
    4xx; our own trouble a 503)."""
    info = code_info(job.error_code) if job.error_code else None
    status = info.status if info is not None and info.status else 503
    if job.status == JobStatus.CANCELLED:
        status = 409
    error = ApplicationError(
        job.error or f"Job {job.job_id} was {job.status}.",
        code=ErrorCode(job.error_code) if info is not None else ErrorCode.SERVER_ERROR,
        http_status=status if status >= 400 else 422,
    )
    error.details = {"job_id": str(job.job_id)}  # type: ignore[attr-defined]
    return error


def pdf_bytes(job: PdfJob) -> bytes:
    """The finished job's PDF; its failure as the error to answer otherwise."""
    if job.status != JobStatus.COMPLETED or not job.pdf_file:
        raise job_failure(job)
    with storages["reports"].open(job.pdf_file, "rb") as handle:
        return bytes(handle.read())


def pdf_response(
    job: PdfJob, *, filename: str = "", headers: dict[str, str] | None = None
) -> HttpResponse:
    response = HttpResponse(pdf_bytes(job), content_type="application/pdf", headers=headers)
    response["Content-Disposition"] = f'attachment; filename="{filename or job.filename}"'
    return response
