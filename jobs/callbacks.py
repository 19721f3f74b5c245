"""Completion callbacks: one POST of the job's final state to its callback_url.

Delivered at least once and marked sent once; receivers dedupe on the Idempotency-Key
header (`<job_id>:<status>`), which is the same on every retry of the same callback.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
from urllib.parse import urlsplit
from uuid import UUID

import httpx
from django.conf import settings
from django.db.models import F
from django.utils import timezone

from jobs.links import with_links
from jobs.live.events import job_event_payload
from jobs.models import TERMINAL_STATUSES, PdfJob

logger = logging.getLogger(__name__)


class CallbackError(Exception):
    """The receiver did not take the callback; worth another try."""


def callback_url_check(url: str) -> str | None:
    """Why this URL may not receive callbacks, or None if it may."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return "callback_url must be an http(s) URL with a host."
    if settings.CALLBACK_ALLOW_PRIVATE_NETWORKS:
        return None
    try:
        infos = socket.getaddrinfo(parts.hostname, parts.port or 443, proto=socket.IPPROTO_TCP)
    except OSError:
        return f"callback_url host {parts.hostname!r} does not resolve."
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        mapped = getattr(address, "ipv4_mapped", None) or address
        if not mapped.is_global:
            return f"callback_url host {parts.hostname!r} is not a public address."
    return None


def callback_deliver(*, job_id: UUID | str) -> bool:
    """POST the job's final state. True once delivered (or nothing to deliver); raises
    CallbackError for a retry while attempts remain, else records the error."""
    job = PdfJob.objects.filter(job_id=job_id).first()
    if (
        job is None
        or not job.callback_url
        or job.callback_sent_at is not None
        or job.status not in TERMINAL_STATUSES
        or job.callback_attempts >= settings.CALLBACK_MAX_ATTEMPTS
    ):
        return True
    PdfJob.objects.filter(pk=job.pk).update(callback_attempts=F("callback_attempts") + 1)
    body = with_links(job_event_payload(job), lambda path: f"{settings.PUBLIC_BASE_URL}{path}")
    problem = callback_url_check(job.callback_url)
    if problem is None:
        try:
            response = httpx.post(
                job.callback_url,
                content=json.dumps(body),
                headers={
                    "Content-Type": "application/json",
                    "Idempotency-Key": f"{job.job_id}:{job.status}",
                    "User-Agent": "pdf-report-service/1",
                },
                timeout=settings.CALLBACK_TIMEOUT_SECONDS,
                follow_redirects=False,
            )
            problem = None if response.is_success else f"HTTP {response.status_code}"
        except httpx.HTTPError as exc:
            problem = f"{type(exc).__name__}: {exc}"
    if problem is None:
        PdfJob.objects.filter(pk=job.pk, callback_sent_at__isnull=True).update(
            callback_sent_at=timezone.now(), callback_error=""
        )
        return True
    PdfJob.objects.filter(pk=job.pk).update(callback_error=problem[:2000])
    if job.callback_attempts + 1 < settings.CALLBACK_MAX_ATTEMPTS:
        raise CallbackError(problem)
    logger.warning("gave up on the callback of job %s: %s", job.job_id, problem)
    return False
