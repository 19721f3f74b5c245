"""Request-rate limits per API key (per user for the browser's session, per address for
anonymous callers), counted in Redis so every web process shares one budget.

One class per kind of request; a view names the ones that apply. A refused request is a
429 with Retry-After, and the body names the setting that set the rate.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.cache import caches
from redis.exceptions import RedisError
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

logger = logging.getLogger(__name__)

SETTING_OF_SCOPE = {
    "submit": "API_RATE_SUBMIT",
    "preview": "API_RATE_PREVIEW",
    "template_write": "API_RATE_TEMPLATE_WRITE",
    "status_read": "API_RATE_STATUS_READ",
}


class _KeyRateThrottle(SimpleRateThrottle):
    scope: str

    def __init__(self) -> None:
        # Read per request rather than at import, so a setting change takes effect.
        self.cache = caches["throttle"]
        super().__init__()

    def get_rate(self) -> str:
        return str(getattr(settings, SETTING_OF_SCOPE[self.scope]))

    def get_cache_key(self, request: Request, view: Any) -> str:
        prefix = getattr(request.auth, "prefix", None)
        if prefix:
            ident = f"key{prefix}"  # the random public part: never reused by a new key
        elif request.user and request.user.is_authenticated:
            ident = f"user{request.user.pk}"
        else:
            ident = f"ip{self.get_ident(request)}"
        return f"{self.scope}:{ident}"

    def allow_request(self, request: Request, view: Any) -> bool:
        try:
            allowed = super().allow_request(request, view)
        except (RedisError, OSError):
            # Fail open: with Redis down a submit still answers 202 (the row is the truth
            # and the reconciler sends it later); the in-flight quota, in the database,
            # still holds.
            logger.warning("rate limit %s not checked: Redis is unavailable", self.scope)
            return True
        if not allowed:
            # For the 429 body (config.exception_handler).
            request.throttled_setting = SETTING_OF_SCOPE[self.scope]  # type: ignore[attr-defined]
        return allowed


class SubmitThrottle(_KeyRateThrottle):
    scope = "submit"


def submit_budget_take(request: Request) -> bool:
    """Count one more submit against the caller's API_RATE_SUBMIT outside a view's own
    check (each item of a batch after the first); False once the budget is spent."""
    return SubmitThrottle().allow_request(request, None)


class PreviewThrottle(_KeyRateThrottle):
    scope = "preview"


class StatusReadThrottle(_KeyRateThrottle):
    scope = "status_read"


class TemplateWriteThrottle(_KeyRateThrottle):
    """Counts only writes: reading a template is a status-read-like request."""

    scope = "template_write"

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return super().allow_request(request, view)
