"""Who is calling, for the non-DRF endpoints (SSE, WebSocket): API key first, then session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jobs.api_keys import api_key_resolve


@dataclass(frozen=True)
class Caller:
    user: Any
    key_prefix: str | None  # the API key used, so its revocation can end the stream


def caller_resolve(*, api_key: str | None, session_user: Any) -> Caller | None:
    """The authenticated caller, or None. A wrong API key never falls back to the session."""
    if api_key:
        key = api_key_resolve(api_key)
        return None if key is None else Caller(user=key.user, key_prefix=key.prefix)
    if session_user is not None and getattr(session_user, "is_authenticated", False):
        return Caller(user=session_user, key_prefix=None)
    return None
