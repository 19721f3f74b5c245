"""Telling people about an alert: mail to ADMINS, and a Slack-compatible POST ({"text": …})
to ALERT_WEBHOOK_URL when it is set. Called once when an alert opens and once when it
resolves; a failure is logged and kept on the alert, never raised into the evaluation."""

from __future__ import annotations

import logging

import httpx
from django.conf import settings
from django.core.mail import mail_admins
from django.urls import reverse

from jobs.models import Alert

logger = logging.getLogger(__name__)


def _dashboard_url() -> str:
    return f"{settings.PUBLIC_BASE_URL}{reverse('ops-dashboard')}"


def alert_text(alert: Alert) -> tuple[str, str]:
    """(subject, body) of the notification for the alert's current state."""
    rule = alert.get_rule_display()
    if alert.resolved_at is None:
        subject = f"ALERT {rule}"
        body = f"{alert.message}\n\nOpened {alert.opened_at:%Y-%m-%d %H:%M:%S} UTC."
    else:
        minutes = (alert.resolved_at - alert.opened_at).total_seconds() / 60
        subject = f"RESOLVED {rule}"
        body = f"{alert.resolved_message}\n\nResolved after {minutes:.0f} min."
    return subject, f"{body}\n\nOps dashboard: {_dashboard_url()}"


def _post_webhook(subject: str, body: str) -> str:
    """An error message, or "" once the receiver took it."""
    text = f"*{subject}*\n{body}"
    try:
        response = httpx.post(
            settings.ALERT_WEBHOOK_URL,
            json={"text": text},
            timeout=settings.ALERT_WEBHOOK_TIMEOUT_SECONDS,
        )
    except httpx.HTTPError as exc:
        return f"webhook: {type(exc).__name__}: {exc}"
    return "" if response.is_success else f"webhook: HTTP {response.status_code}"


def alert_notify(*, alert_id: int) -> None:
    alert = Alert.objects.get(pk=alert_id)
    subject, body = alert_text(alert)
    problems = []
    if settings.ADMINS:
        try:
            mail_admins(subject, body, fail_silently=False)
        except Exception as exc:  # any mail backend error: keep it on the alert
            problems.append(f"mail: {type(exc).__name__}: {exc}")
    if settings.ALERT_WEBHOOK_URL and (problem := _post_webhook(subject, body)):
        problems.append(problem)
    if problems:
        logger.warning("alert notification failed: %s", "; ".join(problems))
        Alert.objects.filter(pk=alert_id).update(notify_error="; ".join(problems)[:2000])
