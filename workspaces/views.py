"""The workspace switcher (the session acts in the chosen workspace from the next page on),
the page that makes a team workspace, and the workspace's single sign-on page (owners)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import Resolver404, resolve
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from core.errors import NotFound
from rendering.errors import ApplicationError
from workspaces.current import workspace_current, workspace_page_for, workspace_switch
from workspaces.forms import WorkspaceCreateForm, WorkspaceSsoForm
from workspaces.models import Workspace
from workspaces.permissions import Action, authorize_page, can
from workspaces.selectors import workspace_sso
from workspaces.services import workspace_create, workspace_sso_set

# Pages that show "the current workspace's" list or form (not one thing of the workspace
# left behind), and what a person needs to see them there: a switch returns to them.
_SAME_PAGE_AFTER_SWITCH: dict[str, Action | None] = {
    "home": None,
    "template-gallery": None,
    "schedules": Action.SCHEDULE_VIEW,
    "run-new": Action.JOB_SUBMIT,
    "usage": Action.USAGE_VIEW,
    "members": Action.MEMBER_MANAGE,
    "audit-log": Action.AUDIT_VIEW,
    "workspace-sso-page": Action.SSO_MANAGE,
    "api-keys": Action.KEY_MANAGE,
    "account": None,
}


def _after_switch(request: HttpRequest, workspace: Workspace) -> str:
    """The page the switch was made from when it means the same in the new workspace and
    the person may see it there; else My jobs (a job or template page of the old one
    would be a 404)."""
    wanted = request.POST.get("next", "")
    if not wanted or not url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return "home"
    try:
        name = resolve(wanted.split("?", 1)[0]).url_name or ""
    except Resolver404:
        return "home"
    if name not in _SAME_PAGE_AFTER_SWITCH:
        return "home"
    needed = _SAME_PAGE_AFTER_SWITCH[name]
    if needed is not None and not can(request.user, needed, workspace):
        return "home"
    return wanted


@login_required
@require_POST
def workspace_switch_post(request: HttpRequest) -> HttpResponse:
    try:
        workspace = workspace_switch(request, workspace_id=int(request.POST.get("workspace", "")))
    except (ValueError, NotFound):
        raise Http404("No such workspace.") from None
    messages.success(request, f"You are working in {workspace.name}.")
    return redirect(_after_switch(request, workspace))


@never_cache
@login_required
def workspace_new_page(request: HttpRequest) -> HttpResponse:
    """A team workspace, made by an owner of the current one (everyone owns their own), who
    becomes its owner and works in it from the next page on."""
    authorize_page(request.user, Action.WORKSPACE_CREATE, workspace_current(request))
    form = WorkspaceCreateForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                made = workspace_create(
                    name=form.cleaned_data["name"], owner=request.user, by=request.user
                )
            except ApplicationError as exc:
                form.add_error("name", exc.message)
            else:
                workspace_switch(request, workspace_id=made.pk)
                messages.success(
                    request, f"{made.name} is made and you are working in it: invite its members."
                )
                return redirect("members")
        status = 400
    return render(request, "workspaces/new.html", {"form": form}, status=status)


@never_cache
@login_required
def workspace_sso_page(request: HttpRequest) -> HttpResponse:
    workspace = workspace_page_for(request, Action.SSO_MANAGE)
    current = workspace_sso(workspace=workspace)
    initial = {"domains": ", ".join(current["domains"]), "role": current["role"]}
    form = WorkspaceSsoForm(request.POST or None, initial=initial)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                workspace_sso_set(workspace=workspace, by=request.user, **form.cleaned_data)
            except ApplicationError as exc:
                form.add_error("domains", exc.message)
            else:
                messages.success(request, "Single sign-on joining is saved.")
                return redirect("workspace-sso-page")
        status = 400
    context = {"workspace": workspace, "form": form, "current": current}
    return render(request, "workspaces/sso.html", context, status=status)
