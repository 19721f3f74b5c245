"""What the ops dashboard shows, read from the database (jobs, alerts), Redis (queues,
workers, queue history) and nothing else: plain data for the page and its JSON feed."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import (
    DurationField,
    ExpressionWrapper,
    F,
    OuterRef,
    Q,
    Subquery,
)
from django.db.models.expressions import CombinedExpression
from django.urls import reverse
from django.utils import timezone

from jobs.models import Alert, DeadLetter, JobStatus, PdfJob
from jobs.ops.alerts import RULES, finished_since
from jobs.ops.history import queue_history
from jobs.ops.queues import broker_stats
from jobs.worker.presence import workers_alive


@dataclass(frozen=True)
class Range:
    key: str
    label: str
    span: timedelta
    bucket: timedelta


RANGES = {
    r.key: r
    for r in (
        Range("1h", "1 hour", timedelta(hours=1), timedelta(minutes=2)),
        Range("6h", "6 hours", timedelta(hours=6), timedelta(minutes=10)),
        Range("24h", "24 hours", timedelta(hours=24), timedelta(minutes=30)),
        Range("7d", "7 days", timedelta(days=7), timedelta(hours=4)),
    )
}
DEFAULT_RANGE = "6h"


def _percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile; None for an empty bucket (a gap in the chart)."""
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[max(0, math.ceil(q * len(ordered)) - 1)], 3)


