"""Request-rate limits per tenant (accounts.tenancy: every key and the browser session of
a tenant share one budget, so minting keys buys no rate; per address for anonymous
callers), counted in Redis so every web process shares one budget.

One class per kind of request; a view names the ones that apply. A refused request is a
429 with Retry-After, and the body names the setting that set the rate.

The counting is the `limits` library's sliding-window counter: one atomic Lua call per
request (DRF's own throttle read and rewrote a pickled list of every request's time, two
round trips whose size grew with the rate, and two processes could both take the last slot).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import Any

from django.conf import settings
from limits import RateLimitItemPerSecond
from limits.storage import RedisStorage
from limits.strategies import SlidingWindowCounterRateLimiter
from redis.exceptions import RedisError
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts.tenancy import tenant_id_for
from workspaces.current import workspace_current
from workspaces.models import Workspace

logger = logging.getLogger(__name__)

SETTING_OF_SCOPE = {
    "submit": "API_RATE_SUBMIT",
    "preview": "API_RATE_PREVIEW",
    "template_write": "API_RATE_TEMPLATE_WRITE",
    "status_read": "API_RATE_STATUS_READ",
    "thumbnail": "API_RATE_THUMBNAIL",
}

_limiter: tuple[str, SlidingWindowCounterRateLimiter] | None = None
_limiter_lock = threading.Lock()


def rate_limiter() -> SlidingWindowCounterRateLimiter:
    """This process's limiter on REDIS_URL (its connection pool serves every request)."""
    global _limiter
    with _limiter_lock:
        if _limiter is None or _limiter[0] != settings.REDIS_URL:
            storage = RedisStorage(
                settings.REDIS_URL,
                key_prefix=settings.LIMITS_KEY_PREFIX,
                # A Redis that does not answer must not hold a request: the check fails open.
                socket_connect_timeout=1,
                socket_timeout=1,
            )
            _limiter = (settings.REDIS_URL, SlidingWindowCounterRateLimiter(storage))
        return _limiter[1]


def rate_take(item: RateLimitItemPerSecond, key: str) -> bool:
    """Count one request against `key`'s budget; False once it is spent."""
    try:
        return bool(rate_limiter().hit(item, key))
    except (RedisError, OSError):
        # Fail open: with Redis down a submit still answers 202 (the row is the truth and
        # the reconciler sends it later); the in-flight quota, in the database, still holds.
        logger.warning("rate limit %s not checked: Redis is unavailable", key.split(":")[0])
        return True


def tenant_rate_take(*, scope: str, workspace: Workspace) -> bool:
    """Count one request of the workspace (the tenant) against the scope's rate outside
    DRF (the browser pages' views); False once the budget is spent."""
    item = rate_parse(str(getattr(settings, SETTING_OF_SCOPE[scope])))
    return rate_take(item, f"{scope}:tenant{tenant_id_for(workspace=workspace)}")


def rate_parse(rate: str) -> RateLimitItemPerSecond:
    """DRF's rate syntax (N/s, N/min, N/hour, N/day: the period's first letter counts)."""
    number, period = rate.split("/")
    seconds = {"s": 1, "m": 60, "h": 3600, "d": 86400}[period.strip()[0]]
    return RateLimitItemPerSecond(int(number), seconds)


class _KeyRateThrottle(BaseThrottle):
    scope: str
    item: RateLimitItemPerSecond
    key: str

    def get_cache_key(self, request: Request, view: Any) -> str:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            # Every key and member of the workspace: one budget.
            ident = f"tenant{tenant_id_for(workspace=workspace_current(request))}"
        else:
            ident = f"ip{self.get_ident(request)}"
        return f"{self.scope}:{ident}"

    def allow_request(self, request: Request, view: Any) -> bool:
        # Read per request rather than at import, so a setting change takes effect.
        self.item = rate_parse(str(getattr(settings, SETTING_OF_SCOPE[self.scope])))
        self.key = self.get_cache_key(request, view)
        allowed = rate_take(self.item, self.key)
        if not allowed:
            # For the 429 body (core.exception_handler).
            request.throttled_setting = SETTING_OF_SCOPE[self.scope]  # type: ignore[attr-defined]
        return allowed

    def wait(self) -> float | None:
        """Seconds until the budget has room again (the 429's Retry-After)."""
        try:
            stats = rate_limiter().get_window_stats(self.item, self.key)
        except (RedisError, OSError):
            return float(self.item.get_expiry())
        return float(min(self.item.get_expiry(), max(1, math.ceil(stats.reset_time - time.time()))))


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


# A view that lists and creates (runs, schedules): a read takes from the caller's
# API_RATE_STATUS_READ, a create starts work like a submit and takes from API_RATE_SUBMIT.
# (A comment, not a docstring: drf-spectacular would show a docstring as the operation's.)
class ReadOrSubmitThrottledApi(APIView):
    def get_throttles(self) -> list[BaseThrottle]:
        read = self.request.method in SAFE_METHODS
        return [StatusReadThrottle() if read else SubmitThrottle()]


class TemplateWriteThrottle(_KeyRateThrottle):
    """Counts only writes: reading a template is a status-read-like request."""

    scope = "template_write"

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return super().allow_request(request, view)
