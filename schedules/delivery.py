"""A finished run's PDF delivered: mail to the listed addresses, a signed webhook (Standard
Webhooks, signed with the creating key's secret, as a job's callback), an object in an S3
bucket. Each delivery's result is kept on the run; failed ones are tried again, sent ones
never twice."""

from __future__ import annotations

import json
import logging
import smtplib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

import boto3
import httpx
from botocore.exceptions import BotoCoreError, ClientError
from django.conf import settings
from django.core.files.storage import storages
from django.db import transaction
from django.utils import timezone

from accounts.services import webhook_signing_secrets
from core.automatic_mail import automatic_mail
from jobs.callbacks import callback_url_check
from jobs.links import pdf_path
from jobs.models import TERMINAL_STATUSES, JobStatus, PdfJob
from jobs.outgoing_webhooks import callback_post, signed_headers
from jobs.webhook_transport import WebhookRefused
from schedules.cron import zone_parse
from schedules.mail_limits import (
    ScheduleMailThrottled,
    mail_quota_take,
    mail_recipients_outside,
    outside_message,
)
from schedules.models import RunOutcome, Schedule, ScheduleRun
from schedules.validation import s3_destination_allowed

logger = logging.getLogger(__name__)
WEBHOOK_EVENT = "schedule.run.completed"


# A claim of a run's deliveries older than this is taken as a dead worker's: the run may be
# claimed again. Longer than ten deliveries' deadlines (mail, webhook, S3) one after another.
DELIVERY_CLAIM_SECONDS = 900


class DeliveriesPending(Exception):
    """Some deliveries failed and attempts remain: try the run again after a while."""


def delivery_target(delivery: dict[str, Any]) -> str:
    """Where a delivery goes, for people: the addresses, the URL, s3://bucket/prefix."""
    if delivery["type"] == "email":
        return ", ".join(delivery["to"])
    if delivery["type"] == "webhook":
        return str(delivery["url"])
    return f"s3://{delivery['bucket']}/{delivery['prefix']}"


def object_name(schedule: Schedule, run: ScheduleRun) -> str:
    """`<template slug>-<tick in the schedule's zone, YYYYMMDD-HHMM>.pdf`: one object per
    tick, so a retried upload overwrites its own and never another tick's."""
    local = run.scheduled_for.astimezone(zone_parse(schedule.timezone))
    return f"{schedule.template.slug}-{local:%Y%m%d-%H%M}.pdf"


def _pdf_url(job: PdfJob) -> str:
    return f"{settings.PUBLIC_BASE_URL}{pdf_path(job.job_id)}"


def _mail(schedule: Schedule, run: ScheduleRun, job: PdfJob, to: list[str], pdf: bytes) -> None:
    # One line whatever was saved (names from before the check, a template's name): a line
    # break in a subject is a BadHeaderError, which would fail every delivery.
    name = " ".join((schedule.name or schedule.template.name).split())
    # Every time in the schedule's own zone, as the attachment's name and the cron are.
    zone = zone_parse(schedule.timezone)
    tick = run.scheduled_for.astimezone(zone)
    expires = (timezone.now() + timedelta(seconds=settings.PDF_URL_TTL_SECONDS)).astimezone(zone)
    lines = [
        f"The scheduled report “{name}” for {tick:%Y-%m-%d %H:%M} {schedule.timezone} is ready.",
        "",
        f"Download it (link valid until {expires:%Y-%m-%d %H:%M} {schedule.timezone}):",
        _pdf_url(job),
    ]
    message = automatic_mail(
        subject=f"Scheduled report “{name}”",
        body="\n".join(lines) + "\n",
        to=to,
        ids={"X-PDF-Job-Id": str(job.job_id), "X-PDF-Schedule-Id": str(schedule.schedule_id)},
    )
    if len(pdf) <= settings.SCHEDULE_MAIL_ATTACH_MAX_BYTES:
        message.attach(object_name(schedule, run), pdf, "application/pdf")
    message.send()


def webhook_body(schedule: Schedule, run: ScheduleRun, job: PdfJob) -> str:
    stamp = (job.completed_at or timezone.now()).isoformat()
    data = {
        "schedule_id": str(schedule.schedule_id),
        "run_id": str(run.run_id),
        "scheduled_for": run.scheduled_for.isoformat(),
        "job_id": str(job.job_id),
        "pdf_url": _pdf_url(job),
        "page_count": job.page_count,
        "size_bytes": job.size_bytes,
    }
    return json.dumps({"type": WEBHOOK_EVENT, "timestamp": stamp, "data": data})


