"""Who may follow jobs live (SSE and WebSocket alike): 401 without a valid caller, 404
for a job that is missing or someone else's."""

from __future__ import annotations

from typing import Any

from accounts.authentication import Caller, caller_resolve
from jobs import selectors
from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError


def follower_resolve(*, api_key: str | None, session_user: Any) -> Caller:
    """The caller; raises an ApplicationError with status 401 if there is none."""
    caller = caller_resolve(api_key=api_key, session_user=session_user)
    if caller is None:
        raise ApplicationError(
            "Authentication credentials were not provided or are invalid.",
            code=ErrorCode.NOT_AUTHENTICATED,
            http_status=401,
        )
    return caller


def follow_authorize(*, api_key: str | None, session_user: Any, job_id: str) -> tuple[Caller, str]:
    """The caller and the job id they may follow; raises an ApplicationError with status
    401 or 404."""
    caller = follower_resolve(api_key=api_key, session_user=session_user)
    return caller, str(selectors.job_get(owner=caller.user, job_id=job_id).job_id)
