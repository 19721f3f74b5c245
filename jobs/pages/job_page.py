"""A job's page (live progress, error, retry, cancel, download); only its workspace sees it."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from core.disclosure import public_text
from core.errors import Conflict
from jobs import selectors, services
from jobs.links import pdf_path
from jobs.models import JobStatus, PdfJob
from jobs.pages.job_state import job_state
from rendering.errors import ApplicationError
from workspaces.current import page_get
from workspaces.permissions import Action, can


def _own_job(request: HttpRequest, job_id: str, action: Action = Action.JOB_VIEW) -> PdfJob:
    """The current workspace's job if the person's role may do `action` (403 if not)."""
    return page_get(request, action, selectors.job_get, missing="No such job.", job_id=job_id)


@login_required
def job_page(request: HttpRequest, job_id: str) -> HttpResponse:
    job = _own_job(request, job_id)
    context = {
        "job": job,
        "state": job_state(request, job),
        "retention_days": settings.PDF_RETENTION_DAYS,
        # Buttons only for what the person's role may do (the POSTs check again).
        "may": {
            "retry": can(request.user, Action.JOB_RETRY, job),
            "cancel": can(request.user, Action.JOB_CANCEL, job),
        },
    }
    return render(request, "jobs/job.html", context)


@login_required
@require_POST
def job_retry_post(request: HttpRequest, job_id: str) -> HttpResponse:
    job = _own_job(request, job_id, Action.JOB_RETRY)
    try:
        services.job_retry(job=job)  # the API's rule: a failed job, within the quota
    except Conflict as exc:
        if job.status != JobStatus.FAILED:
            messages.warning(request, "Only a failed job can be retried; this one is not failed.")
        else:  # a failure no retry fixes: the message says what to change instead
            messages.warning(request, public_text(exc.message))
    except ApplicationError as exc:
        messages.warning(request, public_text(exc.message))
    else:
        messages.success(request, "The job is queued again.")
    return redirect("job-page", job_id=job.job_id)


@login_required
@require_POST
def job_cancel_post(request: HttpRequest, job_id: str) -> HttpResponse:
    job = _own_job(request, job_id, Action.JOB_CANCEL)
    try:
        services.job_cancel(job=job)
    except Conflict:
        messages.warning(request, "The job had already finished, so it was not cancelled.")
    else:
        messages.success(request, "The job is cancelled.")
    return redirect("job-page", job_id=job.job_id)


@login_required
def job_download(request: HttpRequest, job_id: str) -> HttpResponse:
    """A stable link for the page; hands out a fresh signed link so it never goes stale."""
    job = _own_job(request, job_id, Action.JOB_DOWNLOAD)
    if job.status != JobStatus.COMPLETED:
        raise Http404("This job has no PDF yet.")
    if job.is_expired:
        messages.warning(request, selectors.pdf_expired_message(job))
        return redirect("job-page", job_id=job.job_id)
    return HttpResponseRedirect(pdf_path(job.job_id))
