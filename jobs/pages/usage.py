"""The usage page: the current workspace's quotas and what it used of them (owners)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from jobs.quotas import workspace_usage_report
from workspaces.current import workspace_page_for
from workspaces.permissions import Action


@login_required
def usage(request: HttpRequest) -> HttpResponse:
    workspace = workspace_page_for(request, Action.USAGE_VIEW)
    rows = workspace_usage_report(workspace=workspace)
    return render(request, "jobs/usage.html", {"workspace": workspace, "rows": rows})
