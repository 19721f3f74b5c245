"""The schedules' tasks: beat's due pass, a run's start, a run's deliveries. Thin: each
calls one service and decides retry."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from schedules.delivery import DeliveriesPending, schedule_run_deliver
from schedules.dispatch import (
    SCHEDULE_DELIVER_TASK,
    SCHEDULE_RUN_START_TASK,
    SCHEDULES_DUE_TASK,
)
from schedules.running import schedule_run_start
from schedules.sweep import schedules_due_run


@shared_task(name=SCHEDULES_DUE_TASK)
def schedules_due() -> dict[str, int]:
    return schedules_due_run()


@shared_task(name=SCHEDULE_RUN_START_TASK)
def start_schedule_run(run_id: str) -> str:
    run = schedule_run_start(run_id=run_id)
    return "gone_or_started" if run is None else str(run.outcome)


@shared_task(bind=True, name=SCHEDULE_DELIVER_TASK, max_retries=None)
def deliver_schedule_run(self: Any, run_id: str) -> str:
    try:
        return schedule_run_deliver(run_id=run_id)
    except DeliveriesPending as exc:
        # 30 s, 60 s, 120 s ... (capped at 15 min); the run counts its own attempts.
        raise self.retry(countdown=min(900, 30 * 2**self.request.retries), exc=exc) from exc
