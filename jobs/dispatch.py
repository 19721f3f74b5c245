"""Every message to the workers goes through here: the task names, the message ids and
each publish to Celery. A broker failure is logged, never raised: the database row is the
truth and the reconciler sends what could not be sent."""

from __future__ import annotations

import logging
import uuid
from uuid import UUID

from django.utils import timezone

from core.celery import app
from jobs.models import PdfJob, Run

logger = logging.getLogger(__name__)

RENDER_TASK = "jobs.render_pdf"
CALLBACK_TASK = "jobs.deliver_callback"
WEBHOOK_RESEND_TASK = "jobs.resend_webhook"
NOTIFY_TASK = "jobs.notify_owner"
RECONCILE_TASK = "jobs.reconcile"
REDRIVE_DEAD_LETTERS_TASK = "jobs.redrive_dead_letters"
CHUNK_TASK = "jobs.render_chunk"
MERGE_TASK = "jobs.merge_chunks"
EVALUATE_ALERTS_TASK = "jobs.evaluate_alerts"
RETENTION_TASK = "jobs.retention"
SCHEDULES_DUE_TASK = "jobs.schedules_due"
SCHEDULE_RUN_START_TASK = "jobs.schedule_run_start"
SCHEDULE_DELIVER_TASK = "jobs.schedule_deliver"
RUN_COMBINE_TASK = "jobs.run_combine"
TASK_ID_PREFIX = "render-"
# Set on every published message by jobs.worker.signals, so the age of the oldest waiting
# message is one LINDEX away (jobs.ops.queues).
SENT_AT_HEADER = "sent_at"


def task_id_for(job_id: UUID | str) -> str:
    """Message ids carry the job id, so the reconciler can see which jobs are in flight."""
    return f"{TASK_ID_PREFIX}{job_id}-{uuid.uuid4().hex[:8]}"


def job_id_from_task_id(task_id: str) -> str | None:
    if not task_id.startswith(TASK_ID_PREFIX):
        return None
    return task_id[len(TASK_ID_PREFIX) : -9] or None


def job_enqueue(
    *, job_id: UUID | str, countdown: float | None = None, note_time: bool = True
) -> bool:
    """Send the render message and note when (not a status change: no event). False when
    the broker refused it: the row stays queued and the reconciler sends it later.
    `note_time=False` when the row got its enqueued_at as it was inserted (a submit): one
    UPDATE fewer on the path whose latency integrators feel."""
    try:
        app.send_task(
            RENDER_TASK, args=[str(job_id)], task_id=task_id_for(job_id), countdown=countdown
        )
    except Exception:
        logger.warning("could not enqueue job %s; the reconciler will resend it", job_id)
        # Not sent: a broker the reconciler cannot list (RabbitMQ) must not count it sent.
        PdfJob.objects.filter(job_id=job_id).update(enqueued_at=None)
        return False
    if note_time:
        PdfJob.objects.filter(job_id=job_id).update(enqueued_at=timezone.now())
    return True


def callback_enqueue(*, job_id: UUID | str) -> None:
    try:
        app.send_task(CALLBACK_TASK, args=[str(job_id)])
    except Exception:
        logger.warning("could not enqueue the callback of job %s; the reconciler will", job_id)


def job_chunks_send(*, job_id: UUID | str, count: int) -> None:
    """The chord of a chunked layout: `count` chunk renders, then their merge. Raised on a
    broker failure: the job's task then retries the whole job."""
    from celery import chord

    header = [app.signature(CHUNK_TASK, args=(str(job_id), index)) for index in range(count)]
    chord(header)(app.signature(MERGE_TASK, args=(str(job_id),)))


def webhook_resend_enqueue(*, delivery_id: int) -> bool:
    """An operator's resend goes to the callbacks queue like every webhook, so the web
    process never waits on a tenant's server. False when the broker refused it."""
    try:
        app.send_task(WEBHOOK_RESEND_TASK, args=[delivery_id])
    except Exception:
        logger.warning("could not enqueue the resend of webhook delivery %s", delivery_id)
        return False
    return True


def notify_enqueue(*, job_id: UUID | str) -> None:
    """The mail to the job's owner about its final state. Best effort: a lost message loses
    a mail, never a job, and the job's page and API still show the outcome."""
    try:
        app.send_task(NOTIFY_TASK, args=[str(job_id)])
    except Exception:
        logger.warning("could not enqueue the owner's mail of job %s", job_id)


def schedule_run_start_enqueue(*, run_id: UUID | str) -> None:
    """A schedule run's data fetch and submit. Best effort: the due task sends a run that
    is still starting again after a while (jobs.schedules.sweep)."""
    try:
        app.send_task(SCHEDULE_RUN_START_TASK, args=[str(run_id)])
    except Exception:
        logger.warning("could not enqueue schedule run %s; the due task will", run_id)


def schedule_deliver_enqueue(*, run_id: UUID | str, countdown: float | None = None) -> None:
    """A finished schedule run's deliveries; a lost message is resent by the due task."""
    try:
        app.send_task(SCHEDULE_DELIVER_TASK, args=[str(run_id)], countdown=countdown)
    except Exception:
        logger.warning("could not enqueue the deliveries of schedule run %s", run_id)


def run_combine_enqueue(*, run_id: UUID | str) -> None:
    """Build a finished run's combined PDF on a worker. Not sent: the build's claim is let
    go, so the next download claims and sends it again."""
    try:
        app.send_task(RUN_COMBINE_TASK, args=[str(run_id)])
    except Exception:
        logger.warning("could not enqueue run %s's combined PDF; the next download will", run_id)
        Run.objects.filter(run_id=run_id).update(combined_started_at=None)
