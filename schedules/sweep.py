"""The due task's work: claim the due ticks, and resend what a lost message left waiting
(a run still starting, a run whose job finished without its deliveries queued)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from jobs.models import TERMINAL_STATUSES
from schedules import dispatch
from schedules.models import RunOutcome, ScheduleRun
from schedules.services import schedules_claim_due


def schedules_due_run() -> dict[str, int]:
    """One pass of beat's due-schedules task; what it did, as counts (the task's result)."""
    now = timezone.now()
    claimed = schedules_claim_due(now=now)
    # Past two ticks of the task (and a minute), a starting run's message was lost.
    stale = now - timedelta(seconds=max(60, 2 * settings.SCHEDULE_TICK_SECONDS))
    starting = list(
        ScheduleRun.objects.filter(outcome=RunOutcome.STARTING, started_at__lt=stale)
        .exclude(pk__in=[run.pk for run in claimed])
        .values_list("run_id", flat=True)[:200]
    )
    for run_id in starting:
        dispatch.schedule_run_start_enqueue(run_id=run_id)
    finished = list(
        ScheduleRun.objects.filter(
            outcome=RunOutcome.RENDERING, job__status__in=TERMINAL_STATUSES
        ).values_list("run_id", flat=True)[:200]
    )
    for run_id in finished:
        dispatch.schedule_deliver_enqueue(run_id=run_id)
    return {"claimed": len(claimed), "restarted": len(starting), "settled": len(finished)}
