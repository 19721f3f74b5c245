"""A person's notification choices, and sending a notification mail at most once.

Jobs decide what a mail says; this module decides whether the person wants it, where it
goes, and that a given notification (its key) is sent once however often a task runs."""

from __future__ import annotations

import logging
import smtplib
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from django.contrib.auth.models import User
from django.core.mail import EmailMessage
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import NotificationSettings, SentNotification


@dataclass(frozen=True)
class Preferences:
    email_job_finished: bool = True
    browser_job_finished: bool = True
    email_api_jobs: bool = False


def notification_preferences(*, user_id: int) -> Preferences:
    """The person's choices; the defaults (everything on) when they never changed them."""
    row = NotificationSettings.objects.filter(user_id=user_id).first()
    if row is None:
        return Preferences()
    return Preferences(
        email_job_finished=row.email_job_finished,
        browser_job_finished=row.browser_job_finished,
        email_api_jobs=row.email_api_jobs,
    )


def notification_preferences_set(
    *,
    user: User,
    email_job_finished: bool,
    browser_job_finished: bool,
    email_api_jobs: bool = False,
) -> Preferences:
    chosen = Preferences(
        email_job_finished=email_job_finished,
        browser_job_finished=browser_job_finished,
        email_api_jobs=email_api_jobs,
    )
    NotificationSettings.objects.update_or_create(user=user, defaults=asdict(chosen))
    return chosen


def job_mail_choices() -> QuerySet[User, tuple[Any, ...]]:
    """Each active person's id, address and job-mail choices (no choices row: None for
    both), as `job_mail_recipient` reads them: a worker's completion reads its job's owner's
    row in its own statement (jobs.returning.Joined)."""
    return User.objects.filter(is_active=True).values_list(
        "pk",
        "email",
        "notification_settings__email_job_finished",
        "notification_settings__email_api_jobs",
    )


def job_mail_recipient_of(found: tuple[Any, ...] | None, *, by_api_key: bool = False) -> str | None:
    """`job_mail_recipient` of a row of `job_mail_choices` without the id (None: no such
    active person)."""
    if found is None:
        return None
    email, job_finished, api_jobs = found
    defaults = Preferences()
    if job_finished is None:  # never changed their choices
        job_finished, api_jobs = defaults.email_job_finished, defaults.email_api_jobs
    if not job_finished or (by_api_key and not api_jobs):
        return None
    return email or None


def job_mail_recipient(*, user_id: int, by_api_key: bool = False) -> str | None:
    """The address a person's job mail goes to, or None: no such active person, no address,
    they turned job mail off, or the job came from one of their API keys and they did not
    ask for mail about those (an integration's jobs would mail them once each)."""
    # One query (the person with their choices joined; no row: the defaults), not two: it
    # runs after every job a worker finishes (where the completion does not read it).
    found = job_mail_choices().filter(pk=user_id).first()
    return job_mail_recipient_of(None if found is None else tuple(found[1:]), by_api_key=by_api_key)


def notification_send_once(*, key: str, user_id: int, message: EmailMessage) -> bool:
    """Send the mail unless the notification `key` was already sent; True if sent now.

    The key's row stays locked while the mail goes out, so a second delivery of the same
    task waits, then finds it sent. A mail backend error rolls the row back and propagates
    (the caller retries). A crash between the send and the commit can still send twice:
    delivery is at least once, as for every message to the outside."""
    with transaction.atomic():
        record, _ = SentNotification.objects.select_for_update().get_or_create(
            key=key,
            defaults={
                "user_id": user_id,
                "to": ", ".join(message.to)[:254],
                "subject": message.subject[:300],
            },
        )
        if record.sent_at is not None:
            return False
        message.send(fail_silently=False)
        record.sent_at = timezone.now()
        record.save(update_fields=["sent_at"])
    return True


class MailNotSent(Exception):
    """The mail backend refused or could not be reached; worth another try."""


def owner_mail_once(
    *,
    user_id: int,
    kind: str,
    object_id: UUID,
    ending: tuple[str, datetime],
    message: Callable[[str], EmailMessage],
    log: logging.Logger,
    by_api_key: bool = False,
) -> str:
    """Mail a job's or a run's owner (`kind` "job" or "run") once per ending (its final
    status and when it was reached; a retry's new ending mails again), the message built
    for their address: "sent", "already_sent" or "not_wanted" (no address, job mail
    turned off, or an API key's job they want no mail about). A mail server error is
    logged on `log` and raised as MailNotSent, for the task to retry."""
    status, ended_at = ending
    key = f"{kind}:{object_id}:{status}:{ended_at.isoformat()}"
    to = job_mail_recipient(user_id=user_id, by_api_key=by_api_key)
    if to is None:
        return "not_wanted"
    try:
        sent = notification_send_once(key=key, user_id=user_id, message=message(to))
    except (smtplib.SMTPException, OSError) as exc:
        log.warning("could not mail the owner of %s: %s", f"{kind} {object_id}", exc)
        raise MailNotSent(f"{type(exc).__name__}: {exc}") from exc
    return "sent" if sent else "already_sent"
