"""A run's counters and status, recounted from its jobs whenever one of them finishes or is
sent again (`job_settled_received`, connected to jobs.signals.job_settled)."""

from __future__ import annotations

from uuid import UUID

from django.db import transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from jobs.models import JobStatus, PdfJob
from jobs.returning import update_returning
from runs import dispatch
from runs.live import run_event_publish
from runs.models import Run, RunStatus


def _status(*, total: int, completed: int, failed: int) -> str:
    if completed + failed < total:
        return RunStatus.RUNNING
    if not failed:
        return RunStatus.COMPLETED
    return RunStatus.FAILED if not completed else RunStatus.PARTIAL


def run_recount(*, run_id: UUID | str) -> Run | None:
    """Count the run's records from its jobs and store the counts and status; None for a
    job group without a run. The run's row is locked first, so of two jobs finishing at
    once the later recount counts both (each counts after its own job committed)."""
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(run_id=run_id).first()
        if run is None:
            return None
        counts = PdfJob.objects.filter(batch_id=run_id).aggregate(
            jobs=Count("pk"),
            completed=Count("pk", filter=Q(status=JobStatus.COMPLETED)),
            failed=Count("pk", filter=Q(status__in=(JobStatus.FAILED, JobStatus.CANCELLED))),
        )
        refused = run.total - counts["jobs"]  # records refused at submit have no job
        completed, failed = counts["completed"], counts["failed"] + refused
        status = _status(total=run.total, completed=completed, failed=failed)
        finished = status != RunStatus.RUNNING
        updated = update_returning(
            Run.objects.filter(pk=run.pk),
            completed=completed,
            failed=failed,
            status=status,
            finished_at=(run.finished_at or timezone.now()) if finished else None,
            # A retry changes what the combined PDF holds: build it again on download.
            combined_file=run.combined_file if finished else "",
            combined_started_at=run.combined_started_at if finished else None,
            combined_done=run.combined_done if finished else 0,
            event_seq=F("event_seq") + 1,
        )
        if updated is not None:
            transaction.on_commit(lambda: run_event_publish(updated))
            if finished and run.status == RunStatus.RUNNING:
                # It ends now (once; again after a retry ends it again): one mail for all.
                transaction.on_commit(lambda: dispatch.run_notify_enqueue(run_id=run_id))
        return updated


def run_recount_on_commit(*, run_id: UUID | str) -> None:
    # robust: a failed recount must never fail the worker's transition; the next one heals it.
    transaction.on_commit(lambda: run_recount(run_id=run_id), robust=True)


def job_settled_received(*, job: PdfJob, new: bool, **_: object) -> None:
    """A record of a run finished or was sent again: the run's counters follow. A job
    created final (a cache hit at submit) is counted by the submit's own recount."""
    if job.batch_id is not None and not new:
        run_recount(run_id=job.batch_id)


def job_mail_wanted_received(*, job: PdfJob, **_: object) -> bool:
    """Connected to jobs.signals.job_mail_wanted: a record of a run (any output, a batch
    submit's items too) gets no mail of its own; the run mails once when it ends
    (runs.mail)."""
    if job.batch_id is None:
        return True
    return not Run.objects.filter(run_id=job.batch_id).exists()
