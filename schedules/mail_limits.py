"""Who a schedule may mail and how much: members' addresses only (unless an operator sets
SCHEDULE_MAIL_ANY_RECIPIENT) and at most SCHEDULE_MAILS_PER_DAY recipients a workspace in
24 hours, so schedules cannot make the service a mail relay."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Sum
from django.utils import timezone

from core.errors import LimitReached
from schedules.models import ScheduleRun
from workspaces.models import Membership, Workspace


class ScheduleMailThrottled(LimitReached):
    """The workspace's schedules mailed their recipients for the day."""

    limit = "SCHEDULE_MAILS_PER_DAY"


def mail_recipients_outside(*, workspace: Any, addresses: Iterable[str]) -> list[str]:
    """The addresses that are no active member's account email (compared without case);
    none when an operator allows any address."""
    if settings.SCHEDULE_MAIL_ANY_RECIPIENT:
        return []
    members = Membership.objects.filter(workspace=workspace, user__is_active=True)
    known = {email.lower() for email in members.values_list("user__email", flat=True) if email}
    return [address for address in addresses if address.lower() not in known]


def outside_message(address: str) -> str:
    return (
        f"{address} is not the email of a member of this workspace; schedules mail members "
        "only (an operator may allow other addresses: SCHEDULE_MAIL_ANY_RECIPIENT)."
    )


def mail_recipients_sent(*, workspace: Any) -> int:
    """Recipients the workspace's schedules mailed in the last 24 hours."""
    since = timezone.now() - timedelta(days=1)
    runs = ScheduleRun.objects.filter(schedule__workspace=workspace, mailed_at__gt=since)
    return int(runs.aggregate(total=Sum("mail_recipients"))["total"] or 0)


def mail_quota_check(*, workspace: Any, recipients: int) -> None:
    """429 throttled when mailing `recipients` more would pass SCHEDULE_MAILS_PER_DAY."""
    cap = settings.SCHEDULE_MAILS_PER_DAY
    if mail_recipients_sent(workspace=workspace) + recipients > cap:
        raise ScheduleMailThrottled(
            f"This workspace's schedules mailed their {cap} recipients for the last 24 hours "
            f"(SCHEDULE_MAILS_PER_DAY={cap}); no mail was sent. Try again later."
        )


def mail_recipients_of(deliveries: Iterable[dict[str, Any]]) -> int:
    """Recipients one run of these deliveries mails."""
    return sum(len(d["to"]) for d in deliveries if d["type"] == "email")


def mail_quota_take(*, run: ScheduleRun, recipients: int) -> None:
    """Count `recipients` against the workspace's daily limit before mailing them, with the
    workspace row locked so two deliveries at once cannot both take the last places;
    ScheduleMailThrottled (nothing counted) when they do not fit. Its own short
    transaction: the mail is sent after it."""
    workspace_id = run.schedule.workspace_id
    with transaction.atomic():
        Workspace.objects.select_for_update().filter(pk=workspace_id).first()
        mail_quota_check(workspace=workspace_id, recipients=recipients)
        ScheduleRun.objects.filter(pk=run.pk).update(
            mail_recipients=F("mail_recipients") + recipients, mailed_at=timezone.now()
        )
