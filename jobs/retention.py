"""Retention: a job's PDF is deleted PDF_RETENTION_DAYS after the job completed (the job
stays, expired), and finished jobs are deleted JOB_RETENTION_DAYS after they finished.

Safe to run twice at once: each run claims the jobs it expires or deletes with
`SELECT … FOR UPDATE SKIP LOCKED`, so two runs take disjoint batches, and deleting an
object that is already gone is not an error. A stored object can be shared by result-cache
hits (jobs.result_cache); it is deleted only once no unexpired job points at it. Each run
commits its expiries before it looks for such jobs, so of two runs expiring the last two
jobs of one object, the later sees both expired and deletes it. A cache hit locks the job
it reuses while it makes the new job, which a run skips, so an object is never deleted
under a job being made.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.core.files.storage import storages
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from jobs.metrics import PDFS_DELETED
from jobs.models import TERMINAL_STATUSES, PdfJob

logger = logging.getLogger(__name__)

BATCH = 500


def _expire_batch(jobs: QuerySet[PdfJob], *, now: datetime, batch: int) -> tuple[int, set[str]]:
    """Mark up to `batch` of these jobs expired; their storage keys."""
    with transaction.atomic():
        claimed = list(
            jobs.filter(expired_at__isnull=True)
            .exclude(pdf_file="")
            .order_by("completed_at")
            .select_for_update(skip_locked=True)
            .values_list("pk", "pdf_file")[:batch]
        )
        PdfJob.objects.filter(pk__in=[pk for pk, _ in claimed]).update(expired_at=now)
    return len(claimed), {key for _, key in claimed}


def pdf_object_release(key: str) -> bool:
    """Delete the stored object unless an unexpired job still points at it; True if
    deleted (or already gone)."""
    if PdfJob.objects.filter(pdf_file=key, expired_at__isnull=True).exists():
        return False
    try:
        storages["reports"].delete(key)  # a missing object is not an error
    except OSError:
        logger.warning("could not delete expired PDF %s", key, exc_info=True)
        return False
    PDFS_DELETED.inc()
    return True


def _expire(jobs: QuerySet[PdfJob], *, now: datetime, batch: int) -> int:
    expired = 0
    while True:
        count, keys = _expire_batch(jobs, now=now, batch=batch)
        for key in keys:  # after the commit: see the module docstring
            pdf_object_release(key)
        expired += count
        if count < batch:
            return expired


def pdfs_expire(*, now: datetime | None = None, batch: int = BATCH) -> int:
    """Expire the PDFs of jobs completed more than PDF_RETENTION_DAYS ago; how many."""
    if not settings.PDF_RETENTION_DAYS:
        return 0
    now = now or timezone.now()
    cutoff = now - timedelta(days=settings.PDF_RETENTION_DAYS)
    return _expire(PdfJob.objects.filter(completed_at__lt=cutoff), now=now, batch=batch)


def jobs_prune(*, now: datetime | None = None, batch: int = BATCH) -> int:
    """Delete jobs that finished more than JOB_RETENTION_DAYS ago (their PDFs first, so no
    object outlives every row that points at it); how many."""
    if not settings.JOB_RETENTION_DAYS:
        return 0
    now = now or timezone.now()
    cutoff = now - timedelta(days=settings.JOB_RETENTION_DAYS)
    old = PdfJob.objects.filter(status__in=TERMINAL_STATUSES, completed_at__lt=cutoff)
    _expire(old, now=now, batch=batch)
    pruned = 0
    while True:
        with transaction.atomic():
            pks = list(old.select_for_update(skip_locked=True).values_list("pk", flat=True)[:batch])
            PdfJob.objects.filter(pk__in=pks).delete()  # deliveries, dead letters cascade
        pruned += len(pks)
        if len(pks) < batch:
            return pruned


def retention_run(*, now: datetime | None = None) -> dict[str, int]:
    """The beat task's body."""
    expired = pdfs_expire(now=now)
    pruned = jobs_prune(now=now)
    if expired or pruned:
        logger.info("retention: %d PDFs expired, %d jobs deleted", expired, pruned)
    return {"pdfs_expired": expired, "jobs_pruned": pruned}
