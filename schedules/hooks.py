"""What a job's final transition tells the schedules: the run waiting on it may deliver."""

from __future__ import annotations

from jobs.models import PdfJob
from schedules import dispatch
from schedules.models import RunOutcome, ScheduleRun


def job_settled_received(*, job: PdfJob, **_: object) -> None:
    """Connected to jobs.signals.job_settled: a final job may complete a schedule run."""
    if job.is_terminal:
        schedule_job_finished(job=job)


def schedule_job_finished(*, job: PdfJob) -> None:
    """If a schedule run is waiting on the job, queue its deliveries. A run's job carries
    the run's id as its batch_id, so a job without one costs no query. A lost message is
    resent by the due task's sweep."""
    if job.batch_id is None:
        return
    waiting = ScheduleRun.objects.filter(run_id=job.batch_id, outcome=RunOutcome.RENDERING)
    if waiting.exists():
        dispatch.schedule_deliver_enqueue(run_id=job.batch_id)
