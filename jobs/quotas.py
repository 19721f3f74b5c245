"""Per-tenant quotas, enforced in the shared database so every web process sees one count.

Per workspace, jobs submitted and pages and bytes rendered per UTC day and month
(WORKSPACE_*_PER_DAY / _PER_MONTH, or the workspace's own quota row).

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

from datetime import UTC, datetime, timedelta
from math import ceil
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Model, Q, Sum
from django.db.transaction import TransactionManagementError
from django.utils import timezone

from jobs.error_codes import JobErrorCode
from jobs.models import TERMINAL_STATUSES, JobStatus, PdfJob
from rendering.errors import ApplicationError
from workspaces.limits import NAMES, PERIODS, setting_name, workspace_limits
from workspaces.models import Workspace

IN_FLIGHT = (JobStatus.QUEUED, JobStatus.PROCESSING)


class QuotaExceeded(ApplicationError):
    """429 with Retry-After; the body names the limit (`limit`) and its value."""

    http_status = 429
    code = JobErrorCode.QUOTA_EXCEEDED

    def __init__(self, message: str, *, limit: str, value: int, retry_after: int) -> None:
        super().__init__(message, details={"limit": limit, "limit_value": value})
        self.retry_after = retry_after


def still_rendering_since() -> datetime:
    """The oldest heartbeat of a cancelled job that still counts as rendering."""
    return timezone.now() - timedelta(seconds=settings.PDF_HEARTBEAT_STALE_SECONDS)


def still_rendering_cancelled(*, since: datetime | None = None) -> Q:
    """Cancelled jobs whose worker has not let go yet: their attempt keeps the heartbeat
    fresh until the render stops and then clears it (a killed one goes stale). `since`:
    another cutoff than still_rendering_since()'s now (a query compiled once)."""
    fresh = still_rendering_since() if since is None else since
    return Q(status=JobStatus.CANCELLED, heartbeat_at__gte=fresh)


def holding_a_worker(*, since: datetime | None = None) -> Q:
    """Jobs a worker is busy with: processing, or cancelled and still rendering."""
    return Q(status=JobStatus.PROCESSING) | still_rendering_cancelled(since=since)


def jobs_in_flight_count(*, owner: Any) -> int:
    return (
        PdfJob.objects.filter(owner=owner)
        .filter(Q(status__in=IN_FLIGHT) | still_rendering_cancelled())
        .count()
    )


def _slot_statements() -> tuple[str, str]:
    """The in-flight slot's two statements as SQL, built once per process: the tenant's
    user row locked (`FOR UPDATE` where the database has it), then the count of
    jobs_in_flight_count. Composing them through the ORM on every submit cost more than
    both round trips; they must stay two statements, because in READ COMMITTED a count in
    the locking statement would read the snapshot taken before the lock was granted, and
    miss the job the previous holder just committed."""
    statements = _SLOT_SQL.get(connection.vendor)
    if statements is None:
        quote = connection.ops.quote_name
        user_model = get_user_model()
        user_table, user_pk = quote(user_model._meta.db_table), _column(user_model, "pk")
        column = {name: _column(PdfJob, name) for name in ("owner", "status", "heartbeat_at")}
        # Names from the models' _meta, quoted; every value goes as a parameter.
        lock = (
            f"SELECT {user_pk} FROM {user_table} WHERE {user_pk} = %s"  # noqa: S608
            + (" FOR UPDATE" if connection.features.has_select_for_update else "")
        )
        count = (
            f"SELECT COUNT(*) FROM {quote(PdfJob._meta.db_table)} "  # noqa: S608
            f"WHERE {column['owner']} = %s AND ({column['status']} IN (%s, %s) "
            f"OR ({column['status']} = %s AND {column['heartbeat_at']} >= %s))"
        )
        statements = _SLOT_SQL[connection.vendor] = (lock, count)
    return statements


_SLOT_SQL: dict[str, tuple[str, str]] = {}


def _column(model: type[Model], name: str) -> str:
    """The quoted column of a concrete field (`pk`: the primary key's)."""
    field = model._meta.pk if name == "pk" else model._meta.get_field(name)
    return connection.ops.quote_name(str(getattr(field, "column", "")))


