"""The dashboard: the current workspace's recent jobs, each following its status live."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from jobs.pages.job_state import job_state
from jobs.selectors import job_list
from workspaces.current import workspace_page_for
from workspaces.permissions import Action

DASHBOARD_JOBS = 25


@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    workspace = workspace_page_for(request, Action.JOB_VIEW)
    jobs = list(job_list(workspace=workspace)[:DASHBOARD_JOBS])
    rows = [(job, job_state(request, job)) for job in jobs]
    return render(
        request, "jobs/dashboard.html", {"rows": rows, "states": [state for _, state in rows]}
    )
