"""Periodic repair (Celery beat): the database is the truth, the broker only a hint.

Re-sends queued jobs whose message was lost, takes back processing jobs whose attempt
died, and re-sends lost completion callbacks (young dead letters: `jobs.dead_letters`).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from jobs import dispatch
from jobs.models import TERMINAL_STATUSES, JobStatus, PdfJob
from jobs.ops.broker import broker_is_redis, job_ids_in_broker
from jobs.worker.liveness import attempt_is_dead
from jobs.worker.presence import workers_alive_instances

logger = logging.getLogger(__name__)
BATCH = 500


def jobs_reconcile() -> dict[str, int]:
    """Re-enqueue what has no live message or no live attempt; returns what it did."""
    now = timezone.now()
    resent = {"queued": 0, "processing": 0, "callbacks": 0}
    listed = broker_is_redis()
    in_flight = job_ids_in_broker() if listed else set()
    if in_flight is None:
        return resent  # broker down: sending would fail too; the next run tries again
    queued_before = now - timedelta(seconds=settings.RECONCILE_QUEUED_AFTER_SECONDS)
    # A broker that cannot be listed holds what it acknowledged: a recorded send counts as
    # in flight until no message could still be waiting (the Redis visibility bound).
    sent_before = (
        queued_before
        if listed
        else now - timedelta(seconds=settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"])
    )
    lost = PdfJob.objects.filter(
        Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=sent_before),
        status=JobStatus.QUEUED,
        updated_at__lt=queued_before,
    ).values_list("job_id", flat=True)[:BATCH]
    for job_id in lost:
        if str(job_id) not in in_flight and dispatch.job_enqueue(job_id=job_id):
            resent["queued"] += 1

    stale_before = now - timedelta(
        seconds=settings.PDF_HARD_TIME_LIMIT + settings.RECONCILE_PROCESSING_MARGIN_SECONDS
    )
    running = (
        PdfJob.objects.filter(status=JobStatus.PROCESSING)
        .filter(
            Q(enqueued_at__isnull=True)
            | Q(enqueued_at__lt=now - timedelta(seconds=settings.PDF_HEARTBEAT_STALE_SECONDS))
        )
        .only("job_id", "worker", "heartbeat_at")[:BATCH]
    )
    # A worker gone from presence (its host died or was cut off) is judged as soon as its
    # attempts' heartbeats have gone stale, not after the hard time limit.
    present = workers_alive_instances()
    silent_before = now - timedelta(seconds=settings.PDF_HEARTBEAT_STALE_SECONDS)
    for job in running:
        dead = attempt_is_dead(
            worker=job.worker,
            heartbeat_at=job.heartbeat_at,
            stale_before=stale_before,
            live_instances=present,
            silent_before=silent_before,
        )
        # The new delivery takes the job over (or fails it as poison) in job_start.
        if dead and dispatch.job_enqueue(job_id=job.job_id):
            resent["processing"] += 1
    resent["callbacks"] = _callbacks_resend(now)
    if any(resent.values()):
        logger.warning("reconciler re-sent %s", resent)
    return resent


def _callbacks_resend(now: datetime) -> int:
    """Finished jobs whose callback was never sent (its message lost) get it sent again."""
    waiting = (
        PdfJob.objects.filter(
            status__in=TERMINAL_STATUSES,
            callback_sent_at__isnull=True,
            callback_attempts=0,
            completed_at__lt=now - timedelta(seconds=settings.RECONCILE_QUEUED_AFTER_SECONDS),
        )
        .exclude(callback_url="")
        .values_list("job_id", flat=True)[:BATCH]
    )
    for job_id in waiting:
        dispatch.callback_enqueue(job_id=job_id)
    return len(waiting)
