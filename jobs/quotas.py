"""Per-tenant quotas, enforced in the shared database so every web process sees one count.

`PDF_MAX_JOBS_IN_FLIGHT` bounds the jobs a tenant has queued or processing, counting a
cancelled job whose render has not stopped yet (its worker is still busy with it: see
jobs.worker.heartbeat) and every result-cache hit (it completes at once, but its
callback and mail still cost the callbacks queue). A submit locks
its tenant's user row for the rest of its transaction before counting, so concurrent
submits of one tenant (on any process or host) count one after another and the limit is
never overshot; other tenants' submits are not held up (PostgreSQL row lock; SQLite
serialises writers anyway).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils import timezone

from jobs.models import TERMINAL_STATUSES, JobStatus, PdfJob
from rendering.errors import ApplicationError

IN_FLIGHT = (JobStatus.QUEUED, JobStatus.PROCESSING)


class QuotaExceeded(ApplicationError):
    """429 with Retry-After; the body names the limit (`limit`) and its value."""

    http_status = 429
    code = "quota_exceeded"

    def __init__(self, message: str, *, limit: str, value: int, retry_after: int) -> None:
        super().__init__(message)
        self.details = {"limit": limit, "limit_value": value}
        self.retry_after = retry_after


def still_rendering_cancelled() -> Q:
    """Cancelled jobs whose worker has not let go yet: their attempt keeps the heartbeat
    fresh until the render stops and then clears it (a killed one goes stale)."""
    fresh = timezone.now() - timedelta(seconds=settings.PDF_HEARTBEAT_STALE_SECONDS)
    return Q(status=JobStatus.CANCELLED, heartbeat_at__gte=fresh)


def holding_a_worker() -> Q:
    """Jobs a worker is busy with: processing, or cancelled and still rendering."""
    return Q(status=JobStatus.PROCESSING) | still_rendering_cancelled()


def jobs_in_flight_count(*, owner: Any) -> int:
    return (
        PdfJob.objects.filter(owner=owner)
        .filter(Q(status__in=IN_FLIGHT) | still_rendering_cancelled())
        .count()
    )


def job_slot_reserve(*, owner: Any) -> None:
    """Inside the transaction that creates the job: raise QuotaExceeded if the tenant
    already has PDF_MAX_JOBS_IN_FLIGHT jobs queued or processing."""
    limit = settings.PDF_MAX_JOBS_IN_FLIGHT
    # The lock is held until the job row commits, so the next submit counts it.
    get_user_model().objects.select_for_update().filter(pk=owner.pk).values_list("pk").first()
    count = jobs_in_flight_count(owner=owner)
    if count >= limit:
        raise QuotaExceeded(
            f"You have {count} jobs queued or processing; the limit is {limit} "
            "(PDF_MAX_JOBS_IN_FLIGHT). Submit again when some have finished.",
            limit="PDF_MAX_JOBS_IN_FLIGHT",
            value=limit,
            retry_after=settings.PDF_QUOTA_RETRY_AFTER_SECONDS,
        )


def callbacks_outstanding_count(*, owner: Any) -> int:
    """The tenant's finished jobs whose callback is neither delivered nor given up."""
    return (
        PdfJob.objects.filter(owner=owner, status__in=TERMINAL_STATUSES, callback_sent_at=None)
        .exclude(callback_url="")
        .filter(callback_attempts__lt=settings.CALLBACK_MAX_ATTEMPTS)
        .count()
    )


def callback_slot_reserve(*, owner: Any) -> None:
    """Inside the submit's transaction, after job_slot_reserve (which holds the tenant's
    lock): QuotaExceeded once the tenant has CALLBACK_MAX_OUTSTANDING_PER_TENANT callbacks
    waiting to be delivered, so no tenant builds an unbounded backlog on the callbacks
    queue (a result-cache hit or a cancel makes a delivery without ever being in flight)."""
    limit = settings.CALLBACK_MAX_OUTSTANDING_PER_TENANT
    count = callbacks_outstanding_count(owner=owner)
    if count >= limit:
        raise QuotaExceeded(
            f"You have {count} completion callbacks waiting to be delivered; the limit is "
            f"{limit} (CALLBACK_MAX_OUTSTANDING_PER_TENANT). Check that your callback_url "
            "answers, or submit without one.",
            limit="CALLBACK_MAX_OUTSTANDING_PER_TENANT",
            value=limit,
            retry_after=settings.PDF_QUOTA_RETRY_AFTER_SECONDS,
        )
