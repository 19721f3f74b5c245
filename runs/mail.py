"""One mail to a run's owner when the run ends (its records get none of their own: see
runs.progress.job_mail_wanted_received): how many rendered, how many failed, its page."""

from __future__ import annotations

import logging
from typing import Any
from uuid import UUID

from django.conf import settings
from django.core.mail import EmailMessage
from django.template.loader import render_to_string
from django.urls import reverse

from accounts.notifications import owner_mail_once
from core.automatic_mail import automatic_mail
from runs.models import Run, RunOutput, RunStatus

logger = logging.getLogger(__name__)


def run_mail(run: Run, *, to: str) -> EmailMessage:
    name = run.template.name if run.template else "Batch"
    page = f"{settings.PUBLIC_BASE_URL}{reverse('run-page', kwargs={'run_id': run.run_id})}"
    context: dict[str, Any] = {
        "run": run,
        "name": name,
        "person": run.owner.get_short_name() or run.owner.get_username(),
        "run_url": page,
        "download": run.completed and run.output != RunOutput.SEPARATE,
        "account_url": f"{settings.PUBLIC_BASE_URL}{reverse('account')}",
    }
    if run.status == RunStatus.COMPLETED:
        subject = f"Your run “{name}” is ready: {run.completed} PDFs"
    elif run.status == RunStatus.PARTIAL:
        subject = (
            f"Your run “{name}” finished: {run.completed} of {run.total} PDFs, {run.failed} failed"
        )
    else:
        subject = f"Your run “{name}” failed: no record rendered"
    return automatic_mail(
        subject=subject,
        body=render_to_string("jobs/mail/run_finished.txt", context),
        to=[to],
        ids={"X-PDF-Run-Id": str(run.run_id)},
    )


def run_notify_owner(*, run_id: UUID | str) -> str:
    """Mail the run's owner that it ended, once per ending (a retry's new ending mails
    again). Returns what happened: sent, already_sent, not_finished, not_wanted, no_run."""
    run = Run.objects.select_related("owner", "template").filter(run_id=run_id).first()
    if run is None:
        return "no_run"
    if not run.is_finished or run.finished_at is None:
        return "not_finished"
    return owner_mail_once(
        user_id=run.owner_id,
        kind="run",
        object_id=run.run_id,
        ending=(run.status, run.finished_at),
        message=lambda to: run_mail(run, to=to),
        log=logger,
    )
