"""The schedules' messages to the workers: their task names (kept from when they were in
jobs.dispatch, so queued messages keep working) and each publish. A broker failure is
logged, never raised: the due task's sweep sends again what is still waiting."""

from __future__ import annotations

import logging
from uuid import UUID

from core.celery import app

logger = logging.getLogger(__name__)

SCHEDULES_DUE_TASK = "jobs.schedules_due"
SCHEDULE_RUN_START_TASK = "jobs.schedule_run_start"
SCHEDULE_DELIVER_TASK = "jobs.schedule_deliver"


def schedule_run_start_enqueue(*, run_id: UUID | str) -> None:
    """A schedule run's data fetch and submit. Best effort: the due task sends a run that
    is still starting again after a while (schedules.sweep)."""
    try:
        app.send_task(SCHEDULE_RUN_START_TASK, args=[str(run_id)])
    except Exception:
        logger.warning("could not enqueue schedule run %s; the due task will", run_id)


def schedule_deliver_enqueue(*, run_id: UUID | str, countdown: float | None = None) -> None:
    """A finished schedule run's deliveries; a lost message is resent by the due task."""
    try:
        app.send_task(SCHEDULE_DELIVER_TASK, args=[str(run_id)], countdown=countdown)
    except Exception:
        logger.warning("could not enqueue the deliveries of schedule run %s", run_id)
