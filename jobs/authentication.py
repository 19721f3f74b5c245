"""DRF authentication by the X-API-Key header."""

from __future__ import annotations

from typing import Any

from rest_framework import authentication, exceptions
from rest_framework.request import Request

from jobs.api_keys import api_key_authenticate
from jobs.log_context import tenant_log_bind

API_KEY_HEADER = "X-API-Key"


class ApiKeyAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, None] | None:
        raw_key = request.headers.get(API_KEY_HEADER)
        if not raw_key:
            return None
        user = api_key_authenticate(raw_key)
        if user is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked API key.")
        tenant_log_bind(user)
        return user, None

    def authenticate_header(self, request: Request) -> str:
        # Makes DRF answer 401 (not 403) when no credentials were sent.
        return API_KEY_HEADER
