"""A person's notification choices, and sending a notification mail at most once.

Jobs decide what a mail says; this module decides whether the person wants it, where it
goes, and that a given notification (its key) is sent once however often a task runs."""

from __future__ import annotations

import logging
import smtplib
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.core.mail import EmailMessage
from django.db import transaction
from django.utils import timezone

from accounts.models import NotificationSettings, SentNotification


@dataclass(frozen=True)
class Preferences:
    email_job_finished: bool = True
    browser_job_finished: bool = True


def notification_preferences(*, user_id: int) -> Preferences:
    """The person's choices; the defaults (everything on) when they never changed them."""
    row = NotificationSettings.objects.filter(user_id=user_id).first()
    if row is None:
        return Preferences()
    return Preferences(
        email_job_finished=row.email_job_finished, browser_job_finished=row.browser_job_finished
    )


def notification_preferences_set(
    *, user: User, email_job_finished: bool, browser_job_finished: bool
) -> Preferences:
    NotificationSettings.objects.update_or_create(
        user=user,
        defaults={
            "email_job_finished": email_job_finished,
            "browser_job_finished": browser_job_finished,
        },
    )
    return Preferences(
        email_job_finished=email_job_finished, browser_job_finished=browser_job_finished
    )


def job_mail_recipient(*, user_id: int) -> str | None:
    """The address a person's job mail goes to, or None: no such active person, no address,
    or they turned job mail off."""
    user = User.objects.filter(pk=user_id, is_active=True).only("email").first()
    if user is None or not user.email:
        return None
    if not notification_preferences(user_id=user_id).email_job_finished:
        return None
    return user.email


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


def owner_mail_once(
    *,
    user_id: int,
    key: str,
    message: Callable[[str], EmailMessage],
    what: str,
    error: type[Exception],
    log: logging.Logger,
) -> str:
    """Mail a job's or a run's owner once per `key` (the message built for their address):
    "sent", "already_sent" or "not_wanted" (no address, or job mail turned off). A mail
    server error is logged on `log` and raised as `error`, for the task to retry."""
    to = job_mail_recipient(user_id=user_id)
    if to is None:
        return "not_wanted"
    try:
        sent = notification_send_once(key=key, user_id=user_id, message=message(to))
    except (smtplib.SMTPException, OSError) as exc:
        log.warning("could not mail the owner of %s: %s", what, exc)
        raise error(f"{type(exc).__name__}: {exc}") from exc
    return "sent" if sent else "already_sent"
