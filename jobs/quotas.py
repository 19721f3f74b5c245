"""Per-tenant quotas, enforced in the shared database so every web process sees one count.

`PDF_MAX_JOBS_IN_FLIGHT` bounds the jobs a tenant has queued or processing. A submit locks
its tenant's user row for the rest of its transaction before counting, so concurrent
submits of one tenant (on any process or host) count one after another and the limit is
never overshot; other tenants' submits are not held up (PostgreSQL row lock; SQLite
serialises writers anyway).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model

from jobs.models import JobStatus, PdfJob
from rendering.error_codes import ErrorCode
from rendering.errors import ApplicationError

IN_FLIGHT = (JobStatus.QUEUED, JobStatus.PROCESSING)


class QuotaExceeded(ApplicationError):
    """429 with Retry-After; the body names the limit (`limit`) and its value."""

    http_status = 429
    code = ErrorCode.QUOTA_EXCEEDED

    def __init__(self, message: str, *, limit: str, value: int, retry_after: int) -> None:
        super().__init__(message)
        self.details = {"limit": limit, "limit_value": value}
        self.retry_after = retry_after


def jobs_in_flight_count(*, owner: Any) -> int:
    return PdfJob.objects.filter(owner=owner, status__in=IN_FLIGHT).count()


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
