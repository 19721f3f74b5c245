"""Alert rules and their evaluation (beat, every ALERT_INTERVAL_SECONDS).

Each rule reads the service (the database for jobs, Redis for queues and workers) and says
whether its condition holds. An alert opens once when it starts to hold (the unique
constraint on open alerts keeps two evaluations from opening it twice), follows the value
while it holds, and resolves once it has stayed clear for ALERT_RESOLVE_AFTER_SECONDS;
opening and resolving are notified.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Avg, Count, DurationField, ExpressionWrapper, F, Q
from django.utils import timezone

from jobs.models import Alert, AlertRule, DeadLetter, JobStatus, PdfJob
from jobs.ops.alert_notify import alert_notify
from jobs.ops.queues import broker_stats

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reading:
    firing: bool
    value: float
    threshold: float
    message: str

    @classmethod
    def above(cls, value: float, threshold: float, message: str) -> Reading:
        """The rules whose condition is their value exceeding the threshold."""
        return cls(value > threshold, value, threshold, message)


def _window() -> tuple[datetime, str]:
    seconds = settings.ALERT_WINDOW_SECONDS
    if seconds == 3600:
        label = "the last hour"
    else:
        label = f"the last {seconds // 60} min" if seconds >= 60 else f"the last {seconds} s"
    return timezone.now() - timedelta(seconds=settings.ALERT_WINDOW_SECONDS), label


def finished_since(since: datetime) -> dict[str, Any]:
    """Completed and failed counts, and the average generation time, of jobs finished since."""
    took = ExpressionWrapper(F("completed_at") - F("created_at"), output_field=DurationField())
    completed, failed = Q(status=JobStatus.COMPLETED), Q(status=JobStatus.FAILED)
    return PdfJob.objects.filter(completed | failed, completed_at__gte=since).aggregate(
        completed=Count("id", filter=completed),
        failed=Count("id", filter=failed),
        average=Avg(took, filter=completed),
    )


def read_generation_time() -> Reading | None:
    since, label = _window()
    finished = finished_since(since)
    count, average = int(finished["completed"]), finished["average"]
    threshold = settings.ALERT_GENERATION_SECONDS
    if count < settings.ALERT_MIN_JOBS or not isinstance(average, timedelta):
        return Reading(False, 0.0, threshold, f"No completed jobs in {label}.")
    seconds = average.total_seconds()
    return Reading.above(
        seconds,
        threshold,
        f"Average generation time (submit to completion) was {seconds:.1f} s over {label} "
        f"({count} completed jobs; threshold {threshold:g} s).",
    )


def read_failure_rate() -> Reading | None:
    since, label = _window()
    finished = finished_since(since)
    failed, total = int(finished["failed"]), int(finished["failed"]) + int(finished["completed"])
    threshold = settings.ALERT_FAILURE_RATE
    if total < settings.ALERT_MIN_JOBS:
        return Reading(False, 0.0, threshold, f"No finished jobs in {label}.")
    rate = failed / total
    return Reading.above(
        rate,
        threshold,
        f"{rate:.1%} of jobs failed in {label} ({failed} of {total}; threshold {threshold:.0%}).",
    )


def read_queue_age() -> Reading | None:
    stats = broker_stats()
    if stats is None:
        return None  # broker down: nothing to say about queues; submits still queue jobs
    queue, age = stats.oldest
    threshold = float(settings.ALERT_QUEUE_AGE_SECONDS)
    depth = stats.queues[queue].depth if queue else 0
    return Reading.above(
        age,
        threshold,
        f"The oldest message in queue {queue or '-'} has waited {age:.0f} s ({depth} "
        f"waiting; threshold {threshold:g} s).",
    )


def read_dead_letters() -> Reading | None:
    since, label = _window()
    count = DeadLetter.objects.filter(created_at__gte=since, job__status=JobStatus.FAILED).count()
    threshold = settings.ALERT_DEAD_LETTERS
    return Reading(
        count >= threshold,
        float(count),
        float(threshold),
        f"{count} jobs were dead-lettered in {label} and are still failed (threshold "
        f"{threshold}). Admin, Dead letters: read the error, fix the cause, re-drive.",
    )


def read_workers() -> Reading | None:
    stats = broker_stats()
    if stats is None:
        return None
    alive = stats.workers_alive
    return Reading(
        alive < 1,
        float(alive),
        1.0,
        f"{alive} Celery workers have stamped their presence in the last "
        f"{3 * settings.WORKER_PRESENCE_SECONDS} s.",
    )


RULES: dict[str, Callable[[], Reading | None]] = {
    AlertRule.GENERATION_SLOW: read_generation_time,
    AlertRule.FAILURE_RATE: read_failure_rate,
    AlertRule.QUEUE_AGE: read_queue_age,
    AlertRule.DEAD_LETTERS: read_dead_letters,
    AlertRule.NO_WORKER: read_workers,
}


def alert_open(*, rule: str, reading: Reading) -> Alert | None:
    """Open the rule's alert unless one is open; None if it already was."""
    now = timezone.now()
    try:
        with transaction.atomic():
            alert = Alert.objects.create(
                rule=rule,
                message=reading.message,
                value=reading.value,
                threshold=reading.threshold,
                last_value=reading.value,
                last_checked_at=now,
                opened_at=now,
            )
            transaction.on_commit(lambda: alert_notify(alert_id=alert.pk))
    except IntegrityError:
        return None  # another evaluation opened it first
    logger.warning("alert opened: %s", reading.message)
    return alert


def alert_resolve(*, alert: Alert, reading: Reading) -> Alert | None:
    """Resolve an open alert; None if someone resolved it first."""
    now = timezone.now()
    with transaction.atomic():
        changed = Alert.objects.filter(pk=alert.pk, resolved_at__isnull=True).update(
            resolved_at=now,
            resolved_message=reading.message,
            last_value=reading.value,
            last_checked_at=now,
        )
        if not changed:
            return None
        transaction.on_commit(lambda: alert_notify(alert_id=alert.pk))
    logger.info("alert resolved: %s", reading.message)
    alert.refresh_from_db()
    return alert


def _still_open(alert: Alert, reading: Reading) -> bool:
    """Follow a firing alert's value, or note that it cleared; True while it stays open."""
    now = timezone.now()
    if reading.firing:
        Alert.objects.filter(pk=alert.pk).update(
            last_value=reading.value, last_checked_at=now, cleared_at=None
        )
        return True
    cleared_at = alert.cleared_at or now
    if (now - cleared_at).total_seconds() >= settings.ALERT_RESOLVE_AFTER_SECONDS:
        return False
    Alert.objects.filter(pk=alert.pk).update(
        last_value=reading.value, last_checked_at=now, cleared_at=cleared_at
    )
    return True


def alerts_evaluate() -> dict[str, str]:
    """Evaluate every rule once; returns what changed, by rule ("opened", "resolved")."""
    changes: dict[str, str] = {}
    for rule, read in RULES.items():
        reading = read()
        if reading is None:
            continue
        current = Alert.objects.filter(rule=rule, resolved_at__isnull=True).first()
        if current is None:
            if reading.firing and alert_open(rule=rule, reading=reading) is not None:
                changes[rule] = "opened"
        elif not _still_open(current, reading) and alert_resolve(alert=current, reading=reading):
            changes[rule] = "resolved"
    return changes
