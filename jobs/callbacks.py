"""Completion callbacks: one signed POST of the job's final event to its callback_url.

The Standard Webhooks scheme: a body `{type, timestamp, data}` (data is the job's state),
`webhook-id` (the same on every retry, like the older `Idempotency-Key: <job_id>:<status>`),
`webhook-timestamp` and `webhook-signature` (`v1,` + base64 HMAC-SHA256 of
`id.timestamp.body` with the submitting API key's `whsec_` secret; during a rotation's grace
both secrets sign). Delivered at least once; each POST is kept as a WebhookAttempt.
"""

from __future__ import annotations

import json
import logging
import random
import time
from urllib.parse import urlsplit
from uuid import UUID

import httpx
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.services import webhook_signing_secrets
from accounts.tenancy import tenant_of_job
from core.leases import lease_count, lease_release, lease_take
from core.outbound import host_literal_allowed
from jobs.links import with_links
from jobs.live.events import job_event_payload
from jobs.metrics import WEBHOOK_DELIVERIES
from jobs.models import TERMINAL_STATUSES, JobStatus, PdfJob, WebhookAttempt, WebhookDelivery
from jobs.outgoing_webhooks import callback_post, signed_headers
from jobs.result_webhook import result_webhook_of, result_webhook_request, result_webhook_target
from jobs.webhook_transport import WebhookRefused, resolve_checked

logger = logging.getLogger(__name__)


class CallbackError(Exception):
    """The receiver did not take the callback; worth another try."""


class CallbackDeferred(Exception):
    """The tenant already has its share of the callback threads busy (or its receivers are
    slow): try again after `seconds`, without counting an attempt."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"deferred {seconds:.1f} s")
        self.seconds = seconds


def _slow_key(tenant_id: int) -> str:
    return f"callbacks-slow:tenant:{tenant_id}"


def _tenant_share(tenant_id: int) -> int:
    """Deliveries the tenant may have in progress at once: one while its receivers are
    slow (an attempt timed out lately), else CALLBACK_MAX_CONCURRENT_PER_TENANT."""
    slow = lease_count(name=_slow_key(tenant_id)) > 0
    return 1 if slow else settings.CALLBACK_MAX_CONCURRENT_PER_TENANT


def _deferral(tenant_id: int) -> float:
    # Slow tenants are pushed further back; jitter so deferred deliveries spread out.
    base = settings.CALLBACK_TIMEOUT_SECONDS
    if lease_count(name=_slow_key(tenant_id)) > 0:
        base *= 3
    return random.uniform(base / 2, base)  # noqa: S311 - jitter, not security


def callback_url_check(url: str, *, resolve: bool = True) -> str | None:
    """Why this URL may not receive callbacks, or None if it may. `resolve=False` (a
    submit, in the web process) checks only what the URL itself says: a host name is
    looked up by the callbacks worker just before it connects, so a web request never
    waits on a tenant's DNS nor tells it which internal names exist."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return "callback_url must be an http(s) URL with a host."
    if settings.CALLBACK_REQUIRE_HTTPS and parts.scheme.lower() != "https":
        return "callback_url must be an https URL (CALLBACK_REQUIRE_HTTPS)."
    if settings.CALLBACK_ALLOW_PRIVATE_NETWORKS:
        return None
    host = parts.hostname.rstrip(".").lower()
    if not resolve:
        allowed = host_literal_allowed(host)
        return None if allowed else f"callback_url host {host!r} is not a public address."
    try:
        resolve_checked(parts.hostname, parts.port or 443, allow_private=False)
    except WebhookRefused as exc:
        return str(exc).replace("callback host", "callback_url host")
    return None


EVENT_TYPES = {
    JobStatus.COMPLETED: "job.completed",
    JobStatus.FAILED: "job.failed",
    JobStatus.CANCELLED: "job.cancelled",
}


def _delivery_for(job: PdfJob) -> WebhookDelivery:
    """The job's delivery of its final event: made once, with its id and body frozen, so
    every retry sends the same bytes under the same webhook-id."""
    event_type = EVENT_TYPES[JobStatus(job.status)]
    existing = WebhookDelivery.objects.filter(job=job, event_type=event_type).first()
    if existing is not None:
        return existing
    result = result_webhook_of(job)
    if result is not None:  # asked the Gotenberg way: the PDF itself, or the error
        url, payload = result_webhook_target(job, result)
    else:
        state = with_links(job_event_payload(job), lambda path: f"{settings.PUBLIC_BASE_URL}{path}")
        body = {"type": event_type, "timestamp": state["completed_at"], "data": state}
        url, payload = job.callback_url, json.dumps(body)
    delivery, _ = WebhookDelivery.objects.get_or_create(
        job=job, event_type=event_type, defaults={"url": url, "payload": payload}
    )
    return delivery


