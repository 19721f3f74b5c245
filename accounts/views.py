"""My account: email address, password and notification choices; the workspace's API keys
(create one, its secret shown once, see when each was used, revoke)."""

from __future__ import annotations

from typing import Any, cast

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import update_session_auth_hash
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordChangeForm
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from accounts.demo import DEMO_PASSWORD, uses_demo_password
from accounts.forms import ApiKeyCreateForm, EmailChangeForm, NotificationPreferencesForm
from accounts.notifications import notification_preferences, notification_preferences_set
from accounts.oidc_provider import sso_enabled
from accounts.selectors import api_key_list
from accounts.services import api_key_create, api_key_revoke, user_email_set
from rendering.errors import ApplicationError
from workspaces.current import workspace_page_for
from workspaces.permissions import Action


class SignInView(auth_views.LoginView):
    """Django's sign-in form, plus the single sign-on button when a provider is configured."""

    template_name = "auth/login.html"
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["sso_provider"] = settings.OIDC_PROVIDER_NAME if sso_enabled() else None
        return context


@never_cache
@login_required
def api_keys(request: HttpRequest) -> HttpResponse:
    created = None
    status = 200
    workspace = workspace_page_for(request, Action.KEY_MANAGE)
    form = ApiKeyCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            key, raw = api_key_create(
                user=cast(User, request.user),
                workspace=workspace,
                name=form.cleaned_data["name"],
                expires_in_days=form.cleaned_data["expires"],
            )
        except ApplicationError as exc:  # the tenant's key cap
            form.add_error(None, exc.message)
            status = exc.http_status
        else:
            # Rendered, not redirected: the secret exists only in this one response.
            created = {"key": key, "raw": raw}
            form = ApiKeyCreateForm()
    context = {"keys": api_key_list(workspace=workspace), "form": form, "created": created}
    return render(request, "accounts/api_keys.html", context, status=status)


@login_required
@require_POST
def api_key_revoke_view(request: HttpRequest, key_id: int) -> HttpResponse:
    key = api_key_revoke(user=cast(User, request.user), key_id=key_id)
    if key is None:
        raise Http404("No such key.")
    messages.success(request, f"Key {key.prefix}… is revoked; requests using it now get 401.")
    return redirect("api-keys")


def _account_page(
    request: HttpRequest,
    *,
    notify_form: NotificationPreferencesForm | None = None,
    email_form: EmailChangeForm | None = None,
    password_form: PasswordChangeForm | None = None,
) -> HttpResponse:
    """The account page with its three forms; the one that was refused keeps its errors."""
    user = cast(User, request.user)
    if notify_form is None:
        current = notification_preferences(user_id=user.pk)
        notify_form = NotificationPreferencesForm(
            initial={
                "email_job_finished": current.email_job_finished,
                "browser_job_finished": current.browser_job_finished,
                "email_api_jobs": current.email_api_jobs,
            }
        )
    context = {
        "form": notify_form,
        "email_form": email_form or EmailChangeForm(initial={"email": user.email}),
        "password_form": password_form or PasswordChangeForm(user),
        "demo_password": DEMO_PASSWORD if uses_demo_password(user) else None,
    }
    refused = any(f is not None and f.errors for f in (notify_form, email_form, password_form))
    return render(request, "accounts/account.html", context, status=400 if refused else 200)


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
        return _account_page(request, notify_form=form)
    return _account_page(request)


@never_cache
@login_required
@require_POST
def account_email(request: HttpRequest) -> HttpResponse:
    form = EmailChangeForm(request.POST)
    if not form.is_valid():
        return _account_page(request, email_form=form)
    user_email_set(user=cast(User, request.user), email=form.cleaned_data["email"])
    messages.success(request, f"Job mail now goes to {form.cleaned_data['email']}.")
    return redirect("account")


@never_cache
@login_required
@require_POST
def account_password(request: HttpRequest) -> HttpResponse:
    # Django's own form: the old password, the new one twice, AUTH_PASSWORD_VALIDATORS.
    form = PasswordChangeForm(cast(User, request.user), request.POST)
    if not form.is_valid():
        return _account_page(request, password_form=form)
    user = form.save()
    update_session_auth_hash(request, user)  # this browser stays signed in
    messages.success(request, "Your password is changed.")
    return redirect("account")
