"""The workspace switcher: the session acts in the chosen workspace from the next page on."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from rendering.errors import NotFound
from workspaces.current import workspace_switch


@login_required
@require_POST
def workspace_switch_post(request: HttpRequest) -> HttpResponse:
    try:
        workspace = workspace_switch(request, workspace_id=int(request.POST.get("workspace", "")))
    except (ValueError, NotFound):
        raise Http404("No such workspace.") from None
    messages.success(request, f"You are working in {workspace.name}.")
    return redirect("home")
