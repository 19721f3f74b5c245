"""Service metrics in the Prometheus text format, computed from the database (the truth)
and the broker: the seed's generation-time histogram, completion and failure counters,
failure rate, plus queue depth, stuck jobs and dead letters."""

from __future__ import annotations

from datetime import timedelta

import redis
from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from jobs.models import DeadLetter, JobStatus, PdfJob

BUCKETS = (0.5, 1, 2, 5, 10, 30, 60, 120, 300)
WINDOW = timedelta(hours=1)


def _queue_depth() -> int | None:
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=2)
    try:
        return int(client.llen(settings.CELERY_TASK_DEFAULT_QUEUE))
    except redis.RedisError:
        return None
    finally:
        client.close()


def metrics_text() -> str:
    now = timezone.now()
    lines: list[str] = []

    def metric(name: str, kind: str, help_text: str, samples: list[tuple[str, float]]) -> None:
        lines.append(f"# HELP {name} {help_text}")
        lines.append(f"# TYPE {name} {kind}")
        lines.extend(f"{name}{labels} {value}" for labels, value in samples)

    by_status = dict(PdfJob.objects.values_list("status").annotate(n=Count("id")))
    metric(
        "pdf_jobs",
        "gauge",
        "Jobs by current status.",
        [(f'{{status="{s}"}}', by_status.get(s, 0)) for s in JobStatus.values],
    )

    recent = PdfJob.objects.filter(completed_at__gte=now - WINDOW)
    finished = recent.filter(status__in=[JobStatus.COMPLETED, JobStatus.FAILED])
    counts = finished.aggregate(
        completed=Count("id", filter=Q(status=JobStatus.COMPLETED)),
        failed=Count("id", filter=Q(status=JobStatus.FAILED)),
    )
    metric(
        "pdf_generation_finished_1h",
        "gauge",
        "Jobs finished in the last hour.",
        [(f'{{status="{k}"}}', v) for k, v in counts.items()],
    )
    total = counts["completed"] + counts["failed"]
    metric(
        "pdf_generation_failure_ratio_1h",
        "gauge",
        "Failed / finished in the last hour (the seed alerts above 0.05).",
        [("", round(counts["failed"] / total, 4) if total else 0)],
    )
    failures = dict(
        recent.filter(status=JobStatus.FAILED).values_list("error_code").annotate(n=Count("id"))
    )
    metric(
        "pdf_generation_failed_1h",
        "gauge",
        "Failures in the last hour by error type.",
        [(f'{{error_type="{code or "unknown"}"}}', n) for code, n in failures.items()],
    )

    durations = [
        (done - created).total_seconds()
        for created, done in recent.filter(status=JobStatus.COMPLETED).values_list(
            "created_at", "completed_at"
        )
        if done is not None
    ]
    samples = [(f'{{le="{b}"}}', sum(1 for d in durations if d <= b)) for b in BUCKETS]
    samples.append(('{le="+Inf"}', len(durations)))
    lines.append("# HELP pdf_generation_duration_seconds Submit-to-completion time, last hour.")
    lines.append("# TYPE pdf_generation_duration_seconds histogram")
    lines.extend(f"pdf_generation_duration_seconds_bucket{lb} {v}" for lb, v in samples)
    lines.append(f"pdf_generation_duration_seconds_sum {round(sum(durations), 3)}")
    lines.append(f"pdf_generation_duration_seconds_count {len(durations)}")

    stale = now - timedelta(seconds=settings.PDF_HEARTBEAT_STALE_SECONDS)
    stuck = PdfJob.objects.filter(status=JobStatus.PROCESSING, heartbeat_at__lt=stale).count()
    metric("pdf_jobs_stuck", "gauge", "Processing jobs whose heartbeat is stale.", [("", stuck)])
    letters = dict(DeadLetter.objects.values_list("permanent").annotate(n=Count("id")))
    metric(
        "pdf_dead_letters",
        "gauge",
        "Dead letters, by whether they are auto re-driven.",
        [
            ('{permanent="false"}', letters.get(False, 0)),
            ('{permanent="true"}', letters.get(True, 0)),
        ],
    )
    depth = _queue_depth()
    metric(
        "pdf_queue_depth",
        "gauge",
        "Render messages waiting in the broker (-1: unreachable).",
        [("", -1 if depth is None else depth)],
    )
    return "\n".join(lines) + "\n"