def _webhook(schedule: Schedule, run: ScheduleRun, job: PdfJob, url: str, index: int) -> None:
    if problem := callback_url_check(url):
        raise WebhookRefused(problem.replace("callback_url", "webhook url"))
    body = webhook_body(schedule, run, job)
    # The same id on every retry of this delivery, so receivers can drop duplicates.
    message_id = f"msg_{run.run_id.hex}_{index}"
    secrets = webhook_signing_secrets(key=schedule.api_key) if schedule.api_key else []
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "pdf-report-service/1",
        **signed_headers(message_id=message_id, body=body, secrets=secrets),
    }
    response = callback_post(url, content=body.encode(), headers=headers)
    if not 200 <= response.status_code < 300:
        raise WebhookRefused(f"HTTP {response.status_code}")


class DestinationRefused(Exception):
    """A delivery's destination is no longer allowed; the run records why."""


class RecipientRefused(Exception):
    """A mail delivery names an address that is no member's; the run records why."""


def _s3(schedule: Schedule, run: ScheduleRun, delivery: dict[str, Any], pdf: bytes) -> None:
    prefix = delivery["prefix"]
    bucket = delivery["bucket"]
    # Checked again at each delivery: the operator may have taken it off the list since,
    # and a schedule saved before the list existed may name any bucket.
    if not s3_destination_allowed(schedule.workspace, bucket=bucket, prefix=prefix):
        raise DestinationRefused(
            f"s3://{bucket}/{prefix} is not one of this workspace's S3 destinations "
            "(set by an operator); nothing was written."
        )
    key = (
        f"{prefix.rstrip('/')}/{object_name(schedule, run)}"
        if prefix
        else object_name(schedule, run)
    )
    client = boto3.client("s3", endpoint_url=settings.SCHEDULE_S3_ENDPOINT_URL or None)
    client.put_object(Bucket=bucket, Key=key, Body=pdf, ContentType="application/pdf")


def _deliver_one(
    schedule: Schedule, run: ScheduleRun, job: PdfJob, delivery: dict[str, Any], index: int
) -> str | None:
    """None once delivered, else what went wrong."""
    try:
        with storages["reports"].open(job.pdf_file, "rb") as handle:
            pdf = handle.read()
        if delivery["type"] == "email":
            # Checked again here: a recipient may have left the workspace since the save,
            # and a schedule saved before the rule may name anyone.
            if outside := mail_recipients_outside(
                workspace=schedule.workspace_id, addresses=delivery["to"]
            ):
                raise RecipientRefused(outside_message(outside[0]) + " Nothing was sent.")
            mail_quota_take(run=run, recipients=len(delivery["to"]))
            _mail(schedule, run, job, delivery["to"], pdf)
        elif delivery["type"] == "webhook":
            _webhook(schedule, run, job, delivery["url"], index)
        else:
            _s3(schedule, run, delivery, pdf)
    except TimeoutError:
        return f"no complete answer within {settings.CALLBACK_TIMEOUT_SECONDS} s"
    except (
        WebhookRefused,
        DestinationRefused,
        RecipientRefused,
        ScheduleMailThrottled,
        httpx.HTTPError,
        smtplib.SMTPException,
        BotoCoreError,
        ClientError,
        OSError,
    ) as exc:
        return f"{type(exc).__name__}: {exc}"[:2000]
    return None


def _settle_job(run: ScheduleRun) -> bool:
    """rendering -> delivering once its job completed (True), -> failed if the job failed
    or was cancelled; False while the job is still on its way."""
    job = run.job
    if job is None or job.status not in TERMINAL_STATUSES:
        return False
    if job.status != JobStatus.COMPLETED:
        run.outcome, run.finished_at = RunOutcome.FAILED, timezone.now()
        run.error = f"job {job.job_id} {job.status}: {job.error}"[:2000]
        run.save(update_fields=["outcome", "finished_at", "error"])
        return False
    if not run.schedule.deliveries:
        run.outcome, run.finished_at = RunOutcome.DELIVERED, timezone.now()
        run.save(update_fields=["outcome", "finished_at"])
        return False
    run.outcome = RunOutcome.DELIVERING
    run.save(update_fields=["outcome"])
    return True


