"""The job state machine: the only module that writes PdfJob.status.

Every transition is one guarded UPDATE (compare-and-set on the current status), stamps
its time and, after the transaction commits, publishes one event and counts it in the
metrics (and, on reaching a final status, queues the job's completion callback and the
mail to its owner, and tells the features built on jobs through `jobs.signals`). A
transition that finds the job in another state changes nothing and returns None: someone
else got there first.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.db import transaction
from django.db.models import Case, Expression, F, Q, UUIDField, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone

from jobs import dispatch
from jobs.live.events import job_event_announce
from jobs.metrics import job_transition_observe
from jobs.models import JobStatus, PdfJob
from jobs.owner_mail import MAIL_CHOICES, job_notify_enqueue
from jobs.returning import Joined, update_returning
from jobs.signals import job_settled

QUEUED, PROCESSING, COMPLETED, FAILED, CANCELLED = (
    JobStatus.QUEUED,
    JobStatus.PROCESSING,
    JobStatus.COMPLETED,
    JobStatus.FAILED,
    JobStatus.CANCELLED,
)


def _transition(
    job_id: UUID | str,
    *,
    sources: tuple[str, ...],
    guard: Q | None = None,
    like: PdfJob | None = None,
    related: tuple[str, ...] = (),
    joined: tuple[Joined, ...] = (),
    instead: Expression | None = None,
    **fields: Any,
) -> PdfJob | None:
    rows = PdfJob.objects.filter(job_id=job_id, status__in=sources)
    if instead is not None:  # the job `instead` names, else job_id
        own = Value(UUID(str(job_id)), output_field=UUIDField())
        rows = PdfJob.objects.filter(job_id=Coalesce(instead, own), status__in=sources)
    if guard is not None:
        rows = rows.filter(guard)
    # One statement (UPDATE ... RETURNING), atomic by itself: outside a transaction the
    # hooks below run right after it commits, inside one they wait for its commit. On
    # PostgreSQL it also reads what comes right after it (`related`, `joined`).
    job = update_returning(
        rows,
        related=() if like is not None else related,
        joined=joined,
        event_seq=F("event_seq") + 1,
        updated_at=timezone.now(),
        **fields,
    )
    if job is None:
        return None
    if like is not None:
        _reuse_related(job, like)
    job_announce_on_commit(job)
    transaction.on_commit(lambda: job_transition_observe(job))
    return job


_KEPT_RELATIONS = ("template", "template_version", "owner")


def _reuse_related(job: PdfJob, like: PdfJob) -> None:
    """Give `job` the related rows an earlier copy of it already loaded (no transition
    changes them): the event's template name then costs no query per transition."""
    for name in _KEPT_RELATIONS:
        field = PdfJob._meta.get_field(name)
        if field.is_cached(like) and getattr(like, field.attname) == getattr(job, field.attname):  # type: ignore[union-attr]
            field.set_cached_value(job, field.get_cached_value(like))  # type: ignore[union-attr]


def job_announce_on_commit(job: PdfJob, *, new: bool = False) -> None:
    """After the transaction commits: the job's event to its followers and, on a final
    status, its completion callback and the mail to its owner. Also for a job just
    created (`new`; final already if a result-cache hit), which has no transition."""
    # The payload (with the template's name) is read after the commit: reading a second
    # table inside this transaction could deadlock with a TRUNCATE (test teardown).
    # A new job has no followers of its own yet (nobody has its id before the 202): only
    # its workspace's stream (the dashboard) gets it, one send fewer on the submit path.
    transaction.on_commit(
        lambda: job_event_announce(job, workspace_id=job.workspace_id, to_job=not new)
    )
    if job.callback_url and job.is_terminal:
        transaction.on_commit(lambda: dispatch.callback_enqueue(job_id=job.job_id))
    if job.status in (COMPLETED, FAILED):
        # robust: a failure to queue a mail is logged, never raised into the worker.
        transaction.on_commit(lambda: job_notify_enqueue(job=job), robust=True)
    if job.status != PROCESSING:
        # The features built on jobs (runs' counters, schedules' deliveries) listen.
        transaction.on_commit(lambda: job_settled.send_robust(PdfJob, job=job, new=new))


# Read by a claim's own statement (PostgreSQL): the job's template, which its event names and
# its render reads next; and by a final transition's, the owner's mail choices, which the
# mail check after it reads (jobs.owner_mail). A query each fewer a job.
CLAIM_RELATED = ("template",)
FINAL_JOINED = (MAIL_CHOICES,)


