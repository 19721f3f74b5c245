"""The runs' messages to the workers: the combined PDF's build and the owner's mail. A
broker failure is logged, never raised."""

from __future__ import annotations

import logging
from uuid import UUID

from core.celery import app
from runs.models import Run

logger = logging.getLogger(__name__)

RUN_COMBINE_TASK = "jobs.run_combine"
RUN_NOTIFY_TASK = "runs.notify_owner"


def run_combine_enqueue(*, run_id: UUID | str) -> None:
    """Build a finished run's combined PDF on a worker. Not sent: the build's claim is let
    go, so the next download claims and sends it again."""
    try:
        app.send_task(RUN_COMBINE_TASK, args=[str(run_id)])
    except Exception:
        logger.warning("could not enqueue run %s's combined PDF; the next download will", run_id)
        Run.objects.filter(run_id=run_id).update(combined_started_at=None)


def run_notify_enqueue(*, run_id: UUID | str) -> None:
    """The one mail to the run's owner that it ended. Best effort, like a job's: a lost
    message loses a mail; the run's page and API still show the outcome."""
    try:
        app.send_task(RUN_NOTIFY_TASK, args=[str(run_id)])
    except Exception:
        logger.warning("could not enqueue the owner's mail of run %s", run_id)