@dataclass
class _Claim:
    run: ScheduleRun
    job: PdfJob
    claimed_at: datetime
    pending: list[tuple[int, dict[str, Any]]]


def _claim(run_id: UUID | str) -> _Claim | str:
    """Under the run's row lock, and only there: settle the job, then take the deliveries
    not yet sent (compare-and-set on delivery_claimed_at). The outcome instead when there
    is nothing to send or another worker has them."""
    with transaction.atomic():
        run = (
            ScheduleRun.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("schedule__template", "schedule__api_key", "job")
            .filter(run_id=run_id)
            .first()
        )
        if run is None:
            return "busy_or_gone"
        if run.outcome == RunOutcome.RENDERING and not _settle_job(run):
            return str(run.outcome)
        if run.outcome != RunOutcome.DELIVERING or run.job is None:
            return str(run.outcome)
        now = timezone.now()
        claimed = run.delivery_claimed_at
        if claimed and claimed > now - timedelta(seconds=DELIVERY_CLAIM_SECONDS):
            return "busy"
        run.delivery_claimed_at = now
        run.save(update_fields=["delivery_claimed_at"])
    sent = {r["index"] for r in run.delivery_results if r.get("status") == "sent"}
    pending = [(i, d) for i, d in enumerate(run.schedule.deliveries) if i not in sent]
    return _Claim(run=run, job=run.job, claimed_at=now, pending=pending)


def _record(claim: _Claim, problems: dict[int, str | None]) -> ScheduleRun:
    """The outcome of the sends, under the row lock again: a sent delivery stays sent."""
    with transaction.atomic():
        run = ScheduleRun.objects.select_for_update(of=("self",)).get(pk=claim.run.pk)
        results = {r["index"]: r for r in run.delivery_results}
        for index, delivery in claim.pending:
            if results.get(index, {}).get("status") == "sent":
                continue
            problem = problems[index]
            results[index] = {
                "index": index,
                "type": delivery["type"],
                "target": delivery_target(delivery),
                "status": "failed" if problem else "sent",
                "error": problem or "",
                "at": timezone.now().isoformat(),
            }
        run.delivery_results = [results[i] for i in sorted(results)]
        run.delivery_attempts += 1
        failed = [r for r in run.delivery_results if r["status"] != "sent"]
        if not failed:
            run.outcome, run.finished_at, run.error = RunOutcome.DELIVERED, timezone.now(), ""
        elif run.delivery_attempts >= settings.SCHEDULE_DELIVERY_MAX_ATTEMPTS:
            run.outcome, run.finished_at = RunOutcome.DELIVERY_FAILED, timezone.now()
            # Which delivery failed, not only which kind: a schedule may mail two lists.
            run.error = "; ".join(
                f"{r['type']} to {r.get('target') or '?'}: {r['error']}" for r in failed
            )[:2000]
        if run.delivery_claimed_at == claim.claimed_at:
            run.delivery_claimed_at = None
        run.save(
            update_fields=[
                "delivery_results",
                "delivery_attempts",
                "outcome",
                "finished_at",
                "error",
                "delivery_claimed_at",
            ]
        )
    return run


def schedule_run_deliver(*, run_id: UUID | str) -> str:
    """Deliver the run's PDF to every delivery not yet sent. Returns the run's outcome;
    raises DeliveriesPending when some failed and attempts remain (the task retries). The
    row lock is held only to claim and to record: mail, webhooks and S3 are sent between,
    outside any transaction, so a slow receiver holds no lock."""
    claim = _claim(run_id)
    if isinstance(claim, str):
        return claim
    problems: dict[int, str | None] = {}
    for index, delivery in claim.pending:
        problem = _deliver_one(claim.run.schedule, claim.run, claim.job, delivery, index)
        problems[index] = problem
        if problem:
            logger.warning(
                "schedule run %s: %s delivery failed: %s", run_id, delivery["type"], problem
            )
    run = _record(claim, problems)
    if run.outcome == RunOutcome.DELIVERING:
        failed = sum(1 for r in run.delivery_results if r["status"] != "sent")
        raise DeliveriesPending(f"{failed} deliveries failed; attempt {run.delivery_attempts}")
    return str(run.outcome)
