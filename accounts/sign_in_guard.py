"""Password spraying: failed sign-ins counted per address across every username.

django-axes locks a username from an address after AXES_FAILURE_LIMIT failures; trying
one or two passwords on many usernames never trips it. Every failure from an address is
counted here too (Redis, shared by all web processes), and once SIGN_IN_FAILURES_PER_IP
is spent, any sign-in from that address, even a right one, is answered as axes answers
a lockout (429) until the window has room again.
"""

from __future__ import annotations

from typing import Any

from axes.helpers import get_client_ip_address
from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.core.exceptions import PermissionDenied
from django.dispatch import receiver
from django.http import HttpRequest
from redis.exceptions import RedisError

from accounts.throttles import rate_limiter, rate_parse, rate_take


def _key(request: HttpRequest) -> str | None:
    address = get_client_ip_address(request)
    return f"signin-failures:ip{address}" if address else None


class SprayGuardBackend:
    """Before the model backend: refuses every sign-in from an address whose failure
    budget is spent; authenticates nobody itself (no get_user either, as axes' own
    backend, so a session never names it)."""

    def authenticate(self, request: HttpRequest | None, *args: Any, **kwargs: Any) -> None:
        key = _key(request) if request is not None else None
        if key is None:
            return None
        item = rate_parse(settings.SIGN_IN_FAILURES_PER_IP)
        try:
            spent = not rate_limiter().test(item, key)
        except (RedisError, OSError):
            return None  # fail open: axes' own lockout, in the database, still holds
        if spent:
            # Answered by axes' middleware like its own lockouts: 429 and its message.
            request.axes_locked_out = True  # type: ignore[union-attr]
            raise PermissionDenied
        return None


@receiver(user_login_failed)
def sign_in_failure_count(
    sender: Any, credentials: Any, request: Any = None, **kwargs: Any
) -> None:
    if isinstance(request, HttpRequest) and (key := _key(request)) is not None:
        rate_take(rate_parse(settings.SIGN_IN_FAILURES_PER_IP), key)
