"""Mail the service sends by itself (a job's or run's ending, a schedule's delivery), as
opposed to mail a person's action sends (an invitation)."""

from __future__ import annotations

from django.core.mail import EmailMessage


def automatic_mail(*, subject: str, body: str, to: list[str], ids: dict[str, str]) -> EmailMessage:
    """A message marked automatic (RFC 3834 Auto-Submitted), so out-of-office replies and
    other auto-responders stay away; `ids` are its X-PDF-*-Id headers, naming what it is
    about."""
    return EmailMessage(
        subject=subject, body=body, to=to, headers={"Auto-Submitted": "auto-generated", **ids}
    )
