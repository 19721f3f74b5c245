"""Mail to the person who requested a job (in the browser, or as the owner of the API key
that submitted it) when it completes, with its download link, or finally fails, with the
message and what to do about it.

Runs as a task on the `callbacks` queue (threads that wait on other servers), so a slow
mail server never holds a render. Only final states mail: a retry is `processing ->
queued`, and a failure that beat will re-drive by itself waits for the re-drive's outcome.
Each final state mails once (accounts.notifications keys the mail by job, status and time).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.core.mail import EmailMessage
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.notifications import (
    job_mail_choices,
    job_mail_recipient,
    job_mail_recipient_of,
    owner_mail_once,
)
from core.automatic_mail import automatic_mail
from jobs import dispatch
from jobs.links import pdf_path
from jobs.models import JobStatus, PdfJob
from jobs.retry_rule import failure_advice
from jobs.returning import Joined
from jobs.selectors import dead_letter_redrive_expected
from jobs.signals import job_mail_wanted

logger = logging.getLogger(__name__)

MAILED_STATUSES = (JobStatus.COMPLETED, JobStatus.FAILED)
# The owner's address and job-mail choices, read by a final transition's own UPDATE (on
# PostgreSQL): the check below then costs no statement of its own after every job. Read in
# the same statement that completes the job, so at the same moment as the query it saves.
MAIL_CHOICES = Joined(name="_owner_mail_choices", on="owner", query=job_mail_choices)


def job_notify_enqueue(*, job: PdfJob) -> None:
    """After a final transition commits: queue the owner's mail if they would get one. The
    check here saves a message per job for people without an address or who opted out;
    the task checks again when it runs."""
    if job.status not in MAILED_STATUSES:
        return
    by_api_key = job.api_key_id is not None
    if hasattr(job, MAIL_CHOICES.name):  # read by the final transition's own statement
        recipient = job_mail_recipient_of(getattr(job, MAIL_CHOICES.name), by_api_key=by_api_key)
    else:
        recipient = job_mail_recipient(user_id=job.owner_id, by_api_key=by_api_key)
    if recipient is None:
        return  # no message at all: the common case for an integration's jobs
    if job.batch_id is not None:
        # django-stubs types a receiver's answer as str | None; ours answer a bool.
        answers: list[tuple[Any, object]] = list(job_mail_wanted.send(PdfJob, job=job))
        if any(wanted is False for _, wanted in answers):
            return  # a feature mails once for the batch (a run's ZIP or combined PDF)
    dispatch.notify_enqueue(job_id=job.job_id)


def _absolute(path: str) -> str:
    return f"{settings.PUBLIC_BASE_URL}{path}"


def job_mail(job: PdfJob, *, to: str) -> EmailMessage:
    """The mail about the job's final state (completed or failed)."""
    name = job.template.name if job.template else job.filename  # inline: its file name
    context: dict[str, Any] = {
        "job": job,
        "name": name,
        "person": job.owner.get_short_name() or job.owner.get_username(),
        "job_url": _absolute(reverse("job-page", kwargs={"job_id": job.job_id})),
        "account_url": _absolute(reverse("account")),
        "api_key_prefix": job.api_key.prefix if job.api_key else "",
    }
    if job.status == JobStatus.COMPLETED:
        subject = f"Your report “{name}” is ready"
        context["download_url"] = _absolute(pdf_path(job.job_id))
        context["signed_in_download_url"] = _absolute(
            reverse("job-download", kwargs={"job_id": job.job_id})
        )
        context["link_expires"] = timezone.now() + timedelta(seconds=settings.PDF_URL_TTL_SECONDS)
        body = render_to_string("jobs/mail/job_completed.txt", context)
    else:
        subject = f"Your report “{name}” failed"
        context["advice"] = failure_advice(job.error_code).replace("{id}", str(job.job_id))
        body = render_to_string("jobs/mail/job_failed.txt", context)
    return automatic_mail(
        subject=subject, body=body, to=[to], ids={"X-PDF-Job-Id": str(job.job_id)}
    )


def job_notify_owner(*, job_id: UUID | str) -> str:
    """Mail the job's owner about its final state, once. Returns what happened (kept as the
    task's result): sent, already_sent, not_final, redrive_pending, not_wanted, no_job.
    Raises MailNotSent when the mail backend failed (the task retries)."""
    job = (
        PdfJob.objects.select_related("owner", "template", "api_key").filter(job_id=job_id).first()
    )
    if job is None:
        return "no_job"
    if job.status not in MAILED_STATUSES or job.completed_at is None:
        return "not_final"  # re-driven since (or cancelled): its next final state mails
    if dead_letter_redrive_expected(job=job):
        return "redrive_pending"  # not final yet: beat will try it again by itself
    return owner_mail_once(
        user_id=job.owner_id,
        kind="job",
        object_id=job.job_id,
        ending=(job.status, job.completed_at),
        message=lambda to: job_mail(job, to=to),
        log=logger,
        by_api_key=job.api_key_id is not None,
    )