def callback_deliver(*, job_id: UUID | str) -> bool:
    """POST the job's final event, signed. True once delivered (or nothing to deliver);
    raises CallbackError for a retry while attempts remain, else records the error."""
    job = PdfJob.objects.select_related("api_key", "owner").filter(job_id=job_id).first()
    if (
        job is None
        or not job.callback_url
        or job.callback_sent_at is not None
        or job.status not in TERMINAL_STATUSES
        or job.callback_attempts >= settings.CALLBACK_MAX_ATTEMPTS
    ):
        return True
    # One tenant's receivers never hold more than its share of the callback threads: a
    # tarpit keeps one thread (for at most CALLBACK_TIMEOUT_SECONDS), not all of them.
    tenant_id = tenant_of_job(job)
    lease = f"callbacks:tenant:{tenant_id}"
    token = lease_take(
        name=lease, limit=_tenant_share(tenant_id), seconds=settings.CALLBACK_TIMEOUT_SECONDS + 5
    )
    if token is None:
        WEBHOOK_DELIVERIES.labels(outcome="deferred").inc()
        raise CallbackDeferred(_deferral(tenant_id))
    try:
        PdfJob.objects.filter(pk=job.pk).update(callback_attempts=F("callback_attempts") + 1)
        delivery = _delivery_for(job)
        started = time.monotonic()
        problem = webhook_attempt(delivery, job=job)
        if time.monotonic() - started >= settings.CALLBACK_SLOW_SECONDS:
            # Slow receivers: the tenant gets one thread for CALLBACK_SLOW_BACKOFF_SECONDS.
            lease_take(
                name=_slow_key(tenant_id), limit=1, seconds=settings.CALLBACK_SLOW_BACKOFF_SECONDS
            )
    finally:
        lease_release(name=lease, token=token)
    if problem is None:  # the job was marked sent with its attempt (webhook_attempt)
        WEBHOOK_DELIVERIES.labels(outcome="delivered").inc()
        return True
    PdfJob.objects.filter(pk=job.pk).update(callback_error=problem[:2000])
    if job.callback_attempts + 1 < settings.CALLBACK_MAX_ATTEMPTS:
        WEBHOOK_DELIVERIES.labels(outcome="retry").inc()
        raise CallbackError(problem)
    WEBHOOK_DELIVERIES.labels(outcome="gave_up").inc()
    logger.warning("gave up on the callback of job %s: %s", job.job_id, problem)
    return False


def webhook_attempt(delivery: WebhookDelivery, *, job: PdfJob, resend: bool = False) -> str | None:
    """One signed POST of the delivery, recorded as an attempt; None if the receiver took
    it, else what went wrong. Also what the admin's resend calls: a resend marks the job
    sent anew, a first delivery only a job not yet marked."""
    secrets = webhook_signing_secrets(key=job.api_key) if job.api_key else []
    problem = callback_url_check(delivery.url)
    status_code: int | None = None
    started = time.monotonic()
    method, content = "POST", delivery.payload.encode()
    headers = {
        "Content-Type": "application/json",
        "Idempotency-Key": f"{job.job_id}:{job.status}",
        "User-Agent": "pdf-report-service/1",
        **signed_headers(message_id=delivery.message_id, body=delivery.payload, secrets=secrets),
    }
    if problem is None and (result := result_webhook_of(job)) is not None:
        # The signature covers the JSON event only; a Gotenberg receiver gets the PDF.
        try:
            method, content, sent = result_webhook_request(job, result, delivery.payload)
        except OSError as exc:  # the stored PDF could not be read: worth another try
            problem = f"the PDF could not be read: {type(exc).__name__}"
        else:
            headers = {k: v for k, v in headers.items() if not k.startswith("webhook-")}
            headers |= sent
    if problem is None:
        try:
            # Connects to the address it checked, without proxies, reading at most
            # CALLBACK_MAX_RESPONSE_BYTES within one deadline for the whole exchange.
            response = callback_post(delivery.url, method=method, content=content, headers=headers)
            status_code = response.status_code
            problem = None if 200 <= status_code < 300 else f"HTTP {status_code}"
        except WebhookRefused as exc:
            problem = str(exc)
        except TimeoutError:
            problem = f"no complete answer within {settings.CALLBACK_TIMEOUT_SECONDS} s"
        except (httpx.HTTPError, OSError) as exc:
            problem = f"{type(exc).__name__}: {exc}"
    # The attempt, the delivery's and the job's "sent" in one commit: whoever reads the
    # 2xx attempt (the admin, a test) reads the job as sent too, never one without the other.
    with transaction.atomic():
        WebhookAttempt.objects.create(
            delivery=delivery,
            status_code=status_code,
            error=(problem or "")[:2000],
            duration_ms=int((time.monotonic() - started) * 1000),
        )
        if problem is None:
            now = timezone.now()
            WebhookDelivery.objects.filter(pk=delivery.pk, delivered_at__isnull=True).update(
                delivered_at=now
            )
            marked = PdfJob.objects.filter(pk=job.pk)
            if not resend:
                marked = marked.filter(callback_sent_at__isnull=True)
            marked.update(callback_sent_at=now, callback_error="")
    return problem


def webhook_resend(*, delivery_id: int) -> str | None:
    """Send a delivery once more (an operator's resend), with the same webhook-id and body
    and a fresh timestamp and signature; None if the receiver took it."""
    delivery = WebhookDelivery.objects.select_related("job__api_key").get(pk=delivery_id)
    return webhook_attempt(delivery, job=delivery.job, resend=True)
