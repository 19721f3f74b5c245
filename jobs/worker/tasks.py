"""Celery tasks of a job's life: take an id, call one service, decide retry."""

from __future__ import annotations

import time
import traceback
from typing import Any

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded

from accounts.notifications import MailNotSent
from core.disclosure import internal_error, public_error
from jobs import callbacks, owner_mail
from jobs.dispatch import (
    CALLBACK_TASK,
    CHUNK_TASK,
    MERGE_TASK,
    NOTIFY_TASK,
    RENDER_TASK,
    WEBHOOK_RESEND_TASK,
)
from jobs.error_codes import JobErrorCode
from jobs.worker import chunked, execution
from jobs.worker.execution import Defer
from jobs.worker.outages import outage_countdown, storage_unavailable
from rendering.data_stack import on_a_chunk_of_its_own
from rendering.errors import RenderError


class RenderTask(Task[Any, Any]):
    def on_failure(
        self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any
    ) -> None:
        # Runs in the worker's main process when the hard time limit killed the child:
        # the child can no longer fail the job itself.
        if isinstance(exc, TimeLimitExceeded) and args:
            execution.job_fail_timeout(
                job_id=args[0], limit="hard", worker=self.request.hostname or ""
            )


# No result stored: the job row is the result, and the django-db backend wrote two rows a
# job (STARTED, SUCCESS) that nothing reads.
@shared_task(bind=True, base=RenderTask, name=RENDER_TASK, max_retries=None, ignore_result=True)
def render_pdf(
    self: RenderTask, job_id: str, outage_since: float | None = None, outage_retries: int = 0
) -> None:
    try:
        # Celery's frames end where a layout's recursion would cross a chunk's end.
        outcome = on_a_chunk_of_its_own(lambda: execution.job_execute(job_id=job_id))
    except SoftTimeLimitExceeded:
        execution.job_fail_timeout(job_id=job_id, limit="soft")
        return
    except Exception as exc:  # permanent errors were handled inside; the rest may pass
        # A storage outage's budget runs from its first error, carried by the retries.
        outage = storage_unavailable(exc)
        since = (outage_since or time.time()) if outage else None
        countdown = execution.job_handle_transient_error(
            job_id=job_id,
            error=exc,
            traceback=traceback.format_exc(),
            task_id=self.request.id or "",
            outage_since=since,
            outage_retries=outage_retries,
        )
        if countdown is None:
            return
        kwargs = {"outage_since": since, "outage_retries": outage_retries + 1} if outage else {}
        raise self.retry(countdown=countdown, exc=exc, kwargs=kwargs) from exc
    if isinstance(outcome, Defer):
        # Another delivery of this job may still be rendering; look again once its
        # heartbeat would have gone stale.
        raise self.retry(countdown=outcome.seconds)


def _chunk_failed(task: Task[Any, Any], job_id: str, exc: Exception) -> None:
    """A chunk or merge error: permanent ones fail the job now; others retry this task
    alone (the other chunks keep their results) until its retries are used up."""
    if isinstance(exc, RenderError):
        execution.job_fail_permanently(
            job_id=job_id,
            error=public_error(exc.message, job_id=job_id),
            code=exc.code,
            dead_letter=False,
        )
        return
    if isinstance(exc, SoftTimeLimitExceeded):
        execution.job_fail_timeout(job_id=job_id, limit="soft")
        return
    if storage_unavailable(exc):
        # The store's outage budget, carried in the retries' kwargs, not max_retries.
        kwargs = dict(task.request.kwargs or {})
        since = kwargs.setdefault("outage_since", time.time())
        countdown = outage_countdown(since=since, retries=kwargs.get("outage_retries", 0))
        if countdown is not None:
            kwargs["outage_retries"] = kwargs.get("outage_retries", 0) + 1
            raise task.retry(
                countdown=countdown, exc=exc, kwargs=kwargs, max_retries=task.request.retries + 1
            ) from exc
    if task.request.retries >= (task.max_retries or 0):
        # Exception text names hosts, paths and internals: the tenant gets a reference.
        shown, _ = internal_error(
            exc,
            job_id=job_id,
            what=f"A part of the report failed {task.request.retries + 1} times",
        )
        execution.job_fail_permanently(
            job_id=job_id, error=shown, code=JobErrorCode.RETRIES_EXHAUSTED
        )
        return
    countdown = execution.retry_countdown(attempt=task.request.retries + 1)
    raise task.retry(countdown=countdown, exc=exc) from exc


@shared_task(bind=True, name=CHUNK_TASK, max_retries=3)
def render_chunk(
    self: Task[Any, Any], /, job_id: str, index: int, **_outage: Any
) -> dict[str, Any] | None:
    try:
        return on_a_chunk_of_its_own(lambda: chunked.chunk_execute(job_id=job_id, index=index))
    except Exception as exc:
        _chunk_failed(self, job_id, exc)
        return None  # the job has failed: the merge finds it so and only cleans up


@shared_task(bind=True, name=MERGE_TASK, max_retries=3, ignore_result=True)
def merge_chunks(
    self: Task[Any, Any], /, results: list[dict[str, Any] | None], job_id: str, **_outage: Any
) -> str:
    try:
        return chunked.chunks_merge_execute(job_id=job_id, results=results)
    except Exception as exc:
        _chunk_failed(self, job_id, exc)
        return ""


@shared_task(bind=True, name=CALLBACK_TASK, max_retries=None)
def deliver_callback(self: Task[Any, Any], /, job_id: str) -> None:
    try:
        callbacks.callback_deliver(job_id=job_id)
    except callbacks.CallbackDeferred as exc:  # the tenant's share is busy: not an attempt
        raise self.retry(countdown=exc.seconds, exc=exc) from exc
    except callbacks.CallbackError as exc:
        countdown = execution.retry_countdown(attempt=self.request.retries + 1)
        raise self.retry(countdown=countdown, exc=exc) from exc


@shared_task(name=WEBHOOK_RESEND_TASK)
def resend_webhook(delivery_id: int) -> None:
    # Once: an operator's resend is not retried; its attempt shows in the admin.
    callbacks.webhook_resend(delivery_id=delivery_id)


# A mail server that stays away for longer than these retries (~10 min with the production
# backoff) loses the mail; the job's outcome is still on its page and in the API.
NOTIFY_MAX_RETRIES = 8


@shared_task(bind=True, name=NOTIFY_TASK, max_retries=NOTIFY_MAX_RETRIES)
def notify_owner(self: Task[Any, Any], /, job_id: str) -> str:
    try:
        return owner_mail.job_notify_owner(job_id=job_id)
    except MailNotSent as exc:
        countdown = execution.retry_countdown(attempt=self.request.retries + 1)
        raise self.retry(countdown=countdown, exc=exc) from exc
