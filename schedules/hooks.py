"""What a job's final transition tells the schedules: the run waiting on it may deliver;
and a schedule's job sends no "your report is ready" mail of its own."""

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


def job_mail_wanted_received(*, job: PdfJob, **_: object) -> bool:
    """Connected to jobs.signals.job_mail_wanted: a schedule's job is delivered by the
    schedule (its mail, webhook or S3), so its owner gets no per-job mail each tick. A
    job's batch_id is its schedule run's id."""
    if job.batch_id is None:
        return True
    return not ScheduleRun.objects.filter(run_id=job.batch_id).exists()