def _attempt_fields(worker: str) -> dict[str, Any]:
    now = timezone.now()
    return {
        "status": PROCESSING,
        "started_at": now,
        "heartbeat_at": now,
        "attempts": F("attempts") + 1,
        "progress": 5,
        "stage": "started",
        "worker": worker[:200],
        "completed_at": None,
    }


def job_claim(
    *, job_id: UUID | str, worker: str, instead: Expression | None = None
) -> PdfJob | None:
    """queued -> processing, counting an attempt. None if the job is not queued.
    `instead`: a subquery naming another job to claim in its place (NULL: this one), run
    in the claim's own statement (fair dispatch: jobs.worker.fairness); None too when the
    job it names was no longer queued."""
    # The template comes with the claim: the claim's event names it and the render reads it.
    return _transition(
        job_id,
        sources=(QUEUED,),
        related=CLAIM_RELATED,
        instead=instead,
        **_attempt_fields(worker),
    )


def job_reclaim(*, job_id: UUID | str, worker: str, dead_worker: str) -> PdfJob | None:
    """processing -> processing for a new attempt, taking over from `dead_worker`'s attempt.
    Guarded on that worker so two redeliveries cannot both take over."""
    return _transition(
        job_id,
        sources=(PROCESSING,),
        guard=Q(worker=dead_worker),
        related=CLAIM_RELATED,
        **_attempt_fields(worker),
    )


def job_progress(
    *, job_id: UUID | str, stage: str, progress: int, like: PdfJob | None = None
) -> PdfJob | None:
    """Record a stage of a processing job; progress never goes backwards within an attempt.
    `like`: this process's copy of the job, whose loaded template the event reuses."""
    return _transition(
        job_id,
        sources=(PROCESSING,),
        guard=Q(progress__lt=progress),
        like=like,
        progress=progress,
        stage=stage,
    )


def job_complete(
    *,
    job_id: UUID | str,
    pdf_file: str,
    page_count: int,
    size_bytes: int,
    warnings: list[str],
    like: PdfJob | None = None,
    compliance: dict[str, Any] | None = None,
) -> PdfJob | None:
    return _transition(
        job_id,
        sources=(PROCESSING,),
        like=like,
        joined=FINAL_JOINED,
        status=COMPLETED,
        compliance=compliance or {},
        progress=100,
        stage="done",
        pdf_file=pdf_file,
        page_count=page_count,
        size_bytes=size_bytes,
        warnings=warnings,
        error="",
        error_code="",
        completed_at=timezone.now(),
    )


def job_fail(*, job_id: UUID | str, error: str, code: str) -> PdfJob | None:
    return _transition(
        job_id,
        sources=(QUEUED, PROCESSING),
        joined=FINAL_JOINED,
        status=FAILED,
        stage="failed",
        error=error[:5000],
        error_code=code,
        completed_at=timezone.now(),
    )


def job_reschedule(
    *, job_id: UUID | str, error: str, code: str, refund_attempt: bool = False
) -> PdfJob | None:
    """processing -> queued: a transient error, another attempt is scheduled.
    `refund_attempt`: the attempt does not count (the store was down, not the job)."""
    refund: dict[str, Any] = {"attempts": F("attempts") - 1} if refund_attempt else {}
    return _transition(
        job_id,
        sources=(PROCESSING,),
        **refund,
        status=QUEUED,
        progress=0,
        stage="retry_scheduled",
        error=error[:5000],
        error_code=code,
    )


def job_requeue_failed(*, job_id: UUID | str) -> PdfJob | None:
    """failed -> queued: an operator or the dead-letter re-drive tries again, with a fresh
    allowance of attempts (the dead letter keeps the count of the earlier ones)."""
    return _transition(
        job_id,
        sources=(FAILED,),
        status=QUEUED,
        earlier_attempts=F("earlier_attempts") + F("attempts"),
        attempts=0,
        progress=0,
        stage="redriven",
        error="",
        error_code="",
        completed_at=None,
    )


def job_mark_cancelled(*, job_id: UUID | str) -> PdfJob | None:
    """queued or processing -> cancelled: the caller or an operator stopped the job."""
    return _transition(
        job_id,
        sources=(QUEUED, PROCESSING),
        status=CANCELLED,
        stage="cancelled",
        completed_at=timezone.now(),
        # A processing job's heartbeat goes on until its worker lets go (it counts as busy
        # till then: jobs.quotas); a queued one has no worker, whatever an earlier
        # attempt stamped.
        heartbeat_at=Case(When(status=QUEUED, then=Value(None)), default=F("heartbeat_at")),
    )
