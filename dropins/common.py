"""What every drop-in route shares: the submit as the calling key, the bounded wait for
its job, the finished PDF, and the early refusal of an oversized body."""

from __future__ import annotations

import asyncio
import html
import re
from typing import Any

import httpx
from asgiref.sync import async_to_sync
from django.conf import settings
from django.core.files.storage import storages
from django.db import transaction
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from rest_framework.request import Request

from accounts.authentication import request_api_key
from core.error_codes import ApiErrorCode
from core.error_registry import code_info, error_code
from core.errors import NotFound
from dropins.error_codes import DropinErrorCode
from jobs import selectors, services
from jobs.callbacks import callback_url_check
from jobs.live.subscriptions import job_follow
from jobs.models import TERMINAL_STATUSES, JobStatus, PdfJob, ResultWebhook
from jobs.webhook_transport import WebhookRefused, WebhookResponse, outbound_get
from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError, InvalidInput
from rendering.limits import size_text
from reports import selectors as template_selectors
from workspaces.current import workspace_current, workspace_for
from workspaces.permissions import Action


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
    workspace = workspace_for(request, Action.TEMPLATE_VIEW)
    visible = template_selectors.template_list_visible(workspace=workspace, archived=False)
    if slug:
        return template_selectors.template_get_visible(workspace=workspace, slug=slug).slug
    found = visible.filter(name=name).values_list("slug", flat=True).first()
    if found is None:
        found = visible.filter(slug=name).values_list("slug", flat=True).first()
    if found is None:
        raise NotFound(f"No template named {name!r} was found.")
    return found


def adapter_authorize(request: Request) -> None:
    """May the calling key submit in its workspace? Asked before a drop-in route parses
    anything of the body (issue 42): a key that may not submit costs no parsing."""
    workspace_for(request, Action.JOB_SUBMIT)


def adapter_submit(
    request: Request, *, result_webhook: dict[str, Any] | None = None, **fields: Any
) -> PdfJob:
    """job_create as the calling key in its workspace: the same validation, quotas and
    persistence as POST /api/v1/generate-pdf-async. `result_webhook` (ResultWebhook's
    fields) sends the PDF itself to the callback_url; it commits with the job, so the
    job cannot finish before it exists."""
    workspace = workspace_for(request, Action.JOB_SUBMIT)
    with transaction.atomic():
        job, created = services.job_create(
            owner=request.user,
            workspace=workspace,
            api_key=request_api_key(request),
            **fields,
        )
        if result_webhook is not None and created:
            ResultWebhook.objects.create(job=job, **result_webhook)
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
            code=DropinErrorCode.STILL_RENDERING,
            http_status=504,
            details={"job_id": str(job.job_id)},
        )
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
        code=error_code(job.error_code) or ApiErrorCode.SERVER_ERROR,
        http_status=status if status >= 400 else 422,
        details={"job_id": str(job.job_id)},
    )
    return error


def pdf_bytes(job: PdfJob) -> bytes:
    """The finished job's PDF; its failure as the error to answer otherwise."""
    if job.status != JobStatus.COMPLETED or not job.pdf_file:
        raise job_failure(job)
    with storages["reports"].open(job.pdf_file, "rb") as handle:
        return bytes(handle.read())


def warnings_header(warnings: list[str]) -> dict[str, str]:
    """The job's warnings as one `X-Job-Warnings` header (each ends with a full stop; the
    header is ASCII: other characters become "?"), or nothing."""
    if not warnings:
        return {}
    text = " ".join(" ".join(warning.split()) for warning in warnings)
    return {"X-Job-Warnings": text.encode("ascii", "replace").decode("ascii")[:4000]}


# What pdf_response answers, as the generated schema describes it.
PDF_ANSWER = {(200, "application/pdf"): OpenApiTypes.BINARY}


def pdf_response(
    job: PdfJob, *, filename: str = "", headers: dict[str, str] | None = None
) -> HttpResponse:
    response = HttpResponse(pdf_bytes(job), content_type="application/pdf", headers=headers)
    response["Content-Disposition"] = f'attachment; filename="{filename or job.filename}"'
    return response


def remote_get(
    url: str,
    *,
    field: str,
    max_bytes: int,
    limit_name: str,
    accept: str,
    extra_headers: dict[str, str] | None = None,
    deadline_seconds: float | None = None,
) -> WebhookResponse:
    """The 2xx answer of a GET of `url` (the form field `field` names it) under the
    callbacks' outbound rules: http(s), no internal address (checked again once
    resolved, the connection pinned to the checked address), within `deadline_seconds`
    (by default CALLBACK_TIMEOUT_SECONDS), at most `max_bytes` (`limit_name` says which
    limit); InvalidInput otherwise."""
    seconds = settings.CALLBACK_TIMEOUT_SECONDS if deadline_seconds is None else deadline_seconds
    problem = callback_url_check(url, resolve=False)
    if problem:
        raise InvalidInput(problem.replace("callback_url", field))
    try:
        fetched = outbound_get(
            url,
            deadline_seconds=seconds,
            connect_seconds=settings.CALLBACK_CONNECT_TIMEOUT_SECONDS,
            max_bytes=max_bytes,
            allow_private=settings.CALLBACK_ALLOW_PRIVATE_NETWORKS,
            accept=accept,
            extra_headers=extra_headers,
        )
    except WebhookRefused as exc:
        raise InvalidInput(str(exc).replace("callback host", f"{field} host")) from None
    except (TimeoutError, httpx.HTTPError, OSError):
        raise InvalidInput(f"{url} did not answer within {seconds:.3g} s.") from None
    if not 200 <= fetched.status_code < 300:
        raise InvalidInput(f"{url} answered HTTP {fetched.status_code}.")
    if len(fetched.body) > max_bytes:
        raise InvalidInput(f"{url} is larger than {limit_name} ({size_text(max_bytes)}).")
    return fetched


def page_fetch(url: str) -> str:
    """The HTML at `url` (Gotenberg's /url, DocRaptor's document_url), fetched once under
    the callbacks' outbound rules (remote_get), at most PDF_MAX_TEMPLATE_BYTES."""
    if not url:
        raise InvalidInput("Send the page's address (url).")
    fetched = remote_get(
        url,
        field="url",
        max_bytes=settings.PDF_MAX_TEMPLATE_BYTES,
        limit_name="PDF_MAX_TEMPLATE_BYTES",
        accept="text/html",
    )
    page = fetched.body.decode("utf-8", errors="replace")
    # Relative links then point at the page's own site (fetched by the resource policy).
    base = f'<base href="{html.escape(url)}">'
    head = re.search(r"(?i)<head[^>]*>", page)
    return page[: head.end()] + base + page[head.end() :] if head else base + page
