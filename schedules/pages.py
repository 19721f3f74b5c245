"""The schedules pages: the workspace's schedules with a form to create one, and a
schedule's page (pause or resume, run now, its past runs). The same services and checks as
the API; a wrong field is a message on the form, never a 500."""

from __future__ import annotations

import json
import re
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from core.disclosure import public_text
from core.page_actions import page_action
from rendering.errors import ApplicationError
from reports import selectors as template_selectors
from schedules import selectors, services
from schedules.delivery import delivery_target
from schedules.models import Schedule
from workspaces.current import page_get, workspace_page_for
from workspaces.permissions import Action, authorize_page, can


def _fields(post: Any) -> tuple[dict[str, Any], list[str]]:
    """The form's fields as the API's; a problem for JSON that does not parse (the other
    fields are still checked, so the form says everything at once)."""
    fields: dict[str, Any] = {
        "template": post.get("template", ""),
        "name": post.get("name", ""),
        "cron": post.get("cron", ""),
        "timezone": post.get("timezone", "") or "UTC",
    }
    problems = []
    raw = post.get("data", "").strip()
    if raw:
        try:
            fields["data"] = json.loads(raw)
        except ValueError as exc:
            problems.append(f"{_LABELS['data']}: not JSON ({exc}).")
    if url := post.get("data_url", "").strip():
        fields["data_url"] = url
    to = [a.strip() for a in post.get("email_to", "").replace(";", ",").split(",") if a.strip()]
    if to:
        fields["deliveries"] = [{"type": "email", "to": to}]
    return fields, problems


# The form's labels for the API's field names: a person filled in "Mail the PDF to", not
# deliveries[0].to[0].
_LABELS = {
    "template": "Template",
    "name": "Name",
    "cron": "Cron expression",
    "timezone": "Time zone",
    "data": "Data",
    "data_url": "Data URL",
    "deliveries": "Mail the PDF to",
}


def _label(field: str) -> str:
    return _LABELS.get(re.split(r"[.\[]", field, maxsplit=1)[0], field)


def _problems(exc: ApplicationError) -> list[str]:
    """Each wrong field's message, as the API's `fields` lists them, named by its label."""
    listed = getattr(exc, "details", {}).get("fields")
    if not isinstance(listed, dict):
        return [public_text(exc.message)]
    return [
        public_text(f"{_label(field)}: {m}") for field, messages in listed.items() for m in messages
    ]


@login_required
def schedule_list_page(request: HttpRequest) -> HttpResponse:
    workspace = workspace_page_for(request, Action.SCHEDULE_VIEW)
    may_manage = can(request.user, Action.SCHEDULE_MANAGE, workspace)
    errors: list[str] = []
    form = request.POST if request.method == "POST" else {}
    if request.method == "POST":
        authorize_page(request.user, Action.SCHEDULE_MANAGE, workspace)
        fields, errors = _fields(request.POST)
        try:
            if errors:  # the data is not JSON: check the rest, create nothing
                fields.pop("data", None)
                services.schedule_check_new(
                    workspace=workspace, fields=fields, created_by=request.user
                )
            else:
                schedule = services.schedule_create(
                    workspace=workspace, created_by=request.user, fields=fields
                )
        except ApplicationError as exc:
            errors += _problems(exc)
        if not errors:
            messages.success(request, "Schedule created.")
            return redirect("schedule-page", schedule_id=schedule.schedule_id)
    context = {
        "schedules": selectors.schedule_list(workspace=workspace),
        "templates": template_selectors.template_list_visible(workspace=workspace, archived=False),
        "may_manage": may_manage,
        "errors": errors,
        "form": form,
    }
    return render(request, "jobs/schedules.html", context, status=400 if errors else 200)


def _schedule(request: HttpRequest, schedule_id: str, action: Action) -> Schedule:
    return page_get(request, action, selectors.schedule_get, schedule_id=schedule_id)


@login_required
def schedule_page(request: HttpRequest, schedule_id: str) -> HttpResponse:
    schedule = _schedule(request, schedule_id, Action.SCHEDULE_VIEW)
    runs = list(selectors.schedule_runs(schedule=schedule)[:50])
    context = {
        "schedule": schedule,
        "runs": runs,
        "targets": [delivery_target(d) for d in schedule.deliveries],
        "may_manage": can(request.user, Action.SCHEDULE_MANAGE, schedule),
    }
    return render(request, "jobs/schedule.html", context)


@require_POST
@login_required
def schedule_pause_post(request: HttpRequest, schedule_id: str) -> HttpResponse:
    schedule = _schedule(request, schedule_id, Action.SCHEDULE_MANAGE)
    paused = request.POST.get("paused") == "true"
    services.schedule_update(schedule=schedule, fields={"paused": paused}, by=request.user)
    messages.success(request, "Schedule paused." if paused else "Schedule resumed.")
    return redirect("schedule-page", schedule_id=schedule.schedule_id)


@require_POST
@login_required
def schedule_run_post(request: HttpRequest, schedule_id: str) -> HttpResponse:
    schedule = _schedule(request, schedule_id, Action.SCHEDULE_MANAGE)
    page_action(  # refused past the workspace's daily mail limit
        request,
        lambda: services.schedule_run_now(schedule=schedule, by=request.user),
        done="Run started; it is listed below.",
    )
    return redirect("schedule-page", schedule_id=schedule.schedule_id)
