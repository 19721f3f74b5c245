"""Fair dispatch between tenants: which queued job a free worker slot should take.

Messages reach the workers in the order they were sent, so 1,000 jobs from one tenant
would otherwise run before a job another tenant sends a moment later. Each worker slot
that takes a render message asks first whether another tenant has a job waiting while
running fewer jobs than the message's tenant; if so it runs that job instead and sends
the message it took back to the queue. The effect is round robin between the tenants
that have work waiting, weighted by how many slots each already holds: a tenant's
burst keeps every idle slot busy, and a newcomer gets the next slot that frees up.

Limits: a render already running is never interrupted, so a newcomer waits for one slot
to free (at most one render time); within a tenant, jobs run oldest first; a job waiting
for a retry's backoff (attempts > 0) is only started by its own message, so fairness
never cuts a backoff short. The choice is one indexed query per render message (two when
the tenant already has jobs processing).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.conf import settings
from django.db.models import Count, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce

from jobs.models import JobStatus, PdfJob
from jobs.quotas import holding_a_worker


def _processing_of(owner: Any) -> Subquery:
    return Subquery(
        # A cancelled job still rendering holds its slot like a processing one.
        PdfJob.objects.filter(holding_a_worker(), owner=owner)
        .order_by()
        .values("owner")
        .annotate(n=Count("pk"))
        .values("n"),
        output_field=IntegerField(),
    )


def job_fairer_than(*, job_id: UUID | str) -> UUID | None:
    """A queued job of a tenant with fewer jobs processing than `job_id`'s tenant (the
    least busy tenant's oldest), or None when `job_id` is as fair a choice as any."""
    if not settings.PDF_FAIR_DISPATCH:
        return None
    # The job's owner and how many jobs it has processing, in one query.
    mine = (
        PdfJob.objects.filter(job_id=job_id, status=JobStatus.QUEUED)
        .annotate(busy=Coalesce(_processing_of(OuterRef("owner")), Value(0)))
        .values("owner", "busy")
        .first()
    )
    if mine is None:
        return None
    busy = mine["busy"]
    if busy == 0:
        return None  # nobody can be running fewer than none
    return (
        PdfJob.objects.filter(status=JobStatus.QUEUED, attempts=0)
        .exclude(owner=mine["owner"])
        .annotate(busy=Coalesce(_processing_of(OuterRef("owner")), Value(0)))
        .filter(busy__lt=busy)
        .order_by("busy", "created_at")
        .values_list("job_id", flat=True)
        .first()
    )
