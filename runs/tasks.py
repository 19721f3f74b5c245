"""The runs' tasks: build a finished run's combined PDF, mail its owner that it ended.
Thin: each calls one service."""

from __future__ import annotations

from typing import Any

from celery import Task, shared_task
from django.conf import settings

from accounts.notifications import MailNotSent
from runs.combined import run_combined_build
from runs.dispatch import RUN_COMBINE_TASK, RUN_NOTIFY_TASK
from runs.mail import run_notify_owner

NOTIFY_MAX_RETRIES = 8


@shared_task(
    name=RUN_COMBINE_TASK,
    ignore_result=True,
    soft_time_limit=settings.RUN_COMBINED_BUILD_SECONDS - 30,
    time_limit=settings.RUN_COMBINED_BUILD_SECONDS,
)
def build_run_combined(run_id: str) -> str:
    return run_combined_build(run_id=run_id)


@shared_task(bind=True, name=RUN_NOTIFY_TASK, max_retries=NOTIFY_MAX_RETRIES)
def notify_run_owner(self: Task[Any, Any], /, run_id: str) -> str:
    try:
        return run_notify_owner(run_id=run_id)
    except MailNotSent as exc:
        raise self.retry(countdown=min(600, 15 * 2**self.request.retries), exc=exc) from exc
