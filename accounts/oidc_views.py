"""Sign in with the OpenID provider: start the code flow, take its answer; a provider that is
down or refuses gives a page that says so (never a 500)."""

from __future__ import annotations

from typing import Any

import requests
from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.generic import View
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

from accounts.oidc_provider import ProviderUnavailable, oidc_setting, sso_enabled


def sso_error(request: HttpRequest, message: str, *, status: int) -> HttpResponse:
    context = {"message": message, "provider": settings.OIDC_PROVIDER_NAME}
    return render(request, "auth/sso_error.html", context, status=status)


class OidcLoginView(OIDCAuthenticationRequestView):
    get_settings = staticmethod(oidc_setting)

    def __init__(self, **kwargs: Any) -> None:
        # Not the library's __init__: it reads the authorization endpoint (discovery) when
        # the view is made; here it is read in get(), where a failure can be answered.
        View.__init__(self, **kwargs)

    def get(self, request: HttpRequest) -> HttpResponse:
        if not sso_enabled():
            raise Http404("Single sign-on is not configured.")
        try:
            self.OIDC_OP_AUTH_ENDPOINT = oidc_setting("OIDC_OP_AUTHORIZATION_ENDPOINT")
        except ProviderUnavailable as exc:
            return sso_error(request, str(exc), status=503)
        self.OIDC_RP_CLIENT_ID = settings.OIDC_RP_CLIENT_ID
        redirect: HttpResponse = super().get(request)
        return redirect


class OidcCallbackView(OIDCAuthenticationCallbackView):
    get_settings = staticmethod(oidc_setting)

    def get(self, request: HttpRequest) -> HttpResponse:
        if not sso_enabled():
            raise Http404("Single sign-on is not configured.")
        if request.GET.get("error"):
            request.sso_refusal = (  # type: ignore[attr-defined]
                f"The sign-in provider refused: "
                f"{request.GET.get('error_description') or request.GET['error']}."
            )
        try:
            response: HttpResponse = super().get(request)
            return response
        except ProviderUnavailable as exc:
            return sso_error(request, str(exc), status=503)
        except requests.HTTPError as exc:
            status = exc.response.status_code if exc.response is not None else "no"
            return sso_error(
                request,
                f"The sign-in provider refused this sign-in (HTTP {status}); start again.",
                status=502,
            )
        except requests.RequestException as exc:
            return sso_error(
                request,
                f"The sign-in provider at {settings.OIDC_ISSUER_URL} did not answer "
                f"({type(exc).__name__}); try again in a moment.",
                status=503,
            )
        except SuspiciousOperation as exc:
            # A stale or replayed state, a token for another client: start over.
            return sso_error(request, f"This sign-in could not be trusted: {exc}", status=400)

    def login_failure(self) -> HttpResponse:
        reason = getattr(self.request, "sso_refusal", "") or (
            "The sign-in provider did not sign you in here (the account may be inactive)."
        )
        return sso_error(self.request, reason, status=403)
