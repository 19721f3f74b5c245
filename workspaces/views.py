"""The workspace switcher (the session acts in the chosen workspace from the next page on)
and the workspace's single sign-on page (owners)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from rendering.errors import ApplicationError, NotFound
from workspaces.current import workspace_current, workspace_switch
from workspaces.forms import WorkspaceSsoForm
from workspaces.permissions import Action, authorize_page
from workspaces.selectors import workspace_sso
from workspaces.services import workspace_sso_set


@login_required
@require_POST
def workspace_switch_post(request: HttpRequest) -> HttpResponse:
    try:
        workspace = workspace_switch(request, workspace_id=int(request.POST.get("workspace", "")))
    except (ValueError, NotFound):
        raise Http404("No such workspace.") from None
    messages.success(request, f"You are working in {workspace.name}.")
    return redirect("home")


@never_cache
@login_required
def workspace_sso_page(request: HttpRequest) -> HttpResponse:
    workspace = workspace_current(request)
    authorize_page(request.user, Action.SSO_MANAGE, workspace)
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
