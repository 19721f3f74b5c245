"""Beat's periodic tasks: the reconciler, the dead-letter re-drive, retention and alerts."""

from __future__ import annotations

from celery import shared_task

from jobs import dead_letters, retention
from jobs.dispatch import (
    EVALUATE_ALERTS_TASK,
    RECONCILE_TASK,
    REDRIVE_DEAD_LETTERS_TASK,
    RETENTION_TASK,
)
from jobs.ops import alerts, history, queues, reconciler


@shared_task(name=RECONCILE_TASK)
def reconcile() -> dict[str, int]:
    return reconciler.jobs_reconcile()


@shared_task(name=REDRIVE_DEAD_LETTERS_TASK)
def redrive_dead_letters() -> int:
    return dead_letters.dead_letters_redrive_due()


@shared_task(name=RETENTION_TASK)
def apply_retention() -> dict[str, int]:
    return retention.retention_run()


@shared_task(name=EVALUATE_ALERTS_TASK)
def evaluate_alerts() -> dict[str, str]:
    stats = queues.broker_stats()
    if stats is not None:
        history.queue_history_record(stats)  # the dashboard's queue-depth chart
    return alerts.alerts_evaluate()
