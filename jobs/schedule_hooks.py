"""What a job's final transition tells the schedules: the run waiting on it may deliver."""

from __future__ import annotations

from jobs import dispatch
from jobs.models import PdfJob
from jobs.schedule_models import RunOutcome, ScheduleRun


def schedule_job_finished(*, job: PdfJob) -> None:
    """If a schedule run is waiting on the job, queue its deliveries (one indexed lookup
    for every other job). A lost message is resent by the due task's sweep."""
    run_id = (
        ScheduleRun.objects.filter(job_id=job.pk, outcome=RunOutcome.RENDERING)
        .values_list("run_id", flat=True)
        .first()
    )
    if run_id is not None:
        dispatch.schedule_deliver_enqueue(run_id=run_id)
