"""The run pages: start a run from an uploaded CSV or JSON file, and a run's page (live
progress counted in records, failed records, retry, download)."""

from __future__ import annotations

from itertools import islice
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from core.disclosure import public_text
from core.page_actions import page_action
from jobs.models import JobStatus
from rendering.errors import ApplicationError
from reports import selectors as template_selectors
from runs import combined, selectors, services
from runs.links import run_download_path
from runs.live import run_state
from runs.models import Run, RunOutput, RunStatus
from runs.output import run_rows
from runs.records import records_from_upload
from runs.sample_csv import sample_csv, template_columns
from workspaces.current import page_get, workspace_page_for
from workspaces.permissions import Action, can

SHOWN_FAILURES = 50
RUN_SAMPLE = "certificate"  # the built-in sample made for runs (flat CSV columns)
SHOWN_PDFS = 200  # a separate run's links; the ZIP holds them all


def _own_run(request: HttpRequest, run_id: str, action: Action = Action.JOB_VIEW) -> Run:
    return page_get(request, action, selectors.run_get, missing="No such run.", run_id=run_id)


def _error_text(exc: ApplicationError) -> str:
    details = getattr(exc, "details", {}).get("records") or []
    listed = "; ".join(str(item["error"]) for item in details[:5])
    return public_text(listed or exc.message)


RUNS_PER_PAGE = 50


@login_required
def run_list_page(request: HttpRequest) -> HttpResponse:
    """The workspace's runs, newest first (?status=, ?page=), each linked to its page."""
    workspace = workspace_page_for(request, Action.JOB_VIEW)
    status = request.GET.get("status", "")
    if status not in RunStatus.values:
        status = ""
    runs = selectors.run_list(workspace=workspace, status=status or None)
    page = Paginator(runs, RUNS_PER_PAGE).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "status": status,
        "statuses": RunStatus.choices,
        "may_start": can(request.user, Action.JOB_SUBMIT, workspace),
    }
    return render(request, "jobs/runs.html", context)


@login_required
def run_new(request: HttpRequest) -> HttpResponse:
    workspace = workspace_page_for(request, Action.JOB_SUBMIT)
    templates = template_selectors.template_list_visible(workspace=workspace, archived=False)
    form = {"template": request.GET.get("template", ""), "output": RunOutput.ZIP, "pattern": ""}
    if request.method == "POST":
        form = {
            "template": request.POST.get("template", ""),
            "output": request.POST.get("output", RunOutput.ZIP),
            "pattern": request.POST.get("filename_pattern", ""),
        }
        upload = request.FILES.get("file")
        try:
            if upload is None:
                raise ApplicationError("Choose a CSV or JSON file of records.")
            version = template_selectors.template_latest_version_visible(
                workspace=workspace, slug=form["template"]
            )
            records = records_from_upload(
                name=upload.name or "",
                content=upload.read(),
                schema=version.schema if version else {},
            )
            run = services.run_create(
                owner=request.user,
                workspace=workspace,
                template_slug=form["template"],
                records=records,
                output=form["output"],
                filename_pattern=form["pattern"],
            )
        except ApplicationError as exc:
            messages.error(request, _error_text(exc))
        else:
            return redirect("run-page", run_id=run.run_id)
    listed = list(templates.order_by("name"))
    if not form["template"] and listed:
        # The sample made for runs first: a new user's first run works from its sample CSV.
        chosen = next((t for t in listed if t.slug == RUN_SAMPLE), listed[0])
        form["template"] = chosen.slug
    context = {
        "templates": listed,
        "form": form,
        "outputs": RunOutput.choices,
        "columns": [
            (t.slug, template_columns(schema=t.schema, sample_data=t.sample_data)) for t in listed
        ],
    }
    return render(request, "jobs/run_new.html", context)


@login_required
def run_sample_csv(request: HttpRequest) -> HttpResponse:
    """A CSV a template's run takes: its columns and one row of its sample data."""
    workspace = workspace_page_for(request, Action.TEMPLATE_VIEW)
    slug = request.GET.get("template", "")
    template = (
        template_selectors.template_list_visible(workspace=workspace).filter(slug=slug).first()
    )
    if template is None:
        raise Http404("No such template.")
    body = sample_csv(schema=template.schema, sample_data=template.sample_data)
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{template.slug}-sample.csv"'
    return response


@login_required
def run_page(request: HttpRequest, run_id: str) -> HttpResponse:
    run = _own_run(request, run_id)
    # Refused at submit (no job) or failed: a record still rendering is not a failure.
    failures = run.records.select_related("job").filter(
        Q(job__isnull=True) | Q(job__status__in=(JobStatus.FAILED, JobStatus.CANCELLED))
    )
    context = {
        "run": run,
        "failures": [
            {"index": r.index, "error": r.error or (r.job.error if r.job else "")}
            for r in failures.order_by("index")[:SHOWN_FAILURES]
        ],
        "may": {
            # Offered only when a retry can fix something (not for refused records alone).
            "retry": can(request.user, Action.JOB_RETRY, run)
            and run.is_finished
            and selectors.run_has_retryable(run=run),
            "download": can(request.user, Action.JOB_DOWNLOAD, run),
        },
        "state": run_state(run),
        "pdfs": _separate_pdfs(run) if run.output == RunOutput.SEPARATE else [],
        "shown_pdfs": SHOWN_PDFS,
    }
    return render(request, "jobs/run.html", context)


def _separate_pdfs(run: Run) -> list[dict[str, Any]]:
    """A separate run's first PDFs, each linked (its job's page and download), in order."""
    rows = (row for row in run_rows(run) if row.has_pdf)
    return [
        {"index": row.index, "name": row.name, "job_id": row.job_id}
        for row in islice(rows, SHOWN_PDFS)
    ]


@login_required
@require_POST
def run_retry_post(request: HttpRequest, run_id: str) -> HttpResponse:
    run = _own_run(request, run_id, Action.JOB_RETRY)
    page_action(
        request,
        lambda: services.run_retry_failed(run=run),
        done="The failed records are queued again.",
    )
    return redirect("run-page", run_id=run.run_id)


@login_required
def run_download(request: HttpRequest, run_id: str) -> HttpResponse:
    """A stable link for the page; hands out a fresh signed link so it never goes stale."""
    run = _own_run(request, run_id, Action.JOB_DOWNLOAD)
    # A separate run's PDFs come as one ZIP here too: one click instead of a thousand.
    if not run.is_finished or not run.completed:
        raise Http404("This run has nothing to download yet.")
    if run.output == RunOutput.COMBINED:
        state = combined.run_combined_prepare(run=run)
        if not state.key:
            messages.info(request, combined.preparing_message(state))
            return redirect("run-page", run_id=run.run_id)
    return HttpResponseRedirect(run_download_path(run.run_id))
