"""A run's counters and status, recounted from its jobs whenever one of them finishes or is
sent again (jobs.transitions calls run_recount_on_commit)."""

from __future__ import annotations

from uuid import UUID

from django.db import transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from jobs.live.run_events import run_event_publish
from jobs.models import JobStatus, PdfJob, Run, RunStatus
from jobs.returning import update_returning


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
        return updated


def run_recount_on_commit(*, run_id: UUID | str) -> None:
    # robust: a failed recount must never fail the worker's transition; the next one heals it.
    transaction.on_commit(lambda: run_recount(run_id=run_id), robust=True)
