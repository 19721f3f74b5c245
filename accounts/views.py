"""My account: notification choices; the workspace's API keys (create one, its secret shown
once, see when each was used, revoke)."""

from __future__ import annotations

from typing import cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from accounts.forms import ApiKeyCreateForm, NotificationPreferencesForm
from accounts.notifications import notification_preferences, notification_preferences_set
from accounts.selectors import api_key_list
from accounts.services import api_key_create, api_key_revoke
from workspaces.current import workspace_current
from workspaces.permissions import Action, authorize_page


@never_cache
@login_required
def api_keys(request: HttpRequest) -> HttpResponse:
    created = None
    workspace = workspace_current(request)
    authorize_page(request.user, Action.KEY_MANAGE, workspace)
    form = ApiKeyCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        key, raw = api_key_create(
            user=cast(User, request.user),
            workspace=workspace,
            name=form.cleaned_data["name"],
            expires_in_days=form.cleaned_data["expires"],
        )
        # Rendered, not redirected: the secret exists only in this one response.
        created = {"key": key, "raw": raw}
        form = ApiKeyCreateForm()
    context = {"keys": api_key_list(workspace=workspace), "form": form, "created": created}
    return render(request, "accounts/api_keys.html", context)


@login_required
@require_POST
def api_key_revoke_view(request: HttpRequest, key_id: int) -> HttpResponse:
    key = api_key_revoke(user=cast(User, request.user), key_id=key_id)
    if key is None:
        raise Http404("No such key.")
    messages.success(request, f"Key {key.prefix}… is revoked; requests using it now get 401.")
    return redirect("api-keys")


@never_cache
@login_required
def account(request: HttpRequest) -> HttpResponse:
    user = cast(User, request.user)
    if request.method == "POST":
        form = NotificationPreferencesForm(request.POST)
        if form.is_valid():
            notification_preferences_set(user=user, **form.cleaned_data)
            messages.success(request, "Your notification settings are saved.")
            return redirect("account")
    else:
        current = notification_preferences(user_id=user.pk)
        form = NotificationPreferencesForm(
            initial={
                "email_job_finished": current.email_job_finished,
                "browser_job_finished": current.browser_job_finished,
            }
        )
    return render(request, "accounts/account.html", {"form": form})
