"""Who is calling: DRF authentication by the X-API-Key header (and, on the drop-in routes,
HTTP basic auth or DocRaptor's user_credentials), and the same for SSE and WebSocket (API
key first, then the session)."""

from __future__ import annotations

import base64
import binascii
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
from accounts.services import API_KEY_PREFIX, api_key_resolve
from core.logs import tenant_log_bind
from workspaces.current import workspace_of_actor

API_KEY_HEADER = "X-API-Key"
# The most common first mistake: the key sent the OAuth way.
BEARER_HINT = (
    "This API does not read Authorization: Bearer; send the API key in the X-API-Key "
    "header instead (X-API-Key: <your key>)."
)


def bearer_sent(authorization: str | None) -> bool:
    return bool(authorization) and str(authorization).lower().startswith("bearer ")


def basic_auth_key(authorization: str | None) -> str | None:
    """The API key of an `Authorization: Basic` header: whichever of its username and
    password is shaped like one (Gotenberg, jsreport and DocRaptor clients send it either
    way), else the username. None when the header is not basic auth."""
    scheme, _, encoded = str(authorization or "").partition(" ")
    if scheme.lower() != "basic" or not encoded.strip():
        return None
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    halves = [half.strip() for half in decoded.partition(":")[::2]]
    # The half that is shaped like a key (jsreport's clients send a user name beside it).
    keys = [half for half in halves if half.startswith(f"{API_KEY_PREFIX}_")]
    return keys[0] if keys else (halves[0] or halves[1])


class ApiKeyAuthentication(authentication.BaseAuthentication):
    # The drop-in routes (dropins) also read the key where other services' clients
    # put credentials; the rest of the API only reads X-API-Key.
    basic_auth = False
    credential_fields: tuple[str, ...] = ()

    def _raw_key(self, request: Request) -> str | None:
        raw_key = request.headers.get(API_KEY_HEADER)
        if raw_key or not (self.basic_auth or self.credential_fields):
            return raw_key
        if self.basic_auth and (basic := basic_auth_key(request.headers.get("Authorization"))):
            return basic
        for name in self.credential_fields:
            sent = request.query_params.get(name)
            if not sent and isinstance(request.data, dict):
                sent = request.data.get(name)
            if isinstance(sent, str) and sent:
                return sent
        return None

    def authenticate(self, request: Request) -> tuple[Any, ApiKey] | None:
        """(user, key): `request.auth` is the key, so a job knows which key signs its
        webhooks."""
        raw_key = self._raw_key(request)
        if not raw_key:
            if bearer_sent(request.headers.get("Authorization")):
                raise exceptions.AuthenticationFailed(BEARER_HINT)
            return None
        key = api_key_resolve(raw_key)
        if key is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked API key.")
        tenant_log_bind(key.user)
        return key.user, key  # request.auth is the key (rate limits count per tenant)

    def authenticate_header(self, request: Request) -> str:
        # Makes DRF answer 401 (not 403) when no credentials were sent.
        return 'Basic realm="api"' if self.basic_auth else API_KEY_HEADER


class DropInKeyAuthentication(ApiKeyAuthentication):
    """The API key as the HTTP basic-auth username or password, or X-API-Key."""

    basic_auth = True


class DocRaptorKeyAuthentication(DropInKeyAuthentication):
    """...and as DocRaptor's `user_credentials` (a body field or a query parameter)."""

    credential_fields = ("user_credentials",)


def request_api_key(request: Request) -> ApiKey | None:
    """The API key a DRF request was authenticated with (ApiKeyAuthentication's
    `request.auth`); None for a browser session. What a submit records as the job's key."""
    return request.auth if isinstance(request.auth, ApiKey) else None


@dataclass(frozen=True)
class Caller:
    user: Any
    key_prefix: str | None  # the API key used, so its revocation can end the stream
    actor: Any = None  # whose role counts (workspaces.permissions): the key, else the user
    workspace_id: int = 0  # the workspace the stream follows


def caller_resolve(*, api_key: str | None, session_user: Any, session: Any = None) -> Caller | None:
    """Who is calling the non-DRF endpoints (SSE, WebSocket): the API key first, then the
    session (which chose the workspace); None if neither. A wrong API key never falls
    back to the session."""
    if api_key:
        key = api_key_resolve(api_key)
        if key is None:
            return None
        workspace = workspace_of_actor(key)
        return Caller(user=key.user, key_prefix=key.prefix, actor=key, workspace_id=workspace.pk)
    if session_user is not None and getattr(session_user, "is_authenticated", False):
        workspace = workspace_of_actor(session_user, session=session)
        return Caller(
            user=session_user, key_prefix=None, actor=session_user, workspace_id=workspace.pk
        )
    return None


def asgi_caller_is_known(scope: dict[str, Any]) -> bool:
    """Whether an ASGI request carries a valid API key or a signed-in session (read
    before its body: the body limit lets only known callers send large bodies)."""
    headers = {name.decode("latin-1").lower(): value for name, value in scope.get("headers", [])}
    raw_key = headers.get(API_KEY_HEADER.lower())
    if raw_key:
        return api_key_resolve(raw_key.decode("latin-1")) is not None
    # The drop-in routes' clients (a Gotenberg upload) send the key as basic auth.
    basic = basic_auth_key(headers.get("authorization", b"").decode("latin-1"))
    if basic:
        return api_key_resolve(basic) is not None
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
