"""Who may follow jobs live (SSE and WebSocket alike): 401 without a valid caller, 404
for a job that is missing or another workspace's, 403 for a role that may not view jobs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from django.conf import settings

from accounts.authentication import Caller, caller_resolve
from core.error_codes import ApiErrorCode
from jobs import selectors
from jobs.live.subscriptions import StreamBounds, job_follow, workspace_follow
from rendering.errors import ApplicationError
from workspaces.models import Workspace
from workspaces.permissions import Action, authorize


def follower_resolve(*, api_key: str | None, session_user: Any, session: Any = None) -> Caller:
    """The caller, if their role may view the workspace's jobs; raises an ApplicationError
    with status 401 if there is no caller, 403 if the role may not."""
    caller = caller_resolve(api_key=api_key, session_user=session_user, session=session)
    if caller is None:
        raise ApplicationError(
            "Authentication credentials were not provided or are invalid.",
            code=ApiErrorCode.NOT_AUTHENTICATED,
            http_status=401,
        )
    authorize(caller.actor, Action.JOB_VIEW, Workspace(pk=caller.workspace_id))
    return caller


def follow_authorize(
    *, api_key: str | None, session_user: Any, job_id: str, session: Any = None
) -> tuple[Caller, str]:
    """The caller and the job id they may follow; raises an ApplicationError with status
    401, 403 or 404."""
    caller = follower_resolve(api_key=api_key, session_user=session_user, session=session)
    job = selectors.job_get(workspace=caller.workspace_id, job_id=job_id)
    authorize(caller.actor, Action.JOB_VIEW, job)
    return caller, str(job.job_id)


def stream_member(caller: Caller) -> tuple[int, int] | None:
    """(user id, workspace id) of a session's stream, which ends when that person leaves
    the workspace; None for a key's stream (a key is the workspace's, not a person's)."""
    return None if caller.key_prefix else (int(caller.user.pk), caller.workspace_id)


def followed_as(caller: Caller) -> StreamBounds:
    """How `caller` follows any stream (a job's, a run's, the workspace's): an idle tick
    every SSE_HEARTBEAT_SECONDS, ended when the caller's key is revoked or their
    membership removed."""
    return StreamBounds(
        heartbeat=settings.SSE_HEARTBEAT_SECONDS,
        key_prefix=caller.key_prefix,
        member=stream_member(caller),
    )


def job_follow_as(
    caller: Caller, job_id: str, *, after_seq: int = -1
) -> AsyncIterator[dict[str, Any] | None]:
    """One job's events as `caller` follows them (SSE and WebSocket alike): the caller's
    key or membership ends the stream when it is revoked or removed."""
    return job_follow(job_id, after_seq=after_seq, **followed_as(caller))


def workspace_follow_as(caller: Caller) -> AsyncIterator[dict[str, Any] | None]:
    """Every event of the caller's workspace's jobs, as `caller` follows them."""
    return workspace_follow(caller.workspace_id, **followed_as(caller))
