"""Who may follow a job live (SSE and WebSocket alike): 401 without a valid caller, 404
for a job that is missing or someone else's."""

from __future__ import annotations

from typing import Any

from accounts.authentication import caller_resolve
from jobs import selectors
from rendering.errors import ApplicationError


def follow_authorize(*, api_key: str | None, session_user: Any, job_id: str) -> str:
    """The job id the caller may follow; raises an ApplicationError with status 401 or 404."""
    user = caller_resolve(api_key=api_key, session_user=session_user)
    if user is None:
        raise ApplicationError(
            "Authentication credentials were not provided or are invalid.",
            code="not_authenticated",
            http_status=401,
        )
    return str(selectors.job_get(owner=user, job_id=job_id).job_id)
