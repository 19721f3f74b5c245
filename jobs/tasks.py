"""Celery tasks: take an id, call one service, decide retry."""

from __future__ import annotations

import traceback

from celery import shared_task

from jobs import services
from jobs.services import RENDER_TASK


@shared_task(bind=True, name=RENDER_TASK, max_retries=None)
def render_pdf(self, job_id: str) -> None:  # type: ignore[no-untyped-def]
    try:
        services.job_run(job_id=job_id, worker=self.request.hostname or "")
    except Exception as exc:  # permanent errors were handled inside; the rest may pass
        countdown = services.job_handle_transient_error(
            job_id=job_id,
            error=exc,
            retries=self.request.retries,
            traceback=traceback.format_exc(),
            task_id=self.request.id or "",
            worker=self.request.hostname or "",
        )
        if countdown is None:
            return
        raise self.retry(countdown=countdown, exc=exc) from exc
