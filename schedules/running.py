"""A claimed run carried out: its data (stored, or fetched from data_url under the webhook
rules, with a deadline and a size cap), then an ordinary job submitted with it. Whatever
goes wrong is the run's recorded failure, never an exception out of the worker."""

from __future__ import annotations

import json
import logging
from typing import Any
from uuid import UUID

import httpx
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from jobs.services import job_create
from jobs.webhook_transport import WebhookRefused, outbound_get
from rendering.errors import ApplicationError
from schedules.cron import ScheduleInvalid
from schedules.models import RunOutcome, ScheduleRun
from schedules.validation import data_url_check

logger = logging.getLogger(__name__)


class DataFetchFailed(Exception):
    """The run's data could not be had; the message says why, for the run's error."""


def data_fetch(url: str) -> dict[str, Any]:
    """The JSON object at `url`: checked address, SCHEDULE_DATA_TIMEOUT_SECONDS for the
    whole exchange, at most SCHEDULE_DATA_MAX_BYTES."""
    try:
        data_url_check(url)
    except ScheduleInvalid as exc:
        raise DataFetchFailed(exc.message) from None
    cap = settings.SCHEDULE_DATA_MAX_BYTES
    deadline = settings.SCHEDULE_DATA_TIMEOUT_SECONDS
    try:
        response = outbound_get(
            url,
            deadline_seconds=deadline,
            max_bytes=cap,
            allow_private=settings.CALLBACK_ALLOW_PRIVATE_NETWORKS,
        )
    except WebhookRefused as exc:
        raise DataFetchFailed(f"data_url: {str(exc).replace('callback host', 'host')}") from None
    except TimeoutError:
        raise DataFetchFailed(f"data_url: no complete answer within {deadline} s.") from None
    except (httpx.HTTPError, OSError) as exc:
        raise DataFetchFailed(f"data_url: {type(exc).__name__}: {exc}") from None
    if not 200 <= response.status_code < 300:
        raise DataFetchFailed(f"data_url answered HTTP {response.status_code}.")
    if len(response.body) > cap:
        raise DataFetchFailed(f"data_url: the answer is larger than {cap} bytes.")
    try:
        data = json.loads(response.body)
    except ValueError:
        raise DataFetchFailed("data_url: the answer is not JSON.") from None
    if not isinstance(data, dict):
        raise DataFetchFailed("data_url: the answer is not a JSON object.")
    return data


def _fail(run_id: UUID | str, error: str) -> None:
    ScheduleRun.objects.filter(run_id=run_id, outcome=RunOutcome.STARTING).update(
        outcome=RunOutcome.FAILED, error=error[:2000], finished_at=timezone.now()
    )


def schedule_run_start(*, run_id: UUID | str) -> ScheduleRun | None:
    """Fetch the run's data and submit its job; None if the run is not starting (done by
    another message already)."""
    run = (
        ScheduleRun.objects.select_related(
            "schedule__template", "schedule__workspace", "schedule__created_by", "schedule__api_key"
        )
        .filter(run_id=run_id, outcome=RunOutcome.STARTING)
        .first()
    )
    if run is None:
        return None
    schedule = run.schedule
    try:
        data = data_fetch(schedule.data_url) if schedule.data_url else schedule.data
    except DataFetchFailed as exc:
        _fail(run_id, str(exc))
        return run
    with transaction.atomic():
        # Locked: a second message for the same run waits, then finds it submitted.
        locked = ScheduleRun.objects.select_for_update().filter(pk=run.pk).first()
        if locked is None or locked.outcome != RunOutcome.STARTING:
            return locked
        try:
            job, _ = job_create(
                owner=schedule.created_by,
                workspace=schedule.workspace,
                template_slug=schedule.template.slug,
                data=data,
                api_key=schedule.api_key,
                # The run's id as the job's batch: GET jobs?batch_id=<run_id> finds it, and
                # the job's final transition knows without a query whether a run waits.
                batch_id=locked.run_id,
            )
        except ApplicationError as exc:
            # The fetched data fails the template's schema, a quota is full, the template
            # was archived: the run failed, with the message a submit would have answered.
            locked.outcome, locked.error = RunOutcome.FAILED, exc.message[:2000]
            locked.finished_at = timezone.now()
            locked.save(update_fields=["outcome", "error", "finished_at"])
            return locked
        locked.job, locked.outcome = job, RunOutcome.RENDERING
        locked.save(update_fields=["job", "outcome"])
    logger.info("schedule %s run %s submitted job %s", schedule.schedule_id, run_id, job.job_id)
    return locked