def job_slot_reserve(*, owner: Any, count: int = 1) -> None:
    """Inside the transaction that creates the job (or a run's `count` jobs): raise
    QuotaExceeded if the tenant would have more than PDF_MAX_JOBS_IN_FLIGHT jobs queued or
    processing."""
    if connection.features.has_select_for_update and connection.get_autocommit():
        # As select_for_update: outside a transaction the lock would end at once.
        raise TransactionManagementError("job_slot_reserve runs inside transaction.atomic().")
    limit = settings.PDF_MAX_JOBS_IN_FLIGHT
    lock, count_sql = _slot_statements()
    # The same rows as jobs_in_flight_count: queued or processing, or cancelled with a
    # fresh heartbeat (still_rendering_cancelled).
    fresh = timezone.now() - timedelta(seconds=settings.PDF_HEARTBEAT_STALE_SECONDS)
    with connection.cursor() as cursor:
        # The lock is held until the job row commits, so the next submit counts it; a
        # crashed process's transaction rolls back and its lock goes with it, so no slot
        # is ever held by anything but a job row (which the reconciler settles).
        cursor.execute(lock, [owner.pk])
        cursor.execute(
            count_sql,
            [
                owner.pk,
                *(str(status) for status in IN_FLIGHT),
                str(JobStatus.CANCELLED),
                connection.ops.adapt_datetimefield_value(fresh),
            ],
        )
        in_flight = int(cursor.fetchone()[0])
    if in_flight + count > limit:
        adding = f" and this run adds {count}" if count > 1 else ""
        raise QuotaExceeded(
            f"You have {in_flight} jobs queued or processing{adding}; the limit is {limit} "
            "(PDF_MAX_JOBS_IN_FLIGHT). Submit again when some have finished.",
            limit="PDF_MAX_JOBS_IN_FLIGHT",
            value=limit,
            retry_after=settings.PDF_QUOTA_RETRY_AFTER_SECONDS,
        )


def period_start(now: datetime, period: str) -> datetime:
    """The start of the UTC day or month `now` is in."""
    day = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return day if period == "day" else day.replace(day=1)


def period_end(now: datetime, period: str) -> datetime:
    start = period_start(now, period)
    if period == "day":
        return start + timedelta(days=1)
    return (start + timedelta(days=32)).replace(day=1)


def workspace_usage(*, workspace: Any, now: datetime | None = None) -> dict[str, int]:
    """What the workspace used this UTC day and month: jobs submitted, and pages and bytes
    of the PDFs its jobs rendered (a cache hit renders nothing, so it adds no pages)."""
    now = now or timezone.now()
    used: dict[str, int] = {}
    jobs = PdfJob.objects.filter(workspace=workspace)
    for period in PERIODS:
        start = period_start(now, period)
        used[f"jobs_per_{period}"] = jobs.filter(created_at__gte=start).count()
        rendered = jobs.filter(
            status=JobStatus.COMPLETED, completed_at__gte=start, cached_from__isnull=True
        ).aggregate(pages=Sum("page_count"), size=Sum("size_bytes"))
        used[f"pages_per_{period}"] = int(rendered["pages"] or 0)
        used[f"bytes_per_{period}"] = int(rendered["size"] or 0)
    return used


def workspace_quota_reserve(*, workspace: Any, count: int = 1) -> None:
    """Inside the transaction that creates the job (or a run's `count` jobs): raise
    QuotaExceeded (429, Retry-After the start of the next day or month) if the workspace
    used up a limit of this period, or its jobs would go past one."""
    limits = workspace_limits(workspace=workspace)
    if not any(limits.values()):
        return
    # The row lock orders the workspace's concurrent submits, so none overshoots the count.
    Workspace.objects.select_for_update().filter(pk=workspace.pk).values_list("pk").first()
    now = timezone.now()
    used = workspace_usage(workspace=workspace, now=now)
    for name in NAMES:
        limit = limits[name]
        # Pages and bytes are known only once rendered; jobs are counted as they come.
        adding = count - 1 if name.startswith("jobs_") else 0
        if limit and used[name] + adding >= limit:
            metric, period = name.split("_per_")
            resets = period_end(now, period)
            raise QuotaExceeded(
                f"This workspace used {used[name]} {metric} this {period}; its limit is "
                f"{limit} ({setting_name(name)}). It resets at {resets:%Y-%m-%d %H:%M} UTC.",
                limit=setting_name(name),
                value=limit,
                retry_after=max(1, ceil((resets - now).total_seconds())),
            )


def workspace_usage_report(*, workspace: Any) -> list[dict[str, Any]]:
    """Each quota of the workspace with its use so far and when its period resets: what
    owners see (GET /api/v1/usage and the usage page)."""
    now = timezone.now()
    used = workspace_usage(workspace=workspace, now=now)
    limits = workspace_limits(workspace=workspace)
    rows = []
    for name in NAMES:
        metric, period = name.split("_per_")
        rows.append(
            {
                "name": name,
                "metric": metric,
                "period": period,
                "setting": setting_name(name),
                "used": used[name],
                "limit": limits[name],
                "resets_at": period_end(now, period),
            }
        )
    return rows


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
