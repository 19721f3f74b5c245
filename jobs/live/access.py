"""Who may follow jobs live (SSE and WebSocket alike): 401 without a valid caller, 404
for a job that is missing or someone else's."""

from __future__ import annotations

from typing import Any

from accounts.authentication import caller_resolve
from jobs import selectors
from rendering.errors import ApplicationError


def follower_resolve(*, api_key: str | None, session_user: Any) -> Any:
    """The calling user; raises an ApplicationError with status 401 if there is none."""
    user = caller_resolve(api_key=api_key, session_user=session_user)
    if user is None:
        raise ApplicationError(
            "Authentication credentials were not provided or are invalid.",
            code="not_authenticated",
            http_status=401,
        )
    return user


def follow_authorize(*, api_key: str | None, session_user: Any, job_id: str) -> str:
    """The job id the caller may follow; raises an ApplicationError with status 401 or 404."""
    user = follower_resolve(api_key=api_key, session_user=session_user)
    return str(selectors.job_get(owner=user, job_id=job_id).job_id)
