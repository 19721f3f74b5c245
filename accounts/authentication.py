"""Who is calling: DRF authentication by the X-API-Key header, and the same for SSE and
WebSocket (API key first, then the session)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import SESSION_KEY, get_user_model
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from accounts.models import ApiKey
from accounts.services import api_key_resolve
from core.logs import tenant_log_bind

API_KEY_HEADER = "X-API-Key"


class ApiKeyAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, ApiKey] | None:
        """(user, key): `request.auth` is the key, so a job knows which key signs its
        webhooks."""
        raw_key = request.headers.get(API_KEY_HEADER)
        if not raw_key:
            return None
        key = api_key_resolve(raw_key)
        if key is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked API key.")
        tenant_log_bind(key.user)
        return key.user, key  # request.auth is the key (rate limits count per tenant)

    def authenticate_header(self, request: Request) -> str:
        # Makes DRF answer 401 (not 403) when no credentials were sent.
        return API_KEY_HEADER


@dataclass(frozen=True)
class Caller:
    user: Any
    key_prefix: str | None  # the API key used, so its revocation can end the stream


def caller_resolve(*, api_key: str | None, session_user: Any) -> Caller | None:
    """Who is calling the non-DRF endpoints (SSE, WebSocket): the API key first, then the
    session; None if neither. A wrong API key never falls back to the session."""
    if api_key:
        key = api_key_resolve(api_key)
        return None if key is None else Caller(user=key.user, key_prefix=key.prefix)
    if session_user is not None and getattr(session_user, "is_authenticated", False):
        return Caller(user=session_user, key_prefix=None)
    return None


def asgi_caller_is_known(scope: dict[str, Any]) -> bool:
    """Whether an ASGI request carries a valid API key or a signed-in session (read
    before its body: the body limit lets only known callers send large bodies)."""
    headers = {name.decode("latin-1").lower(): value for name, value in scope.get("headers", [])}
    raw_key = headers.get(API_KEY_HEADER.lower())
    if raw_key:
        return api_key_resolve(raw_key.decode("latin-1")) is not None
    cookie = SimpleCookie()
    with contextlib.suppress(CookieError):
        cookie.load(headers.get("cookie", b"").decode("latin-1"))
    morsel = cookie.get(settings.SESSION_COOKIE_NAME)
    if morsel is None or not morsel.value:
        return False
    session = import_module(settings.SESSION_ENGINE).SessionStore(morsel.value)
    user_id = session.get(SESSION_KEY)
    return (
        user_id is not None and get_user_model().objects.filter(pk=user_id, is_active=True).exists()
    )
