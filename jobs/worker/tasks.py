"""Celery tasks: take an id, call one service, decide retry."""

from __future__ import annotations

import traceback
from typing import Any

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded

from jobs import callbacks, notify
from jobs.ops import alerts, dead_letters, history, queues, reconciler
from jobs.worker import execution
from jobs.worker.dispatch import (
    CALLBACK_TASK,
    EVALUATE_ALERTS_TASK,
    NOTIFY_TASK,
    RECONCILE_TASK,
    REDRIVE_DEAD_LETTERS_TASK,
    RENDER_TASK,
)
from jobs.worker.execution import Defer


class RenderTask(Task):
    def on_failure(
        self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any
    ) -> None:
        # Runs in the worker's main process when the hard time limit killed the child:
        # the child can no longer fail the job itself.
        if isinstance(exc, TimeLimitExceeded) and args:
            execution.job_fail_timeout(
                job_id=args[0], limit="hard", worker=self.request.hostname or ""
            )


@shared_task(bind=True, base=RenderTask, name=RENDER_TASK, max_retries=None)
def render_pdf(self: RenderTask, job_id: str) -> None:
    try:
        outcome = execution.job_execute(job_id=job_id)
    except SoftTimeLimitExceeded:
        execution.job_fail_timeout(job_id=job_id, limit="soft")
        return
    except Exception as exc:  # permanent errors were handled inside; the rest may pass
        countdown = execution.job_handle_transient_error(
            job_id=job_id,
            error=exc,
            traceback=traceback.format_exc(),
            task_id=self.request.id or "",
        )
        if countdown is None:
            return
        raise self.retry(countdown=countdown, exc=exc) from exc
    if isinstance(outcome, Defer):
        # Another delivery of this job may still be rendering; look again once its
        # heartbeat would have gone stale.
        raise self.retry(countdown=outcome.seconds)


@shared_task(name=RECONCILE_TASK)
def reconcile() -> dict[str, int]:
    return reconciler.jobs_reconcile()


@shared_task(name=REDRIVE_DEAD_LETTERS_TASK)
def redrive_dead_letters() -> int:
    return dead_letters.dead_letters_redrive_due()


@shared_task(bind=True, name=CALLBACK_TASK, max_retries=None)
def deliver_callback(self: Task, job_id: str) -> None:
    try:
        callbacks.callback_deliver(job_id=job_id)
    except callbacks.CallbackError as exc:
        countdown = execution.retry_countdown(attempt=self.request.retries + 1)
        raise self.retry(countdown=countdown, exc=exc) from exc


# A mail server that stays away for longer than these retries (~10 min with the production
# backoff) loses the mail; the job's outcome is still on its page and in the API.
NOTIFY_MAX_RETRIES = 8


@shared_task(bind=True, name=NOTIFY_TASK, max_retries=NOTIFY_MAX_RETRIES)
def notify_owner(self: Task, job_id: str) -> str:
    try:
        return notify.job_notify_owner(job_id=job_id)
    except notify.MailNotSent as exc:
        countdown = execution.retry_countdown(attempt=self.request.retries + 1)
        raise self.retry(countdown=countdown, exc=exc) from exc


@shared_task(name=EVALUATE_ALERTS_TASK)
def evaluate_alerts() -> dict[str, str]:
    stats = queues.broker_stats()
    if stats is not None:
        history.queue_history_record(stats)  # the dashboard's queue-depth chart
    return alerts.alerts_evaluate()
