"""Who is calling, for the non-DRF endpoints (SSE, WebSocket): API key first, then session."""

from __future__ import annotations

from typing import Any

from jobs.api_keys import api_key_authenticate


def caller_resolve(*, api_key: str | None, session_user: Any) -> Any | None:
    """The authenticated user, or None. A wrong API key never falls back to the session."""
    if api_key:
        return api_key_authenticate(api_key)
    if session_user is not None and getattr(session_user, "is_authenticated", False):
        return session_user
    return None