def job_series(window: Range, *, now: datetime | None = None) -> dict[str, list[Any]]:
    """Per bucket: completions, failures, failure rate, p50/p95 generation time. One query
    for the finished jobs of the window (two timestamps and a status each)."""
    now = now or timezone.now()
    start = now - window.span
    size = window.bucket.total_seconds()
    count = math.ceil(window.span.total_seconds() / size)
    first = math.floor(start.timestamp() / size) * size
    completed, failed = [0] * (count + 1), [0] * (count + 1)
    durations: list[list[float]] = [[] for _ in range(count + 1)]
    rows = PdfJob.objects.filter(
        status__in=[JobStatus.COMPLETED, JobStatus.FAILED], completed_at__gte=start
    ).values_list("status", "created_at", "completed_at")
    for status, created_at, completed_at in rows.iterator(chunk_size=5000):
        if completed_at is None:  # filtered out already; says so to the type checker
            continue
        index = min(count, int((completed_at.timestamp() - first) // size))
        if status == JobStatus.COMPLETED:
            completed[index] += 1
            durations[index].append((completed_at - created_at).total_seconds())
        else:
            failed[index] += 1
    return {
        "t": [first + i * size for i in range(count + 1)],
        "completed": completed,
        "failed": failed,
        "failure_rate": [
            round(f / (c + f), 4) if c + f else None for c, f in zip(completed, failed, strict=True)
        ],
        "p50": [_percentile(d, 0.5) for d in durations],
        "p95": [_percentile(d, 0.95) for d in durations],
    }


def queue_series(window: Range) -> dict[str, list[Any]]:
    """Queue depth samples (the deepest of each bucket), per queue."""
    size = window.bucket.total_seconds()
    # Finer than the job buckets: queues change by the minute.
    size = max(60.0, size / 5)
    by_bucket: dict[float, dict[str, int]] = {}
    queues: set[str] = set()
    for sample in queue_history(since=time.time() - window.span.total_seconds()):
        slot = math.floor(sample["t"] / size) * size
        depths = by_bucket.setdefault(slot, {})
        for name, depth in sample["depth"].items():
            queues.add(name)
            depths[name] = max(depths.get(name, 0), depth)
    slots = sorted(by_bucket)
    series: dict[str, list[Any]] = {"t": slots}
    for name in sorted(queues):
        series[name] = [by_bucket[slot].get(name) for slot in slots]
    return series


def _job_link(job_pk: int) -> str:
    return reverse("admin:jobs_pdfjob_change", args=[job_pk])


def _took() -> ExpressionWrapper[CombinedExpression]:
    return ExpressionWrapper(F("completed_at") - F("created_at"), output_field=DurationField())


def slowest_jobs(*, since: datetime, limit: int = 10) -> list[dict[str, Any]]:
    jobs = (
        PdfJob.objects.filter(status=JobStatus.COMPLETED, completed_at__gte=since)
        .annotate(took=_took())
        .select_related("template")
        .order_by("-took")[:limit]
    )
    return [
        {
            "job_id": str(job.job_id),
            "url": _job_link(job.pk),
            "template": job.template.slug if job.template else "inline",
            "seconds": round(job.took.total_seconds(), 2),
            "pages": job.page_count,
            "completed_at": job.completed_at.isoformat() if job.completed_at else None,
        }
        for job in jobs
    ]


def failed_jobs(*, since: datetime, limit: int = 10) -> list[dict[str, Any]]:
    letter = DeadLetter.objects.filter(job=OuterRef("pk")).values("pk")[:1]
    jobs = (
        PdfJob.objects.filter(status=JobStatus.FAILED, completed_at__gte=since)
        .annotate(dead_letter_pk=Subquery(letter))
        .order_by("-completed_at")[:limit]
    )
    return [
        {
            "job_id": str(job.job_id),
            "url": _job_link(job.pk),
            "error_code": job.error_code or "unknown",
            "error": job.error[:200],
            "attempts": job.attempts,
            "failed_at": job.completed_at.isoformat() if job.completed_at else None,
            "dead_letter_url": (
                reverse("admin:jobs_deadletter_change", args=[job.dead_letter_pk])
                if job.dead_letter_pk
                else None
            ),
        }
        for job in jobs
    ]


def _reading_now(rule: str) -> str | None:
    """What an open alert's rule reads at this moment: the message stored with the alert is
    what was seen when it opened, and would stay on screen unchanged for as long as it is
    open."""
    read = RULES.get(rule)
    reading = read() if read is not None else None
    return reading.message if reading is not None else None


def alerts_current(*, resolved_since: datetime) -> list[dict[str, Any]]:
    rows = Alert.objects.filter(Q(resolved_at__isnull=True) | Q(resolved_at__gte=resolved_since))
    return [
        {
            "rule": alert.get_rule_display(),
            "open": alert.is_open,
            "message": alert.message if alert.is_open else alert.resolved_message,
            "now": _reading_now(alert.rule) if alert.is_open else None,
            "opened_at": alert.opened_at.isoformat(),
            "resolved_at": alert.resolved_at.isoformat() if alert.resolved_at else None,
            "url": reverse("admin:jobs_alert_change", args=[alert.pk]),
        }
        for alert in rows.order_by("resolved_at", "-opened_at")[:20]
    ]


def workers_with_jobs() -> list[dict[str, Any]]:
    """Live workers and the job each pool child is rendering (a processing job's `worker`
    is `host:pid` of the child)."""
    running = {
        job.worker: job
        for job in PdfJob.objects.filter(status=JobStatus.PROCESSING).only(
            "pk", "job_id", "worker", "stage", "progress", "started_at"
        )[:200]
    }
    workers = []
    for worker in workers_alive():
        host = worker.get("host", "")
        current = [
            {
                "job_id": str(job.job_id),
                "url": _job_link(job.pk),
                "stage": job.stage,
                "progress": job.progress,
                "pid": pid,
            }
            for pid in worker.get("processes", [])
            if (job := running.get(f"{host}:{pid}")) is not None
        ]
        workers.append(
            {
                "hostname": worker["hostname"],
                "queues": worker.get("queues", []),
                "children": len(worker.get("processes", [])),
                "jobs": current,
            }
        )
    return workers


def dashboard_snapshot(range_key: str) -> dict[str, Any]:
    window = RANGES.get(range_key, RANGES[DEFAULT_RANGE])
    now = timezone.now()
    hour_ago = now - timedelta(hours=1)
    stats = broker_stats()
    hour = finished_since(hour_ago)
    average = hour["average"]
    return {
        "range": window.key,
        "bucket_seconds": window.bucket.total_seconds(),
        "last_hour": {
            "completed": hour["completed"],
            "failed": hour["failed"],
            "average_seconds": average.total_seconds() if average is not None else None,
        },
        "generated_at": now.isoformat(),
        "jobs": job_series(window, now=now),
        "queues": queue_series(window),
        "broker": (
            None
            if stats is None
            else {
                "queues": {
                    name: {
                        "depth": q.depth,
                        "oldest_age": None if math.isnan(q.oldest_age) else q.oldest_age,
                    }
                    for name, q in stats.queues.items()
                },
                "workers_alive": stats.workers_alive,
            }
        ),
        "alerts": alerts_current(resolved_since=now - timedelta(hours=24)),
        "slowest": slowest_jobs(since=hour_ago),
        "failed": failed_jobs(since=hour_ago),
        "workers": workers_with_jobs(),
    }
