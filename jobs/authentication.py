"""DRF authentication by the X-API-Key header."""

from __future__ import annotations

from typing import Any

from rest_framework import authentication, exceptions
from rest_framework.request import Request

from jobs.api_keys import api_key_resolve

API_KEY_HEADER = "X-API-Key"


class ApiKeyAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        raw_key = request.headers.get(API_KEY_HEADER)
        if not raw_key:
            return None
        key = api_key_resolve(raw_key)
        if key is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked API key.")
        return key.user, key  # request.auth is the key: rate limits count per key

    def authenticate_header(self, request: Request) -> str:
        # Makes DRF answer 401 (not 403) when no credentials were sent.
        return API_KEY_HEADER
